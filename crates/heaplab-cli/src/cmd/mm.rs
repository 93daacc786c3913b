//! `heaplab mm`: build, check and score your own allocator, or write an example out.

use std::time::Instant;

use heaplab_core::config::WorkloadConfig;
use heaplab_core::format::format_counted;
use heaplab_mm::compile::{build, BuildRequest, EXAMPLES};
use heaplab_mm::score::{score, CheckOptions, Input, DEFAULT_WORKLOADS};

use crate::cli::{MmArgs, MmBuildArgs, MmCheckArgs, MmCommand, MmExampleArgs};
use crate::error::CliError;
use crate::input::load_module;
use crate::output;

pub fn run(args: MmArgs) -> Result<(), CliError> {
    match args.command {
        MmCommand::Build(a) => run_build(a),
        MmCommand::Check(a) => run_check(a),
        MmCommand::Example(a) => run_example(a),
    }
}

fn run_build(a: MmBuildArgs) -> Result<(), CliError> {
    // A file that is not there is the user's to fix (exit 2); clang's own failures are 1.
    if let Some(missing) = a.sources.iter().find(|s| !s.is_file()) {
        return Err(CliError::input(format!(
            "{}: no such file",
            missing.display()
        )));
    }
    let req = BuildRequest {
        sources: a.sources,
        output: a.output.clone(),
        flags: a.cflags,
    };
    let command = build(&req).map_err(|e| CliError::failed(e.to_string()))?;
    if a.verbose {
        eprintln!("{}", command.join(" "));
    }
    // A module that builds but breaks the interface is refused now rather than at its
    // first run.
    let module = load_module(&a.output)?;
    let bytes = std::fs::metadata(&a.output).map_or(0, |m| m.len());
    eprintln!(
        "wrote {} ({}, SHA-256 {})",
        a.output.display(),
        format_counted(i128::from(bytes), "byte", "bytes"),
        module.sha256()
    );
    Ok(())
}

fn run_check(a: MmCheckArgs) -> Result<(), CliError> {
    if !a.align.is_power_of_two() {
        return Err(CliError::input(format!(
            "--align {}: the alignment must be a power of two",
            a.align
        )));
    }
    if !(a.reference_kops > 0.0 && a.reference_kops.is_finite()) {
        return Err(CliError::input(format!(
            "--reference-kops {}: give a positive throughput",
            a.reference_kops
        )));
    }
    let module = load_module(&a.module)?;
    let names: Vec<String> = if a.workloads.is_empty() {
        DEFAULT_WORKLOADS.iter().map(|s| s.to_string()).collect()
    } else {
        a.workloads
    };
    let inputs: Vec<Input> = names
        .iter()
        .map(|w| {
            if std::path::Path::new(w).is_file() {
                Ok(Input::Trace(w.into()))
            } else if heaplab_core::workload::find(w).is_ok() {
                Ok(Input::Workload(WorkloadConfig {
                    id: w.clone(),
                    params: Default::default(),
                    path: None,
                }))
            } else {
                Err(CliError::input(format!(
                    "-w {w}: no such file, and no built-in workload of that name"
                )))
            }
        })
        .collect::<Result<_, _>>()?;
    let options = CheckOptions {
        align: a.align,
        reference_ops_per_sec: a.reference_kops * 1000.0,
        check_heap_every: u64::from(a.check_heap),
    };
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let score = score(&module, &inputs, &options, &time);
    if a.json {
        output::print_json(&heaplab_core::metrics::versioned(&score))?;
    } else {
        output::mm::print_score(&score);
    }
    if score.valid_traces < score.traces.len() {
        return Err(CliError {
            code: 1,
            message: output::mm::invalid_traces(&score),
        });
    }
    Ok(())
}

fn run_example(a: MmExampleArgs) -> Result<(), CliError> {
    let Some((_, source)) = EXAMPLES.iter().find(|(n, _)| *n == a.name) else {
        let names: Vec<&str> = EXAMPLES.iter().map(|(n, _)| *n).collect();
        return Err(CliError::input(format!(
            "no example allocator {:?}; there are: {}",
            a.name,
            names.join(", ")
        )));
    };
    match &a.output {
        Some(path) => std::fs::write(path, source)
            .map_err(|e| CliError::failed(format!("{}: {e}", path.display()))),
        None => {
            print!("{source}");
            Ok(())
        }
    }
}
