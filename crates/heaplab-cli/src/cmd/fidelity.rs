//! `heaplab fidelity` compares each preset that models a real allocator with that allocator.
//!
//! Both replay the same events. The simulated side is an ordinary run over the simulated
//! provider. The real side is a `baseline` child process, whose heap RSS (anonymous RSS
//! minus that before the first event) is compared with the model's resident bytes, at the
//! peak and after the last event.

use heaplab_core::metrics::versioned;
use std::path::{Path, PathBuf};

use heaplab_core::config::{PolicyConfig, RunConfig, WorkloadConfig};
use heaplab_core::trace::ImportOptions;
use heaplab_native::RealAllocator;

use crate::child::{self, run_child};
use crate::cli::FidelityArgs;
use crate::error::CliError;
use crate::input::{builtin_workload, is_trace_arg, run_one};
use crate::output::{self, fidelity::Row};

/// The presets that model a real allocator, and the allocator each models.
const PAIRS: [(&str, RealAllocator); 3] = [
    ("glibc-like", RealAllocator::System),
    ("mimalloc-like", RealAllocator::Mimalloc),
    ("jemalloc-like", RealAllocator::Jemalloc),
];

/// The MallocBench ports fidelity leaves out: the message passers, whose meaning is in
/// their threads while a baseline replays on one, and `churn`, whose heap holds two
/// blocks at most, so there is no heap to compare.
const LEFT_OUT: [&str; 3] = ["churn", "message_one", "message_many"];

/// The scale of the built-in workloads unless `--scale` is given: small enough that every
/// allocator runs each in a few seconds.
const DEFAULT_SCALE: f64 = 0.05;

/// How close `glibc-like` must come to glibc: a fraction of the real figure.
const GLIBC_PEAK_TARGET: f64 = 0.15;
const GLIBC_END_TARGET: f64 = 0.25;

pub fn run(args: FidelityArgs) -> Result<(), CliError> {
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
    let exe = child::heaplab_exe()?;
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
        let rows: Vec<_> = rows.iter().map(versioned).collect();
        output::print_json(&rows)?;
    } else {
        output::fidelity::print_rows(&rows, [GLIBC_PEAK_TARGET, GLIBC_END_TARGET]);
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
    let peak_ratio = ratio(sim.peak_resident_bytes(), real.peak_rss_bytes);
    let end_ratio = ratio(sim.end_resident_bytes(), real.end_rss_bytes);
    let target =
        (allocator == RealAllocator::System).then_some([GLIBC_PEAK_TARGET, GLIBC_END_TARGET]);
    Row {
        workload: workload_name(w),
        preset: preset.to_string(),
        allocator,
        sim_peak_resident_bytes: sim.peak_resident_bytes(),
        real_peak_rss_bytes: real.peak_rss_bytes,
        peak_ratio,
        sim_end_resident_bytes: sim.end_resident_bytes(),
        real_end_rss_bytes: real.end_rss_bytes,
        end_ratio,
        target,
        within_target: target.map(|[p, e]| {
            (peak_ratio - 1.0).abs() <= p && within(sim.end_resident_bytes(), real.end_rss_bytes, e)
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
    let mut out = crate::input::suite::MALLOCBENCH
        .iter()
        .filter(|id| !LEFT_OUT.contains(id))
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
