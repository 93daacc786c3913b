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
mod feed;
mod lines;
pub mod mtrace;
pub mod native;
mod parse;
pub mod rep;
pub mod sites;
pub mod stream;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use serde::Serialize;

use crate::event::Event;
use crate::format::{format_count, format_counted};
use crate::workload::Sink;

pub use check::{Problem, ProblemKind};

pub use native::{parse_line, write_event};
pub use rep::RepHeader;

use feed::Feed;
use lines::Lines;
use parse::Parser;

/// The most characters of a trace's line that a message quotes: a line is seldom longer
/// than this, and a longer one is shown by its start.
const QUOTE_CHARS: usize = 80;

/// Text from a trace line, clipped to [`QUOTE_CHARS`], for a message that quotes it.
fn quote(text: &str) -> String {
    crate::format::clip(text, QUOTE_CHARS)
}

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
    /// Lines of blocks the program malloc'd to back its own arenas (`a … slab=<n>`, and
    /// the `f` and `r` lines of those blocks) that the simulation left out: each policy
    /// backs the arenas' `arena=` blocks in its own way instead. 0 when the sink kept
    /// them (`heaplab convert`).
    #[serde(skip_serializing_if = "is_zero")]
    pub slab_lines: u64,
    /// Present when the import was lenient, even if nothing was skipped.
    #[serde(skip)]
    pub skipped: Option<Skipped>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
        write!(
            f,
            ", {}",
            format_counted(i128::from(self.lines), "line", "lines")
        )?;
        // Said only when the trace had some: most traces have none, and a table's first
        // line is read by people.
        if self.null_frees > 0 || self.null_reallocs > 0 {
            write!(
                f,
                ", {} free(NULL) as nothing, {} realloc(NULL, n) as malloc",
                format_count(i128::from(self.null_frees)),
                format_count(i128::from(self.null_reallocs))
            )?;
        }
        if self.slab_lines > 0 {
            write!(
                f,
                ", {} of the program's arena slabs left out, the policy backs its arenas",
                format_counted(i128::from(self.slab_lines), "line", "lines")
            )?;
        }
        Ok(())
    }
}

/// Where a trace's events go: the simulator, a converter, a list.
///
/// A trait rather than a closure so that a push-style reader ([`stream::TraceStream`])
/// can own its sink across calls; every `&mut` closure of the [`Sink`] type is one.
pub trait EventSink {
    /// The sink's refusal of an event, reported at the event's line.
    type Error: fmt::Display;
    fn event(&mut self, event: Event) -> Result<(), Self::Error>;

    /// An event whose line named its call site (`site=0x…`). Sinks that have no use for
    /// call sites take the event alone, so a trace with sites runs as one without.
    #[inline]
    fn sited_event(&mut self, event: Event, _site: u64) -> Result<(), Self::Error> {
        self.event(event)
    }

    /// A `site 0x… <name>` line: what a call site is.
    #[inline]
    fn site_name(&mut self, _addr: u64, _name: &str) {}

    /// Whether the sink takes the blocks a program malloc'd to back its own arenas
    /// (`a … slab=<n>`) and their frees and reallocs. A simulation does not: the trace
    /// has the arena's allocations as `arena=` blocks, which every policy backs in its
    /// own way (the bump family with its slabs, the others block by block), so the
    /// program's slabs would count the same memory twice. A sink that writes the trace
    /// out again keeps them, so that nothing is lost.
    const KEEPS_SLABS: bool = false;

    /// A slab allocation (`a … slab=<n>`), given only to a sink that
    /// [keeps slabs](EventSink::KEEPS_SLABS); the frees and reallocs of its block come
    /// as plain events.
    #[inline]
    fn slab_event(
        &mut self,
        event: Event,
        _arena: crate::event::ArenaId,
        _site: Option<u64>,
    ) -> Result<(), Self::Error> {
        self.event(event)
    }

    /// Takes a batch of events in order, leaving `events` empty or not as it likes; a
    /// refusal comes with the index of the event refused, and the events after it are
    /// not taken. The same as [`EventSink::event`] on each in turn, which is what it
    /// does unless a sink can do better with many at once (the simulator looks ahead).
    fn events(&mut self, events: &mut Vec<Event>) -> Result<(), (usize, Self::Error)> {
        for (i, event) in events.drain(..).enumerate() {
            self.event(event).map_err(|e| (i, e))?;
        }
        Ok(())
    }
}

impl<E: fmt::Display> EventSink for &mut Sink<'_, E> {
    type Error = E;
    #[inline]
    fn event(&mut self, event: Event) -> Result<(), E> {
        (self)(event)
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
    import_into(input, name, options, sink).map(|(imported, _)| imported)
}

/// [`import`] into any [`EventSink`], handed back at the end: the way to see a trace's
/// call sites as well as its events, and a sink that takes events in batches (the
/// simulator's) is given them so.
pub fn import_into<R: Read, S: EventSink>(
    input: R,
    name: &str,
    options: &ImportOptions,
    sink: S,
) -> Result<(Imported, S), TraceError> {
    let (text, gzip) = lines::open(input).map_err(|e| TraceError {
        name: name.to_string(),
        line: 1,
        message: format!("cannot read: {e}"),
    })?;
    let mut lines = Lines::new(text);
    let mut feed = Feed::new(name, options, sink);
    let mut parser = Parser::new();
    let read = read_lines(&mut lines, &mut parser, &mut feed);
    feed.settle(read)?;
    feed.flush()?;
    let (format, rep_header) = parser.finish(&mut feed)?;
    feed.flush()?;
    let imported = feed.imported(format, rep_header, gzip, lines.count());
    Ok((imported, feed.into_sink()))
}

/// Reads a trace into `sink` as [`import`] does, keeping the call sites its lines name.
pub fn import_sited<R: Read, E: fmt::Display, F: FnMut(Event) -> Result<(), E>>(
    input: R,
    name: &str,
    options: &ImportOptions,
    sink: F,
) -> Result<(Imported, sites::Sites), TraceError> {
    let (imported, sink) = import_into(input, name, options, sites::WithSites::new(sink))?;
    Ok((imported, sink.sites))
}

/// Every line of `lines` through `parser`, up to the end or the first problem.
fn read_lines<R: Read, S: EventSink>(
    lines: &mut Lines<R>,
    parser: &mut Parser,
    feed: &mut Feed<S>,
) -> Result<(), TraceError> {
    loop {
        let (bytes, n) = parser.plain(feed, lines.count() + 1, lines.unread())?;
        lines.skip(bytes, n);
        match lines.next_bytes().map_err(|(line, m)| feed.fail(line, m))? {
            Some((line, bytes)) => parser.line(feed, line, bytes)?,
            None => return Ok(()),
        }
    }
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
