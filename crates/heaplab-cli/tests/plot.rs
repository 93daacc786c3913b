//! Every picture the CLI writes: `--plot FILE` on `run`, `scenario`, `compare` and `sweep`,
//! `compare --plot-dir` and `map`'s two maps. SVG or PNG by the extension, each SVG one XML
//! document with every run's curve or bars drawn in it, the chart's text in the file, and
//! an extension heaplab cannot write refused before anything runs.

mod common;
#[path = "../../heaplab-plot/tests/support/svg.rs"]
mod svg_check;

use common::{heaplab, json_of};

/// A run's curve has a point per sample of its series (a thousand or so); a legend's
/// swatch has two and a dash of a dashed curve a handful.
const CURVE: usize = 100;

/// Reads an SVG the CLI wrote, which must parse as one XML document.
fn read_svg(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    svg_check::parse(&path.display().to_string(), &text);
    text
}

/// Fails the test with the command's stderr unless it succeeded.
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

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
    let text = read_svg(&svg);
    let doc = svg_check::parse("run.svg", &text);
    for i in 0..2 {
        assert_eq!(svg_check::lines(&doc, i, CURVE), 1, "configuration {i}");
    }
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
    let text = read_svg(&svg);
    // Both configurations' resident curves in each workload's panel.
    let doc = svg_check::parse("scenario.svg", &text);
    for i in 0..2 {
        assert_eq!(svg_check::lines(&doc, i, CURVE), 2, "configuration {i}");
    }
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

#[test]
fn compare_draws_a_panel_per_workload_in_one_document() {
    let svg = scratch("compare.svg");
    let dir = scratch("compare-memory");
    let out = heaplab(&[
        "compare",
        "glibc-like",
        "mimalloc-like",
        "--workloads",
        "churn,medium",
        "--scale",
        "0.01",
        "--plot",
        svg.to_str().unwrap(),
        "--plot-dir",
        dir.to_str().unwrap(),
    ]);
    succeeded(&out);
    let text = read_svg(&svg);
    let doc = svg_check::parse("compare.svg", &text);
    // Per workload, each configuration's legend box and its five bars.
    for i in 0..2 {
        assert_eq!(svg_check::boxes(&doc, i), 2 * 6, "configuration {i}");
    }
    assert!(text.contains("churn: summary") && text.contains("medium: summary"));
    for workload in ["churn", "medium"] {
        let text = read_svg(&dir.join(format!("{workload}.svg")));
        let doc = svg_check::parse(workload, &text);
        for i in 0..2 {
            assert_eq!(svg_check::lines(&doc, i, CURVE), 1, "{workload}, {i}");
        }
    }
}

#[test]
fn sweep_draws_a_chart_per_metric_in_one_document() {
    let svg = scratch("sweep.svg");
    let out = heaplab(&[
        "sweep",
        "-p",
        "buddy",
        "--vary",
        "min_block=16..256",
        "-w",
        "churn",
        "--scale",
        "0.01",
        "--metric",
        "peak_resident_bytes",
        "--metric",
        "page_ops",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    succeeded(&out);
    let text = read_svg(&svg);
    // A line through the five values (16 to 256, doubling) in each metric's chart.
    let doc = svg_check::parse("sweep.svg", &text);
    assert_eq!(svg_check::lines(&doc, 0, 5), 2);
}

#[test]
fn map_writes_both_maps_as_documents() {
    let heap = scratch("heap.svg");
    let blocks = scratch("blocks.svg");
    let out = heaplab(&[
        "map",
        "-w",
        "churn",
        "--scale",
        "0.0005",
        "-p",
        "size-class",
        "--at",
        "212",
        "--heap-map",
        heap.to_str().unwrap(),
        "--block-map",
        blocks.to_str().unwrap(),
    ]);
    succeeded(&out);
    read_svg(&heap);
    read_svg(&blocks);
}
