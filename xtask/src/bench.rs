//! `cargo xtask bench`: runs the simulator's criterion bench and prints the figures
//! BENCHMARKS.md sets targets for, from criterion's own estimates (the median time per
//! iteration and the events each iteration applies), so BENCHMARKS.md can quote them as
//! they are. A second
//! table gives each benchmark's fastest sample: what the machine adds to a sample is never
//! negative, so it moves less between sittings than the median does, and shows whether a
//! change to the code or the machine's state moved the median.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The families `benches/simulate.rs` times, by the names it gives them.
const FAMILIES: &[&str] = &[
    "bump",
    "size-class",
    "buddy",
    "free-list-best",
    "free-list-first",
];

/// Runs the bench (with `extra` passed on to criterion, e.g. a filter) and prints the
/// table; with `--table` alone, prints the table of the last run without running.
pub fn run(root: &Path, extra: &[String]) -> Result<()> {
    if extra == ["--page"] {
        return crate::page_bench::run(root);
    }
    if extra == ["--teach"] {
        return crate::teach_bench::run(root);
    }
    if extra != ["--table"] {
        run_bench(root, "simulate", extra)?;
        // Trace import takes no criterion filter of the simulator's; a filter given
        // is meant for the simulator's bench, so import runs only without one.
        if extra.is_empty() {
            run_bench(root, "import", extra)?;
        }
    }
    let target = crate::target_dir(root);
    print_table(&target.join("criterion"));
    print_import(
        &target.join("criterion/trace-import"),
        &target.join("tmp/tracebench"),
    );
    // The page's figures need a browser and a fresh wasm build, and the teaching
    // moments a release CLI: with a full run only.
    if extra.is_empty() {
        crate::teach_bench::run(root)?;
        crate::page_bench::run(root)?;
    }
    Ok(())
}

/// The events of `benches/import.rs`'s traces.
const IMPORT_EVENTS: f64 = 1e7;

/// Trace import end to end: events/s and MB/s of each trace file (the bytes of the file
/// as stored, gzip'd for `trace-gz`), and each against its floor in the same run: `wc -l`
/// on the text, `zcat` on the gzip'd file.
fn print_import(dir: &Path, traces: &Path) {
    let Some(text_floor) = rate(&dir.join("wc-l")) else {
        return;
    };
    let zcat_floor = rate(&dir.join("zcat"));
    let size = |name: &str| std::fs::metadata(traces.join(name)).map_or(0, |m| m.len());
    println!(
        "
trace import, 10 M events, `heaplab run -w FILE -p size-class` end to end (medians):
"
    );
    println!("| input | events/s | MB/s | floor | floor MB/s | import / floor time |");
    println!("|---|---|---|---|---|---|");
    let rows = [
        (
            "trace",
            "import-v1.trace",
            "wc -l",
            Some(text_floor),
            "import-v1.trace",
        ),
        (
            "rep",
            "import-v1.rep",
            "wc -l",
            Some(text_floor),
            "import-v1.trace",
        ),
        (
            "trace-gz",
            "import-v1.trace.gz",
            "zcat",
            zcat_floor,
            "import-v1.trace.gz",
        ),
    ];
    for (bench, file, floor_name, floor, floor_file) in rows {
        let Some(r) = rate(&dir.join(bench)) else {
            continue;
        };
        // Each iteration reads one file of `IMPORT_EVENTS` events whole.
        let mb = |rate: f64, file: &str| rate / IMPORT_EVENTS * size(file) as f64 / 1e6;
        let (floor_mb, ratio) = match floor {
            Some(f) => (
                format!("{:.0}", mb(f, floor_file)),
                format!("{:.1}x", f / r),
            ),
            None => ("—".into(), "—".into()),
        };
        println!(
            "| {bench} | {} | {:.0} | {floor_name} | {floor_mb} | {ratio} |",
            per_second(r),
            mb(r, file),
        );
    }
}

/// glibc's malloc told to keep what the bench frees: the heap's top is never trimmed and
/// large blocks come from the heap rather than mappings of their own (1 GiB thresholds).
///
/// Every iteration builds a fresh simulation and drops it. With glibc's defaults, whether
/// the next one's tables land on pages still mapped or on pages the kernel must zero again
/// depends on where the benchmarks before it left the heap, so the same code read up to
/// twice as slow in one sitting as in another: free-list best fit on `tree_churn` took
/// 0.9–1.4 million page faults a run and read 5.9–6.1 M events/s, against 19,000 faults and
/// 9.3–9.6 M/s with these settings. The browser's wasm memory never shrinks either.
/// `GLIBC_TUNABLES` set in the environment, even empty, is left as it is.
const KEEP_FREED_MEMORY: &str =
    "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=1073741824";

fn run_bench(root: &Path, name: &str, extra: &[String]) -> Result<()> {
    let mut bench = Command::new(env!("CARGO"));
    bench
        .current_dir(root)
        .args(["bench", "-p", "heaplab-core", "--bench", name, "--"])
        .arg("--noplot")
        .args(extra);
    match std::env::var_os("GLIBC_TUNABLES") {
        Some(set) => eprintln!("xtask bench: GLIBC_TUNABLES={set:?}, as set"),
        None => {
            eprintln!("xtask bench: GLIBC_TUNABLES={KEEP_FREED_MEMORY}");
            bench.env("GLIBC_TUNABLES", KEEP_FREED_MEMORY);
        }
    }
    let status = bench.status().context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench failed: {status}");
    }
    Ok(())
}

fn print_table(dir: &Path) {
    println!("\nmedian events per second (criterion's median time per iteration):\n");
    print_rates(dir, rate);
    println!("\nfastest sample, events per second (the least time per iteration of any sample):\n");
    print_rates(dir, fastest);
}

/// One table of events per second, each benchmark's figure taken by `rate`.
fn print_rates(dir: &Path, rate: fn(&Path) -> Option<f64>) {
    println!(
        "| family | churn 0.1 | tree_churn 0.01 | 10,000 live | 1,000,000 live | 1M / 10K time |"
    );
    println!("|---|---|---|---|---|---|");
    for family in FAMILIES {
        let cell = |path: String| rate(&dir.join(path)).map_or("—".into(), per_second);
        let small = rate(&dir.join(format!("live-blocks/{family}/10000")));
        let large = rate(&dir.join(format!("live-blocks/{family}/1000000")));
        let ratio = match (small, large) {
            (Some(s), Some(l)) => format!("{:.1}x", s / l),
            _ => "—".into(),
        };
        println!(
            "| {family} | {} | {} | {} | {} | {ratio} |",
            cell(format!("events_churn/{family}")),
            cell(format!("events_tree_churn/{family}")),
            small.map_or("—".into(), per_second),
            large.map_or("—".into(), per_second),
        );
    }
    if let Some(r) = rate(&dir.join("best-fit/100000-live")) {
        println!("\nbest fit with 100,000 live blocks: {}", per_second(r));
    }
}

/// Events per second of one benchmark: its elements per iteration over criterion's median
/// time per iteration. `None` when the benchmark has not run (it was filtered out).
fn rate(bench: &Path) -> Option<f64> {
    let estimates = std::fs::read_to_string(bench.join("new/estimates.json")).ok()?;
    let median = &estimates[estimates.find("\"median\":")?..];
    per_second_at(bench, number_after(median, "\"point_estimate\":")?)
}

/// Events per second of one benchmark's fastest sample: its elements per iteration over
/// the least time per iteration among criterion's samples (`new/sample.json`).
fn fastest(bench: &Path) -> Option<f64> {
    let samples = std::fs::read_to_string(bench.join("new/sample.json")).ok()?;
    let iters = numbers_after(&samples, "\"iters\":")?;
    let times = numbers_after(&samples, "\"times\":")?;
    let nanos = times
        .iter()
        .zip(&iters)
        .map(|(t, i)| t / i)
        .min_by(f64::total_cmp)?;
    per_second_at(bench, nanos)
}

/// Events per second of one benchmark at `nanos` per iteration: the events an iteration
/// applies (`new/benchmark.json`) over that time.
fn per_second_at(bench: &Path, nanos: f64) -> Option<f64> {
    let meta = std::fs::read_to_string(bench.join("new/benchmark.json")).ok()?;
    Some(number_after(&meta, "\"Elements\":")? / (nanos * 1e-9))
}

/// The numbers of the array right after the first `key` in `json`.
fn numbers_after(json: &str, key: &str) -> Option<Vec<f64>> {
    let rest = json[json.find(key)? + key.len()..].strip_prefix('[')?;
    rest[..rest.find(']')?]
        .split(',')
        .map(|n| n.trim().parse().ok())
        .collect()
}

/// The number right after the first `key` in `json`. Criterion's files are flat enough
/// that this needs no JSON parser, and xtask keeps its dependencies few.
fn number_after(json: &str, key: &str) -> Option<f64> {
    let rest = &json[json.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

fn per_second(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.1} M/s", r / 1e6)
    } else {
        format!("{:.0} K/s", r / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_sample_is_the_least_time_per_iteration() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
        let new = dir.join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("benchmark.json"),
            r#"{"throughput":{"Elements":1000}}"#,
        )
        .unwrap();
        // 2,000 ns an iteration, then 1,000 (the fastest), then 3,000.
        std::fs::write(
            new.join("sample.json"),
            r#"{"sampling_mode":"Linear","iters":[1.0,2.0,3.0],"times":[2000.0,2000.0,9000.0]}"#,
        )
        .unwrap();
        // 1,000 events in 1,000 ns.
        let r = fastest(&dir).unwrap();
        assert!((r - 1e9).abs() < 1.0, "{r}");
        assert_eq!(numbers_after(r#"{"a":[]}"#, "\"a\":"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
