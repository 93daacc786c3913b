//! `--plot FILE` on `run` and `scenario`: SVG or PNG by the extension, the chart's text in
//! the file, and an extension heaplab cannot write refused before anything runs.

mod common;

use common::{heaplab, json_of};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn run_draws_memory_over_time_as_svg_and_png() {
    let svg = scratch("run.svg");
    let out = heaplab(&[
        "run",
        "-w",
        "browser",
        "--scale",
        "0.05",
        "-p",
        "glibc-like",
        "-p",
        "mimalloc-like",
        "--plot",
        svg.to_str().unwrap(),
        "--json",
    ]);
    // The plot comes beside the report, not instead of it.
    assert_eq!(json_of(&out).as_array().unwrap().len(), 2);
    let text = std::fs::read_to_string(&svg).unwrap();
    for wanted in [
        "browser: memory over time",
        "glibc-like",
        "mimalloc-like",
        "resident",
        "live",
        "events",
        "MiB",
    ] {
        assert!(text.contains(wanted), "{wanted} is not in the chart");
    }
    let png = scratch("run.png");
    let out = heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.01",
        "-p",
        "bump",
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // The IHDR chunk holds the width and height, big-endian, after the signature.
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(width, 1280);
}

#[test]
fn scenario_draws_a_chart_per_workload() {
    let svg = scratch("scenario.svg");
    let out = heaplab(&[
        "scenario",
        "share-small-large",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("share-small-large: medium"),
        "no panel for medium"
    );
    assert!(text.contains("share-small-large: big"), "no panel for big");
}

#[test]
fn a_file_heaplab_cannot_write_is_refused_before_the_run() {
    let jpg = scratch("run.jpg");
    let out = heaplab(&[
        "run",
        "-w",
        "churn",
        "-p",
        "bump",
        "--plot",
        jpg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains(".jpg") && message.contains(".svg or .png"),
        "{message}"
    );
    assert!(!jpg.exists());
    // Nothing ran: a table would be on standard output.
    assert!(out.stdout.is_empty());
}
