//! `heaplab run --real` and `heaplab baseline`: the CLI side of heaplab-native.
//!
//! `--real` replays in this process (heaplab-native's `replay` does the work). A baseline
//! runs each allocator in a child process — this binary again, with the hidden
//! `baseline-child` subcommand and the resolved workload as JSON — so that its resident
//! set holds one allocator's heap and nothing left over from another.

use std::path::Path;
use std::process::Command;

use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::trace::ImportOptions;
use heaplab_native::{
    decode, decode_with, replay, BaselineReport, RealAllocator, RealOptions, ReplayError,
};
use serde_json::Value;

use crate::cli::{BaselineArgs, ChildArgs, RunArgs};
use crate::input::{builtin_workload, is_trace_arg, workload_sets};
use crate::output;
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
                output::runs::print_skipped(skipped);
            }
            decoded = Some((config.workload.clone(), events));
        }
        let events = &decoded.as_ref().expect("decoded above").1;
        reports.push(replay(&config, events, opts).map_err(replay_error)?);
    }
    if let Some(path) = &args.series {
        output::write_series(
            path,
            reports
                .iter()
                .map(|r| (output::label(&r.report.config), &r.output.series)),
        )?;
    }
    if args.json {
        return output::print_json(&reports);
    }
    let outputs: Vec<_> = reports.iter().map(|r| r.output.clone()).collect();
    output::runs::print_runs(&outputs);
    output::runs::print_real(&reports);
    Ok(())
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
        return output::print_json(&v);
    }
    output::baseline::print_baselines(&workload, &reports);
    Ok(())
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
