//! `heaplab run` and `heaplab export`: building configs from flags and running them.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};

use heaplab_core::run::RunOutput;
use heaplab_core::trace::{self, ImportOptions};
use heaplab_core::workload;

use crate::cli::{ConvertArgs, ExportArgs, RunArgs};
use crate::input::{self, apply_sets, workload_sets};
use crate::output;
use crate::CliError;

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let configs = input::configs(&args.input)?;
    if args.lenient && !configs.iter().any(|c| c.workload.is_trace()) {
        // Not an error: the flag asks for nothing that cannot be done. But a user who
        // meant it for a trace should learn that none was read.
        eprintln!("heaplab: --lenient applies to trace files, and no run here reads one");
    }
    if args.real {
        return crate::real::run_real(&args, &configs);
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

/// `heaplab convert`: any trace heaplab reads, written as `.trace`, streaming.
pub fn convert(args: ConvertArgs) -> Result<(), CliError> {
    let name = args.input.display().to_string();
    let input = File::open(&args.input).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let mut w = BufWriter::new(output::file_or_stdout(&args.output)?);
    let out_name = args.output.display().to_string();
    writeln!(w, "# heaplab trace: converted from {name}")
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    let options = ImportOptions {
        lenient: args.lenient,
    };
    let imported = trace::import(input, &name, &options, &mut |event| {
        trace::write_event(&mut w, &event)
    })
    .map_err(|e| CliError::input(e.to_string()))?;
    w.flush()
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    eprintln!("{name}: {imported}");
    if let Some(skipped) = &imported.skipped {
        output::runs::print_skipped(skipped);
    }
    Ok(())
}

pub fn export(args: ExportArgs) -> Result<(), CliError> {
    let spec = workload::find(&args.workload).map_err(|e| CliError::input(e.to_string()))?;
    let wset = workload_sets(&args.wset, &args.seed, &args.scale);
    let mut given = BTreeMap::new();
    apply_sets(&mut given, &wset, spec.params, "--wset")?;
    let params = heaplab_core::params::Params::resolve(spec.params, &given, "workload.params")
        .map_err(|e| CliError::input(e.to_string()))?;
    let mut w = BufWriter::new(output::file_or_stdout(&args.output)?);
    let io_err = |e: io::Error| CliError::failed(format!("{}: {e}", args.output.display()));
    writeln!(
        w,
        "# heaplab trace: workload {} {}",
        spec.id,
        serde_json::to_string(&params).unwrap_or_default()
    )
    .map_err(io_err)?;
    spec.generate(&params, &mut |event| trace::write_event(&mut w, &event))
        .map_err(io_err)?;
    w.flush().map_err(io_err)
}
