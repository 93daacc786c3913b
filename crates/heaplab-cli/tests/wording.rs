//! What the CLI says, word for word, where a newcomer reads it: a count of one in the
//! singular, counts with thousands separators, errors that name the flag the user typed
//! (and a config file's field where the value came from a file), a "did you mean" for a
//! misspelt name, and a Δ on every page-call row.

mod common;

use common::{heaplab, heaplab_in};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-wording-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The error a command printed, which must have exited with 2 (bad input).
fn refused(args: &[&str]) -> String {
    let out = heaplab(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    err
}

fn stdout_of(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_count_of_one_takes_the_singular() {
    let out = heaplab(&[
        "compare",
        "bump",
        "buddy",
        "--workloads",
        "churn",
        "--scale",
        "0.01",
    ]);
    assert_eq!(
        stdout_of(&out).lines().next(),
        Some("bump, buddy compared on 1 workload (scale 0.01); Δ: each column against bump")
    );
    let trace = scratch("one-bad.trace");
    std::fs::write(&trace, "a 1 16\nq 7\nf 1\n").unwrap();
    let out = heaplab(&[
        "run",
        "-w",
        trace.to_str().unwrap(),
        "-p",
        "bump",
        "--lenient",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "lenient: skipped 1 bad line or event: 1 unknown_op\n"
    );
    let trace = scratch("one-line.trace");
    std::fs::write(&trace, "a 1 16\n").unwrap();
    let out = heaplab(&["run", "-w", trace.to_str().unwrap(), "-p", "bump"]);
    assert!(
        stdout_of(&out).contains("(heaplab .trace, 1 line)"),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn baseline_prints_counts_with_thousands_separators() {
    let out = heaplab(&[
        "baseline", "-a", "system", "-w", "churn", "--scale", "0.1", "--repeat", "1",
    ]);
    let text = stdout_of(&out);
    let events: Vec<&str> = text
        .lines()
        .find(|l| l.contains(" events "))
        .unwrap_or_else(|| panic!("no events row: {text}"))
        .split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(events, ["events", "1,400,002"]);
}

#[test]
fn errors_name_the_flag_that_was_typed() {
    fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        [&["run", "-w", "churn", "-p", "bump"][..], extra].concat()
    }
    assert_eq!(
        refused(&with(&["--page-size", "3000"])),
        "error: --page-size: 3000 is not a supported page size; use one of [4096, 16384, 65536]\n"
    );
    assert_eq!(
        refused(&with(&["--scale", "0"])),
        "error: --scale: 0 is outside the allowed range 0.0001..=10\n"
    );
    assert_eq!(
        refused(&with(&["--seed", "x"])),
        "error: --seed: \"x\" is not a whole number\n"
    );
    assert_eq!(
        refused(&with(&["--wset", "scale=0"])),
        "error: --wset scale: 0 is outside the allowed range 0.0001..=10\n"
    );
    assert_eq!(
        refused(&with(&["--points", "1"])),
        "error: --points: 1 is outside the allowed range 2..=100000\n"
    );
    // A setting checked against another of the policy's, after each was read.
    assert_eq!(
        refused(&[
            "run",
            "-w",
            "churn",
            "-p",
            "size-class",
            "--set",
            "large_threshold=8M"
        ]),
        "error: --set large_threshold: 8388608 is more than half of segment_size 4194304\n"
    );
    assert!(refused(&["run", "-w", "nope", "-p", "bump"])
        .starts_with("error: --workload: unknown workload \"nope\"; built-in ones are: churn, "));
    assert_eq!(
        refused(&[
            "compare",
            "bump",
            "buddy",
            "--workloads",
            "churn",
            "--page-size",
            "3000"
        ]),
        "error: --page-size: 3000 is not a supported page size; use one of [4096, 16384, 65536]\n"
    );
    // A value from a config file is named by its field, with the file.
    let file = scratch("page-size.json");
    std::fs::write(
        &file,
        r#"{"workload": {"id": "churn"}, "policy": {"family": "bump"}, "provider": {"page_size": 3000}}"#,
    )
    .unwrap();
    assert_eq!(
        refused(&["run", "--config", file.to_str().unwrap()]),
        format!(
            "error: {}: provider.page_size: 3000 is not a supported page size; use one of \
             [4096, 16384, 65536]\n",
            file.display()
        )
    );
}

#[test]
fn a_misspelt_name_gets_the_closest_suggested() {
    assert!(
        refused(&["run", "-w", "churn", "-p", "mimalloc"]).starts_with(
            "error: unknown policy \"mimalloc\" (did you mean \"mimalloc-like\"?); valid \
             families are: bump, "
        )
    );
    assert!(refused(&["compare", "glibc", "bump"])
        .starts_with("error: unknown policy \"glibc\" (did you mean \"glibc-like\"?); "));
    assert!(refused(&["run", "-w", "chrun", "-p", "bump"]).starts_with(
        "error: --workload: unknown workload \"chrun\" (did you mean \"churn\"?); built-in ones"
    ));
    assert!(
        refused(&["compare", "bump", "buddy", "--workloads", "tree_chrun"]).starts_with(
            "error: --workloads: unknown workload \"tree_chrun\" (did you mean \"tree_churn\"?)"
        )
    );
    // Nothing is suggested for a name that is close to none.
    let err = refused(&["run", "-w", "churn", "-p", "tcmalloc"]);
    assert!(
        err.starts_with("error: unknown policy \"tcmalloc\"; valid"),
        "{err}"
    );
    // A preset named in a config file is suggested too.
    let dir = scratch("");
    let file = scratch("preset.json");
    std::fs::write(
        &file,
        r#"{"workload": {"id": "churn"}, "policy": {"preset": "jemaloc-like"}}"#,
    )
    .unwrap();
    let out = heaplab_in(&dir, &["run", "--config", "preset.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "error: preset.json: policy.preset: unknown preset \"jemaloc-like\" (did you mean \
         \"jemalloc-like\"?); valid ones are: "
    ));
}

/// Every row of the page provider's calls says which way is better, so a table with a Δ
/// column gives each of them one: fewer pages decommitted, like fewer committed, is better.
#[test]
fn every_page_call_row_has_a_delta() {
    use heaplab_core::metrics::{Group, METRICS};
    let rows: Vec<(&str, String)> = METRICS
        .iter()
        .filter(|m| m.group == Group::PageCalls)
        .map(|m| (m.label, m.delta(40.0, 10.0)))
        .collect();
    assert!(rows.iter().any(|(label, _)| *label == "Pages decommitted"));
    for (label, delta) in rows {
        assert_eq!(delta, "^ 4.00x smaller", "{label}");
    }
}

/// Every file a `--help` example reads exists in the repository (the examples are run from
/// its root, as the README says), unless an earlier example of the same help writes it: a
/// newcomer who copies an example gets a run, not "no such file".
#[test]
fn every_file_a_help_example_reads_is_there() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let top = String::from_utf8(heaplab(&["--help"]).stdout).unwrap();
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let mut read = 0;
    for command in commands {
        let help = String::from_utf8(heaplab(&[command, "--help"]).stdout).unwrap();
        let examples: Vec<&str> = help
            .lines()
            .skip_while(|l| !l.starts_with("Examples:"))
            .skip(1)
            .collect();
        assert!(
            !examples.is_empty(),
            "heaplab {command} --help has no examples"
        );
        let mut written: Vec<&str> = Vec::new();
        for example in examples {
            let words: Vec<&str> = example.split_whitespace().collect();
            for (i, word) in words.iter().enumerate() {
                let after = i.checked_sub(1).map(|j| words[j]);
                if matches!(after, Some("-o" | "--output" | ">")) {
                    written.push(word);
                    continue;
                }
                let input = word.contains('/')
                    || [
                        ".trace", ".rep", ".mtrace", ".gz", ".c", ".wasm", ".toml", ".json",
                    ]
                    .iter()
                    .any(|ext| word.ends_with(ext));
                let flag_value = matches!(
                    after,
                    Some("--plot" | "--heap-map" | "--block-map" | "--base-url")
                );
                if !input || flag_value || word.starts_with("http") || word.starts_with('-') {
                    continue;
                }
                if written.contains(word) {
                    continue;
                }
                assert!(
                    std::path::Path::new(root).join(word).exists(),
                    "heaplab {command} --help: {example:?} reads {word}, which is not in the repository"
                );
                read += 1;
            }
        }
    }
    assert!(read >= 4, "only {read} example files checked");
}
