//! One trace's reader, line by line, whatever drives it: [`super::import`] pulls lines
//! from a byte stream, [`super::stream::TraceStream`] is pushed chunks of one. Both hand
//! every numbered line here, so the two read every format the same way, with the same
//! messages at the same lines.

use super::{fast, mtrace, native, rep, EventSink, Feed, Format, RepHeader, TraceError};

/// The format's reader, once the first line that says something has picked it.
#[derive(Debug)]
pub(super) enum Parser {
    /// No line has said anything yet.
    Sniff,
    Trace,
    Rep(rep::Reader),
    Mtrace(mtrace::Reader),
}

impl Parser {
    pub fn new() -> Parser {
        Parser::Sniff
    }

    /// Reads line `line`, its bytes without the line ending.
    #[inline]
    pub fn line<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        match self {
            Parser::Trace => native::line(feed, line, bytes),
            Parser::Rep(reader) => reader.line(feed, line, bytes),
            Parser::Mtrace(reader) => reader.line(feed, line, bytes),
            Parser::Sniff => self.sniff(feed, line, bytes),
        }
    }

    /// Reads the plain op lines at the start of `bytes` (see [`fast::ops`]), line `line`
    /// first, in one pass; returns the bytes and lines read, which may be none. Formats
    /// other than `.trace` and a `.rep`'s op lines read every line with
    /// [`Parser::line`].
    #[inline]
    pub fn plain<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(usize, u64), TraceError> {
        match self {
            Parser::Trace => fast::ops(bytes, |i, event| feed.op(line + i, event)),
            Parser::Rep(reader) => reader.plain(feed, line, bytes),
            Parser::Mtrace(_) | Parser::Sniff => Ok((0, 0)),
        }
    }

    /// Picks the format from the first line that says something, and reads that line
    /// with it. A comment or an op of ours means `.trace`; a bare number, a malloc-lab
    /// header; `@ `, `= ` or an mtrace sign (`+ - < > !`), mtrace. A file whose first
    /// line fits none is taken by its extension (`.rep`, `mtrace`), else as `.trace`,
    /// whose reader then names the line.
    #[cold]
    fn sniff<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        let text = feed.text(line, bytes)?;
        if text.trim().is_empty() {
            return Ok(());
        }
        let first = text.trim_start();
        let word = first.split_whitespace().next().unwrap_or("");
        let format = if first.starts_with('#') || native::OPS.contains(&word) {
            Format::Trace
        } else if word.parse::<u64>().is_ok() {
            Format::Rep
        } else if mtrace::SIGNS.contains(&word) {
            Format::Mtrace
        } else {
            let base = super::name_without_gz(&feed.name);
            if base.ends_with(".rep") {
                Format::Rep
            } else if base.contains("mtrace") {
                Format::Mtrace
            } else {
                Format::Trace
            }
        };
        *self = match format {
            Format::Trace => Parser::Trace,
            Format::Rep => Parser::Rep(rep::Reader::new()),
            Format::Mtrace => Parser::Mtrace(mtrace::Reader::new()),
        };
        self.line(feed, line, bytes)
    }

    /// After the last line: the format read, and for a `.rep` the header it had (`None`
    /// when a lenient import found none that fits). An empty trace is a `.trace`.
    pub fn finish<S: EventSink>(
        self,
        feed: &mut Feed<S>,
    ) -> Result<(Format, Option<RepHeader>), TraceError> {
        match self {
            Parser::Sniff | Parser::Trace => Ok((Format::Trace, None)),
            Parser::Rep(reader) => Ok((Format::Rep, reader.finish(feed)?)),
            Parser::Mtrace(reader) => {
                reader.finish(feed)?;
                Ok((Format::Mtrace, None))
            }
        }
    }
}
