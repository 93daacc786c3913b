//! These tests run the `heaplab` binary the way the README says.

mod common;

use common::{heaplab, json_of};
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The fields every report of `run --json` holds: its layout's version and every figure
/// of the one list, by the names that list gives them.
fn fields() -> Vec<&'static str> {
    let mut fields = vec!["schema"];
    fields.extend(heaplab_core::metrics::keys());
    fields
}

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
        for f in fields() {
            assert!(r.get(f).is_some(), "missing {f} in {r}");
        }
        assert_eq!(r["schema"], 1);
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
            "--page-size: 5000 is not a supported page size",
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
fn run_takes_a_workload_and_policies_or_a_config_but_not_both() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "-p", "bump"], "--workload <WORKLOAD>"),
        (&["run", "-w", "churn"], "--policy <POLICY>"),
        (
            &["run", "--config", "c.json", "-w", "churn"],
            "'--config <CONFIG>' cannot be used with '--workload <WORKLOAD>'",
        ),
        (
            &["run", "--config", "c.json", "-p", "bump"],
            "'--config <CONFIG>' cannot be used with '--policy <POLICY>'",
        ),
    ];
    for (args, needle) in cases {
        let out = heaplab(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
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
        err.contains("broken.trace:4: double free of id 1 (freed at line 3)"),
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
    for f in fields() {
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
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("slab_size"));
    // A default of 0 that stands for a size worked out elsewhere says which.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("commit_granularity"))
        .unwrap();
    assert!(line.contains("default 0 (one page)"), "{line}");
    // Within a family the ranges start in one column, however long a default reads.
    let mut families = 0;
    for family in text.split("\n\n") {
        let columns: Vec<usize> = family
            .lines()
            .filter(|l| l.starts_with("    ") && !l.starts_with("     ") && l.contains(" default "))
            .map(|l| l.find(" [").unwrap())
            .collect();
        if columns.is_empty() {
            continue;
        }
        families += 1;
        assert!(columns.len() >= 3, "{family}");
        assert!(columns.windows(2).all(|w| w[0] == w[1]), "{family}");
    }
    // Every family lists its knobs so: a layout the filter above misses fails here.
    assert!(families >= heaplab_core::policy::FAMILIES.len(), "{text}");
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

/// A policy file's mistakes are reported with the file's name, and a `--set` given with it
/// still overrides what it says.
#[test]
fn a_policy_file_names_itself_in_its_errors() {
    let bad = |name: &str, text: &str, says: &str| {
        let path = tmp(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap().to_string();
        let out = heaplab(&["run", "-w", "churn", "--scale", "0.001", "-p", &path]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&format!("{path}: {says}")), "{stderr}");
        path
    };
    bad(
        "order-x.json",
        r#"{"family": "buddy", "params": {"max_order": "x"}}"#,
        "policy.params.max_order: \"x\" is not a whole number",
    );
    bad(
        "family.json",
        r#"{"family": "nosuch"}"#,
        "unknown policy \"nosuch\"",
    );
    bad(
        "preset.json",
        r#"{"preset": "nosuch"}"#,
        "unknown policy \"nosuch\"",
    );
    let path = bad(
        "order-40.json",
        r#"{"preset": "buddy", "params": {"max_order": 40}}"#,
        "policy.params.max_order: 40 is outside the allowed range 1..=30",
    );
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.001",
        "-p",
        &path,
        "--set",
        "max_order=20",
        "--json",
    ]));
    assert_eq!(v[0]["config"]["policy"]["params"]["max_order"], 20);
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

#[test]
fn rep_mtrace_and_gzip_traces_run_and_say_what_they_were() {
    let rep = tmp("short.rep");
    std::fs::write(
        &rep,
        "20000\n3\n8\n1\na 0 512\na 1 128\nr 0 640\na 2 128\nf 1\nr 0 768\nf 0\nf 2\n",
    )
    .unwrap();
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        rep.to_str().unwrap(),
        "-p",
        "free-list",
        "--json",
    ]));
    assert_eq!(v[0]["allocs"], 3);
    assert_eq!(v[0]["reallocs"], 2);
    assert_eq!(v[0]["trace"]["format"], "rep");
    assert_eq!(v[0]["trace"]["rep_header"], "2002");
    assert_eq!(v[0]["trace"]["gzip"], false);
    assert!(v[0].get("skipped").is_none(), "{v}");
    // The same trace gzip'd, under a name that says nothing, gives the same numbers.
    let gz = tmp("short-rep-data");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &std::fs::read(&rep).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let z = json_of(&heaplab(&[
        "run",
        "-w",
        gz.to_str().unwrap(),
        "-p",
        "free-list",
        "--json",
    ]));
    assert_eq!(z[0]["trace"]["gzip"], true);
    for f in fields() {
        assert_eq!(v[0][f], z[0][f], "{f}");
    }
    let mtrace = tmp("prog.mtrace");
    std::fs::write(
        &mtrace,
        "= Start\n@ ./prog:[0x4005d4] + 0x55a0 0x10\n@ ./prog:[0x4005e2] < 0x55a0\n@ ./prog:[0x4005e2] > 0x56d0 0x20\n- (nil)\n@ ./prog:[0x4005f0] - 0x56d0\n= End\n",
    )
    .unwrap();
    let out = heaplab(&["run", "-w", mtrace.to_str().unwrap(), "-p", "size-class"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(
            "(glibc mtrace, 7 lines, 1 free(NULL) as nothing, 0 realloc(NULL, n) as malloc)"
        ),
        "{text}"
    );
    for row in ["Allocations", "Frees", "Reallocations"] {
        let line = text.lines().find(|l| l.contains(row)).unwrap_or_default();
        assert!(
            line.trim_end_matches('│').trim_end().ends_with(" 1"),
            "{row}: {text}"
        );
    }
}

#[test]
fn free_null_and_realloc_null_run_and_are_counted_unless_strict() {
    let rep = tmp("nulls.rep");
    std::fs::write(&rep, "2\n6\na 0 16\nf -1\nr 1 32\nf 0\nf -1\nf 1\n").unwrap();
    let rep = rep.to_str().unwrap();
    let v = json_of(&heaplab(&["run", "-w", rep, "-p", "size-class", "--json"]));
    assert_eq!(v[0]["trace"]["null_frees"], 2);
    assert_eq!(v[0]["trace"]["null_reallocs"], 1);
    assert_eq!(v[0]["allocs"], 2);
    assert_eq!(v[0]["reallocs"], 0);
    assert_eq!(v[0]["frees"], 2);
    let out = heaplab(&["run", "-w", rep, "-p", "size-class"]);
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        first.contains("8 lines, 2 free(NULL) as nothing, 1 realloc(NULL, n) as malloc"),
        "{first}"
    );
    let strict = heaplab(&["run", "-w", rep, "-p", "size-class", "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&strict.stderr)
            .contains("nulls.rep:4: bad id \"-1\": expected a non-negative whole number"),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    let strict = heaplab(&["convert", rep, "-o", "-", "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    let converted = heaplab(&["convert", rep, "-o", "-"]);
    assert!(converted.status.success());
    let text = String::from_utf8_lossy(&converted.stdout);
    assert!(text.ends_with("a 0 16\na 1 32\nf 0\nf 1\n"), "{text}");
    if cfg!(target_os = "linux") {
        let real = json_of(&heaplab(&[
            "run",
            "-w",
            rep,
            "-p",
            "size-class",
            "--real",
            "--repeat",
            "1",
            "--json",
        ]));
        assert_eq!(real[0]["trace"]["null_frees"], 2);
        assert_eq!(real[0]["trace"]["null_reallocs"], 1);
    }
}

#[test]
fn lenient_skips_bad_events_and_counts_them() {
    let path = tmp("bad.trace");
    std::fs::write(&path, "a 1 16\nf 1\nf 1\nf 1\nq 7\na 2 32\nf 2\n").unwrap();
    let strict = heaplab(&["run", "-w", path.to_str().unwrap(), "-p", "bump"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&strict.stderr)
            .contains("bad.trace:3: double free of id 1 (freed at line 2)"),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        path.to_str().unwrap(),
        "-p",
        "bump",
        "--lenient",
        "--json",
    ]));
    assert_eq!(
        v[0]["skipped"],
        serde_json::json!({"unknown_op": 1, "double_free": 2})
    );
    assert_eq!(v[0]["allocs"], 2);
    assert_eq!(v[0]["frees"], 2);
    let table = heaplab(&[
        "run",
        "-w",
        path.to_str().unwrap(),
        "-p",
        "bump",
        "--lenient",
    ]);
    assert!(table.status.success());
    assert_eq!(
        String::from_utf8_lossy(&table.stderr).trim(),
        "lenient: skipped 3 bad lines or events: 1 unknown_op, 2 double_free"
    );
}

#[test]
fn lenient_without_a_trace_says_it_changes_nothing() {
    let out = heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.001",
        "-p",
        "bump",
        "--lenient",
    ]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "heaplab: --lenient applies to trace files, and no run here reads one"
    );
    // With a trace there is no such warning: the lenient test above sees stderr whole.
}

/// Five million events, gzip'd on disk, through the binary: its peak resident memory must
/// stay far below what the decoded events would take (~40 bytes each, 190 MiB), which it
/// can only do by streaming (the bound is 128 MiB). The case is this large in every run, so that a reader
/// holding the input fails here too, not only in CI.
#[cfg(target_os = "linux")]
#[test]
fn a_large_gzip_trace_streams_in_little_memory() {
    use std::io::{Read, Write};
    use std::process::Stdio;

    let events: u64 = 5_000_000;
    let path = tmp("large.trace.gz");
    {
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut w = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        // Block k lives for 1000 steps; ids are never reused.
        let mut written = 0;
        let mut k = 0u64;
        while written < events {
            writeln!(w, "a {k} {}", 16 + (k * 7919) % 1009).unwrap();
            written += 1;
            if k >= 1000 && written < events {
                writeln!(w, "f {}", k - 1000).unwrap();
                written += 1;
            }
            k += 1;
        }
        w.finish().unwrap().flush().unwrap();
    }
    // Reaped by the wait4 below, which clippy does not know about.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args([
            "run",
            "-w",
            path.to_str().unwrap(),
            "-p",
            "size-class",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    // wait4 rather than Child::wait: it also returns this child's own peak RSS.
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet waited for; both pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{stderr}"
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v[0]["events"], events);
    assert_eq!(v[0]["trace"]["gzip"], true);
    let peak_mib = usage.ru_maxrss as u64 / 1024;
    let decoded_mib = (events * 40) >> 20;
    eprintln!(
        "{events} events: peak RSS {peak_mib} MiB (decoded events would be ~{decoded_mib} MiB)"
    );
    // Alone it peaks near 28 MiB; beside the other tests of this binary the child's
    // figure has read up to 78 MiB, so the bound leaves room for that and still fails a
    // reader that holds the decoded events.
    assert!(peak_mib < 128, "peak RSS {peak_mib} MiB");
}

#[test]
fn every_example_trace_runs_strictly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../workloads/examples");
    let mut formats = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let v = json_of(&heaplab(&[
            "run",
            "-w",
            path.to_str().unwrap(),
            "-p",
            "free-list",
            "--json",
        ]));
        assert!(v[0]["events"].as_u64().unwrap() > 0, "{}", path.display());
        formats.push(v[0]["trace"]["format"].as_str().unwrap().to_string());
    }
    formats.sort();
    assert_eq!(formats, ["mtrace", "rep", "trace"]);
}

#[test]
fn convert_writes_a_trace_that_runs_to_the_same_numbers() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../workloads/examples");
    for input in ["strings.mtrace", "tiny-binary.rep"] {
        let input = format!("{examples}/{input}");
        let output = tmp("converted.trace");
        let out = heaplab(&["convert", &input, "-o", output.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&output).unwrap();
        assert!(
            text.starts_with("# heaplab trace: converted from"),
            "{text}"
        );
        let run = |w: &str| json_of(&heaplab(&["run", "-w", w, "-p", "free-list", "--json"]));
        let (original, converted) = (run(&input), run(output.to_str().unwrap()));
        assert_eq!(converted[0]["trace"]["format"], "trace");
        for f in fields() {
            assert_eq!(original[0][f], converted[0][f], "{input}: {f}");
        }
    }
    let bad = tmp("bad-convert.rep");
    std::fs::write(&bad, "2\n3\na 0 8\nf 1\nf 0\n").unwrap();
    let out = heaplab(&["convert", bad.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("bad-convert.rep:4: free of id 1, which was never allocated"));
    let out = heaplab(&["convert", bad.to_str().unwrap(), "-o", "-", "--lenient"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 unknown_id"));
}

#[test]
fn lenient_applies_to_a_trace_named_in_a_config_file() {
    let trace = tmp("config-bad.trace");
    std::fs::write(&trace, "a 1 16\nf 1\nf 1\n").unwrap();
    let config = tmp("trace-config.json");
    let json = serde_json::json!({
        "workload": {"id": "trace", "path": trace.to_str().unwrap()},
        "policy": {"family": "bump"},
    });
    std::fs::write(&config, json.to_string()).unwrap();
    let strict = heaplab(&["run", "--config", config.to_str().unwrap()]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&strict.stderr).contains("config-bad.trace:3: double free"));
    let v = json_of(&heaplab(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--lenient",
        "--json",
    ]));
    assert_eq!(v[0]["skipped"], serde_json::json!({"double_free": 1}));
}

/// A reader that goes away before the output is written (`heaplab policies | head -0`)
/// ends the listing quietly, as it ends `ls`, not with a panic about a broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    for args in [&["policies"][..], &["workloads", "--json"], &["scenarios"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_heaplab"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The read end closes before the child has started, so its first write fails.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        // Killed by SIGPIPE (13), or done before the pipe closed.
        assert!(
            out.status.signal() == Some(13) || out.status.success(),
            "{args:?}: {:?}",
            out.status
        );
    }
}

#[test]
fn an_empty_trace_runs_and_says_it_holds_no_events() {
    let dir = std::env::temp_dir().join(format!("heaplab-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("empty.trace", ""),
        ("comments.trace", "# a header only\n\n"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        for json in [false, true] {
            let mut args = vec!["run", "-w", path, "-p", "glibc-like"];
            if json {
                args.push("--json");
            }
            let out = heaplab(&args);
            assert!(out.status.success(), "{name}: {out:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                stderr.trim(),
                format!("heaplab: {path} holds no events: every figure is zero"),
                "{name}"
            );
            if json {
                assert_eq!(json_of(&out)[0]["events"], 0, "{name}");
            }
        }
    }
    // A trace with events says nothing of the kind.
    let path = dir.join("one.trace");
    std::fs::write(&path, "a 1 16\n").unwrap();
    let out = heaplab(&["run", "-w", path.to_str().unwrap(), "-p", "glibc-like"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    std::fs::remove_dir_all(&dir).unwrap();
}
