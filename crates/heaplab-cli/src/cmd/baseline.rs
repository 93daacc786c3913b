//! `heaplab baseline` replays a workload through real allocators, each in its own process.
//!
//! The hidden `baseline-child` subcommand, that process, is here too.

use heaplab_core::config::WorkloadConfig;
use heaplab_core::metrics::versioned;
use heaplab_native::{decode, RealAllocator};
use serde_json::Value;

use crate::child::{self, run_baseline};
use crate::cli::{BaselineArgs, ChildArgs};
use crate::error::CliError;
use crate::input::{builtin_workload, is_trace_arg, WorkloadSets};
use crate::output;

/// `heaplab baseline`: each allocator in a child process of its own.
pub fn run(args: BaselineArgs) -> Result<(), CliError> {
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
    let exe = child::heaplab_exe()?;
    let mut reports = Vec::new();
    for a in &allocators {
        reports.push(run_baseline(&exe, a, &spec, args.repeat)?.without_time_marks());
    }
    if args.json {
        let v: Vec<_> = reports
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                v["workload"] = serde_json::to_value(&workload).unwrap_or(Value::Null);
                versioned(v)
            })
            .collect();
        return output::print_json(&v);
    }
    output::baseline::print_baselines(&workload, &reports);
    Ok(())
}

/// The workload a baseline replays, resolved: its defaults filled in, so the child gets
/// exactly what the report names.
fn baseline_workload(args: &BaselineArgs) -> Result<WorkloadConfig, CliError> {
    let (name, params) = (&args.workload, &args.workload_params);
    if is_trace_arg(name) {
        if !params.wset.is_empty() || params.seed.is_some() || params.scale.is_some() {
            return Err(CliError::input(
                "a trace file takes no --wset, --seed or --scale",
            ));
        }
        return Ok(WorkloadConfig::trace(name.clone()));
    }
    let sets = WorkloadSets::new(&params.wset, &params.seed, &params.scale);
    builtin_workload(name, &sets)
}

/// The hidden `baseline-child`: decode, then replay once through one allocator, and send
/// the report to the parent.
pub fn child(args: ChildArgs) -> Result<(), CliError> {
    // From here on heaplab's own allocations (the decoded events above all) come from a
    // private mapping, not from the allocator being measured.
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    heaplab_native::own_heap::enter().map_err(CliError::failed)?;
    let alloc = RealAllocator::parse(&args.allocator).map_err(CliError::input)?;
    let workload: WorkloadConfig = serde_json::from_str(&args.workload)
        .map_err(|e| CliError::input(format!("--workload: {e}")))?;
    let events = decode(&workload)?;
    let report = heaplab_native::baseline::run(&alloc, &events).map_err(CliError::input)?;
    child::send_report(&report)
}
