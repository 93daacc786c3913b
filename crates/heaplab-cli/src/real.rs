//! `heaplab run --real` and `heaplab baseline`: the CLI side of heaplab-native.
//!
//! `--real` replays in this process (heaplab-native's `replay` does the work). A baseline
//! runs each allocator in a child process — this binary again, with the hidden
//! `baseline-child` subcommand and the resolved workload as JSON — so that its resident
//! set holds one allocator's heap and nothing left over from another.

use std::path::Path;
use std::process::Command;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::params::human_bytes;
use heaplab_core::trace::ImportOptions;
use heaplab_native::{
    decode, decode_with, replay, BaselineReport, RealAllocator, RealOptions, RealReport,
    ReplayError,
};
use serde_json::Value;

use crate::cli::{BaselineArgs, ChildArgs, RunArgs};
use crate::input::{builtin_workload, is_trace_arg, workload_sets};
use crate::run::write_json;
use crate::CliError;

fn replay_error(e: ReplayError) -> CliError {
    match e {
        ReplayError::Input(m) => CliError::input(m),
        ReplayError::Failed(m) => CliError::failed(m),
    }
}

/// `heaplab run --real`: every config over real memory.
pub fn run_real(args: &RunArgs, configs: &[RunConfig]) -> Result<(), CliError> {
    let repeat = args.repeat.unwrap_or(5);
    if repeat == 0 {
        return Err(CliError::input("--repeat: needs at least one run"));
    }
    let opts = RealOptions {
        repeat,
        ..RealOptions::default()
    };
    let options = ImportOptions {
        lenient: args.lenient,
    };
    let mut reports = Vec::new();
    let mut decoded: Option<(WorkloadConfig, Vec<heaplab_core::event::Event>)> = None;
    for config in configs {
        let config = config
            .resolve()
            .map_err(|e| CliError::input(e.to_string()))?;
        heaplab_native::replay::check_config(&config).map_err(replay_error)?;
        // Configs from flags share one workload: decode it once.
        if decoded.as_ref().is_none_or(|(w, _)| *w != config.workload) {
            let (events, skipped) =
                decode_with(&config.workload, &options).map_err(replay_error)?;
            // As `run` without `--real` does, on stderr: a warning about the input.
            if let Some(skipped) = &skipped {
                crate::report::print_skipped(skipped);
            }
            decoded = Some((config.workload.clone(), events));
        }
        let events = &decoded.as_ref().expect("decoded above").1;
        reports.push(replay(&config, events, opts).map_err(replay_error)?);
    }
    if let Some(path) = &args.series {
        let series: Vec<Value> = reports
            .iter()
            .map(|r| serde_json::json!({"label": label(&r.report.config), "series": r.output.series}))
            .collect();
        write_json(path, &Value::Array(series))?;
    }
    if args.json {
        let text =
            serde_json::to_string_pretty(&reports).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    let outputs: Vec<_> = reports.iter().map(|r| r.output.clone()).collect();
    crate::report::print_runs(&outputs);
    print_real(&reports);
    Ok(())
}

fn label(c: &RunConfig) -> &str {
    c.policy.preset.as_deref().unwrap_or(&c.policy.family)
}

fn table(header: Vec<String>, rows: Vec<(&str, Vec<String>)>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(header);
    for (name, cells) in rows {
        let mut row = vec![Cell::new(name)];
        row.extend(
            cells
                .into_iter()
                .map(|c| Cell::new(c).set_alignment(CellAlignment::Right)),
        );
        t.add_row(row);
    }
    t
}

fn opt_bytes(b: Option<u64>) -> String {
    b.map_or_else(|| "n/a".into(), human_bytes)
}

fn print_real(reports: &[RealReport]) {
    let mut header = vec!["over real memory".to_string()];
    header.extend(reports.iter().map(|r| label(&r.report.config).to_string()));
    let col = |f: &dyn Fn(&RealReport) -> String| reports.iter().map(f).collect::<Vec<_>>();
    let rows = vec![
        (
            "ns per event (median)",
            col(&|r| format!("{:.1}", r.real.ns_per_event)),
        ),
        (
            "real peak resident (mincore)",
            col(&|r| human_bytes(r.real.real_peak_resident_bytes)),
        ),
        (
            "real end resident (mincore)",
            col(&|r| human_bytes(r.real.real_end_resident_bytes)),
        ),
        (
            "residency mismatch (max pages)",
            col(&|r| r.real.max_residency_mismatch_pages.to_string()),
        ),
        (
            "process peak RSS",
            col(&|r| opt_bytes(r.real.real_peak_rss_bytes)),
        ),
        (
            "process RSS before events",
            col(&|r| opt_bytes(r.real.real_rss_before_bytes)),
        ),
        (
            "same summary as simulated",
            col(&|r| {
                if r.real.matches_simulation {
                    "yes"
                } else {
                    "NO"
                }
                .into()
            }),
        ),
    ];
    println!("{}", table(header, rows));
    for r in reports {
        if let Some(m) = &r.real.first_residency_mismatch {
            println!(
                "{}: first residency mismatch after event {}: page {:#x} is {} in the model, {} per mincore ({} pages disagree)",
                label(&r.report.config),
                m.event,
                m.addr,
                if m.model_resident { "resident" } else { "not resident" },
                if m.model_resident { "not resident" } else { "resident" },
                m.pages
            );
        }
    }
    println!(
        "real resident bytes are the provider's mappings per mincore; process RSS (/proc/self/statm) also holds heaplab, its decoded events and its page map"
    );
}

/// The workload a baseline replays, resolved: its defaults filled in, so the child gets
/// exactly what the report names.
fn baseline_workload(args: &BaselineArgs) -> Result<WorkloadConfig, CliError> {
    let name = &args.workload;
    if is_trace_arg(name) {
        if !args.wset.is_empty() || args.seed.is_some() || args.scale.is_some() {
            return Err(CliError::input(
                "a trace file takes no --wset, --seed or --scale",
            ));
        }
        return Ok(WorkloadConfig::trace(name.clone()));
    }
    let wset = workload_sets(&args.wset, &args.seed, &args.scale);
    builtin_workload(name, &wset, "--wset")
}

/// Runs one allocator on a workload (`spec`, the resolved workload as JSON) in a child
/// process: this binary again, with the hidden `baseline-child` subcommand.
pub(crate) fn run_child(
    exe: &Path,
    a: RealAllocator,
    spec: &str,
    repeat: usize,
) -> Result<BaselineReport, CliError> {
    let out = Command::new(exe)
        .args(["baseline-child", "--allocator", a.id(), "--workload", spec])
        .args(["--repeat", &repeat.to_string()])
        .output()
        .map_err(|e| CliError::failed(format!("{}: cannot start the child: {e}", exe.display())))?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let msg = msg.trim().trim_start_matches("error: ");
        let code = out.status.code().unwrap_or(1).clamp(1, 255) as u8;
        return Err(CliError {
            code,
            message: format!("baseline {a}: {msg}"),
        });
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| CliError::failed(format!("baseline {a}: the child's report is not JSON: {e}")))
}

/// `heaplab baseline`: each allocator in a child process of its own.
pub fn baseline(args: BaselineArgs) -> Result<(), CliError> {
    let allocators = args
        .allocator
        .iter()
        .map(|a| RealAllocator::parse(a).map_err(|e| CliError::input(format!("--allocator: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    if args.repeat == 0 {
        return Err(CliError::input("--repeat: needs at least one run"));
    }
    let workload = baseline_workload(&args)?;
    let spec = serde_json::to_string(&workload).map_err(|e| CliError::failed(e.to_string()))?;
    let exe = std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find the heaplab binary to re-run: {e}")))?;
    let mut reports = Vec::new();
    for a in allocators {
        reports.push(run_child(&exe, a, &spec, args.repeat)?);
    }
    if args.json {
        let v: Vec<Value> = reports
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                v["workload"] = serde_json::to_value(&workload).unwrap_or(Value::Null);
                v
            })
            .collect();
        let text = serde_json::to_string_pretty(&v).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    print_baselines(&workload, &reports);
    Ok(())
}

fn print_baselines(workload: &WorkloadConfig, reports: &[BaselineReport]) {
    match &workload.path {
        Some(p) => println!("trace {p}"),
        None => println!(
            "workload {} {}",
            workload.id,
            Value::Object(workload.params.clone().into_iter().collect())
        ),
    }
    let mut header = vec![String::new()];
    header.extend(reports.iter().map(|r| r.allocator.to_string()));
    let col = |f: &dyn Fn(&BaselineReport) -> String| reports.iter().map(f).collect::<Vec<_>>();
    let rows = vec![
        ("events", col(&|r| r.events.to_string())),
        (
            "ns per event (median)",
            col(&|r| format!("{:.1}", r.ns_per_event)),
        ),
        ("peak heap RSS", col(&|r| human_bytes(r.peak_rss_bytes))),
        (
            "end heap RSS (blocks live)",
            col(&|r| human_bytes(r.end_rss_bytes)),
        ),
        (
            "end heap RSS after trim",
            col(&|r| human_bytes(r.end_rss_after_trim_bytes)),
        ),
        ("trim call", col(&|r| r.trim_call.clone())),
        (
            "process RSS before events",
            col(&|r| human_bytes(r.rss_before_bytes)),
        ),
    ];
    println!("{}", table(header, rows));
    println!("heap RSS = the process's anonymous resident memory (/proc/self/statm: resident less file-backed) minus that just before the first event (the decoded events and heaplab itself)");
}

/// The hidden `baseline-child`: decode, then replay through one allocator, and print the
/// report as JSON for the parent.
pub fn baseline_child(args: ChildArgs) -> Result<(), CliError> {
    let alloc = RealAllocator::parse(&args.allocator).map_err(CliError::input)?;
    let workload: WorkloadConfig = serde_json::from_str(&args.workload)
        .map_err(|e| CliError::input(format!("--workload: {e}")))?;
    let events = decode(&workload).map_err(replay_error)?;
    let report =
        heaplab_native::baseline::run(alloc, &events, args.repeat).map_err(CliError::input)?;
    let text = serde_json::to_string(&report).map_err(|e| CliError::failed(e.to_string()))?;
    println!("{text}");
    Ok(())
}
