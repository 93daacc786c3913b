//! `heaplab run` runs configs from the flags or a `--config` file and reports them.
//!
//! Each config runs over the simulated provider, or over real memory with `--real`
//! (`run/real.rs`); the report is a table or, with `--json`, JSON.

mod real;

use heaplab_core::run::RunOutput;
use heaplab_core::trace::ImportOptions;

use crate::cli::RunArgs;
use crate::error::CliError;
use crate::input;
use crate::output;

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let (configs, embedded, link_lenient, link_strict) = match &args.input.link {
        Some(url) => {
            let linked = input::link::linked(url, args.input.points)?;
            let (lenient, strict) = (linked.state.lenient, linked.state.strict);
            (linked.configs, linked.embedded, lenient, strict)
        }
        None => (input::configs(&args.input)?, None, false, false),
    };
    let lenient = args.lenient || link_lenient;
    let strict = args.strict || link_strict;
    if let Some(path) = &args.plot {
        if args.real {
            return Err(CliError::input(
                "--plot draws the simulated runs' memory over time; --real runs have no series to draw",
            ));
        }
        output::plot::check_path(path)?;
    }
    if !configs.iter().any(|c| c.workload.is_trace()) {
        // Not an error: the flags ask for nothing that cannot be done. But a user who
        // meant one for a trace should learn that none was read.
        for (set, flag) in [(args.lenient, "--lenient"), (args.strict, "--strict")] {
            if set {
                eprintln!("heaplab: {flag} applies to trace files, and no run here reads one");
            }
        }
    }
    if args.real {
        if embedded.is_some() {
            return Err(CliError::input(
                "--real replays a trace from its file, and this link carries its trace in \
                 itself; run it without --real, or save the trace and give it with -w",
            ));
        }
        return real::run(&args, &configs);
    }
    let options = ImportOptions { lenient, strict };
    let mut outputs = Vec::new();
    for config in &configs {
        outputs.push(match &embedded {
            Some(bytes) => input::run_bytes(config, bytes, &options)?,
            None => input::run_one(config, &options)?,
        });
    }
    // A trace with nothing in it runs, and every figure is zero; say so where a warning
    // goes, so an empty recording is not read as a program that used no memory.
    if let Some(first) = outputs.first() {
        if let (Some(path), Some(_)) = (&first.report.config.workload.path, &first.trace) {
            if first.report.summary.events() == 0 {
                eprintln!("heaplab: {path} holds no events: every figure is zero");
            }
        }
    }
    if let Some(path) = &args.series {
        output::write_series(
            path,
            outputs
                .iter()
                .map(|o| (output::label(&o.report.config), &o.series)),
        )?;
    }
    if let Some(path) = &args.plot {
        let labels: Vec<String> = outputs
            .iter()
            .map(|o| output::label(&o.report.config))
            .collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        output::plot::write(path, &[output::plot::runs_panel(&outputs, &labels)])?;
    }
    if args.json {
        let reports: Vec<_> = outputs.iter().map(RunOutput::json).collect();
        output::print_json(&reports)?;
    } else {
        output::runs::print_runs(&outputs);
        output::runs::print_model_time(&outputs);
    }
    Ok(())
}
