//! `baseline`'s real side: the peak between samples, the pace of the runs whose memory is
//! reported, a fresh process per run with the spread, glibc's own calls only under glibc,
//! and any allocator library measured through `preload:`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{heaplab, json_of};
use serde_json::Value;

/// Debian's allocator libraries (`libmimalloc2.0`, `libjemalloc2`, `libtcmalloc-minimal4`,
/// which `cargo xtask gate` installs), with the name each reports as its version.
const LIBRARIES: [(&str, &str); 3] = [
    ("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2", "mimalloc 2."),
    ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "jemalloc 5."),
    (
        "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
        "gperftools 2.",
    ),
];

/// Holds the real machine for one test at a time. These tests compare memory and pace
/// measured in child processes, and the harness runs a file's tests in parallel: on two
/// cores, the others' children slow a replay down and stretch its pauses, which time-driven
/// allocators see and a model at an even pace does not. One at a time, each measures what
/// it names.
fn measuring() -> std::sync::MutexGuard<'static, ()> {
    static MACHINE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    MACHINE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Says, past the harness's capture so it shows in every run, that `test` skipped `what`.
/// Under CI nothing may be skipped: the gate installs what these tests need.
fn skipped(test: &str, what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {what}, which CI must have"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {what}");
}

/// The libraries of [`LIBRARIES`] on this machine; those missing are said skipped.
fn libraries(test: &str) -> Vec<(&'static str, &'static str)> {
    LIBRARIES
        .into_iter()
        .filter(|(path, _)| {
            let here = Path::new(path).exists();
            if !here {
                skipped(test, &format!("no {path} here"));
            }
            here
        })
        .collect()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-baseline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Compiles a C file of `tests/baseline/` with `cc` and `flags`; `None` (said skipped)
/// where there is no C compiler.
fn compile(test: &str, source: &str, out: &str, flags: &[&str]) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/baseline")
        .join(source);
    let out = temp(out);
    let built = Command::new("cc")
        .args(["-O2", "-Wall", "-o"])
        .arg(&out)
        .arg(&src)
        .args(flags)
        .output();
    match built {
        Err(e) => {
            skipped(test, &format!("no C compiler (cc: {e})"));
            None
        }
        Ok(o) => {
            assert!(
                o.status.success(),
                "cc {}: {}",
                src.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            Some(out)
        }
    }
}

fn fails_with(args: &[&str], words: &str) {
    let out = heaplab(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(words), "{args:?}: {err:?} lacks {words:?}");
    assert!(!err.contains("panicked"), "{err}");
}

fn u(v: &Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {v:#}"))
}

/// A 32 MiB block allocated and freed at once, between two samples of a replay of 4,000
/// small events (a sample every 40): only the kernel's high water mark sees it.
///
/// The mark is not exact to the page. Linux counts a process's resident pages per CPU and
/// adds each CPU's count to the total in batches (32 pages or more), and the mark is taken
/// from the total, so it may read short by up to a batch for every CPU the process ran on;
/// which CPUs those are is the scheduler's choice, and on a busy machine the mark came out
/// 12 KiB below the spike. So the peak is held to half the spike: far above what the
/// samples see (well under a mebibyte here), and below the spike less any such shortfall.
#[test]
fn the_peak_covers_a_one_event_spike_between_samples() {
    let _machine = measuring();
    let mut trace = String::new();
    for id in 1..=2000 {
        trace.push_str(&format!("a {id} 64\n"));
    }
    trace.push_str("a 9999 33554432\nf 9999\n");
    for id in 1..=2000 {
        trace.push_str(&format!("f {id}\n"));
    }
    let path = temp("spike.trace");
    std::fs::write(&path, trace).unwrap();
    for a in ["system", "mimalloc", "jemalloc"] {
        let v = json_of(&heaplab(&[
            "baseline",
            "-a",
            a,
            "-w",
            path.to_str().unwrap(),
            "--repeat",
            "1",
            "--json",
        ]));
        let r = &v[0];
        let run = &r["runs"][0];
        assert_eq!(run["peak_from_high_water_mark"], true, "{a}: {r:#}");
        assert!(u(r, "peak_rss_bytes") >= 16 << 20, "{a}: {r:#}");
        if a == "system" {
            // glibc serves a block this large with its own mmap and unmaps it on free
            // (malloc.c: requests of mmap_threshold or more, 128 KiB at first, are
            // mmapped, and munmap_chunk gives them back), so no sample sees it.
            assert!(u(run, "peak_sampled_rss_bytes") < 8 << 20, "{r:#}");
        }
    }
}

/// Each of `--repeat` runs is a process of its own, with its own pace and memory; the
/// figures at the top are their medians, and the table gives smallest, median, largest.
#[test]
fn each_run_is_a_fresh_process_with_its_pace_and_memory() {
    let _machine = measuring();
    let w = ["-w", "tree_churn", "--scale", "0.02", "--repeat", "3"];
    let v = json_of(&heaplab(
        &[
            &["baseline", "-a", "system", "-a", "jemalloc", "--json"][..],
            &w,
        ]
        .concat(),
    ));
    for r in v.as_array().unwrap() {
        let runs = r["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "{r:#}");
        let mut pids: Vec<u64> = runs.iter().map(|x| u(x, "pid")).collect();
        pids.sort();
        pids.dedup();
        assert_eq!(pids.len(), 3, "three runs, three processes: {r:#}");
        let pace: Vec<f64> = runs
            .iter()
            .map(|x| x["ns_per_event"].as_f64().unwrap())
            .collect();
        assert!(pace.iter().all(|&ns| ns > 0.0 && ns < 1e6), "{r:#}");
        let runs_pace: Vec<f64> = r["ns_per_event_runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(pace, runs_pace, "{r:#}");
        let mut sorted = pace.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(r["ns_per_event"].as_f64().unwrap(), sorted[1], "{r:#}");
        let mut peaks: Vec<u64> = runs.iter().map(|x| u(x, "peak_rss_bytes")).collect();
        peaks.sort();
        assert_eq!(u(r, "peak_rss_bytes"), peaks[1], "{r:#}");
        assert!(r["version"].as_str().unwrap().len() > 3, "{r:#}");
        assert!(r["spread"]["peak_rss_bytes"].as_f64().unwrap() >= 0.0);
        assert!(r["wide_spread"].is_array(), "{r:#}");
    }
    let out = heaplab(&[&["baseline", "-a", "system"][..], &w].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("smallest / median / largest of 3 runs, each in a fresh process"),
        "{text}"
    );
    assert!(
        text.contains("ns per event") && text.contains("glibc 2."),
        "{text}"
    );
    // One run: no spread to give.
    let out = heaplab(&["baseline", "-a", "system", "-w", "churn", "--repeat", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("smallest / median"), "{text}");
}

/// fidelity's rows keep their fields and add the real replay's pace, its runs and their
/// spread, and the allocator's version.
#[test]
fn fidelity_reports_the_real_pace_runs_and_version() {
    let _machine = measuring();
    let args = [
        "fidelity",
        "-a",
        "system",
        "-w",
        "tree_churn",
        "--scale",
        "0.02",
        "--repeat",
        "2",
    ];
    let v = json_of(&heaplab(&[&args[..], &["--json"]].concat()));
    let r = &v[0];
    for field in [
        "workload",
        "preset",
        "allocator",
        "sim_peak_resident_bytes",
        "real_peak_rss_bytes",
        "peak_ratio",
        "sim_end_resident_bytes",
        "real_end_rss_bytes",
        "end_ratio",
        "within_target",
    ] {
        assert!(!r[field].is_null(), "{field}: {r:#}");
    }
    assert_eq!(r["allocator"], "system");
    assert!(r["allocator_version"]
        .as_str()
        .unwrap()
        .starts_with("glibc"));
    let ns = r["real_ns_per_event"].as_f64().unwrap();
    assert!(ns > 0.0 && ns < 1e6, "{r:#}");
    assert_eq!(r["real_runs"], 2);
    // The model ran on the real runs' clocks, which read more than one mark over a replay
    // of milliseconds, and at most one per 100 µs (of the median run's time, with room
    // for the runs' spread: the count is a median too).
    assert_eq!(r["clock"], "real", "{r:#}");
    let marks = r["real_time_marks"].as_f64().unwrap();
    let elapsed = ns * r["events"].as_f64().unwrap();
    assert!(
        marks >= 2.0 && marks <= 1.0 + 2.0 * elapsed / 100_000.0,
        "{r:#}"
    );
    assert!(u(r, "real_peak_rss_bytes_min") <= u(r, "real_peak_rss_bytes"));
    assert!(u(r, "real_peak_rss_bytes") <= u(r, "real_peak_rss_bytes_max"));
    let out = heaplab(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("real ns/event"), "{text}");
    assert!(text.contains("system (glibc 2."), "{text}");
    fails_with(&[&args[..], &["--repeat", "0"]].concat(), "--repeat");
}

/// glibc's own calls (`malloc_trim`, `mallinfo2`) act on glibc's heap, which is measured
/// only when glibc is the allocator: a preloaded spy standing in for them sees them called
/// under `system` and never under mimalloc or jemalloc.
#[test]
fn glibc_calls_are_made_only_under_glibc() {
    let _machine = measuring();
    let test = "glibc_calls_are_made_only_under_glibc";
    let Some(spy) = compile(test, "glibc_spy.c", "glibc_spy.so", &["-shared", "-fPIC"]) else {
        return;
    };
    let calls = |a: &str| -> String {
        let log = temp(&format!("spy-{a}.log"));
        let _ = std::fs::remove_file(&log);
        let out: Output = Command::new(env!("CARGO_BIN_EXE_heaplab"))
            .args(["baseline", "-a", a, "-w", "churn", "--repeat", "1"])
            .env("LD_PRELOAD", &spy)
            .env("HEAPLAB_SPY_FILE", &log)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{a}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&log).unwrap_or_default()
    };
    // The spy works: glibc's baseline trims.
    assert!(calls("system").contains("malloc_trim"));
    for a in ["mimalloc", "jemalloc"] {
        assert_eq!(calls(a), "", "{a} called glibc's own calls");
    }
}

/// `preload:<lib.so>` measures a library through LD_PRELOAD: each of Debian's reports its
/// version, holds at least the live bytes it was given, and is named by file and version
/// in baseline's, fidelity's and compare's tables.
#[test]
fn preload_measures_any_allocator_library() {
    let _machine = measuring();
    let test = "preload_measures_any_allocator_library";
    let w = ["-w", "short_strings", "--scale", "1"];
    let sim = json_of(&heaplab(
        &[&["run", "-p", "bump", "--json"][..], &w].concat(),
    ));
    let peak_live = u(&sim[0], "peak_live_bytes");
    let end_live = u(&sim[0], "end_live_bytes");
    for (path, version) in libraries(test) {
        let a = format!("preload:{path}");
        let v = json_of(&heaplab(
            &[&["baseline", "-a", &a, "--repeat", "1", "--json"][..], &w].concat(),
        ));
        let r = &v[0];
        assert_eq!(r["allocator"], a.as_str());
        assert!(r["version"].as_str().unwrap().starts_with(version), "{r:#}");
        // Every byte of every block is written, so the heap holds the live bytes; heaplab's
        // own memory, in a heap of its own, neither adds to it nor is reused by it.
        let (peak, end) = (u(r, "peak_rss_bytes"), u(r, "end_rss_bytes"));
        assert!(
            peak >= peak_live * 9 / 10,
            "{a}: peak {peak} < live {peak_live}"
        );
        assert!(peak <= 4 * peak_live + (32 << 20), "{a}: {r:#}");
        assert!(end >= end_live * 9 / 10, "{a}: {r:#}");
        assert!(u(&r["runs"][0], "own_heap_bytes") > 0, "{r:#}");
        let file = Path::new(path).file_name().unwrap().to_str().unwrap();
        let out = heaplab(&["baseline", "-a", &a, "-w", "churn", "--repeat", "1"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(file) && text.contains(version), "{text}");
        let out = heaplab(&[
            "compare",
            "glibc-like",
            "--allocators",
            &a,
            "--workloads",
            "churn",
            "--scale",
            "0.01",
            "--repeat",
            "1",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains(&format!("{file} ({version}")), "{text}");
    }
    if let Some((path, _)) = libraries(test)
        .into_iter()
        .find(|(p, _)| p.contains("jemalloc"))
    {
        let a = format!("preload:{path}");
        let v = json_of(&heaplab(&[
            "fidelity", "-a", &a, "-w", "churn", "--scale", "0.01", "--repeat", "1", "--json",
        ]));
        assert_eq!(v[0]["preset"], "jemalloc-like", "{v:#}");
        assert_eq!(v[0]["allocator"], a.as_str(), "{v:#}");
        assert!(v[0]["allocator_version"]
            .as_str()
            .unwrap()
            .starts_with("jemalloc 5."));
    }
}

/// A library that is missing, or that is not an allocator, is refused by name.
#[test]
fn preload_refuses_what_is_not_an_allocator_library() {
    let _machine = measuring();
    let w = ["-w", "churn", "--repeat", "1"];
    fails_with(
        &[
            &["baseline", "-a", "preload:/nonexistent/libnope.so"][..],
            &w,
        ]
        .concat(),
        "/nonexistent/libnope.so: No such file",
    );
    fails_with(
        &[&["baseline", "-a", "preload:"][..], &w].concat(),
        "names no library",
    );
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let a = format!("preload:{readme}");
    fails_with(
        &[&["baseline", "-a", &a][..], &w].concat(),
        "README.md: not an allocator library",
    );
    fails_with(
        &[
            "compare",
            "glibc-like",
            "--allocators",
            &a,
            "--workloads",
            "churn",
            "--scale",
            "0.01",
        ],
        "not an allocator library",
    );
    // A shared library that defines no malloc: glibc's stays in place.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists());
    match libm {
        Some(libm) => fails_with(
            &[&["baseline", "-a", &format!("preload:{libm}")][..], &w].concat(),
            "not an allocator library: once preloaded, malloc is still",
        ),
        None => skipped(
            "preload_refuses_what_is_not_an_allocator_library",
            "no libm.so.6 at Debian's paths",
        ),
    }
    // fidelity needs a preset for the library.
    if let Some((path, _)) = libraries("preload_refuses_what_is_not_an_allocator_library")
        .into_iter()
        .find(|(p, _)| p.contains("tcmalloc"))
    {
        fails_with(
            &["fidelity", "-a", &format!("preload:{path}"), "-w", "churn"],
            "names neither mimalloc nor jemalloc",
        );
    }
}

/// A trace of about 120,000 events with a heap that grows to some 30 MiB in blocks of 16
/// bytes to 512 KiB, reallocs among them, and a free phase that leaves a third live.
fn mixed_trace() -> String {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut out = String::new();
    let mut live: Vec<u64> = Vec::new();
    let mut id = 0;
    for step in 0..90_000 {
        let growing = step < 60_000;
        if growing || next(3) == 0 {
            id += 1;
            let size = match next(1000) {
                0 => 128 << 10 | next(384 << 10),
                1..=50 => 1024 + next(7 << 10),
                _ => 16 + next(496),
            };
            if next(50) == 0 {
                out.push_str(&format!("a {id} {size} 64\n"));
            } else {
                out.push_str(&format!("a {id} {size}\n"));
            }
            live.push(id);
        }
        if !live.is_empty() && (next(5) < 2 || !growing) {
            let i = next(live.len() as u64) as usize;
            if next(10) == 0 {
                let size = 16 + next(4096);
                out.push_str(&format!("r {} {size}\n", live[i]));
            } else if growing || live.len() as u64 > id / 3 {
                out.push_str(&format!("f {}\n", live.swap_remove(i)));
            }
        }
    }
    out
}

/// Runs the independent C replay on `trace` at `pace` ns per event, with `preload` in its
/// LD_PRELOAD; its peak and end heap bytes.
fn c_replay(replay: &Path, trace: &Path, pace: f64, preload: Option<&str>) -> (u64, u64) {
    let mut command = Command::new(replay);
    command.arg(trace).arg(format!("{pace:.1}"));
    if let Some(lib) = preload {
        command.env("LD_PRELOAD", lib);
    }
    let out = command.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f: Vec<u64> = text
        .split_whitespace()
        .take(2)
        .map(|x| x.parse().unwrap())
        .collect();
    (f[0], f[1])
}

/// The baseline agrees with a minimal replay written in C apart from heaplab, at the same
/// pace, within 5% on peak and end: through glibc, and through Debian's mimalloc and
/// jemalloc preloaded into both.
#[test]
fn the_baseline_agrees_with_an_independent_c_replay() {
    let _machine = measuring();
    let test = "the_baseline_agrees_with_an_independent_c_replay";
    let Some(replay) = compile(test, "replay.c", "replay", &[]) else {
        return;
    };
    let trace = temp("mixed.trace");
    std::fs::write(&trace, mixed_trace()).unwrap();
    let mut cases: Vec<(String, Option<&str>)> = vec![("system".into(), None)];
    for (path, _) in libraries(test) {
        if !path.contains("tcmalloc") {
            cases.push((format!("preload:{path}"), Some(path)));
        }
    }
    for (a, preload) in cases {
        let v = json_of(&heaplab(&[
            "baseline",
            "-a",
            &a,
            "-w",
            trace.to_str().unwrap(),
            "--repeat",
            "3",
            "--json",
        ]));
        let r = &v[0];
        let pace = r["ns_per_event"].as_f64().unwrap();
        let mut peaks = Vec::new();
        let mut ends = Vec::new();
        for _ in 0..3 {
            let (peak, end) = c_replay(&replay, &trace, pace, preload);
            peaks.push(peak);
            ends.push(end);
        }
        peaks.sort();
        ends.sort();
        let (c_peak, c_end) = (peaks[1], ends[1]);
        let (peak, end) = (u(r, "peak_rss_bytes"), u(r, "end_rss_bytes"));
        assert!(c_end > 4 << 20, "{a}: the C replay ends with {c_end} bytes");
        let off = |h: u64, c: u64| (h as f64 / c as f64 - 1.0).abs();
        assert!(
            off(peak, c_peak) <= 0.05,
            "{a}: peak {peak} against the C replay's {c_peak} at {pace:.0} ns/event: {r:#}"
        );
        assert!(
            off(end, c_end) <= 0.05,
            "{a}: end {end} against the C replay's {c_end} at {pace:.0} ns/event: {r:#}"
        );
    }
}

/// The presets whose delays count time, against the allocators they model, each run on
/// the real replay's clock: `jemalloc-like` against the jemalloc heaplab links (5.3),
/// `mimalloc2-like` against Debian's mimalloc 2.0, paired by the version it reports, and,
/// where Linux's transparent huge pages are set to `madvise` as the model assumes,
/// `mimalloc-like` against the mimalloc heaplab links (3.3). The
/// bounds are worked out here from the raw bytes: within 15% of the real peak and 25% of
/// its end, on every single-threaded MallocBench port and recorded trace.
#[test]
fn time_driven_presets_follow_their_allocators_on_the_same_clock() {
    let _machine = measuring();
    let test = "time_driven_presets_follow_their_allocators_on_the_same_clock";
    let Some((mimalloc2, _)) = libraries(test)
        .into_iter()
        .find(|(p, _)| p.contains("mimalloc"))
    else {
        return;
    };
    // The model of mimalloc 3 makes a granule resident whole at its first write, as Linux
    // does for memory advised MADV_HUGEPAGE under the THP setting `madvise`.
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let with_mimalloc3 = thp.contains("[madvise]");
    if !with_mimalloc3 {
        skipped(
            test,
            &format!("mimalloc-like: transparent huge pages are not `madvise` here ({thp:?})"),
        );
    }
    let traces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../workloads/traces");
    let a = format!("preload:{mimalloc2}");
    let mut args = vec!["fidelity", "-a", "jemalloc", "-a", &a];
    if with_mimalloc3 {
        args.extend(["-a", "mimalloc"]);
    }
    let rows = json_of(&heaplab(
        &[&args[..], &["--traces", traces, "--json"]].concat(),
    ));
    let rows = rows.as_array().unwrap();
    // Eight MallocBench ports and five recorded programs, for each allocator.
    let presets = if with_mimalloc3 { 3 } else { 2 };
    assert_eq!(rows.len(), 13 * presets, "{rows:#?}");
    for r in rows {
        let (preset, workload) = (
            r["preset"].as_str().unwrap(),
            r["workload"].as_str().unwrap(),
        );
        let version = r["allocator_version"].as_str().unwrap();
        match preset {
            "mimalloc2-like" => assert!(version.starts_with("mimalloc 2.0."), "{r:#}"),
            "jemalloc-like" => assert!(version.starts_with("jemalloc 5.3."), "{r:#}"),
            "mimalloc-like" => assert!(version.starts_with("mimalloc 3.3."), "{r:#}"),
            other => panic!("{other}: {r:#}"),
        }
        // The model ran on the real runs' own clocks.
        assert_eq!(r["clock"], "real", "{r:#}");
        assert!(r["real_time_marks"].as_u64().unwrap() >= 1, "{r:#}");
        let off = |sim: &str, real: &str| {
            let (sim, real) = (r[sim].as_u64().unwrap(), r[real].as_u64().unwrap());
            (sim as f64 / real as f64 - 1.0).abs()
        };
        let peak = off("sim_peak_resident_bytes", "real_peak_rss_bytes");
        let end = off("sim_end_resident_bytes", "real_end_rss_bytes");
        assert!(
            peak <= 0.15,
            "{preset} / {workload}: peak {:.1}% off: {r:#}",
            peak * 100.0
        );
        assert!(
            end <= 0.25,
            "{preset} / {workload}: end {:.1}% off: {r:#}",
            end * 100.0
        );
    }
}
