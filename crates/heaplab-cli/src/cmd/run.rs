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
    let configs = input::configs(&args.input)?;
    if args.lenient && !configs.iter().any(|c| c.workload.is_trace()) {
        // Not an error: the flag asks for nothing that cannot be done. But a user who
        // meant it for a trace should learn that none was read.
        eprintln!("heaplab: --lenient applies to trace files, and no run here reads one");
    }
    if args.real {
        return real::run(&args, &configs);
    }
    let options = ImportOptions {
        lenient: args.lenient,
    };
    let mut outputs = Vec::new();
    for config in &configs {
        outputs.push(input::run_one(config, &options)?);
    }
    if let Some(path) = &args.series {
        output::write_series(
            path,
            outputs
                .iter()
                .map(|o| (output::label(&o.report.config), &o.series)),
        )?;
    }
    if args.json {
        let reports: Vec<_> = outputs.iter().map(RunOutput::json).collect();
        output::print_json(&reports)?;
    } else {
        output::runs::print_runs(&outputs);
    }
    Ok(())
}
