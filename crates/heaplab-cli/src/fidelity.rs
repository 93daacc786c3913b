//! `heaplab fidelity`: each preset that models a real allocator, against that allocator,
//! on the same events.
//!
//! The simulated side is an ordinary run over the simulated provider. The real side is a
//! `baseline` child process, whose heap RSS (anonymous RSS minus that before the first event) is
//! compared with the model's resident bytes, at the peak and after the last event.

use std::path::{Path, PathBuf};

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::config::{PolicyConfig, RunConfig, WorkloadConfig};
use heaplab_core::params::human_bytes;
use heaplab_core::trace::ImportOptions;
use heaplab_native::RealAllocator;
use serde::Serialize;

use crate::cli::FidelityArgs;
use crate::input::{builtin_workload, is_trace_arg, run_one};
use crate::real::run_child;
use crate::CliError;

/// The presets that model a real allocator, and the allocator each models.
const PAIRS: [(&str, RealAllocator); 3] = [
    ("glibc-like", RealAllocator::System),
    ("mimalloc-like", RealAllocator::Mimalloc),
    ("jemalloc-like", RealAllocator::Jemalloc),
];

/// The single-threaded MallocBench ports: a baseline replays on one thread, so workloads
/// whose meaning is in their threads are left out.
const WORKLOADS: [&str; 8] = [
    "list_allocate",
    "tree_allocate",
    "tree_churn",
    "fragment",
    "fragment_iterate",
    "medium",
    "big",
    "balloon",
];

/// The scale of the built-in workloads unless `--scale` is given: small enough that every
/// allocator runs each in a few seconds.
const DEFAULT_SCALE: f64 = 0.05;

/// How close `glibc-like` must come to glibc: a fraction of the real figure.
const GLIBC_PEAK_TARGET: f64 = 0.15;
const GLIBC_END_TARGET: f64 = 0.25;

/// One preset against its allocator on one workload.
#[derive(Debug, Serialize)]
pub struct Row {
    pub workload: String,
    pub preset: String,
    pub allocator: RealAllocator,
    pub sim_peak_resident_bytes: u64,
    pub real_peak_rss_bytes: u64,
    /// Simulated over real.
    pub peak_ratio: f64,
    pub sim_end_resident_bytes: u64,
    /// Heap RSS after the last event, without a trim call: what the model's end is.
    pub real_end_rss_bytes: u64,
    pub end_ratio: f64,
    /// The largest relative error allowed on the peak and the end, where the preset has a
    /// target (`glibc-like`); `null` for presets reported without one.
    pub target: Option<[f64; 2]>,
    pub within_target: Option<bool>,
}

pub fn fidelity(args: FidelityArgs) -> Result<(), CliError> {
    let pairs: Vec<(&str, RealAllocator)> = if args.allocator.is_empty() {
        PAIRS.to_vec()
    } else {
        let wanted = args
            .allocator
            .iter()
            .map(|a| {
                RealAllocator::parse(a).map_err(|e| CliError::input(format!("--allocator: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        PAIRS
            .into_iter()
            .filter(|(_, a)| wanted.contains(a))
            .collect()
    };
    let workloads = workloads(&args)?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find the heaplab binary to re-run: {e}")))?;
    let mut rows = Vec::new();
    for w in &workloads {
        let spec = serde_json::to_string(w).map_err(|e| CliError::failed(e.to_string()))?;
        for &(preset, allocator) in &pairs {
            let mut config = RunConfig::new(&w.id, "");
            config.workload = w.clone();
            config.policy = PolicyConfig::named(preset);
            let sim = run_one(&config, &ImportOptions::default())?.report.summary;
            let real = run_child(&exe, allocator, &spec, 1)?;
            rows.push(row(w, preset, allocator, &sim, &real));
        }
    }
    if args.json {
        let text =
            serde_json::to_string_pretty(&rows).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
    } else {
        print_rows(&rows);
    }
    Ok(())
}

fn row(
    w: &WorkloadConfig,
    preset: &str,
    allocator: RealAllocator,
    sim: &heaplab_core::simulate::Summary,
    real: &heaplab_native::BaselineReport,
) -> Row {
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    let peak_ratio = ratio(sim.peak_resident_bytes, real.peak_rss_bytes);
    let end_ratio = ratio(sim.end_resident_bytes, real.end_rss_bytes);
    let target =
        (allocator == RealAllocator::System).then_some([GLIBC_PEAK_TARGET, GLIBC_END_TARGET]);
    Row {
        workload: workload_name(w),
        preset: preset.to_string(),
        allocator,
        sim_peak_resident_bytes: sim.peak_resident_bytes,
        real_peak_rss_bytes: real.peak_rss_bytes,
        peak_ratio,
        sim_end_resident_bytes: sim.end_resident_bytes,
        real_end_rss_bytes: real.end_rss_bytes,
        end_ratio,
        target,
        within_target: target.map(|[p, e]| {
            (peak_ratio - 1.0).abs() <= p && within(sim.end_resident_bytes, real.end_rss_bytes, e)
        }),
    }
}

/// Whether `sim` is within `fraction` of `real`. Figures within 128 KiB of each other match
/// whatever the ratio: after a heap is freed, glibc and the model both keep about the
/// 128 KiB top pad, and what is left between them is a few pages of glibc's own
/// bookkeeping (its tcache and arena structures), not a difference of policy.
fn within(sim: u64, real: u64, fraction: f64) -> bool {
    const SLACK: u64 = 128 << 10;
    sim.abs_diff(real) <= SLACK || (sim as f64 / real.max(1) as f64 - 1.0).abs() <= fraction
}

fn workload_name(w: &WorkloadConfig) -> String {
    match &w.path {
        Some(p) => Path::new(p)
            .file_name()
            .map_or_else(|| p.clone(), |n| n.to_string_lossy().into_owned()),
        None => w.id.clone(),
    }
}

/// The workloads to compare, resolved: named ones, or the default list plus every trace.
fn workloads(args: &FidelityArgs) -> Result<Vec<WorkloadConfig>, CliError> {
    // The scale goes through the workload's own range check, as `--scale` to `run` does.
    let scale = [format!("scale={}", args.scale.unwrap_or(DEFAULT_SCALE))];
    let builtin = |id: &str| builtin_workload(id, &scale, "--scale");
    if !args.workload.is_empty() {
        // Traces are replayed as recorded, so a scale given with nothing else to scale
        // would be dropped without a word.
        if args.scale.is_some() && args.workload.iter().all(|w| is_trace_arg(w)) {
            return Err(CliError::input(
                "--scale sets the size of built-in workloads, and every --workload here \
                 is a trace file, replayed as recorded"
                    .to_string(),
            ));
        }
        return args
            .workload
            .iter()
            .map(|w| {
                if is_trace_arg(w) {
                    Ok(WorkloadConfig::trace(w.clone()))
                } else {
                    builtin(w)
                }
            })
            .collect();
    }
    let mut out = WORKLOADS
        .iter()
        .map(|id| builtin(id))
        .collect::<Result<Vec<_>, _>>()?;
    // A missing traces folder is not an error: the CLI may run outside the repository.
    if let Ok(dir) = std::fs::read_dir(&args.traces) {
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| heaplab_core::trace::has_trace_extension(&p.to_string_lossy()))
            .collect();
        files.sort();
        out.extend(
            files
                .into_iter()
                .map(|p| WorkloadConfig::trace(p.to_string_lossy().into_owned())),
        );
    }
    Ok(out)
}

fn print_rows(rows: &[Row]) {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_header(vec![
        "workload",
        "preset",
        "allocator",
        "peak: model",
        "real",
        "model/real",
        "end: model",
        "real",
        "model/real",
        "target",
    ]);
    let num = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
    for r in rows {
        let verdict = match (r.within_target, r.target) {
            (Some(ok), Some([p, e])) => format!(
                "{} (±{:.0}% / ±{:.0}%)",
                if ok { "✓" } else { "✗" },
                p * 100.0,
                e * 100.0
            ),
            _ => "reported".to_string(),
        };
        table.add_row(vec![
            Cell::new(&r.workload),
            Cell::new(&r.preset),
            Cell::new(r.allocator.id()),
            num(human_bytes(r.sim_peak_resident_bytes)),
            num(human_bytes(r.real_peak_rss_bytes)),
            num(format!("{:.2}", r.peak_ratio)),
            num(human_bytes(r.sim_end_resident_bytes)),
            num(human_bytes(r.real_end_rss_bytes)),
            num(format!("{:.2}", r.end_ratio)),
            Cell::new(verdict),
        ]);
    }
    println!("{table}");
    let judged: Vec<&Row> = rows.iter().filter(|r| r.within_target.is_some()).collect();
    if !judged.is_empty() {
        let ok = judged
            .iter()
            .filter(|r| r.within_target == Some(true))
            .count();
        println!(
            "glibc-like within ±{:.0}% of glibc's peak and ±{:.0}% of its end on {ok} of {} workloads",
            GLIBC_PEAK_TARGET * 100.0,
            GLIBC_END_TARGET * 100.0,
            judged.len()
        );
    }
    println!(
        "real = heap RSS: the child's anonymous RSS minus that before the first event; end = after the \
         last event, no trim call"
    );
}
