//! `heaplab convert` writes any trace heaplab reads as a `.trace`, streaming, call
//! sites (`site=`, `site` lines) and arena slabs (`slab=`) and all.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use heaplab_core::event::{ArenaId, Event};
use heaplab_core::trace::{self, EventSink, ImportOptions};

/// Writes each event as a `.trace` line, with its call site when the input had one. A
/// `site` line's write error is kept and reported at the next event's line.
struct Writer<W> {
    w: W,
    failed: Option<io::Error>,
}

impl<W: Write> Writer<W> {
    fn check(&mut self) -> io::Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

impl<W: Write> EventSink for Writer<W> {
    type Error = io::Error;

    fn event(&mut self, event: Event) -> io::Result<()> {
        self.check()?;
        trace::write_event(&mut self.w, &event)
    }

    fn sited_event(&mut self, event: Event, site: u64) -> io::Result<()> {
        self.check()?;
        trace::native::write_sited(&mut self.w, &event, Some(site))
    }

    /// A converted trace keeps the program's arena slabs as they were, so that
    /// converting loses nothing; a replay of it leaves them out as the original's did.
    const KEEPS_SLABS: bool = true;

    fn slab_event(&mut self, event: Event, arena: ArenaId, site: Option<u64>) -> io::Result<()> {
        self.check()?;
        trace::native::write_slab(&mut self.w, &event, arena, site)
    }

    fn site_name(&mut self, addr: u64, name: &str) {
        if self.failed.is_none() {
            self.failed = trace::native::write_site_name(&mut self.w, addr, name).err();
        }
    }
}

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
    let (imported, mut writer) =
        trace::import_into(input, &name, &options, Writer { w, failed: None })
            .map_err(|e| CliError::input(e.to_string()))?;
    writer
        .check()
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    writer
        .w
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(output::Sink::finish)
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    eprintln!("{name}: {imported}");
    if let Some(skipped) = &imported.skipped {
        output::runs::print_skipped(skipped);
    }
    Ok(())
}
