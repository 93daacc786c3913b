//! What `heaplab run` prints reads back and tells its runs apart: `--json` saved and fed to
//! `--config` runs the same configs, and two runs of one preset get distinct headings.

mod common;

use common::{heaplab, json_of};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-reports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn what_json_prints_runs_again_as_a_config() {
    let run = [
        "run",
        "-w",
        "tree_churn",
        "--scale",
        "0.005",
        "-p",
        "glibc-like",
        "-p",
        "size-class:page_size=16KiB",
        "--json",
    ];
    let printed = heaplab(&run);
    let first = json_of(&printed);
    let saved = scratch("saved.json");
    std::fs::write(&saved, &printed.stdout).unwrap();
    let again = json_of(&heaplab(&[
        "run",
        "--config",
        saved.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(again, first);
    // One report alone reads back as well.
    let one = scratch("one.json");
    std::fs::write(&one, serde_json::to_string_pretty(&first[1]).unwrap()).unwrap();
    let again = json_of(&heaplab(&[
        "run",
        "--config",
        one.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(again[0], first[1]);
}

#[test]
fn a_bad_field_in_a_saved_file_names_its_own_line() {
    let printed = heaplab(&[
        "run", "-w", "churn", "--scale", "0.001", "-p", "bump", "--json",
    ]);
    let text = String::from_utf8(printed.stdout).unwrap();
    // Put a stray field on the line where the first config's workload opens.
    let (line, _) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("\"workload\": {"))
        .unwrap();
    let broken = text.replacen("\"workload\": {", "\"workload\": {\"bogus\": 1, ", 1);
    let path = scratch("broken.json");
    std::fs::write(&path, broken).unwrap();
    let out = heaplab(&["run", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("unknown field `bogus`"), "{message}");
    assert!(
        message.contains(&format!("broken.json:{}:", line + 1)),
        "{message}"
    );
}

#[test]
fn two_runs_of_one_preset_have_distinct_headings() {
    let out = heaplab(&[
        "run",
        "-w",
        "browser",
        "--scale",
        "0.02",
        "-p",
        "glibc-like",
        "-p",
        "glibc-like:release_free_pages=immediate",
        "-p",
        "size-class:page_size=16KiB",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().nth(2).unwrap_or_default();
    for heading in [
        "glibc-like ",
        "glibc-like (release_free_pages=immediate)",
        "size-class (page_size=16 KiB)",
    ] {
        assert!(header.contains(heading), "{heading:?} is not in {header:?}");
    }
}

/// Counters are shown for the policy that keeps them, and never made up for one that does
/// not: glibc-like's would only repeat its live blocks and bytes under Pike's names.
#[test]
fn counters_are_the_pools_own_and_absent_elsewhere() {
    let args = ["run", "-w", "short_strings", "--scale", "0.2"];
    let glibc = json_of(&heaplab(
        &[&args[..], &["-p", "glibc-like", "--json"]].concat(),
    ));
    assert_eq!(glibc[0]["counters"], serde_json::json!({}));
    let pool = json_of(&heaplab(
        &[&args[..], &["-p", "pike-block", "--json"]].concat(),
    ));
    let counters = &pool[0]["counters"];
    for name in [
        "num_malloc",
        "malloc_bytes",
        "malloc_block_bytes",
        "num_blocks",
        "block_bytes",
        "free_block_bytes",
    ] {
        assert!(counters[name].is_u64(), "{name} missing from {counters}");
    }
    // The pool's blocks in use are its share of the live blocks, so fewer than all.
    let live = pool[0]["allocs"].as_u64().unwrap() - pool[0]["frees"].as_u64().unwrap();
    assert!(counters["num_blocks"].as_u64().unwrap() < live);

    let table = |policy: &str| {
        let out = heaplab(&[&args[..], &["-p", policy]].concat());
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(!table("glibc-like").contains("Allocator counters"));
    let both = table("pike-block");
    assert!(both.contains("Allocator counters") && both.contains("free_block_bytes"));
}

#[test]
fn every_json_report_names_its_schema_first() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/teach/small.trace");
    let small = ["-w", "tree_churn", "--scale", "0.002"];
    // Each command's `--json`, and where its report objects are: the top level, or each
    // element of the array it prints (the arrays stay arrays).
    let commands: [(&[&str], bool); 11] = [
        (&["run", "-p", "bump", "-p", "buddy"], true),
        (&["explain", "-w", trace, "-p", "buddy"], true),
        (&["blame", "-w", trace, "-p", "buddy", "--at", "3"], false),
        (
            &["sweep", "-p", "bump", "--vary", "slab_size=4K,64K"],
            false,
        ),
        (
            &[
                "compare",
                "bump",
                "buddy",
                "--workloads",
                "tree_churn",
                "--scale",
                "0.002",
            ],
            false,
        ),
        (&["scenario", "share-small-large"], false),
        (&["policies"], false),
        (&["workloads"], false),
        (&["scenarios"], false),
        (&["run", "-p", "size-class", "-w", trace], true),
        (
            &[
                "sweep",
                "-p",
                "buddy",
                "--vary",
                "min_block=16,32",
                "-w",
                trace,
            ],
            false,
        ),
    ];
    for (args, array) in commands {
        let mut full: Vec<&str> = args.to_vec();
        let takes_small = matches!(args[0], "run" | "sweep") && !args.contains(&"-w");
        if takes_small {
            full.extend(small);
        }
        full.push("--json");
        let printed = heaplab(&full);
        let v = json_of(&printed);
        let objects: Vec<&serde_json::Value> = if array {
            v.as_array().expect("an array").iter().collect()
        } else {
            vec![&v]
        };
        assert!(!objects.is_empty(), "{full:?}");
        for o in objects {
            assert_eq!(o["schema"], 1, "{full:?}: {o}");
        }
        // The schema comes first in the text too, before any field of the report.
        let text = String::from_utf8_lossy(&printed.stdout);
        let first_key = text.split('"').nth(1);
        assert_eq!(first_key, Some("schema"), "{full:?}");
    }
}

/// A table with a model that was never checked against its real allocator says so in one
/// line naming it, and a table of checked models (glibc-like, mimalloc-like, jemalloc-like)
/// or textbook policies says nothing of the kind.
#[test]
fn a_table_names_the_uncalibrated_models_it_shows() {
    let run = |policies: &[&str]| {
        let mut args = vec!["run", "-w", "tree_churn", "--scale", "0.02"];
        for p in policies {
            args.extend(["-p", p]);
        }
        let out = heaplab(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let marked = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("Uncalibrated:"))
            .map(str::to_owned)
            .collect()
    };
    let mixed = run(&[
        "glibc-like",
        "rpmalloc-like",
        "snmalloc-like:page_size=16KiB",
    ]);
    let lines = marked(&mixed);
    assert_eq!(lines.len(), 1, "{mixed}");
    assert!(
        lines[0].starts_with(
            "Uncalibrated: rpmalloc-like and snmalloc-like model rpmalloc and snmalloc, but their \
             memory at end has not been checked"
        ),
        "{}",
        lines[0]
    );
    assert!(!lines[0].contains("glibc-like"), "{}", lines[0]);
    assert_eq!(
        marked(&run(&[
            "glibc-like",
            "mimalloc-like",
            "jemalloc-like",
            "buddy"
        ])),
        Vec::<String>::new()
    );
}
