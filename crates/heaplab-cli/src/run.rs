//! `heaplab run` and `heaplab export`: building configs from flags and running them.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use heaplab_core::run::RunOutput;
use heaplab_core::trace::{self, ImportOptions};
use heaplab_core::workload;
use serde_json::Value;

use crate::cli::{ConvertArgs, ExportArgs, RunArgs};
use crate::input::{self, apply_sets, workload_sets};
use crate::report;
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
        let series: Vec<Value> = outputs
            .iter()
            .map(
                |o| serde_json::json!({"label": o.report.config.policy.preset.as_deref().unwrap_or(&o.report.config.policy.family), "series": o.series}),
            )
            .collect();
        write_json(path, &Value::Array(series))?;
    }
    if args.json {
        let reports: Vec<_> = outputs.iter().map(RunOutput::json).collect();
        let text =
            serde_json::to_string_pretty(&reports).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
    } else {
        report::print_runs(&outputs);
    }
    Ok(())
}

pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string(value).map_err(|e| CliError::failed(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}

/// `heaplab convert`: any trace heaplab reads, written as `.trace`, streaming.
pub fn convert(args: ConvertArgs) -> Result<(), CliError> {
    let name = args.input.display().to_string();
    let input = File::open(&args.input).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let mut w = BufWriter::new(output_file(&args.output)?);
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
        report::print_skipped(skipped);
    }
    Ok(())
}

/// A file to write, or standard output for `-`.
fn output_file(path: &Path) -> Result<Box<dyn Write>, CliError> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdout().lock()));
    }
    let file =
        File::create(path).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    Ok(Box::new(file))
}

pub fn export(args: ExportArgs) -> Result<(), CliError> {
    let spec = workload::find(&args.workload).map_err(|e| CliError::input(e.to_string()))?;
    let wset = workload_sets(&args.wset, &args.seed, &args.scale);
    let mut given = BTreeMap::new();
    apply_sets(&mut given, &wset, spec.params, "--wset")?;
    let params = heaplab_core::params::Params::resolve(spec.params, &given, "workload.params")
        .map_err(|e| CliError::input(e.to_string()))?;
    let mut w = BufWriter::new(output_file(&args.output)?);
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
