//! `heaplab convert` writes any trace heaplab reads as a `.trace`, streaming.

use std::fs::File;
use std::io::{BufWriter, Write};

use heaplab_core::trace::{self, ImportOptions};

use crate::cli::ConvertArgs;
use crate::error::CliError;
use crate::output;

pub fn run(args: ConvertArgs) -> Result<(), CliError> {
    let name = args.input.display().to_string();
    let input = File::open(&args.input).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let mut w = BufWriter::new(output::file_or_stdout(&args.output)?);
    let out_name = args.output.display().to_string();
    writeln!(w, "# heaplab trace: converted from {name}")
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    let options = ImportOptions {
        lenient: args.lenient,
        strict: args.strict,
    };
    let imported = trace::import(input, &name, &options, &mut |event| {
        trace::write_event(&mut w, &event)
    })
    .map_err(|e| CliError::input(e.to_string()))?;
    w.into_inner()
        .map_err(|e| e.into_error())
        .and_then(output::Sink::finish)
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    eprintln!("{name}: {imported}");
    if let Some(skipped) = &imported.skipped {
        output::runs::print_skipped(skipped);
    }
    Ok(())
}
