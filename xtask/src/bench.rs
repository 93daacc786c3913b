//! `cargo xtask bench`: every benchmark of heaplab in one run, ending with one table (see
//! `report.rs`) of each figure's median beside its target. The areas, in the order they
//! run: the simulator's criterion bench (events per second per family, best fit with many
//! live blocks, time per event as live blocks grow), trace import end to end beside `wc
//! -l` and `zcat` (criterion too), real memory against glibc, mimalloc and jemalloc and
//! `glibc-like`'s fidelity (`real_bench.rs`), teaching moments (`teach_bench.rs`), and
//! the page in headless Chromium with the wasm sizes (`page_bench.rs`).
//!
//! The criterion figures are read from criterion's own estimates (the median time per
//! iteration and the events each iteration applies), with each benchmark's fastest
//! sample beside the median: what the machine adds to a sample is never negative, so it
//! moves less between sittings than the median does, and shows whether a change to the
//! code or the machine's state moved the median.
//!
//! `--quick` runs every area at smaller sizes (`HEAPLAB_BENCH_QUICK`, read by the benches
//! themselves) with criterion's results kept apart, in `target/criterion-quick`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::report::{count, Machine, Report, Row};
use crate::{cargo, run_cmd, target_dir};

/// The families `benches/simulate.rs` times, by the names it gives them, and whether
/// BENCHMARKS.md holds them to 30 M events/s (the free list's target is best fit's
/// with 100,000 live blocks instead).
const FAMILIES: &[(&str, bool)] = &[
    ("bump", true),
    ("size-class", true),
    ("buddy", true),
    ("free-list-best", false),
    ("free-list-first", false),
];

/// What `cargo xtask bench` was asked for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    quick: bool,
    /// Only the page (`--page`), only the teaching moments (`--teach`) or only the long
    /// runs (`--long`).
    only: Option<&'static str>,
    /// Print the last report again without running anything.
    table: bool,
    /// Anything else goes to the simulator's criterion bench (a filter, say), which
    /// then runs alone.
    criterion: Vec<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options::default();
        for arg in args {
            match arg.as_str() {
                "--quick" => o.quick = true,
                "--table" => o.table = true,
                "--page" | "--teach" | "--long" => {
                    let only = match arg.as_str() {
                        "--page" => "page",
                        "--teach" => "teach",
                        _ => "long",
                    };
                    if o.only.is_some_and(|o| o != only) {
                        bail!(
                            "`--page`, `--teach` and `--long` each run one area; give one of them"
                        );
                    }
                    o.only = Some(only);
                }
                _ => o.criterion.push(arg.clone()),
            }
        }
        if o.only.is_some() && !o.criterion.is_empty() {
            bail!(
                "`{}` goes to the simulator's criterion bench, which `--{}` does not run",
                o.criterion.join(" "),
                o.only.unwrap_or_default()
            );
        }
        Ok(o)
    }
}

/// Runs what `args` asks for and prints the report, which it also keeps for `--table`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let opts = Options::parse(args)?;
    let saved = target_dir(root).join("bench/report.md");
    if opts.table {
        let report = std::fs::read_to_string(&saved).with_context(|| {
            format!(
                "reading {}: has `cargo xtask bench` run yet?",
                saved.display()
            )
        })?;
        print!("{report}");
        return Ok(());
    }
    let start = Instant::now();
    // The date the run began, and the commit it ran.
    let machine = Machine::here(root);
    let quick = opts.quick;
    let traces = target_dir(root).join("tmp/tracebench");
    let trace = traces.join(format!("{}.trace", import_stem(quick)));
    let mut rows = Vec::new();
    let bin = target_dir(root).join("release/heaplab");
    // An area that fails ends the run, but the rows of the areas before it are still
    // reported (and the failure named under them): a long run's figures are not lost to
    // its last step.
    let mut areas = || -> Result<()> {
        match opts.only {
            Some("page") => {
                prepare_browser(root)?;
                rows.extend(crate::page_bench::run(root, &bin, quick, &trace)?);
            }
            Some("teach") => {
                prepare_browser(root)?;
                rows.extend(crate::teach_bench::run(root, &bin, quick)?);
            }
            Some(_) => {
                prepare_browser(root)?;
                rows.extend(crate::long_bench::run(root, &bin, quick)?);
            }
            None => {
                run_bench(root, "heaplab-core", "simulate", &opts.criterion, quick)?;
                let dir = criterion_dir(root, quick);
                print_fastest(&dir);
                rows.extend(simulator_rows(&dir));
                // A filter given is meant for the simulator's bench: the other areas run
                // only without one.
                if opts.criterion.is_empty() {
                    run_bench(root, "heaplab-core", "import", &[], quick)?;
                    rows.extend(import_rows(&dir.join("trace-import"), &traces, quick));
                    run_bench(root, "heaplab-mm", "module", &[], quick)?;
                    rows.extend(module_rows(&dir.join("module")));
                    prepare_browser(root)?;
                    rows.extend(crate::real_bench::run(&bin, quick)?);
                    rows.extend(crate::teach_bench::run(root, &bin, quick)?);
                    rows.extend(crate::page_bench::run(root, &bin, quick, &trace)?);
                    rows.extend(crate::long_bench::run(root, &bin, quick)?);
                }
            }
        }
        Ok(())
    };
    let outcome = areas();
    let report = Report {
        rows,
        machine,
        quick,
        seconds: start.elapsed().as_secs_f64(),
        stopped: outcome.as_ref().err().map(|e| format!("{e:#}")),
    }
    .markdown();
    println!("\n{report}");
    if let Some(dir) = saved.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&saved, &report).with_context(|| format!("writing {}", saved.display()))?;
    outcome
}

/// What the areas after criterion's share: the release CLI, the page's three wasm
/// modules, clang (the page bench builds allocator modules with `heaplab mm build`),
/// Chromium and the npm packages that drive it. Built once a run, so the time the report
/// gives counts each build once.
fn prepare_browser(root: &Path) -> Result<()> {
    run_cmd(
        cargo().args(["build", "--release", "-p", "heaplab-cli"]),
        root,
    )?;
    crate::tools::build_wasm(root)?;
    crate::tools::ensure_clang(root)?;
    // Fidelity compares mimalloc2-like with Debian's mimalloc 2.0, preloaded.
    crate::tools::ensure_allocator_libraries(root)?;
    crate::tools::ensure_chromium(root)?;
    crate::tools::ensure_playwright(root)
}

/// Where criterion keeps the estimates of this run's sizes: quick runs apart, so neither
/// size compares itself with the other's last run.
fn criterion_dir(root: &Path, quick: bool) -> PathBuf {
    target_dir(root).join(if quick {
        "criterion-quick"
    } else {
        "criterion"
    })
}

/// The import bench's traces' file name before the extension, as `benches/import.rs`
/// names them for this run's sizes.
fn import_stem(quick: bool) -> &'static str {
    if quick {
        "import-quick-v1"
    } else {
        "import-v1"
    }
}

/// Trace import end to end: events/s and MB/s of each trace file (the bytes of the file
/// as stored, gzip'd for `trace-gz`), and each against its floor in the same run: `wc -l`
/// on the text, `zcat` on the gzip'd file.
fn import_rows(dir: &Path, traces: &Path, quick: bool) -> Vec<Row> {
    let stem = import_stem(quick);
    let size = |ext: &str| {
        std::fs::metadata(traces.join(format!("{stem}.{ext}"))).map_or(0.0, |m| m.len() as f64)
    };
    let floor = |bench: &str| rate(&dir.join(bench));
    let mut rows = Vec::new();
    for (bench, ext, floor_name, floor_bench, floor_ext, target) in [
        ("trace", "trace", "wc -l", "wc-l", "trace", 15e6),
        ("rep", "rep", "wc -l", "wc-l", "trace", 15e6),
        ("trace-gz", "trace.gz", "zcat", "zcat", "trace.gz", 10e6),
    ] {
        let (Some(r), Some(events)) = (rate(&dir.join(bench)), elements(&dir.join(bench))) else {
            continue;
        };
        // Each iteration reads one whole file of `events` events.
        let mb = |rate: f64, ext: &str| rate / events * size(ext) / 1e6;
        let against = floor(floor_bench).map_or(String::new(), |f| {
            format!(
                "; `{floor_name}` {:.0} MB/s, {:.1}x faster",
                mb(f, floor_ext),
                f / r
            )
        });
        rows.push(
            Row::new(
                "trace import",
                format!(
                    "`heaplab run -w {stem}.{ext} -p size-class` end to end ({}, {:.1} MB), \
                     beside `{floor_name}` on the same file",
                    count(events),
                    size(ext) / 1e6
                ),
                format!("{} ({:.0} MB/s{against})", per_second(r), mb(r, ext)),
            )
            .target(format!("≥ {}", per_second(target)), r >= target),
        );
    }
    rows
}

/// Your own allocator: the `implicit` example through heaplab, its every payload checked,
/// against the same module replaying the events alone (`benches/module.rs` of
/// heaplab-mm). BENCHMARKS.md holds heaplab's share to at most 2x the module's own time.
fn module_rows(dir: &Path) -> Vec<Row> {
    let alone = dir.join("implicit-alone");
    let checked = dir.join("implicit-heaplab-checked");
    let (Some(own), Some(through), Some(events)) = (rate(&alone), rate(&checked), elements(&alone))
    else {
        return Vec::new();
    };
    let share = own / through;
    vec![Row::new(
        "allocator modules",
        format!(
            "`implicit` through heaplab, checked / alone, in wasmi, time, `churn` ({})",
            count(events)
        ),
        format!(
            "{share:.2}x ({} / {})",
            per_second(through),
            per_second(own)
        ),
    )
    .target("at most 2x", share <= 2.0)]
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

/// `cargo bench -p PACKAGE --bench NAME -- --noplot EXTRA`, its estimates kept where
/// `criterion_dir` says.
fn run_bench(root: &Path, package: &str, name: &str, extra: &[String], quick: bool) -> Result<()> {
    let mut bench = Command::new(env!("CARGO"));
    bench
        .current_dir(root)
        .args(["bench", "-p", package, "--bench", name, "--"])
        .arg("--noplot")
        .args(extra)
        .env("CRITERION_HOME", criterion_dir(root, quick));
    if quick {
        bench.env("HEAPLAB_BENCH_QUICK", "1");
    }
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

/// The fastest samples, as progress above the report (which quotes them beside the
/// medians).
fn print_fastest(dir: &Path) {
    println!("\nfastest sample, events per second (the least time per iteration of any sample):\n");
    println!("| family | churn | tree_churn | fewer live | more live |");
    println!("|---|---|---|---|---|");
    for (family, _) in FAMILIES {
        let cell = |path: &Path| fastest(path).map_or("—".into(), per_second);
        let (few, many) = live_dirs(dir, family);
        println!(
            "| {family} | {} | {} | {} | {} |",
            cell(&dir.join(format!("events_churn/{family}"))),
            cell(&dir.join(format!("events_tree_churn/{family}"))),
            few.map_or("—".into(), |(_, p)| cell(&p)),
            many.map_or("—".into(), |(_, p)| cell(&p)),
        );
    }
}

/// The simulator's rows: events/s per family on each workload, best fit with many live
/// blocks, and each family's time per event with the most live blocks against the
/// fewest.
fn simulator_rows(dir: &Path) -> Vec<Row> {
    let mut rows = Vec::new();
    let both = |bench: &Path| {
        let median = rate(bench)?;
        let fast = fastest(bench).map_or(String::new(), |f| format!(" (fastest {:.1})", f / 1e6));
        Some((median, format!("{}{fast}", per_second(median))))
    };
    for workload in ["churn", "tree_churn"] {
        for (family, held) in FAMILIES {
            let bench = dir.join(format!("events_{workload}/{family}"));
            let (Some((median, cell)), Some(events)) = (both(&bench), elements(&bench)) else {
                continue;
            };
            let row = Row::new(
                "simulator",
                format!("`{family}` on `{workload}` ({}), events/s", count(events)),
                cell,
            );
            rows.push(if *held {
                row.target("≥ 30 M/s", median >= 30e6)
            } else {
                row
            });
        }
    }
    if let Some((live, bench)) = numbered_dirs(&dir.join("best-fit"), "-live").pop() {
        if let Some((median, cell)) = both(&bench) {
            rows.push(
                Row::new(
                    "simulator",
                    format!(
                        "`free-list-best` with {} live blocks, free + alloc rounds, events/s",
                        crate::report::thousands(live)
                    ),
                    cell,
                )
                .target("≥ 10 M/s", median >= 10e6),
            );
        }
    }
    for (family, _) in FAMILIES {
        let (Some((few, few_dir)), Some((many, many_dir))) = live_dirs(dir, family) else {
            continue;
        };
        let (Some(fast), Some(slow)) = (rate(&few_dir), rate(&many_dir)) else {
            continue;
        };
        let ratio = fast / slow;
        rows.push(
            Row::new(
                "simulator",
                format!(
                    "`{family}`, time per event with {} live blocks / with {}",
                    crate::report::thousands(many),
                    crate::report::thousands(few)
                ),
                format!("{ratio:.1}x ({} / {})", per_second(slow), per_second(fast)),
            )
            .target("within 3x", ratio <= 3.0),
        );
    }
    rows
}

/// The fewest and the most live blocks `live-blocks/FAMILY/N` was run with, and their
/// folders.
fn live_dirs(dir: &Path, family: &str) -> (Option<Numbered>, Option<Numbered>) {
    let mut sizes = numbered_dirs(&dir.join(format!("live-blocks/{family}")), "");
    let many = sizes.pop();
    let few = if sizes.is_empty() {
        None
    } else {
        Some(sizes.swap_remove(0))
    };
    (few, many)
}

/// A benchmark's folder and the number it is named by (its live blocks).
type Numbered = (u64, PathBuf);

/// The subfolders of `dir` named by a number then `suffix`, by that number, smallest
/// first. Criterion names a benchmark's folder after its parameter.
fn numbered_dirs(dir: &Path, suffix: &str) -> Vec<Numbered> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Numbered> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let n = e.file_name().to_str()?.strip_suffix(suffix)?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    found.sort();
    found
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
/// applies over that time.
fn per_second_at(bench: &Path, nanos: f64) -> Option<f64> {
    Some(elements(bench)? / (nanos * 1e-9))
}

/// The events one iteration of a benchmark applies (`new/benchmark.json`).
fn elements(bench: &Path) -> Option<f64> {
    let meta = std::fs::read_to_string(bench.join("new/benchmark.json")).ok()?;
    number_after(&meta, "\"Elements\":")
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

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_choose_the_sizes_and_areas_and_the_rest_goes_to_criterion() {
        assert_eq!(Options::parse(&[]).unwrap(), Options::default());
        let quick_page = Options::parse(&args(&["--quick", "--page"])).unwrap();
        assert!(quick_page.quick);
        assert_eq!(quick_page.only, Some("page"));
        assert!(Options::parse(&args(&["--table"])).unwrap().table);
        let filtered = Options::parse(&args(&["--quick", "best-fit"])).unwrap();
        assert_eq!(filtered.criterion, ["best-fit"]);
        assert!(Options::parse(&args(&["--page", "--teach"])).is_err());
        assert!(Options::parse(&args(&["--long", "--page"])).is_err());
        assert_eq!(
            Options::parse(&args(&["--long"])).unwrap().only,
            Some("long")
        );
        assert!(Options::parse(&args(&["--teach", "best-fit"])).is_err());
    }

    #[test]
    fn live_block_sizes_are_read_from_criterion_folders_fewest_and_most() {
        let dir = std::env::temp_dir().join(format!("xtask-live-{}", std::process::id()));
        for name in ["1000000", "10000", "100000", "notes"] {
            std::fs::create_dir_all(dir.join("live-blocks/bump").join(name)).unwrap();
        }
        let (few, many) = live_dirs(&dir, "bump");
        assert_eq!(few.map(|(n, _)| n), Some(10_000));
        assert_eq!(many.map(|(n, _)| n), Some(1_000_000));
        assert_eq!(live_dirs(&dir, "buddy"), (None, None));
        std::fs::create_dir_all(dir.join("best-fit/100000-live")).unwrap();
        let best = numbered_dirs(&dir.join("best-fit"), "-live");
        assert_eq!(best.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [100_000]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
