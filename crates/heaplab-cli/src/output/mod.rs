//! Everything the user sees is made here: tables, JSON and the files the CLI writes.
//!
//! - `json`: JSON on standard output, the `--series` file.
//! - `table`: the comfy-table tables every report is built from.
//! - `plot`: `--plot FILE`, memory over time as SVG or PNG, drawn by heaplab-plot.
//! - `runs`: `run`'s table (and `run --real`'s), and what a lenient import skipped.
//! - `compare`: `compare`'s sections, means, JSON and CSV.
//! - `mm`: `mm check`'s mdriver table.
//! - `scenario`, `baseline`, `fidelity`, `catalog`: the text of those subcommands'
//!   reports and of the listings.
//!
//! Output takes results and prints them; it decides nothing about what runs.

pub mod baseline;
mod blame;
pub mod catalog;
pub mod compare;
pub mod fidelity;
mod json;
pub mod mm;
pub mod plot;
pub mod runs;
pub mod scenario;
pub mod sweep;
mod table;

use std::io::{self, Write};
use std::path::Path;

use heaplab_core::config::{RunConfig, WorkloadConfig};
use serde_json::Value;

use crate::error::CliError;

pub use blame::print_blame;
pub use json::{print_json, write_series};

/// A run's label in tables, charts and the `--series` file: the preset's or family's id
/// and the parameters it changes, so two runs of one preset never share a heading.
pub fn label(config: &RunConfig) -> String {
    config.policy.label()
}

/// The line that names a workload above its table: `trace FILE`, or `workload ID
/// {params}`.
fn workload_line(w: &WorkloadConfig) -> String {
    match &w.path {
        Some(p) => format!("trace {p}"),
        None => format!(
            "workload {} {}",
            w.id,
            Value::Object(w.params.clone().into_iter().collect())
        ),
    }
}

/// Where a streamed output goes: standard output, or a file written whole or not at all.
#[derive(Debug)]
pub enum Sink {
    Stdout(io::StdoutLock<'static>),
    File(crate::interrupt::WholeFile),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

impl Sink {
    /// Ends the output: a file is put in its place, complete.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Stdout(mut s) => s.flush(),
            Sink::File(f) => f.commit(),
        }
    }
}

/// A file to write, or standard output for `-`; [`Sink::finish`] ends it.
pub fn file_or_stdout(path: &Path) -> Result<Sink, CliError> {
    if path.as_os_str() == "-" {
        return Ok(Sink::Stdout(io::stdout().lock()));
    }
    let file = crate::interrupt::WholeFile::create(path)
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    Ok(Sink::File(file))
}
