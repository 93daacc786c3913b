//! `heaplab compare`: its table, CSV and plots on fixed small runs as snapshots
//! (`UPDATE_EXPECT=1` rewrites them), `--json` equal to `run --json` of each
//! configuration, bad input refused with exit code 2 and the place named, no progress
//! bar when stderr is not a terminal, and Ctrl-C on a long comparison: exit 130 and no
//! file half-written.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{heaplab, json_of};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SMALL: &[&str] = &[
    "compare",
    "glibc-like",
    "size-class",
    "bump:slab_size=64KiB",
    "--workloads",
    "churn,tree_churn,medium",
    "--scale",
    "0.005",
];

fn stdout_of(args: &[&str]) -> String {
    let out = heaplab(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing on stderr either: no progress bar when it is not a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_small_comparison_prints_as_before() {
    let table = stdout_of(SMALL);
    for wanted in [
        "Peak Memory:",
        "Memory at End:",
        "OS Page Operations:",
        "Peak Committed and Touched Memory:",
        "<geometric mean>",
        "<arithmetic mean>",
        "<harmonic mean>",
        "x smaller",
    ] {
        assert!(table.contains(wanted), "{wanted} is not in\n{table}");
    }
    // Execution Time is only measured over real memory.
    assert!(!table.contains("Execution Time"));
    expect_test::expect_file!["snapshots/compare-table.txt"].assert_eq(&table);
}

/// A Δ stands beside two figures that print differently: where a column prints what the
/// first column prints (a harmonic mean of 12 KiB against 12 KiB), its Δ is blank, since
/// a "1.01x bigger" there would claim what no digit shows.
#[test]
fn no_delta_stands_between_figures_that_print_alike() {
    let table = stdout_of(SMALL);
    let mut checked = 0;
    for line in table.lines().filter(|l| l.starts_with('│')) {
        let cells: Vec<&str> = line.trim_matches('│').split('┆').map(str::trim).collect();
        // The row's name, the first column, then each other column and its Δ.
        for pair in cells[2..].chunks(2) {
            if let [figure, delta] = pair {
                if *figure == cells[1] {
                    assert_eq!(*delta, "", "{line}");
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked > 0,
        "no row printed a figure equal to the first column's:\n{table}"
    );
}

#[test]
fn the_csv_has_mimalloc_benchs_columns_then_heaplabs() {
    let mut args = SMALL.to_vec();
    args.push("--csv");
    let csv = stdout_of(&args);
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("benchmark,allocator,elapsed,rss,events,"),
        "{header}"
    );
    assert!(header.ends_with(",ns_per_event"));
    // A row per workload and configuration.
    assert_eq!(csv.lines().count(), 1 + 3 * 3);
    expect_test::expect_file!["snapshots/compare.csv"].assert_eq(&csv);
}

#[test]
fn each_plot_kind_draws_as_before() {
    let dir = scratch("plots");
    let summary = dir.join("summary.svg");
    let memory = dir.join("memory");
    let mut args = SMALL.to_vec();
    args.extend([
        "--plot",
        summary.to_str().unwrap(),
        "--plot-dir",
        memory.to_str().unwrap(),
    ]);
    stdout_of(&args);
    let svg = std::fs::read_to_string(&summary).unwrap();
    for wanted in [
        "churn: summary",
        "medium: summary",
        "peak resident",
        "glibc-like",
    ] {
        assert!(svg.contains(wanted), "{wanted} is not in the summary bars");
    }
    expect_test::expect_file!["snapshots/compare-summary.svg"].assert_eq(&svg);
    let mut files: Vec<String> = std::fs::read_dir(&memory)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["churn.svg", "medium.svg", "tree_churn.svg"]);
    let svg = std::fs::read_to_string(memory.join("tree_churn.svg")).unwrap();
    assert!(svg.contains("tree_churn: memory over time"));
    expect_test::expect_file!["snapshots/compare-memory.svg"].assert_eq(&svg);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every run `compare --json` reports is the object `run --json` prints for that
/// configuration on that workload, and the sections' figures are those runs' fields.
#[test]
fn json_agrees_with_run_json() {
    let mut args = SMALL.to_vec();
    args.push("--json");
    let cmp = json_of(&heaplab(&args));
    let runs = cmp["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9);
    let policies = ["glibc-like", "size-class", "bump:slab_size=64KiB"];
    for (i, workload) in ["churn", "tree_churn", "medium"].iter().enumerate() {
        for (j, policy) in policies.iter().enumerate() {
            let run = json_of(&heaplab(&[
                "run", "-w", workload, "--scale", "0.005", "-p", policy, "--json",
            ]));
            let got = &runs[i * 3 + j];
            assert_eq!(got["workload"], *workload);
            assert_eq!(got["report"], run[0], "{workload} {policy}");
        }
    }
    let peak = &cmp["sections"][0]["figures"][0];
    assert_eq!(cmp["sections"][0]["title"], "Peak Memory");
    assert_eq!(peak["key"], "peak_resident_bytes");
    let row = &peak["rows"][2];
    assert_eq!(row["workload"], "medium");
    for j in 0..3 {
        assert_eq!(
            row["values"][j].as_f64().unwrap(),
            runs[6 + j]["report"]["peak_resident_bytes"]
                .as_f64()
                .unwrap()
        );
    }
    let geo = peak["geometric_mean"]["values"][0].as_f64().unwrap();
    let product: f64 = (0..3)
        .map(|w| peak["rows"][w]["values"][0].as_f64().unwrap())
        .product();
    assert!((geo - product.cbrt()).abs() < 1e-6 * geo, "{geo}");
    assert_eq!(peak["rows"][0]["deltas"][0], "");
}

/// More than two configurations: each compared with the first.
#[test]
fn every_configuration_is_compared_with_the_first() {
    let mut args = SMALL.to_vec();
    args.push("--json");
    let cmp = json_of(&heaplab(&args));
    let ops = &cmp["sections"][2]["figures"][0]["rows"][2];
    let values: Vec<f64> = ops["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    // Worked out here, not by the code under test: page operations are better fewer, the
    // delta is the larger over the smaller to two places, "^" when fewer and "!" when more.
    assert_eq!(ops["deltas"][0], "");
    for j in 1..3 {
        let (base, value) = (values[0], values[j]);
        assert!(base > 0.0 && value > 0.0 && base != value, "{values:?}");
        let want = if value < base {
            format!("^ {:.2}x smaller", base / value)
        } else {
            format!("! {:.2}x bigger", value / base)
        };
        assert_eq!(ops["deltas"][j], Value::from(want), "{values:?}");
    }
}

#[test]
fn bad_input_names_its_place_and_exits_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["compare", "glibc-lke", "bump"],
            "unknown policy \"glibc-lke\"",
        ),
        (&["compare", "bump"], "compare needs two configurations"),
        (
            &["compare", "bump", "pool", "--workloads", "churn,nope"],
            "--workloads: unknown workload",
        ),
        (
            &["compare", "bump", "pool", "--allocators", "tcmalloc"],
            "--allocators: unknown allocator \"tcmalloc\"",
        ),
        (
            &[
                "compare",
                "bump:slab_size=3",
                "pool",
                "--workloads",
                "churn",
            ],
            "slab_size",
        ),
        (
            &[
                "compare",
                "bump",
                "pool",
                "--workloads",
                "churn",
                "--plot",
                "x.jpg",
            ],
            ".svg or .png",
        ),
        (
            &["compare", "bump", "pool", "--workloads", "missing.trace"],
            "missing.trace",
        ),
    ];
    for (args, wanted) in cases {
        let out = heaplab(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// A configuration from a TOML file, the one `heaplab config --example` prints, compares
/// as the same configuration named by its id and settings.
#[test]
fn a_config_file_is_a_configuration() {
    let dir = scratch("config");
    let example = heaplab(&["config", "--example"]);
    assert!(example.status.success());
    let toml = dir.join("example.toml");
    std::fs::write(&toml, &example.stdout).unwrap();
    let from_file = json_of(&heaplab(&[
        "compare",
        "bump",
        toml.to_str().unwrap(),
        "--workloads",
        "churn",
        "--scale",
        "0.005",
        "--json",
    ]));
    let from_flags = json_of(&heaplab(&[
        "compare",
        "bump",
        "glibc-like:trim_threshold=1MiB,top_pad=0",
        "--workloads",
        "churn",
        "--scale",
        "0.005",
        "--json",
    ]));
    assert_eq!(from_file["runs"], from_flags["runs"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn progress_never_shows_when_stderr_is_not_a_terminal() {
    // Long enough (more than a second) that a terminal would see the bar.
    for args in [
        &["compare", "glibc-like", "mimalloc-like", "--scale", "0.1"][..],
        &[
            "sweep",
            "-p",
            "bump",
            "--vary",
            "slab_size=4K..1M",
            "-w",
            "tree_churn",
            "--scale",
            "0.2",
        ][..],
    ] {
        let out = heaplab(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A real allocator is a column of every report: its CSV row has its peak and end RSS as
/// resident bytes (the table's Peak Memory and Memory at End), and `--plot` draws its
/// bars beside the configurations', with `n/a` for what nothing counted of it.
#[test]
fn real_allocators_are_in_the_csv_and_the_plot() {
    let dir = scratch("real");
    let plot = dir.join("summary.svg");
    let csv = stdout_of(&[
        "compare",
        "glibc-like",
        "--allocators",
        "system",
        // churn at a small scale stays within the heap the process starts with, an RSS of
        // zero; tree_churn grows it.
        "--workloads",
        "tree_churn",
        "--scale",
        "0.05",
        "--repeat",
        "1",
        "--csv",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let system: Vec<&str> = lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .find(|row| row[1] == "system")
        .expect("no row for the real allocator");
    let cell = |key: &str| system[header.iter().position(|h| *h == key).unwrap()];
    let peak: f64 = cell("peak_resident_bytes").parse().expect("no peak RSS");
    let end: f64 = cell("end_resident_bytes").parse().expect("no end RSS");
    assert!(
        peak > 0.0 && end > 0.0 && end <= peak,
        "peak {peak}, end {end}"
    );
    assert_eq!(cell("rss"), format!("{}", (peak / 1024.0).round()));
    // Nothing counted its page calls: left empty, not zero.
    assert_eq!(cell("page_ops"), "");
    let svg = std::fs::read_to_string(&plot).unwrap();
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1)?.split('<').next())
        .map(str::trim)
        .collect();
    assert!(
        texts.contains(&"system"),
        "no bars for the allocator: {texts:?}"
    );
    assert!(texts.contains(&"n/a"), "{texts:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C on a long comparison with real allocators and a plot: exit code 130, no plot
/// file left, and the allocator's child process gone. (The plot is written after the
/// runs; Ctrl-C during a write is the test below.)
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_a_long_compare_cleanly() {
    let dir = scratch("interrupt");
    let plot = dir.join("out.svg");
    let child = Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args([
            "compare",
            "glibc-like",
            "--workloads",
            "big",
            "--scale",
            "1",
            "--allocators",
            "system",
            "--repeat",
            "50",
            "--plot",
            plot.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Ctrl-C once the allocator's child process runs, so that it is there to be killed.
    let mut children = Vec::new();
    for _ in 0..600 {
        children = children_of(pid);
        if !children.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!children.is_empty(), "no allocator child started");
    // SAFETY: signalling the child this test started and has not waited for.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // SIGKILL takes a moment to end a process with a large heap: gone or a zombie soon.
    let ended = |c: u32| {
        std::fs::read_to_string(format!("/proc/{c}/stat")).map_or(true, |s| s.contains(") Z "))
    };
    for c in children {
        let mut waited = 0;
        while !ended(c) && waited < 100 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            waited += 1;
        }
        assert!(ended(c), "child {c} still runs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C while `convert` is writing its output: exit code 130, and neither the output
/// nor the hidden file it was being written as is left. The signal is sent once the hidden
/// file holds bytes, so it lands during the write, whatever the machine's speed: a
/// converter that wrote straight to its output, or a handler that forgot the hidden file,
/// fails here.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_during_a_write_leaves_no_file() {
    use std::io::Write;

    let dir = scratch("interrupt-write");
    let input = dir.join("in.trace");
    {
        // Three million events, tens of megabytes of output: a write of some seconds.
        let mut w = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for k in 0..1_500_000u64 {
            writeln!(w, "a {k} {}\nf {k}", 16 + k % 4000).unwrap();
        }
        w.flush().unwrap();
    }
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let output = out_dir.join("converted.trace");
    let child = Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args(["convert", input.to_str().unwrap(), "-o"])
        .arg(&output)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // The hidden file beside the output, once it holds some of the converted trace.
    let writing = || {
        std::fs::read_dir(&out_dir).unwrap().flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".part") && e.metadata().is_ok_and(|m| m.len() > 0)
        })
    };
    let mut waited = 0;
    while !writing() {
        assert!(waited < 60_000, "convert never began writing");
        std::thread::sleep(std::time::Duration::from_millis(1));
        waited += 1;
    }
    // SAFETY: signalling the child this test started and has not waited for.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The pids whose parent is `pid`, from /proc.
#[cfg(target_os = "linux")]
fn children_of(pid: libc::pid_t) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(n) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{n}/stat")) else {
            continue;
        };
        // The fields after the command's closing parenthesis: state, then the parent.
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        if after.split_whitespace().nth(1) == Some(&pid.to_string()) {
            out.push(n);
        }
    }
    out
}

/// `compare --link URL` compares the link's configurations on its workload, as `run
/// --link` runs them.
#[test]
fn a_link_compares_its_configurations() {
    let out = heaplab(&[
        "link",
        "-w",
        "churn",
        "--scale",
        "0.005",
        "-p",
        "glibc-like",
        "-p",
        "size-class",
    ]);
    assert!(out.status.success());
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let cmp = json_of(&heaplab(&["compare", "--link", &url, "--json"]));
    let run = json_of(&heaplab(&["run", "--link", &url, "--json"]));
    assert_eq!(cmp["workloads"].as_array().unwrap().len(), 1);
    for j in 0..2 {
        assert_eq!(cmp["runs"][j]["report"], run[j]);
    }
}
