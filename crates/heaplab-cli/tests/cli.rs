//! The `heaplab` binary, run the way the README says.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn heaplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args(args)
        .output()
        .expect("heaplab runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

const FIELDS: &[&str] = &[
    "events",
    "allocs",
    "frees",
    "reallocs",
    "peak_live_bytes",
    "end_live_bytes",
    "peak_committed_bytes",
    "end_committed_bytes",
    "peak_resident_bytes",
    "end_resident_bytes",
    "peak_reserved_bytes",
    "touched_bytes",
    "commit_ops",
    "decommit_ops",
    "committed_pages_total",
    "decommitted_pages_total",
    "metadata_bytes",
    "utilization",
];

#[test]
fn run_json_has_one_report_per_policy_with_the_stable_fields() {
    let out = heaplab(&[
        "run",
        "--workload",
        "churn",
        "--policy",
        "size-class",
        "--policy",
        "bump",
        "--scale",
        "0.001",
        "--json",
    ]);
    let v = json_of(&out);
    let runs = v.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        for f in FIELDS {
            assert!(r.get(f).is_some(), "missing {f} in {r}");
        }
        assert_eq!(r["allocs"], 7001);
        assert_eq!(r["config"]["workload"]["params"]["scale"], 0.001);
    }
    assert_eq!(runs[1]["config"]["policy"]["params"]["slab_size"], 4096);
}

#[test]
fn set_takes_units_and_the_config_records_it() {
    let out = heaplab(&[
        "run",
        "-w",
        "tree_churn",
        "-p",
        "bump",
        "--set",
        "slab_size=1MiB",
        "--set",
        "backing=pages",
        "--scale",
        "0.01",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v[0]["config"]["policy"]["params"]["slab_size"], 1 << 20);
    assert_eq!(v[0]["config"]["policy"]["params"]["backing"], "pages");
}

#[test]
fn bad_names_and_values_exit_2_and_list_what_is_valid() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "-w", "nope", "-p", "bump"],
            "churn, tree_churn, medium",
        ),
        (
            &["run", "-w", "churn", "-p", "nope"],
            "bump, free-list, size-class, buddy, pool",
        ),
        (
            &["run", "-w", "churn", "-p", "bump", "--set", "slab=3"],
            "slab_size",
        ),
        (
            &[
                "run",
                "-w",
                "churn",
                "-p",
                "free-list",
                "--set",
                "fit=worst",
            ],
            "best, bins, first, next",
        ),
        (
            &["run", "-w", "churn", "-p", "bump", "--page-size", "5000"],
            "provider.page_size",
        ),
        (
            &["run", "-w", "churn", "-p", "bump", "--scale", "-1"],
            "scale",
        ),
        (
            &["run", "-w", "missing.trace", "-p", "bump"],
            "missing.trace",
        ),
    ];
    for (args, needle) in cases {
        let out = heaplab(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_broken_trace_names_file_and_line() {
    let path = tmp("broken.trace");
    std::fs::write(&path, "# two good lines\na 1 16\nf 1\nf 1\n").unwrap();
    let out = heaplab(&["run", "-w", path.to_str().unwrap(), "-p", "free-list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("broken.trace:4: event 3: free of block id 1, which is not live"),
        "{err}"
    );
    std::fs::write(&path, "a 1 16\nq 2\n").unwrap();
    let out = heaplab(&["run", "-w", path.to_str().unwrap(), "-p", "free-list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.trace:2: unknown op `q`"), "{err}");
}

#[test]
fn an_exported_workload_replays_to_the_same_numbers() {
    let path = tmp("tree.trace");
    let out = heaplab(&[
        "export",
        "-w",
        "tree_churn",
        "--scale",
        "0.01",
        "--seed",
        "3",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let built_in = json_of(&heaplab(&[
        "run",
        "-w",
        "tree_churn",
        "--scale",
        "0.01",
        "--seed",
        "3",
        "-p",
        "free-list",
        "--json",
    ]));
    let replayed = json_of(&heaplab(&[
        "run",
        "-w",
        path.to_str().unwrap(),
        "-p",
        "free-list",
        "--json",
    ]));
    for f in FIELDS {
        assert_eq!(built_in[0][f], replayed[0][f], "{f}");
    }
    assert_eq!(built_in[0]["phases"], replayed[0]["phases"]);
}

#[test]
fn a_config_file_runs_exactly_what_the_json_output_recorded() {
    let first = json_of(&heaplab(&[
        "run",
        "-w",
        "medium",
        "--scale",
        "0.002",
        "-p",
        "size-class",
        "--set",
        "empty_pages=decommit",
        "--json",
    ]));
    let path = tmp("config.json");
    std::fs::write(&path, first[0]["config"].to_string()).unwrap();
    let again = json_of(&heaplab(&[
        "run",
        "--config",
        path.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(first, again);
    std::fs::write(&path, "{\"workload\": {\"id\": \"churn\"}, \"policy\": {\"family\": \"bump\", \"params\": {\"slab_size\": \"huge\"}}}").unwrap();
    let out = heaplab(&["run", "--config", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("policy.params.slab_size"), "{err}");
}

#[test]
fn listings_come_from_the_registry() {
    let v = json_of(&heaplab(&["policies", "--json"]));
    let ids: Vec<&str> = v["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["bump", "free-list", "size-class", "buddy", "pool"]);
    let v = json_of(&heaplab(&["workloads", "--json"]));
    assert!(v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["id"] == "tree_churn"));
    let out = heaplab(&["policies"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("slab_size"));
}

#[test]
fn the_example_trace_runs_in_every_family_and_shows_s1_in_miniature() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../workloads/examples/jit-arenas.trace"
    );
    for family in ["bump", "free-list", "size-class"] {
        let v = json_of(&heaplab(&["run", "-w", trace, "-p", family, "--json"]));
        assert_eq!(v[0]["phases"].as_array().unwrap().len(), 5, "{family}");
    }
    let end = |backing: &str| {
        let v = json_of(&heaplab(&[
            "run",
            "-w",
            trace,
            "-p",
            "bump",
            "--set",
            &format!("backing={backing}"),
            "--set",
            "unscoped=heap",
            "--json",
        ]));
        (
            v[0]["end_resident_bytes"].as_u64().unwrap(),
            v[0]["peak_resident_bytes"].as_u64().unwrap(),
        )
    };
    let (heap_end, heap_peak) = end("heap");
    let (pages_end, pages_peak) = end("pages");
    // Heap-backed slabs are stuck under the long-lived blocks; page-backed ones go back.
    assert!(
        heap_end >= 3 * pages_end,
        "heap {heap_end} vs pages {pages_end}"
    );
    assert!(
        heap_peak.abs_diff(pages_peak) * 10 <= heap_peak,
        "peaks {heap_peak} vs {pages_peak}"
    );
}

#[test]
fn presets_run_like_families_and_take_overrides() {
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.001",
        "-p",
        "glibc-like",
        "--set",
        "trim_threshold=1MiB",
        "--json",
    ]));
    let policy = &v[0]["config"]["policy"];
    assert_eq!(policy["preset"], "glibc-like");
    assert_eq!(policy["family"], "free-list");
    assert_eq!(policy["params"]["trim_threshold"], 1 << 20);
    assert_eq!(policy["params"]["dynamic_mmap_threshold"], true);
    let listed = json_of(&heaplab(&["policies", "--json"]));
    assert!(listed["presets"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["id"] == "llvm-bump"));
    let out = heaplab(&["run", "-w", "churn", "-p", "glibc-lke"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("presets: glibc-like"));
}

#[test]
fn a_policy_can_carry_its_own_settings() {
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.001",
        "-p",
        "glibc-like",
        "-p",
        "glibc-like:release_free_pages=immediate,top_pad=0",
        "--json",
    ]));
    assert_eq!(
        v[0]["config"]["policy"]["params"]["release_free_pages"],
        "never"
    );
    assert_eq!(
        v[1]["config"]["policy"]["params"]["release_free_pages"],
        "immediate"
    );
    assert_eq!(v[1]["config"]["policy"]["params"]["top_pad"], 0);
    let out = heaplab(&["run", "-w", "churn", "-p", "bump:slab=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("slab_size"));
}
