//! The model's clock from the command line: a trace's time marks give a run its time,
//! `--clock rate=<ns>` a pace of its own, and a clock that cannot be is refused with the
//! flag named.

mod common;

use common::{heaplab, json_of};

/// A trace of 300 events with a mark before every hundredth, 1 ms apart.
fn marked_trace(dir: &std::path::Path) -> String {
    let mut text = String::new();
    for i in 0..150u64 {
        if i % 50 == 0 {
            text.push_str(&format!("t {}\n", i / 50 * 1_000_000));
        }
        text.push_str(&format!("a {i} {}\nf {i}\n", 16 + i * 8));
    }
    let path = dir.join("marked.trace");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn scratch(test: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("heaplab-clock-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_marked_trace_runs_on_its_own_clock_and_says_so() {
    let dir = scratch("marks");
    let trace = marked_trace(&dir);
    let json = json_of(&heaplab(&[
        "run",
        "-w",
        &trace,
        "-p",
        "mimalloc-like",
        "--json",
    ]));
    let summary = &json[0];
    assert_eq!(summary["events"], 300);
    assert_eq!(
        summary["time"],
        serde_json::json!({"clock": "trace", "elapsed_ns": 2_000_000, "marks": 3})
    );
    let out = heaplab(&["run", "-w", &trace, "-p", "mimalloc-like"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("model time: 2 ms, on the trace's clock (3 marks)"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_rate_sets_the_pace_and_travels_with_the_config() {
    let dir = scratch("rate");
    let trace = marked_trace(&dir);
    let json = json_of(&heaplab(&[
        "run", "-w", &trace, "-p", "buddy", "--clock", "rate=350", "--json",
    ]));
    // 300 events at 350 ns each; the marks are read and counted, not followed.
    assert_eq!(
        json[0]["time"],
        serde_json::json!({"clock": "rate=350", "elapsed_ns": 105_000, "marks": 3})
    );
    assert_eq!(json[0]["config"]["clock"], "rate=350");
    // The printed config runs again with the same clock.
    let config = dir.join("again.json");
    std::fs::write(&config, serde_json::to_string(&json).unwrap()).unwrap();
    let again = json_of(&heaplab(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(again[0]["time"], json[0]["time"]);
    // A built-in workload without marks runs on a rate too.
    let churn = json_of(&heaplab(&[
        "run", "-w", "churn", "--scale", "0.001", "-p", "buddy", "--clock", "rate=2", "--json",
    ]));
    let events = churn[0]["events"].as_u64().unwrap();
    assert_eq!(churn[0]["time"]["elapsed_ns"].as_u64(), Some(2 * events));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_clock_that_cannot_be_is_refused_with_the_flag_named() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "-w", "churn", "-p", "buddy", "--clock", "wall"],
            "error: --clock: unknown clock \"wall\"; expected `trace` (the trace's time marks), `rate=<ns per event>`, `real` (a real run's time, with --real) or `events` (no time: delays count events)\n",
        ),
        (
            &["run", "-w", "churn", "-p", "buddy", "--clock", "real"],
            "error: clock: `real` is the time a real run of the same events took, and only a real run has it: add --real (heaplab run --real), or give `trace` or `rate=<ns per event>`\n",
        ),
        (
            &["run", "-w", "churn", "-p", "buddy", "--clock", "rate=0"],
            "error: --clock: rate 0 ns per event is outside 0 (excluded) to 1e9 (one event a second)\n",
        ),
        (
            &["run", "-w", "churn", "-p", "buddy", "--clock", "trace"],
            "error: --clock: `trace` runs on a trace's time marks, and the built-in workload churn has none; give `rate=<ns per event>`\n",
        ),
    ];
    for (args, message) in cases {
        let out = heaplab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), message, "{args:?}");
    }
}

/// `--clock trace` on a trace file without marks is refused once the file is read, with
/// the config field named (a file's `clock` gives it as well as the flag), rather than
/// run with every event at 0.
#[test]
fn a_trace_clock_needs_a_trace_with_marks() {
    let dir = std::env::temp_dir().join(format!("heaplab-clock-plain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plain.trace");
    std::fs::write(&path, "a 1 64\nf 1\n").unwrap();
    let path = path.to_str().unwrap();
    let out = heaplab(&["run", "-w", path, "-p", "buddy", "--clock", "trace"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: clock: `trace` runs on the trace's time marks (`t <ns>` lines), and this \
         trace has none; give `rate=<ns per event>` instead\n"
    );
    let out = heaplab(&[
        "run", "-w", path, "-p", "buddy", "--clock", "rate=5", "--json",
    ]);
    assert_eq!(json_of(&out)[0]["time"]["elapsed_ns"], 10);
    std::fs::remove_dir_all(dir).ok();
}

/// A link made with `--clock` opens a run on the same clock, as the page and
/// `run --link` both read it.
#[test]
fn a_link_keeps_the_clock() {
    let out = heaplab(&[
        "link",
        "-w",
        "churn",
        "--scale",
        "0.001",
        "-p",
        "jemalloc-like",
        "--clock",
        "rate=350",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let v = json_of(&heaplab(&["run", "--link", &url, "--json"]));
    assert_eq!(v[0]["time"]["clock"], "rate=350", "{v:#}");
    let events = v[0]["events"].as_u64().unwrap();
    assert_eq!(v[0]["time"]["elapsed_ns"], 350 * events);
}

/// `run --real --clock real`: the policy's delays follow the wall clock of its run over
/// real memory, the model replays that run's marks and still equals it page by page, and
/// the time reaches the policy: a 1 ms purge delay gives back more than an hour's on the
/// same run, which without a clock (delays counted in events) would make no difference.
#[test]
fn a_real_run_lends_the_model_its_own_clock() {
    if !cfg!(target_os = "linux") {
        println!("skipped: real memory runs on Linux here");
        return;
    }
    let run = |decommit_ms: &str| {
        let json = json_of(&heaplab(&[
            "run",
            "--real",
            "--repeat",
            "2",
            "--clock",
            "real",
            "-w",
            "tree_churn",
            "-p",
            "mimalloc2-like",
            "--set",
            &format!("decommit_ms={decommit_ms}"),
            "--json",
        ]));
        json[0].clone()
    };
    let (quick, slow) = (run("1"), run("3600000"));
    for r in [&quick, &slow] {
        assert_eq!(r["time"]["clock"], "real", "{r:#}");
        assert_eq!(r["matches_simulation"], true, "{r:#}");
        assert_eq!(r["max_residency_mismatch_pages"], 0, "{r:#}");
        // The first timed run told the time: its last mark is no later than its end.
        let events = r["events"].as_f64().unwrap();
        let first_run_ns = r["ns_per_event_runs"][0].as_f64().unwrap() * events;
        let elapsed = r["time"]["elapsed_ns"].as_f64().unwrap();
        assert!(
            elapsed > 0.0 && elapsed <= first_run_ns,
            "{elapsed} against {first_run_ns}"
        );
        // At most one mark per 100 µs, and more than one over a run of milliseconds.
        let marks = r["time"]["marks"].as_f64().unwrap();
        assert!(
            marks >= 2.0 && marks <= 1.0 + elapsed / 100_000.0,
            "{marks} marks"
        );
    }
    let end = |r: &serde_json::Value| r["end_resident_bytes"].as_u64().unwrap();
    assert!(
        end(&quick) < end(&slow),
        "a 1 ms delay ended at {} bytes, an hour's at {}",
        end(&quick),
        end(&slow)
    );
    let text = String::from_utf8(
        heaplab(&[
            "run",
            "--real",
            "--repeat",
            "1",
            "--clock",
            "real",
            "-w",
            "churn",
            "--scale",
            "0.01",
            "-p",
            "mimalloc-like",
        ])
        .stdout,
    )
    .unwrap();
    assert!(text.contains("on the real run's clock ("), "{text}");
}

/// A MallocBench port given no clock runs at the pace a real run of its events took, which
/// `heaplab workloads` states; `--clock rate=` overrides it, and `--clock events` takes the
/// time away so that delays count events, which changes what a time-driven preset holds.
#[test]
fn a_mallocbench_port_runs_at_its_real_pace_unless_told_otherwise() {
    let run = |clock: Option<&str>| {
        let mut args = vec![
            "run",
            "-w",
            "tree_churn",
            "--scale",
            "0.01",
            "-p",
            "mimalloc2-like",
            "--json",
        ];
        if let Some(clock) = clock {
            args.extend(["--clock", clock]);
        }
        json_of(&heaplab(&args))[0].clone()
    };
    let default = run(None);
    let events = default["events"].as_u64().unwrap();
    // tree_churn's declared pace, written out here: 110 ns per event.
    assert_eq!(
        default["time"],
        serde_json::json!({"clock": "rate=110", "elapsed_ns": 110 * events, "marks": 0})
    );
    // The same run as one given that rate, but for the config, which names the rate only
    // when it was given.
    let without_config = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("config");
        v
    };
    assert_eq!(
        without_config(run(Some("rate=110"))),
        without_config(default.clone())
    );
    let counted = run(Some("events"));
    assert_eq!(
        counted["time"],
        serde_json::json!({"clock": "events", "elapsed_ns": null, "marks": 0})
    );
    // At 110 ns an event the run lasts a few milliseconds, less than mimalloc 2.0's 25 ms
    // purge delay, so nothing is purged; counted in events (1,000), pages are.
    assert_eq!(default["decommit_ops"], 0, "{default:#}");
    assert!(counted["decommit_ops"].as_u64().unwrap() > 0, "{counted:#}");
    // Workloads that are not MallocBench ports have no pace of their own.
    let binary = json_of(&heaplab(&["run", "-w", "binary", "-p", "buddy", "--json"]));
    assert_eq!(binary[0]["time"]["clock"], serde_json::Value::Null);
    let listed = String::from_utf8(heaplab(&["workloads"]).stdout).unwrap();
    assert!(
        listed.contains(
            "  Clock: 110 ns per event unless --clock says otherwise, the pace of a real run \
             of its events (glibc)"
        ),
        "{listed}"
    );
}
