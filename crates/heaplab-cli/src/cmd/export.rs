//! `heaplab export` writes a built-in workload's events as a `.trace`, streaming.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};

use heaplab_core::trace;

use crate::cli::ExportArgs;
use crate::error::CliError;
use crate::input::{find_workload, WorkloadSets};
use crate::output;

pub fn run(args: ExportArgs) -> Result<(), CliError> {
    let spec = find_workload(&args.workload, "--workload")?;
    let mut given = BTreeMap::new();
    WorkloadSets::new(&args.wset, &args.seed, &args.scale).apply(&mut given, spec.params)?;
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
    w.into_inner()
        .map_err(|e| io_err(e.into_error()))?
        .finish()
        .map_err(io_err)
}
