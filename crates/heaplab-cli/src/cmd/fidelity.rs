//! `heaplab fidelity` compares each preset that models a real allocator with that allocator.
//!
//! Both replay the same events. The simulated side is an ordinary run over the simulated
//! provider. The real side is a `baseline` child process, whose heap RSS (anonymous RSS
//! minus that before the first event) is compared with the model's resident bytes, at the
//! peak and after the last event. The real side runs `--repeat` times, each in a fresh
//! process: its median is compared, and its pace and spread are reported beside it.

use heaplab_core::metrics::versioned;
use std::path::{Path, PathBuf};

use heaplab_core::clock::Clock;
use heaplab_core::config::{PolicyConfig, RunConfig, WorkloadConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::Summary;
use heaplab_native::baseline::{Library, Release};
use heaplab_native::RealAllocator;

use crate::child::{self, run_baseline};
use crate::cli::FidelityArgs;
use crate::error::CliError;
use crate::input::{builtin_workload, is_trace_arg, WorkloadSets};
use crate::output::{self, fidelity::Row};

/// The presets that model a real allocator, and the allocator each models.
const PAIRS: [(&str, RealAllocator); 3] = [
    ("glibc-like", RealAllocator::System),
    ("mimalloc-like", RealAllocator::Mimalloc),
    ("jemalloc-like", RealAllocator::Jemalloc),
];

/// The preset that models a preloaded library: the one whose allocator its file is named
/// after. A library named after neither has no preset to compare with.
fn preset_of_library(a: &RealAllocator) -> Result<&'static str, CliError> {
    let name = a.label().to_lowercase();
    PAIRS
        .iter()
        .filter(|(_, linked)| *linked != RealAllocator::System)
        .find(|(_, linked)| name.contains(&linked.id()))
        .map(|(preset, _)| *preset)
        .ok_or_else(|| {
            CliError::input(format!(
                "--allocator {a}: fidelity compares a preset with the allocator it models, \
                 and the file names neither mimalloc nor jemalloc; measure it with \
                 `heaplab baseline -a {a}`"
            ))
        })
}

/// The preset for the version the real allocator reports, by its numbers: mimalloc 2.0
/// (Debian's libmimalloc2.0) has a preset of its own, since its purge delay is 25 ms
/// where mimalloc 3's is 1 s.
fn preset_of_version<'a>(preset: &'a str, release: Option<&Release>) -> &'a str {
    let mimalloc_2_0 = release.is_some_and(|r| r.is(Library::Mimalloc, 2, 0));
    if preset == "mimalloc-like" && mimalloc_2_0 {
        "mimalloc2-like"
    } else {
        preset
    }
}

/// The MallocBench ports fidelity leaves out: the message passers, whose meaning is in
/// their threads while a baseline replays on one, and `churn`, whose heap holds two
/// blocks at most, so there is no heap to compare.
const LEFT_OUT: [&str; 3] = ["churn", "message_one", "message_many"];

/// The folder of the checkout that holds the recorded traces of real programs, and the
/// traces kept there, which fidelity replays unless `--traces` names another folder.
/// Named here so that a trace not found (outside the checkout, the folder is not there)
/// is reported as skipped, never left out without a word.
const TRACES: &str = "workloads/traces";
const RECORDED: [&str; 5] = [
    "python-json.trace.gz",
    "cc1.trace.gz",
    "perl-words.trace.gz",
    "python-dict.trace.gz",
    "clang.trace.gz",
];

/// The scale of the built-in workloads unless `--scale` is given: small enough that every
/// allocator runs each in a few seconds.
const DEFAULT_SCALE: f64 = 0.05;

/// How close `glibc-like` must come to glibc: a fraction of the real figure.
const GLIBC_PEAK_TARGET: f64 = 0.15;
const GLIBC_END_TARGET: f64 = 0.25;

pub fn run(args: FidelityArgs) -> Result<(), CliError> {
    if args.repeat == 0 {
        return Err(CliError::input("--repeat: needs at least one run"));
    }
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
        let mut pairs: Vec<(&str, RealAllocator)> = PAIRS
            .into_iter()
            .filter(|(_, a)| wanted.contains(a))
            .collect();
        for a in wanted.iter().filter(|a| a.preload_path().is_some()) {
            pairs.push((preset_of_library(a)?, a.clone()));
        }
        pairs
    };
    let Workloads {
        list: workloads,
        skipped,
    } = workloads(&args)?;
    if let Some(skipped) = &skipped {
        eprintln!("heaplab fidelity: {skipped}");
    }
    let exe = child::heaplab_exe()?;
    let mut rows = Vec::new();
    for w in &workloads {
        let spec = serde_json::to_string(w).map_err(|e| CliError::failed(e.to_string()))?;
        // The events the children replay, decoded as they decode them (without a trace's
        // own time marks), so that the model's marks fall at the same events.
        let events = heaplab_native::decode(w)?;
        for (preset, allocator) in &pairs {
            let real = run_baseline(&exe, allocator, &spec, args.repeat)?;
            let preset = preset_of_version(preset, real.release.as_ref());
            let mut config = RunConfig::new(&w.id, "");
            config.workload = w.clone();
            config.policy = PolicyConfig::named(preset);
            config.clock = Some(Clock::Real);
            let sim = on_real_clocks(&config, &events, &real)?;
            rows.push(row(w, preset, allocator, &sim, &real));
        }
    }
    if args.json {
        let rows: Vec<_> = rows.iter().map(versioned).collect();
        output::print_json(&rows)?;
    } else {
        let skipped = skipped.map_or(0, |s| s.traces.len());
        output::fidelity::print_rows(&rows, [GLIBC_PEAK_TARGET, GLIBC_END_TARGET], skipped);
    }
    Ok(())
}

/// The model on each real run's clock: the allocators whose delays count time (mimalloc,
/// jemalloc) return memory according to the time that passed in the replay, not in the
/// program recorded, so the model must see the same time pass at the same events to be
/// compared with them. Each real run read its clock as it went; the model runs once on
/// each run's marks, and its figures are the medians over those runs, as the real ones are.
fn on_real_clocks(
    config: &RunConfig,
    events: &[Event],
    real: &heaplab_native::BaselineReport,
) -> Result<Model, CliError> {
    let mut runs = Vec::with_capacity(real.runs.len());
    for r in &real.runs {
        runs.push(heaplab_native::marks::simulate(config, events, &r.time_marks)?.0);
    }
    let median = |f: fn(&Summary) -> u64| {
        let v: Vec<f64> = runs.iter().map(|s| f(s) as f64).collect();
        heaplab_native::median(&v).round() as u64
    };
    let [_, marks, _] = real.min_median_max(|r| r.time_marks.len() as f64);
    Ok(Model {
        peak_resident_bytes: median(Summary::peak_resident_bytes),
        end_resident_bytes: median(Summary::end_resident_bytes),
        time_marks: marks.round() as u64,
    })
}

/// The model's figures on the real runs' clocks: medians over the runs.
struct Model {
    peak_resident_bytes: u64,
    end_resident_bytes: u64,
    time_marks: u64,
}

fn row(
    w: &WorkloadConfig,
    preset: &str,
    allocator: &RealAllocator,
    sim: &Model,
    real: &heaplab_native::BaselineReport,
) -> Row {
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    let peak_ratio = ratio(sim.peak_resident_bytes, real.peak_rss_bytes);
    let end_ratio = ratio(sim.end_resident_bytes, real.end_rss_bytes);
    let target =
        (*allocator == RealAllocator::System).then_some([GLIBC_PEAK_TARGET, GLIBC_END_TARGET]);
    let [peak_min, _, peak_max] = real.min_median_max(|r| r.peak_rss_bytes as f64);
    let [end_min, _, end_max] = real.min_median_max(|r| r.end_rss_bytes as f64);
    Row {
        workload: workload_name(w),
        preset: preset.to_string(),
        allocator: allocator.clone(),
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
        events: real.events,
        allocator_version: real.version.clone(),
        clock: Clock::Real.to_string(),
        real_time_marks: sim.time_marks,
        real_ns_per_event: real.ns_per_event,
        real_runs: real.runs.len(),
        real_peak_rss_bytes_min: peak_min as u64,
        real_peak_rss_bytes_max: peak_max as u64,
        real_end_rss_bytes_min: end_min as u64,
        real_end_rss_bytes_max: end_max as u64,
        real_spread: real.spread.clone(),
        real_wide_spread: real.wide_spread.clone(),
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

/// The workloads to compare, and the recorded traces of the default list not found.
struct Workloads {
    list: Vec<WorkloadConfig>,
    skipped: Option<Skipped>,
}

/// Default traces that were not found, and why.
struct Skipped {
    traces: Vec<&'static str>,
    why: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "skipped the recorded {} {}: {}; run in the heaplab checkout, or give --traces DIR",
            if self.traces.len() == 1 {
                "trace"
            } else {
                "traces"
            },
            self.traces.join(", "),
            self.why
        )
    }
}

/// The workloads to compare, resolved: named ones, or the default list plus every trace
/// of `--traces` (or of the checkout's folder, naming those of [`RECORDED`] not found).
fn workloads(args: &FidelityArgs) -> Result<Workloads, CliError> {
    // The scale goes through the workload's own range check, as `--scale` to `run` does.
    let scale = WorkloadSets::new(
        &[],
        &None,
        &Some(args.scale.unwrap_or(DEFAULT_SCALE).to_string()),
    );
    let builtin = |id: &str| builtin_workload(id, &scale);
    if !args.workload.is_empty() {
        if args.traces.is_some() {
            return Err(CliError::input(
                "--traces adds a folder's traces to the default workloads, and --workload \
                 names the workloads instead; give each trace with -w",
            ));
        }
        // Traces are replayed as recorded, so a scale given with nothing else to scale
        // would be dropped without a word.
        if args.scale.is_some() && args.workload.iter().all(|w| is_trace_arg(w)) {
            return Err(CliError::input(
                "--scale sets the size of built-in workloads, and every --workload here \
                 is a trace file, replayed as recorded"
                    .to_string(),
            ));
        }
        let list = args
            .workload
            .iter()
            .map(|w| {
                if is_trace_arg(w) {
                    Ok(WorkloadConfig::trace(w.clone()))
                } else {
                    builtin(w)
                }
            })
            .collect::<Result<_, _>>()?;
        return Ok(Workloads {
            list,
            skipped: None,
        });
    }
    let mut list = crate::input::suite::MALLOCBENCH
        .iter()
        .filter(|id| !LEFT_OUT.contains(id))
        .map(|id| builtin(id))
        .collect::<Result<Vec<_>, _>>()?;
    let skipped = match &args.traces {
        // A folder the user named must be there and hold traces.
        Some(dir) => {
            let files = trace_files(dir)
                .map_err(|e| CliError::input(format!("--traces {}: {e}", dir.display())))?;
            if files.is_empty() {
                return Err(CliError::input(format!(
                    "--traces {}: the folder holds no trace files (.trace, .rep, .mtrace, \
                     gzip'd or not)",
                    dir.display()
                )));
            }
            list.extend(files.iter().map(|p| trace_workload(p)));
            None
        }
        None => match trace_files(Path::new(TRACES)) {
            Err(e) => Some(Skipped {
                traces: RECORDED.to_vec(),
                why: if e.kind() == std::io::ErrorKind::NotFound {
                    format!("there is no folder {TRACES} here")
                } else {
                    format!("{TRACES} cannot be read: {e}")
                },
            }),
            Ok(files) => {
                list.extend(files.iter().map(|p| trace_workload(p)));
                let missing: Vec<&str> = RECORDED
                    .into_iter()
                    .filter(|name| !files.iter().any(|p| p.file_name() == Some(name.as_ref())))
                    .collect();
                (!missing.is_empty()).then(|| Skipped {
                    traces: missing,
                    why: format!("{TRACES} does not hold them"),
                })
            }
        },
    };
    Ok(Workloads { list, skipped })
}

/// The trace files of a folder, by name.
fn trace_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| heaplab_core::trace::has_trace_extension(&p.to_string_lossy()))
        .collect();
    files.sort();
    Ok(files)
}

fn trace_workload(path: &Path) -> WorkloadConfig {
    WorkloadConfig::trace(path.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use heaplab_native::baseline::{Library, Release};

    /// mimalloc 2.0 has its own preset, chosen by the version's numbers: a later mimalloc
    /// 2 or 3, another allocator at 2.0, or no version keep the preset as it was.
    #[test]
    fn mimalloc_2_0_is_compared_with_its_own_preset() {
        let of =
            |preset, release: Option<Release>| super::preset_of_version(preset, release.as_ref());
        assert_eq!(
            of("mimalloc-like", Some(Release::mimalloc(209))),
            "mimalloc2-like"
        );
        for v in [20302, 30302] {
            assert_eq!(
                of("mimalloc-like", Some(Release::mimalloc(v))),
                "mimalloc-like"
            );
        }
        assert_eq!(of("mimalloc-like", None), "mimalloc-like");
        let glibc = Release::dotted(Library::Glibc, "2.0");
        assert_eq!(of("glibc-like", glibc), "glibc-like");
        assert_eq!(of("mimalloc-like", glibc), "mimalloc-like");
    }

    /// The recorded traces fidelity names are the ones the checkout keeps.
    #[test]
    fn the_recorded_traces_are_in_the_checkout() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for name in super::RECORDED {
            let path = dir.join(super::TRACES).join(name);
            assert!(path.is_file(), "{} is missing", path.display());
        }
    }
}
