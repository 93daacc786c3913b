//! Traces: reading allocation traces from files, and writing heaplab's own.
//!
//! [`import`] reads any format heaplab knows, found by content rather than by name:
//!
//! - heaplab's `.trace` text ([`native`]), which [`write_event`] writes;
//! - the CS:APP malloc-lab `.rep` ([`rep`]), with any of its three headers;
//! - glibc's `mtrace` log ([`mtrace`]), addresses turned into block ids;
//! - any of them gzip-compressed, found by the gzip magic bytes.
//!
//! Reading streams line by line into a sink, so a trace never has to fit in memory. Each
//! event passes the [`check`]s first, so a bad line is reported as `file:line: what is
//! wrong`, or, when lenient, skipped and counted by kind.

pub mod check;
mod fast;
mod lines;
pub mod mtrace;
pub mod native;
pub mod rep;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use serde::Serialize;

use crate::event::Event;
use crate::workload::Sink;

pub use check::{Problem, ProblemKind};

use check::{Checker, ReallocOf};
pub use native::{parse_line, write_event};
pub use rep::RepHeader;

use lines::Lines;

/// A problem in a trace, or in carrying out one of its events, at `name:line`.
#[derive(Debug)]
pub struct TraceError {
    pub name: String,
    pub line: u64,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.name, self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

/// The formats [`import`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// heaplab's `.trace`.
    Trace,
    /// CS:APP malloc-lab `.rep`.
    Rep,
    /// glibc `mtrace` output.
    Mtrace,
}

/// How to treat bad lines and events, and the conventions of recorded traces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Skip bad lines and events and count them by kind, rather than stopping at the
    /// first.
    pub lenient: bool,
    /// Refuse what recorders write for `free(NULL)` (`f -1`) and `realloc(NULL, n)` (a
    /// realloc of an id never allocated), as a bad line or event, rather than taking them
    /// as C does: a free of nothing, and an allocation.
    pub strict: bool,
}

/// Bad lines and events skipped in a lenient import, counted by kind.
pub type Skipped = BTreeMap<ProblemKind, u64>;

/// What an import found: `heaplab run --json` prints it as the report's `trace` field,
/// and the skipped counts (lenient runs only) as its `skipped` field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Imported {
    pub format: Format,
    /// Which malloc-lab header a `.rep` had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rep_header: Option<RepHeader>,
    /// Whether the file was gzip-compressed.
    pub gzip: bool,
    /// Lines read, blank and skipped ones included.
    pub lines: u64,
    /// `free(NULL)` calls the trace held (`.rep` and `.trace` `f -1`, mtrace `- 0`),
    /// imported as nothing.
    pub null_frees: u64,
    /// `realloc(NULL, n)` calls the trace held (a realloc of an id never allocated,
    /// mtrace `< 0`), imported as allocations of `n` bytes.
    pub null_reallocs: u64,
    /// Present when the import was lenient, even if nothing was skipped.
    #[serde(skip)]
    pub skipped: Option<Skipped>,
}

impl fmt::Display for Imported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.format, self.rep_header) {
            (Format::Trace, _) => f.write_str("heaplab .trace")?,
            (Format::Rep, Some(header)) => write!(f, "malloc-lab .rep, {header}")?,
            (Format::Rep, None) => f.write_str("malloc-lab .rep, header fits no variant")?,
            (Format::Mtrace, _) => f.write_str("glibc mtrace")?,
        }
        if self.gzip {
            f.write_str(", gzip")?;
        }
        write!(f, ", {} lines", self.lines)?;
        // Said only when the trace had some: most traces have none, and a table's first
        // line is read by people.
        if self.null_frees > 0 || self.null_reallocs > 0 {
            write!(
                f,
                ", {} free(NULL) as nothing, {} realloc(NULL, n) as malloc",
                self.null_frees, self.null_reallocs
            )?;
        }
        Ok(())
    }
}

/// Where a format sends what it reads: events go to the sink, problems stop the import
/// or, when lenient, are counted.
struct Feed<'a, 's, E> {
    name: &'a str,
    lenient: bool,
    strict: bool,
    skipped: Skipped,
    null_frees: u64,
    null_reallocs: u64,
    sink: &'a mut Sink<'s, E>,
}

impl<E: fmt::Display> Feed<'_, '_, E> {
    /// Sends an event on; an event the simulator refuses stops the import at its line.
    #[inline]
    fn emit(&mut self, line: u64, event: Event) -> Result<(), TraceError> {
        (self.sink)(event).map_err(|e| self.fail(line, e.to_string()))
    }

    /// A bad line or event: an error, or one more of its kind skipped.
    #[cold]
    fn problem(&mut self, line: u64, problem: Problem) -> Result<(), TraceError> {
        if self.lenient {
            *self.skipped.entry(problem.kind).or_default() += 1;
            Ok(())
        } else {
            Err(self.fail(line, problem.message))
        }
    }

    /// An event of a trace whose blocks are named by id (`.trace`, `.rep`), checked and
    /// sent on. Unless strict, a realloc of an id never allocated is the allocation
    /// `realloc(NULL, n)` makes, and is counted.
    #[inline]
    fn op(&mut self, checker: &mut Checker, line: u64, event: Event) -> Result<(), TraceError> {
        if let Event::Realloc { id, size, thread } = event {
            if !self.strict {
                return match checker.realloc_or_alloc(id) {
                    Ok(ReallocOf::Live) => self.emit(line, event),
                    Ok(ReallocOf::Nothing) => {
                        self.null_reallocs += 1;
                        self.emit(
                            line,
                            Event::Alloc {
                                id,
                                size,
                                align: crate::event::DEFAULT_ALIGN,
                                arena: None,
                                thread,
                            },
                        )
                    }
                    Err(problem) => self.problem(line, problem),
                };
            }
        }
        match checker.event(line, &event) {
            Ok(()) => self.emit(line, event),
            Err(problem) => self.problem(line, problem),
        }
    }

    /// A `free(NULL)`: nothing happens to memory, and it is counted; when strict, it is
    /// the bad line it was before recorders' conventions were taken in, `refusal`.
    #[inline]
    fn null_free(
        &mut self,
        line: u64,
        refusal: impl FnOnce() -> Problem,
    ) -> Result<(), TraceError> {
        if self.strict {
            return self.problem(line, refusal());
        }
        self.null_frees += 1;
        Ok(())
    }

    fn fail(&self, line: u64, message: String) -> TraceError {
        TraceError {
            name: self.name.to_string(),
            line,
            message,
        }
    }

    /// The next line's bytes, with a read error turned into a [`TraceError`] at its line.
    #[inline]
    fn next_bytes<'l, R: Read>(
        &self,
        lines: &'l mut Lines<R>,
    ) -> Result<Option<(u64, &'l [u8])>, TraceError> {
        lines.next_bytes().map_err(|(line, m)| self.fail(line, m))
    }

    /// Bytes as text, or an error at their line.
    #[inline]
    fn text<'b>(&self, line: u64, bytes: &'b [u8]) -> Result<&'b str, TraceError> {
        std::str::from_utf8(bytes).map_err(|_| self.fail(line, lines::not_text()))
    }

    /// The next line, with a read error turned into a [`TraceError`] at its line.
    #[inline]
    fn next<'l, R: Read>(
        &self,
        lines: &'l mut Lines<R>,
    ) -> Result<Option<(u64, &'l str)>, TraceError> {
        lines.next_line().map_err(|(line, m)| self.fail(line, m))
    }
}

/// Reads a trace of any known format from `input`, gzip'd or not, sending each event to
/// `sink`. `name` is the file's name, used in messages and, when the content does not
/// say, to pick the format by extension.
pub fn import<R: Read, E: fmt::Display>(
    input: R,
    name: &str,
    options: &ImportOptions,
    sink: &mut Sink<'_, E>,
) -> Result<Imported, TraceError> {
    let (text, gzip) = lines::open(input).map_err(|e| TraceError {
        name: name.to_string(),
        line: 1,
        message: format!("cannot read: {e}"),
    })?;
    let mut lines = Lines::new(text);
    let mut feed = Feed {
        name,
        lenient: options.lenient,
        strict: options.strict,
        skipped: Skipped::new(),
        null_frees: 0,
        null_reallocs: 0,
        sink,
    };
    let format = sniff(&mut lines, &feed)?;
    let rep_header = match format {
        Format::Trace => {
            native::feed(&mut lines, &mut feed)?;
            None
        }
        Format::Rep => rep::feed(&mut lines, &mut feed)?,
        Format::Mtrace => {
            mtrace::feed(&mut lines, &mut feed)?;
            None
        }
    };
    Ok(Imported {
        format,
        rep_header,
        gzip,
        lines: lines.count(),
        null_frees: feed.null_frees,
        null_reallocs: feed.null_reallocs,
        skipped: options.lenient.then_some(feed.skipped),
    })
}

/// Picks the format from the first line that says something, and leaves that line to
/// be read again. A comment or an op of ours means `.trace`; a bare number, a
/// malloc-lab header; `@ `, `= ` or an mtrace sign (`+ - < > !`), mtrace. A file whose
/// first line fits none is taken by its extension (`.rep`, `mtrace`), else as `.trace`,
/// whose reader then names the line.
fn sniff<R: Read, E: fmt::Display>(
    lines: &mut Lines<R>,
    feed: &Feed<'_, '_, E>,
) -> Result<Format, TraceError> {
    let first = loop {
        match feed.next(lines)? {
            None => return Ok(Format::Trace),
            Some((_, text)) if text.trim().is_empty() => continue,
            Some((_, text)) => break text.trim_start(),
        }
    };
    let word = first.split_whitespace().next().unwrap_or("");
    let format = if first.starts_with('#') || native::OPS.contains(&word) {
        Format::Trace
    } else if word.parse::<u64>().is_ok() {
        Format::Rep
    } else if mtrace::SIGNS.contains(&word) {
        Format::Mtrace
    } else {
        let base = name_without_gz(feed.name);
        if base.ends_with(".rep") {
            Format::Rep
        } else if base.contains("mtrace") {
            Format::Mtrace
        } else {
            Format::Trace
        }
    };
    lines.unread();
    Ok(format)
}

fn name_without_gz(name: &str) -> &str {
    name.strip_suffix(".gz").unwrap_or(name)
}

/// The extensions of the trace formats read here, each also gzip'd.
pub const EXTENSIONS: &[&str] = &[".trace", ".rep", ".mtrace"];

/// Whether a file name ends in a trace format's extension, gzip'd or not: how a folder of
/// traces is told from the other files in it.
pub fn has_trace_extension(name: &str) -> bool {
    let base = name_without_gz(name);
    EXTENSIONS.iter().any(|ext| base.ends_with(ext))
}

/// Reads a trace strictly, sending each event to `sink`; returns the number of lines.
/// The same as [`import`] without options, for callers that want only the events.
pub fn read<R: Read, E: fmt::Display>(
    reader: R,
    name: &str,
    sink: &mut Sink<'_, E>,
) -> Result<u64, TraceError> {
    import(reader, name, &ImportOptions::default(), sink).map(|i| i.lines)
}

#[cfg(test)]
mod tests;
