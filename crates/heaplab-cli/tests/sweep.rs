//! `heaplab sweep`: the same output on one core as on two, the figures of each point those
//! of `run --json` at that value, a link's sweep equal to the core's report built from the
//! page's runs, and bad `--vary` values refused with exit code 2 and the parameter named.

mod common;

use std::process::Command;

use common::{heaplab, json_of};

const SWEEP: &[&str] = &[
    "sweep",
    "-p",
    "bump",
    "--vary",
    "slab_size=4K..64K",
    "--vary",
    "scale=0.002,0.004",
    "-w",
    "churn",
];

fn on_threads(threads: &str, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args(SWEEP)
        .args(extra)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("heaplab runs")
}

#[test]
fn one_core_and_two_print_the_same() {
    for extra in [&[][..], &["--json"][..]] {
        let one = on_threads("1", extra);
        let two = on_threads("2", extra);
        assert!(
            one.status.success(),
            "{}",
            String::from_utf8_lossy(&one.stderr)
        );
        assert_eq!(one.stdout, two.stdout);
    }
}

#[test]
fn each_point_is_the_run_at_its_values() {
    let mut args = SWEEP.to_vec();
    args.push("--json");
    let sweep = json_of(&heaplab(&args));
    let points = sweep["points"].as_array().unwrap();
    assert_eq!(points.len(), 10);
    assert_eq!(sweep["params"][0]["size"], true);
    assert_eq!(sweep["params"][1]["target"], "workload");
    let point = &points[7];
    assert_eq!(point["values"], serde_json::json!([32768, 0.004]));
    let run = json_of(&heaplab(&[
        "run",
        "-p",
        "bump:slab_size=32K",
        "-w",
        "churn",
        "--scale",
        "0.004",
        "--json",
    ]));
    for (key, value) in point["metrics"].as_object().unwrap() {
        assert_eq!(&run[0][key], value, "{key}");
    }
}

/// A sweep link runs the sweep it was made from: `heaplab sweep --link` equals the same
/// sweep asked for with flags, and each point's figures equal a `heaplab run` of that
/// point, so the expected figures come from runs the link never touched.
#[test]
fn a_link_sweeps_as_the_sweep_it_was_made_from() {
    let flags = [
        "-p",
        "size-class",
        "--vary",
        "page_size=4K,16K,64K",
        "-w",
        "tree_churn",
        "--scale",
        "0.005",
    ];
    let mut link = vec!["link", "--sweep"];
    link.extend(flags);
    let out = heaplab(&link);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let printed = json_of(&heaplab(&["sweep", "--link", &url, "--json"]));
    let mut sweep = vec!["sweep"];
    sweep.extend(flags);
    sweep.push("--json");
    assert_eq!(printed, json_of(&heaplab(&sweep)));
    let points = printed["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for (point, size) in points.iter().zip([4096, 16384, 65536]) {
        assert_eq!(point["values"], serde_json::json!([size]));
        let set = format!("page_size={size}");
        let run = json_of(&heaplab(&[
            "run",
            "-p",
            "size-class",
            "--set",
            &set,
            "-w",
            "tree_churn",
            "--scale",
            "0.005",
            "--json",
        ]));
        for key in ["peak_resident_bytes", "end_resident_bytes", "page_ops"] {
            let want = &run[0][key];
            assert!(want.as_u64().is_some_and(|v| v > 0), "{set}: {key}");
            assert_eq!(&point["metrics"][key], want, "{set}: {key}");
        }
    }
}

#[test]
fn bad_values_name_the_parameter() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--vary", "slab_size=8..64"],
            "--vary slab_size: 8 is outside",
        ),
        (&["--vary", "slab=4K..8K"], "slab is a parameter of neither"),
        (&["--vary", "growth=4"], "not numeric"),
        (&["--vary", "slab_size"], "expected KEY=VALUES"),
        (&[], "--vary: give one parameter"),
    ];
    for (extra, wanted) in cases {
        let mut args = vec!["sweep", "-p", "bump", "-w", "churn"];
        args.extend_from_slice(extra);
        let out = heaplab(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
    let out = heaplab(&[
        "sweep",
        "-p",
        "bump",
        "-w",
        "churn",
        "--vary",
        "slab_size=4K",
        "--metric",
        "speed",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metric speed"));
}

/// The table and the plot of a small fixed sweep, as snapshots (`UPDATE_EXPECT=1`
/// rewrites them).
#[test]
fn a_small_sweep_prints_and_draws_as_before() {
    let dir = std::env::temp_dir().join(format!("heaplab-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("sweep.svg");
    let out = heaplab(&[
        "sweep",
        "-p",
        "bump",
        "--vary",
        "slab_size=4K,16K,64K",
        "--vary",
        "scale=0.001,0.002",
        "-w",
        "churn",
        "--metric",
        "peak_committed_bytes",
        "--metric",
        "page_ops",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    expect_test::expect_file!["snapshots/sweep-table.txt"]
        .assert_eq(&String::from_utf8(out.stdout).unwrap());
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("page_ops") || svg.contains("All page calls"));
    expect_test::expect_file!["snapshots/sweep.svg"].assert_eq(&svg);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `link --sweep --metric` carries every metric to the page's chart: the first as the
/// sweep's own, the rest under it; `sweep --link --plot` draws them all.
#[test]
fn a_link_carries_the_metrics_its_chart_plots() {
    let args = [
        "link",
        "--sweep",
        "-p",
        "bump",
        "--vary",
        "slab_size=4K,16K",
        "-w",
        "churn",
        "--scale",
        "0.002",
        "--metric",
        "page_ops",
        "--metric",
        "end_resident_bytes",
    ];
    let out = heaplab(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let state = heaplab_app::link::decode(&url).unwrap();
    let view = state.view.sweep.as_ref().unwrap();
    assert_eq!(view.metric, "page_ops");
    assert_eq!(view.also, ["end_resident_bytes"]);

    let dir = std::env::temp_dir().join(format!("heaplab-sweep-also-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("sweep.svg");
    let out = heaplab(&["sweep", "--link", &url, "--plot", plot.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.contains("bump on churn: All page calls"),
        "no page_ops chart"
    );
    assert!(
        svg.contains("Resident at end"),
        "no end_resident_bytes chart"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // A metric that does not exist is named before anything runs.
    let mut bad = args.to_vec();
    bad.push("--metric");
    bad.push("peak");
    let out = heaplab(&bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metric peak"));
}

/// `--metric` takes a figure at the end of a phase: resident bytes when the JIT's third
/// compile ended, each point's the phase figure of `run --json` at that value, drawn
/// under its own title; a phase the workload lacks is named with those it has.
#[test]
fn a_phase_figure_is_swept_and_plotted() {
    let dir = std::env::temp_dir().join(format!("heaplab-sweep-phase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("phase.svg");
    let args = [
        "sweep",
        "-p",
        "llvm-bump",
        "--vary",
        "slab_size=4K,64K",
        "-w",
        "jit",
        "--scale",
        "0.02",
        "--metric",
        "resident_bytes@compile 3",
    ];
    let mut with_plot = args.to_vec();
    with_plot.extend(["--json", "--plot", plot.to_str().unwrap()]);
    let sweep = json_of(&heaplab(&with_plot));
    let run = json_of(&heaplab(&[
        "run",
        "-p",
        "llvm-bump",
        "--set",
        "slab_size=64KiB",
        "-w",
        "jit",
        "--scale",
        "0.02",
        "--json",
    ]));
    let phase = run[0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == "compile 3")
        .unwrap()
        .clone();
    assert_eq!(
        sweep["points"][1]["metrics"]["resident_bytes@compile 3"],
        phase["resident_bytes"]
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("Resident at end of compile 3"));
    let mut missing = args.to_vec();
    *missing.last_mut().unwrap() = "resident_bytes@nope";
    let out = heaplab(&missing);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no phase \"nope\"") && err.contains("compile 3"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
