//! These tests record a real program with `heaplab record` and replay its traces.
//!
//! The program is python3, with threads and a fork; `heaplab run` must see in each trace
//! the events the recorder counted.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use heaplab_record::Counts;
use serde_json::Value;

const HEAPLAB: &str = env!("CARGO_BIN_EXE_heaplab");

/// Builds the preload library beside the heaplab binary, once per test run: `cargo test`
/// builds no cdylib by itself, and a stale one would test old code.
fn preload() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let bin = Path::new(HEAPLAB);
            let mut cargo = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
            cargo.args(["build", "--quiet", "-p", "heaplab-preload"]);
            if bin.parent().and_then(Path::file_name) == Some("release".as_ref()) {
                cargo.arg("--release");
            }
            let status = cargo.status().expect("cargo runs");
            assert!(status.success(), "cargo build -p heaplab-preload failed");
            let lib = bin.with_file_name("libheaplab_preload.so");
            assert!(lib.is_file(), "{} was not built", lib.display());
            lib
        })
        .clone()
}

/// The python3 binary itself: `python3` on PATH may be a shim script that runs other
/// programs first, each of which would leave a trace.
fn python() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let out = Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("python3 is installed (the record tests run it)");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        })
        .clone()
}

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("heaplab-record-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn record(output: &Path, script: &str) -> Output {
    Command::new(HEAPLAB)
        .arg("record")
        .arg("-o")
        .arg(output)
        .args(["--", &python(), "-c", script])
        .env("HEAPLAB_PRELOAD", preload())
        .output()
        .expect("heaplab runs")
}

fn trailer(path: &Path) -> Counts {
    let text = std::fs::read_to_string(path).unwrap();
    let last = text.lines().last().unwrap_or_default();
    Counts::parse_trailer(last)
        .unwrap_or_else(|| panic!("{}: no trailer: {last:?}", path.display()))
}

/// Replays `path` through glibc-like and checks the replay counts what the recorder did.
fn replay_matches(path: &Path) -> Counts {
    let counts = trailer(path);
    let out = Command::new(HEAPLAB)
        .args(["run", "--workload"])
        .arg(path)
        .args(["--policy", "glibc-like", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "replay of {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v[0];
    let field = |f: &str| r[f].as_u64().unwrap();
    assert_eq!(
        [
            field("allocs"),
            field("frees"),
            field("reallocs"),
            field("peak_live_bytes"),
            field("end_live_bytes")
        ],
        [
            counts.allocs,
            counts.frees,
            counts.reallocs,
            counts.peak_live_bytes,
            counts.live_bytes
        ],
        "{}",
        path.display()
    );
    counts
}

#[test]
fn a_recorded_python_replays_with_the_same_events() {
    let d = dir("lists");
    let trace = d.join("py.trace");
    // 300 bytes objects of 100,000 bytes each: too big for Python's small-object
    // allocator, so each is one malloc of the string plus its header, freed in turn.
    let out = record(
        &trace,
        "big = [bytes(100000) for _ in range(300)]\n\
         lists = [list(range(i)) for i in range(2000)]\n\
         d = {str(i): [i] * 50 for i in range(5000)}\n\
         del big, lists, d\n",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: ", trace.display())),
        "{stderr}"
    );
    assert!(stderr.contains("heaplab run -w"), "{stderr}");

    let counts = replay_matches(&trace);
    assert!(counts.allocs > 2000 && counts.reallocs > 0, "{counts}");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.starts_with("# heaplab trace: recorded by heaplab-preload, pid "));
    let big = text
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            w[0] == "a" && w.len() == 3 && (100_000..100_100).contains(&w[2].parse().unwrap_or(0))
        })
        .count();
    assert!(
        (300..310).contains(&big),
        "{big} allocations of a 100,000-byte string"
    );
    // Every one of them was freed again.
    assert!(
        counts.live_bytes < counts.peak_live_bytes - 300 * 100_000,
        "{counts}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn threads_get_their_own_numbers() {
    let d = dir("threads");
    let trace = d.join("threads.trace");
    let out = record(
        &trace,
        "import threading\n\
         def work():\n    xs = [bytes(5000) for _ in range(200)]\n    return len(xs)\n\
         ts = [threading.Thread(target=work) for _ in range(4)]\n\
         [t.start() for t in ts]\n[t.join() for t in ts]\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counts = replay_matches(&trace);
    assert_eq!(counts.threads, 5, "main and four threads: {counts}");
    let text = std::fs::read_to_string(&trace).unwrap();
    for t in 1..=4 {
        let n = text
            .lines()
            .filter(|l| l.ends_with(&format!(" thread={t}")))
            .count();
        assert!(n >= 200, "thread {t} has {n} events");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_forked_child_writes_its_own_trace() {
    let d = dir("fork");
    let trace = d.join("fork.trace");
    let out = record(
        &trace,
        "import os\n\
         keep = [bytes(4000) for _ in range(100)]\n\
         pid = os.fork()\n\
         if pid == 0:\n    mine = [bytes(3000) for _ in range(100)]\n    del keep\n    os._exit(0)\n\
         os.waitpid(pid, 0)\n\
         print(os.getpid(), pid)\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let pids: Vec<u32> = stdout
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    let (parent, child) = (pids[0], pids[1]);
    let child_trace = d.join(format!("fork.{child}.trace"));
    let mut files: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files, [child_trace.clone(), trace.clone()]);

    replay_matches(&trace);
    let counts = replay_matches(&child_trace);
    let text = std::fs::read_to_string(&child_trace).unwrap();
    assert!(
        text.contains(&format!("pid {child}, forked from pid {parent}\n")),
        "header names the parent"
    );
    // What the child inherited comes first, then its own 100 strings, and the parent's
    // 100 it freed.
    assert!(text.contains("\np fork\n"));
    let after_fork = text.split("\np fork\n").nth(1).unwrap();
    let allocs_3000 = after_fork
        .lines()
        .filter(|l| {
            l.starts_with("a ")
                && l.split(' ')
                    .nth(2)
                    .and_then(|s| s.parse::<u64>().ok())
                    .is_some_and(|s| (3000..3100).contains(&s))
        })
        .count();
    assert!(allocs_3000 >= 100, "{allocs_3000} child strings");
    assert!(counts.frees >= 100, "{counts}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_command_exit_code_passes_through() {
    let d = dir("exit");
    let out = record(&d.join("exit.trace"), "raise SystemExit(7)");
    assert_eq!(out.status.code(), Some(7));
    replay_matches(&d.join("exit.trace"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_missing_library_says_how_to_build_it() {
    let out = Command::new(HEAPLAB)
        .args([
            "record",
            "-o",
            "/tmp/never.trace",
            "--preload",
            "/nonexistent.so",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.so does not exist"));
}

/// Compiles `tests/record/<name>.c` with `flags` into `d`, with `cc`, the C compiler Rust
/// links with.
fn compile(d: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let program = d.join(name);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/record/{name}.c"));
    let cc = Command::new("cc")
        .args(flags)
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .status()
        .expect("cc, the C compiler Rust links with, runs");
    assert!(cc.success(), "cc {flags:?} {}", source.display());
    program
}

/// Each recorded C function, once: the lines must say exactly what was called.
#[test]
fn every_entry_point_writes_the_line_it_should() {
    let d = dir("every");
    let program = compile(&d, "every_call", &["-O0"]);
    let trace = d.join("every.trace");
    let out = Command::new(HEAPLAB)
        .arg("record")
        .arg("-o")
        .arg(&trace)
        .arg("--")
        .arg(&program)
        .env("HEAPLAB_PRELOAD", preload())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    replay_matches(&trace);

    // Ids are numbered from the trace's start, which holds the C library's own
    // allocations first: name each id by its first appearance from `malloc(100)` on.
    let text = std::fs::read_to_string(&trace).unwrap();
    // Time marks come wherever 100 µs happen to pass, so they are left out here (their
    // own test is below).
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("t "))
        .collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("a ") && l.ends_with(" 100"))
        .unwrap();
    let mut names = std::collections::HashMap::new();
    let events: Vec<String> = lines[start..]
        .iter()
        .map(|l| {
            let mut w: Vec<String> = l.split(' ').map(String::from).collect();
            let next = names.len() + 1;
            let id = *names.entry(w[1].clone()).or_insert(next);
            w[1] = format!("#{id}");
            w.join(" ")
        })
        .collect();
    let expected = [
        "a #1 100",       // malloc
        "a #2 300",       // calloc(10, 30)
        "a #3 50",        // realloc(NULL, 50)
        "r #3 5000",      // realloc
        "a #4 100",       // reallocarray(NULL, 4, 25)
        "a #5 200 64",    // posix_memalign
        "a #6 512 256",   // aligned_alloc
        "a #7 48 32",     // memalign
        "a #8 10 4096",   // valloc
        "a #9 4096 4096", // pvalloc: whole pages
        // free(NULL) is not an event
        "f #1",
        "f #2",
        "f #3",
        "f #4",
        "f #5",
        "f #6",
        "f #7",
        "f #8",
        "f #9",
        "a #10 7",
        "f #10", // realloc(p, 0) frees
    ];
    assert_eq!(events, expected);
    std::fs::remove_dir_all(&d).unwrap();
}

/// A command run through a wrapper (here `sh`, as a pyenv shim is a bash script) starts
/// other processes, each with a trace: one summary line names them and the largest, and
/// `--verbose` lists each.
#[test]
fn a_wrapped_command_gets_one_summary_line() {
    let d = dir("wrapped");
    let trace = d.join("wrapped.trace");
    let script = format!(
        "{} -c 'x = [bytes(1000) for _ in range(3000)]'; true",
        python()
    );
    let run = |verbose: bool| {
        let mut cmd = Command::new(HEAPLAB);
        cmd.arg("record").arg("-o").arg(&trace);
        if verbose {
            cmd.arg("--verbose");
        }
        cmd.args(["--", "sh", "-c", &script])
            .env("HEAPLAB_PRELOAD", preload())
            .output()
            .expect("heaplab runs")
    };
    let out = run(false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].contains("2 processes wrote traces; the largest, "),
        "{stderr}"
    );
    // The program is python, not the shell, which wrote the trace named by -o.
    assert!(
        !lines[0].contains(&format!("{} ", trace.display())),
        "{stderr}"
    );
    assert!(
        lines[1].contains("replay with `heaplab run -w "),
        "{stderr}"
    );
    let out = run(true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 3, "{stderr}");
    assert!(
        stderr.contains(&format!("{}: ", trace.display())),
        "{stderr}"
    );
}

/// `record --callers` on a C program with debug info: every allocation of the program's
/// functions carries its call site, the sites are named after those functions, and
/// blame groups the pinned bytes by them, adding up to the pinned total.
#[test]
fn callers_name_the_programs_functions() {
    let d = dir("callers");
    let program = compile(&d, "callers", &["-g", "-O1"]);
    let trace = d.join("callers.trace");
    let out = Command::new(HEAPLAB)
        .args(["record", "--callers", "-o"])
        .arg(&trace)
        .arg("--")
        .arg(&program)
        .env("HEAPLAB_PRELOAD", preload())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("call sites ("), "{stderr}");
    // The trailer is still the last line, and the replay still counts what was recorded.
    replay_matches(&trace);

    let text = std::fs::read_to_string(&trace).unwrap();
    let names: std::collections::HashMap<&str, &str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("site ")?.split_once(' '))
        .collect();
    let named = |f: &str| {
        names
            .iter()
            .filter(|(_, n)| n.starts_with(&format!("{f} (callers.c:")))
            .map(|(a, _)| *a)
            .collect::<Vec<_>>()
    };
    for f in ["make_name", "make_table", "grow_buffer", "main"] {
        assert_eq!(named(f).len(), 1, "{f} in {names:?}");
    }
    // Each function's 2,000 calls carry its site: malloc in make_name, calloc in
    // make_table, realloc in grow_buffer.
    let count = |op: &str, f: &str| {
        let site = format!(" site={}", named(f)[0]);
        text.lines()
            .filter(|l| l.starts_with(op) && l.ends_with(&site))
            .count()
    };
    assert_eq!(count("a ", "make_name"), 2000);
    assert_eq!(count("a ", "make_table"), 2000);
    assert_eq!(count("r ", "grow_buffer"), 2000);
    assert_eq!(count("a ", "main"), 2000);

    let out = Command::new(HEAPLAB)
        .args(["blame", "-w"])
        .arg(&trace)
        .args(["-p", "glibc-like", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b: Value = serde_json::from_slice(&out.stdout).unwrap();
    let groups = b["by_site"].as_array().unwrap();
    let sum: u64 = groups.iter().map(|g| g["pinned"].as_u64().unwrap()).sum();
    assert_eq!(sum, b["pinned"].as_u64().unwrap());
    for f in ["make_name", "make_table", "grow_buffer"] {
        let g = groups
            .iter()
            .find(|g| g["key"].as_str().unwrap().starts_with(&format!("{f} (")))
            .unwrap_or_else(|| panic!("{f} in {groups:?}"));
        // Every 8th of the 2,000 blocks stays live.
        assert_eq!(g["blocks"], 250, "{f}: {g}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// What `heaplab sweep -p llvm-bump` over `slab_sizes` on `trace`, with `extra` flags,
/// finds at each point: peak committed bytes, page operations and resident bytes at end.
fn slab_size_sweep(trace: &Path, slab_sizes: &str, extra: &[&str]) -> Vec<[u64; 3]> {
    let out = Command::new(HEAPLAB)
        .args(["sweep", "-p", "llvm-bump", "--vary"])
        .arg(format!("slab_size={slab_sizes}"))
        .args(extra)
        .arg("-w")
        .arg(trace)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            ["peak_committed_bytes", "page_ops", "end_resident_bytes"]
                .map(|k| p["metrics"][k].as_u64().unwrap())
        })
        .collect()
}

/// Whether no two of `points` agree on any figure.
fn all_differ(points: &[[u64; 3]]) -> bool {
    (0..3).all(|k| {
        let mut figures: Vec<u64> = points.iter().map(|p| p[k]).collect();
        figures.sort_unstable();
        figures.dedup();
        figures.len() == points.len()
    })
}

/// A JIT in miniature (`tests/record/jit_arenas.c`) annotates its bump arena with
/// `heaplab.h`: it runs unchanged without the recorder, its trace has the arena's 80,000
/// allocations and 40 resets with its slab mallocs marked, a replay leaves the slabs out
/// and counts them, `convert` keeps them, and a sweep of `llvm-bump`'s slab size over
/// the recording answers differently at every size. The same trace stripped of the
/// annotations, as the recorder wrote it before they existed, answers the same at every
/// size: the question the annotations make answerable.
#[test]
fn an_annotated_arena_is_recorded_and_its_slab_size_matters_on_replay() {
    let d = dir("arenas");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../heaplab-record/include");
    let include = format!("-I{}", include.display());
    let program = compile(&d, "jit_arenas", &["-O1", &include]);
    let alone = Command::new(&program).status().unwrap();
    assert!(alone.success(), "the program runs without the recorder");

    let trace = d.join("jit.trace");
    let out = Command::new(HEAPLAB)
        .arg("record")
        .arg("-o")
        .arg(&trace)
        .arg("--")
        .arg(&program)
        .env("HEAPLAB_PRELOAD", preload())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counts = trailer(&trace);
    assert_eq!(counts.arena_allocs, 40 * 2000, "{counts}");
    assert!(counts.slabs >= 40, "{counts}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let count = |f: &dyn Fn(&str) -> bool| lines.iter().filter(|l| f(l)).count() as u64;
    assert_eq!(count(&|l| l.ends_with(" arena=1")), 80_000);
    assert_eq!(count(&|l| l.contains(" slab=1")), counts.slabs);
    assert_eq!(count(&|l| l == "reset 1"), 40);
    for line in ["arena 1", "drop 1", "p compile", "p run"] {
        assert_eq!(count(&|l| l == line), 1, "{line}");
    }

    // The replay leaves out each slab and its free (the program reallocs none), and
    // carries out the arena's allocations instead.
    let run = |path: &Path| -> Value {
        let out = Command::new(HEAPLAB)
            .args(["run", "-p", "glibc-like", "--json", "-w"])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let replay = run(&trace);
    assert_eq!(replay[0]["trace"]["slab_lines"], 2 * counts.slabs);
    assert_eq!(
        replay[0]["allocs"],
        counts.allocs - counts.slabs + counts.arena_allocs
    );

    // `convert` keeps the slab lines, and its output replays as the original does.
    let converted = d.join("converted.trace");
    let out = Command::new(HEAPLAB)
        .arg("convert")
        .arg(&trace)
        .arg("-o")
        .arg(&converted)
        .output()
        .unwrap();
    assert!(out.status.success());
    let again = std::fs::read_to_string(&converted).unwrap();
    assert_eq!(
        again.lines().filter(|l| l.contains(" slab=1")).count() as u64,
        counts.slabs
    );
    let mut replay_again = run(&converted);
    replay_again[0]["config"]["workload"] = replay[0]["config"]["workload"].clone();
    replay_again[0]["trace"]["lines"] = replay[0]["trace"]["lines"].clone();
    assert_eq!(replay_again, replay);

    // The arena's slabs come from llvm-bump's, whose size moves the peak committed
    // memory, the page operations and what stays resident at the end.
    let sizes = "4KiB,64KiB,1MiB";
    let points = slab_size_sweep(&trace, sizes, &[]);
    assert_eq!(points.len(), 3);
    assert!(all_differ(&points), "{points:?}");
    // The program's other mallocs in the general heap rather than a global arena: the
    // arena alone makes the difference, even in the peak.
    let heap = ["--set", "unscoped=heap"];
    let points = slab_size_sweep(&trace, sizes, &heap);
    assert!(
        points[0][0] < points[1][0] && points[1][0] < points[2][0],
        "{points:?}"
    );

    // Without the annotations the arena is a few slab mallocs, in the general heap as
    // every other malloc, and no slab size changes anything.
    let plain: String = text
        .lines()
        .filter(|l| {
            let annotation = l.ends_with(" arena=1")
                || ["arena ", "reset ", "drop "]
                    .iter()
                    .any(|op| l.starts_with(op));
            !annotation
        })
        .map(|l| l.replace(" slab=1", "") + "\n")
        .collect();
    let unannotated = d.join("unannotated.trace");
    std::fs::write(&unannotated, plain).unwrap();
    let flat = slab_size_sweep(&unannotated, sizes, &heap);
    assert!(flat.iter().all(|p| *p == flat[0]), "{flat:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The recorder marks the time before a call when 100 µs or more have passed since the
/// last mark, so a program that pauses between its allocations leaves a mark per pause,
/// and the replay runs on that clock.
#[test]
fn a_recorded_program_that_pauses_leaves_time_marks_the_replay_runs_on() {
    let d = dir("marks");
    let trace = d.join("py.trace");
    let out = record(
        &trace,
        "import time\n\
         kept = []\n\
         for i in range(8):\n\
         \x20   kept.append(bytes(200000))\n\
         \x20   time.sleep(0.003)\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let marks: Vec<u64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("t "))
        .map(|n| n.parse().unwrap())
        .collect();
    // At least one mark per 3 ms pause, never going back, never closer than 100 µs.
    assert!(marks.len() >= 8, "{} marks", marks.len());
    assert!(
        marks.windows(2).all(|w| w[1] >= w[0] + 100_000),
        "{marks:?}"
    );
    assert!(*marks.last().unwrap() >= 8 * 3_000_000, "{marks:?}");
    replay_matches(&trace);
    let out = Command::new(HEAPLAB)
        .args(["run", "--workload"])
        .arg(&trace)
        .args(["--policy", "mimalloc-like", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["time"]["clock"], "trace");
    assert_eq!(v[0]["time"]["marks"], marks.len() as u64);
    assert_eq!(v[0]["time"]["elapsed_ns"], *marks.last().unwrap());
    std::fs::remove_dir_all(d).ok();
}
