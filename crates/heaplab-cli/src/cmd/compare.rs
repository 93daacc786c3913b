//! `heaplab compare A B [more…]` runs every configuration on every workload of a suite and
//! prints the comparison as MallocBench's `run-malloc-benchmarks` does (`output::compare`
//! has the sections and means).
//!
//! The simulated runs go to rayon's threads and come back in the suite's order, so the
//! report is the same whatever the number of cores. With `--real` each configuration is
//! replayed over real memory, one at a time so the timings do not share the cores, as
//! `run --real` replays it; `--allocators` adds the real allocators as columns, each
//! measured in a child process as `baseline` measures it.

use heaplab_core::metrics::versioned;
use std::collections::BTreeMap;
use std::path::Path;

use heaplab_core::config::RunConfig;
use heaplab_core::metrics::METRICS;
use heaplab_core::run::RunOutput;
use heaplab_core::trace::ImportOptions;
use heaplab_native::{decode_with, replay, RealAllocator, RealOptions};
use rayon::prelude::*;
use serde_json::Value;

use crate::child;
use crate::cli::CompareArgs;
use crate::error::CliError;
use crate::input::{self, suite::SuiteWorkload};
use crate::output::{self, compare as report};
use crate::progress::Progress;

/// Timed runs per configuration over real memory, and per real allocator, unless
/// `--repeat` says otherwise: fewer than `run --real`'s 5, since a suite has many rows.
const REPEAT: usize = 3;

/// One column's result on one row: figures, the report as JSON, and for a simulated run
/// its output (the series a plot draws).
struct Measured {
    figures: BTreeMap<&'static str, f64>,
    report: Value,
    output: Option<RunOutput>,
}

pub fn run(args: CompareArgs) -> Result<(), CliError> {
    if let Some(path) = &args.plot {
        output::plot::check_path(path)?;
    }
    let repeat = args.repeat.unwrap_or(REPEAT);
    if repeat == 0 {
        return Err(CliError::input("--repeat: needs at least one run"));
    }
    let allocators = args
        .allocators
        .iter()
        .map(|a| {
            RealAllocator::parse(a.trim())
                .map_err(|e| CliError::input(format!("--allocators: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (configs, suite, embedded) = what_to_compare(&args)?;
    if configs.len() + allocators.len() < 2 {
        return Err(CliError::input(
            "compare needs two configurations or more (or one and --allocators), e.g. \
             `heaplab compare glibc-like mimalloc-like`",
        ));
    }
    if embedded.is_some() && (args.real || !allocators.is_empty()) {
        return Err(CliError::input(
            "--link: this link carries its trace in itself, and --real and --allocators replay \
             a trace from its file; save the trace and give it with --workloads",
        ));
    }
    // Every run's config, resolved before anything runs, so a bad one is named at once.
    let mut jobs = Vec::new();
    for w in &suite {
        for c in &configs {
            let config = RunConfig {
                workload: w.workload.clone(),
                ..c.clone()
            };
            let config = config.resolve().map_err(|e| {
                // A page size typed as --page-size is every configuration's, and is named
                // as it was typed.
                if e.field == "provider.page_size" && args.page_size.is_some() {
                    CliError::input(format!("--page-size: {}", e.message))
                } else {
                    CliError::input(format!("{} on {}: {e}", output::label(c), w.label))
                }
            })?;
            if args.real {
                heaplab_native::replay::check_config(&config)?;
            }
            jobs.push((w, config));
        }
    }
    if let Some(dir) = &args.plot_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::failed(format!("--plot-dir: {}: {e}", dir.display())))?;
    }
    let mut labels = column_labels(&configs, &allocators);
    let progress = Progress::new(
        (suite.len() * (configs.len() + allocators.len())) as u64,
        args.progress.quiet,
    );
    let what = |w: &SuiteWorkload, c: &RunConfig| format!("{} · {}", w.label, output::label(c));
    let simulated: Vec<Measured> = if args.real {
        real_runs(&jobs, repeat, &progress, &what)?
    } else {
        jobs.par_iter()
            .map(|(w, config)| {
                progress.start(&what(w, config));
                let options = ImportOptions::default();
                let out = match &embedded {
                    Some(bytes) => input::run_bytes(config, bytes, &options)?,
                    None => input::run_one(config, &options)?,
                };
                progress.done();
                simulated_figures(out, None)
            })
            .collect::<Result<_, _>>()?
    };
    let mut real = Vec::new();
    if !allocators.is_empty() {
        let exe = child::heaplab_exe()?;
        for w in &suite {
            let spec =
                serde_json::to_string(&w.workload).map_err(|e| CliError::failed(e.to_string()))?;
            for (i, a) in allocators.iter().enumerate() {
                progress.start(&format!("{} · {a}", w.label));
                let r = child::run_baseline(&exe, a, &spec, repeat)?.without_time_marks();
                // A preloaded library is named by its file and its version in the table.
                if a.preload_path().is_some() {
                    labels[configs.len() + i] = format!("{} ({})", a.label(), r.version);
                }
                progress.done();
                let mut figures = BTreeMap::new();
                figures.insert("events", r.events as f64);
                figures.insert("peak_resident_bytes", r.peak_rss_bytes as f64);
                figures.insert("end_resident_bytes", r.end_rss_bytes as f64);
                figures.insert(report::TIME, r.ns_per_event);
                let mut v =
                    serde_json::to_value(&r).map_err(|e| CliError::failed(e.to_string()))?;
                v["workload"] = serde_json::to_value(&w.workload).unwrap_or(Value::Null);
                real.push(Measured {
                    figures,
                    report: v,
                    output: None,
                });
            }
        }
    }
    progress.finish();

    let columns: Vec<report::Column> = configs
        .iter()
        .zip(&labels)
        .map(|(c, label)| report::Column {
            label: label.clone(),
            kind: "config",
            config: Some(serde_json::json!({
                "policy": c.policy,
                "provider": c.provider,
                "touch": c.touch,
            })),
        })
        .chain(
            allocators
                .iter()
                .zip(&labels[configs.len()..])
                .map(|(_, label)| report::Column {
                    label: label.clone(),
                    kind: "allocator",
                    config: None,
                }),
        )
        .collect();
    // Row by row: the configurations' runs, then the allocators'.
    let mut simulated = simulated.into_iter();
    let mut real = real.into_iter();
    let mut runs = Vec::new();
    let mut outputs: Vec<Vec<RunOutput>> = Vec::new();
    for w in &suite {
        let mut row_outputs = Vec::new();
        let measured: Vec<Measured> = simulated
            .by_ref()
            .take(configs.len())
            .chain(real.by_ref().take(allocators.len()))
            .collect();
        for (m, col) in measured.into_iter().zip(&columns) {
            if let Some(o) = m.output {
                row_outputs.push(o);
            }
            runs.push(report::Run {
                workload: w.label.clone(),
                column: col.label.clone(),
                figures: m.figures,
                report: m.report,
            });
        }
        outputs.push(row_outputs);
    }
    let cmp = report::Comparison {
        columns,
        rows: suite
            .iter()
            .map(|w| report::Row {
                label: w.label.clone(),
                workload: w.workload.clone(),
            })
            .collect(),
        runs,
        real: args.real,
    };
    let config_labels: Vec<&str> = labels[..configs.len()].iter().map(String::as_str).collect();
    if let Some(path) = &args.plot {
        output::plot::write_summaries(path, &cmp)?;
    }
    if let Some(dir) = &args.plot_dir {
        write_plot_dir(dir, &cmp.rows, &outputs, &config_labels)?;
    }
    if args.json {
        output::print_json(&versioned(report::json(&cmp)))
    } else if args.csv {
        print!("{}", report::csv(&cmp));
        Ok(())
    } else {
        // Built-in rows run at --scale or the default; a link's row at its own.
        let scale = match (&args.link, &args.workloads) {
            (Some(_), None) => None,
            _ => Some(args.scale.as_deref().unwrap_or(input::suite::DEFAULT_SCALE)),
        };
        report::print(&cmp, scale);
        Ok(())
    }
}

/// The configurations and the suite: from the arguments, or from a link (its
/// configurations, on its workload unless `--workloads` names others), and the trace a
/// link carries in itself.
#[allow(clippy::type_complexity)]
fn what_to_compare(
    args: &CompareArgs,
) -> Result<(Vec<RunConfig>, Vec<SuiteWorkload>, Option<Vec<u8>>), CliError> {
    let (mut configs, linked) = match &args.link {
        Some(url) => {
            if !args.configs.is_empty() {
                return Err(CliError::input(
                    "--link: a link names its own configurations; give --link or \
                     configurations, not both",
                ));
            }
            let linked = input::link::linked(url, None)?;
            (linked.configs.clone(), Some(linked))
        }
        None => {
            let mut configs = Vec::new();
            for arg in &args.configs {
                configs.extend(input::configurations(arg)?);
            }
            (configs, None)
        }
    };
    for c in &mut configs {
        if let Some(ps) = args.page_size {
            c.provider.page_size = ps;
        }
        if let Some(touch) = &args.touch {
            c.touch = match touch.as_str() {
                "all" => heaplab_core::config::TouchMode::All,
                "first" => heaplab_core::config::TouchMode::First,
                "none" => heaplab_core::config::TouchMode::None,
                other => {
                    return Err(CliError::input(format!(
                        "--touch: unknown mode {other:?}; valid ones are: all, first, none"
                    )))
                }
            };
        }
    }
    let mut embedded = None;
    let suite = match (&args.workloads, linked) {
        (Some(spec), _) => input::suite::suite(spec, args.scale.as_deref())?,
        (None, Some(linked)) => {
            if args.scale.is_some() {
                return Err(CliError::input(
                    "--scale: a link names its workload's scale; give --workloads to run others",
                ));
            }
            embedded = linked.embedded;
            let workload = linked.configs[0].workload.clone();
            let label = match &workload.path {
                Some(p) => p.clone(),
                None => workload.id.clone(),
            };
            vec![SuiteWorkload { label, workload }]
        }
        (None, None) => input::suite::suite(input::suite::DEFAULT, args.scale.as_deref())?,
    };
    Ok((configs, suite, embedded))
}

/// Each column's heading: the configuration's label (its preset or family and what it
/// changes) or the allocator's id, numbered when two would read the same.
fn column_labels(configs: &[RunConfig], allocators: &[RealAllocator]) -> Vec<String> {
    let mut labels: Vec<String> = configs.iter().map(output::label).collect();
    labels.extend(allocators.iter().map(|a| a.label()));
    let mut out = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        let before = labels[..i].iter().filter(|x| *x == l).count();
        out.push(
            if before == 0 && labels.iter().filter(|x| *x == l).count() == 1 {
                l.clone()
            } else {
                format!("{l} #{}", before + 1)
            },
        );
    }
    out
}

/// A simulated run's figures (and time over real memory, when measured) and its report
/// as `run --json` (or `run --real --json`) prints it.
fn simulated_figures(
    out: RunOutput,
    real: Option<&heaplab_native::RealFigures>,
) -> Result<Measured, CliError> {
    let mut figures: BTreeMap<&'static str, f64> = METRICS
        .iter()
        .map(|m| (m.key, m.value(&out.report.summary)))
        .collect();
    let mut report =
        serde_json::to_value(out.json()).map_err(|e| CliError::failed(e.to_string()))?;
    if let Some(real) = real {
        figures.insert(report::TIME, real.ns_per_event);
        if let (Value::Object(map), Ok(Value::Object(extra))) =
            (&mut report, serde_json::to_value(real))
        {
            map.extend(extra);
        }
    }
    Ok(Measured {
        figures,
        report,
        output: Some(out),
    })
}

/// Every job over real memory, one after another: each row's events decoded once, then
/// replayed by each configuration with `repeat` timed runs.
fn real_runs(
    jobs: &[(&SuiteWorkload, RunConfig)],
    repeat: usize,
    progress: &Progress,
    what: &dyn Fn(&SuiteWorkload, &RunConfig) -> String,
) -> Result<Vec<Measured>, CliError> {
    let options = ImportOptions::default();
    let opts = RealOptions {
        repeat,
        ..RealOptions::default()
    };
    let mut out = Vec::new();
    let mut decoded: Option<(&SuiteWorkload, Vec<heaplab_core::event::Event>, _)> = None;
    for (w, config) in jobs {
        // The jobs come row by row: a row's events are decoded when its first job runs.
        if decoded
            .as_ref()
            .is_none_or(|(d, _, _)| !std::ptr::eq(*d, *w))
        {
            let (events, imported) = decode_with(&w.workload, &options)?;
            decoded = Some((w, events, imported));
        }
        if let Some((_, events, imported)) = &decoded {
            progress.start(&what(w, config));
            let mut r = replay(config, events, opts)?;
            r.output.trace = imported.clone();
            progress.done();
            out.push(simulated_figures(r.output.clone(), Some(&r.real))?);
        }
    }
    Ok(out)
}

/// `--plot-dir DIR`: memory over time of every configuration, a chart per workload, as
/// `DIR/<workload>.svg`.
fn write_plot_dir(
    dir: &Path,
    rows: &[report::Row],
    outputs: &[Vec<RunOutput>],
    labels: &[&str],
) -> Result<(), CliError> {
    for (row, outs) in rows.iter().zip(outputs) {
        if outs.is_empty() {
            continue;
        }
        let name: String = row
            .label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut panel = output::plot::runs_panel(outs, labels);
        panel.title = format!("{}: memory over time", row.label);
        output::plot::write(&dir.join(format!("{name}.svg")), &[panel])?;
    }
    Ok(())
}
