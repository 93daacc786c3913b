//! A trace pushed in chunks, as a browser reads a file: [`TraceStream::push`] each chunk
//! as it arrives, then [`TraceStream::finish`].
//!
//! This is [`super::import`] turned inside out, for a caller that cannot block waiting
//! for bytes (a Web Worker reading `File.stream()`): the same line reader
//! ([`super::parse`]), checker and messages, the same gzip detection by magic bytes and
//! the same inflater. Memory is one partial line and one inflated piece, whatever the
//! trace's length; the chunks themselves are the caller's and are not kept.

use std::io::Write;

use flate2::write::MultiGzDecoder;

use super::lines::{self, trim_cr};
use super::{EventSink, Feed, ImportOptions, Imported, Parser, TraceError};

pub use super::lines::MAX_LINE_BYTES;

/// Compressed bytes inflated at a time: deflate expands at most about a thousandfold, so
/// one piece's text stays in the tens of megabytes even for a crafted file.
const GZIP_PIECE: usize = 16 * 1024;

/// A trace being read from chunks pushed to it; events go to the sink `S` as their lines
/// complete.
#[derive(Debug)]
pub struct TraceStream<S> {
    feed: Feed<S>,
    parser: Parser,
    input: Input,
    lines: Splitter,
}

/// What the bytes pushed are.
#[derive(Debug)]
enum Input {
    /// Fewer than two bytes seen, so whether they are gzip is not known yet.
    Opening(Vec<u8>),
    Plain,
    /// The inflater writes the text into its `Vec`, which is read and emptied after
    /// each piece.
    Gzip(Box<MultiGzDecoder<Vec<u8>>>),
}

/// Complete lines out of chunks that end anywhere, numbered from 1 as [`lines::Lines`]
/// numbers them.
#[derive(Debug, Default)]
struct Splitter {
    /// The start of a line whose end has not arrived yet.
    carry: Vec<u8>,
    number: u64,
}

/// Why [`Splitter::push`] stopped: a line's reader failed, or a line at this number is
/// longer than [`MAX_LINE_BYTES`].
#[derive(Debug)]
enum Stop {
    Failed(TraceError),
    TooLong(u64),
}

impl Splitter {
    /// Reads every line that `data` completes with `parser`, and keeps the rest: runs of
    /// plain op lines in one pass ([`Parser::plain`]), the others one at a time.
    fn push<S: EventSink>(
        &mut self,
        mut data: &[u8],
        parser: &mut Parser,
        feed: &mut Feed<S>,
    ) -> Result<(), Stop> {
        if !self.carry.is_empty() {
            let Some(end) = memchr::memchr(b'\n', data) else {
                return self.keep(data);
            };
            if self.carry.len() + end > MAX_LINE_BYTES {
                return Err(Stop::TooLong(self.number + 1));
            }
            self.carry.extend_from_slice(&data[..end]);
            data = &data[end + 1..];
            self.number += 1;
            parser
                .line(feed, self.number, trim_cr(&self.carry))
                .map_err(Stop::Failed)?;
            self.carry.clear();
        }
        let mut start = 0;
        loop {
            let (bytes, lines) = parser
                .plain(feed, self.number + 1, &data[start..])
                .map_err(Stop::Failed)?;
            start += bytes;
            self.number += lines;
            let Some(len) = memchr::memchr(b'\n', &data[start..]) else {
                return self.keep(&data[start..]);
            };
            // A chunk may hold a whole over-long line (the browser hands a file over in
            // chunks of any size), which must be refused as one split across chunks is.
            if len > MAX_LINE_BYTES {
                return Err(Stop::TooLong(self.number + 1));
            }
            self.number += 1;
            parser
                .line(feed, self.number, trim_cr(&data[start..start + len]))
                .map_err(Stop::Failed)?;
            start += len + 1;
        }
    }

    /// Keeps the start of a line, refusing one longer than [`MAX_LINE_BYTES`].
    fn keep(&mut self, part: &[u8]) -> Result<(), Stop> {
        if self.carry.len() + part.len() > MAX_LINE_BYTES {
            return Err(Stop::TooLong(self.number + 1));
        }
        self.carry.extend_from_slice(part);
        Ok(())
    }

    /// The last line, when the stream does not end with a line end.
    fn finish<S: EventSink>(
        &mut self,
        parser: &mut Parser,
        feed: &mut Feed<S>,
    ) -> Result<(), TraceError> {
        if self.carry.is_empty() {
            return Ok(());
        }
        self.number += 1;
        let line = std::mem::take(&mut self.carry);
        parser.line(feed, self.number, trim_cr(&line))
    }
}

/// The error a [`Stop`] is, at its line.
fn stopped<S: EventSink>(feed: &Feed<S>, result: Result<(), Stop>) -> Result<(), TraceError> {
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Failed(e)) => Err(e),
        Err(Stop::TooLong(line)) => Err(feed.fail(line, lines::too_long())),
    }
}

impl<S: EventSink> TraceStream<S> {
    /// A stream for the trace file `name` (used in messages, and to pick the format by
    /// extension when the content does not say).
    pub fn new(name: &str, options: &ImportOptions, sink: S) -> TraceStream<S> {
        TraceStream {
            feed: Feed::new(name, options, sink),
            parser: Parser::new(),
            input: Input::Opening(Vec::new()),
            lines: Splitter::default(),
        }
    }

    /// Reads the next bytes of the file: every line they complete is parsed, checked
    /// and sent to the sink. A problem stops the stream at its line, as
    /// [`super::import`] stops; the stream is then of no further use.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), TraceError> {
        let read = self.read(chunk);
        self.feed.settle(read)?;
        self.feed.flush()
    }

    /// [`TraceStream::push`] up to the first problem, the last events perhaps still in
    /// the feed's batch.
    fn read(&mut self, chunk: &[u8]) -> Result<(), TraceError> {
        if let Input::Opening(head) = &mut self.input {
            head.extend_from_slice(chunk);
            if head.len() < lines::GZIP_MAGIC.len() {
                return Ok(());
            }
            let head = std::mem::take(head);
            self.input = if head.starts_with(&lines::GZIP_MAGIC) {
                Input::Gzip(Box::new(MultiGzDecoder::new(Vec::new())))
            } else {
                Input::Plain
            };
            return self.push(&head);
        }
        let TraceStream {
            feed,
            parser,
            input,
            lines,
        } = self;
        match input {
            Input::Opening(_) => unreachable!("decided above"),
            Input::Plain => {
                let result = lines.push(chunk, parser, feed);
                stopped(feed, result)
            }
            Input::Gzip(inflater) => {
                for piece in chunk.chunks(GZIP_PIECE) {
                    if let Err(e) = inflater.write_all(piece) {
                        return Err(feed.fail(lines.number + 1, format!("cannot read: {e}")));
                    }
                    let text = inflater.get_mut();
                    let result = lines.push(text, parser, feed);
                    text.clear();
                    stopped(feed, result)?;
                }
                Ok(())
            }
        }
    }

    /// Lines completed so far.
    pub fn lines(&self) -> u64 {
        self.lines.number
    }

    /// The end of the file: its last line is read, the format's end checks made (a
    /// `.rep`'s header against its ops), and what the import found returned with the
    /// sink.
    pub fn finish(mut self) -> Result<(Imported, S), TraceError> {
        let gzip = match std::mem::replace(&mut self.input, Input::Plain) {
            // Fewer than two bytes in all: not gzip, whatever they are.
            Input::Opening(head) => {
                self.push(&head)?;
                false
            }
            Input::Plain => false,
            Input::Gzip(mut inflater) => {
                // An inflater that ends inside a member says so here, as a file cut
                // short does natively.
                let ended = inflater.try_finish();
                let text = std::mem::take(inflater.get_mut());
                self.input = Input::Plain;
                self.push(&text)?;
                if let Err(e) = ended {
                    let line = self.lines.number + 1;
                    return Err(self.feed.fail(line, format!("cannot read: {e}")));
                }
                true
            }
        };
        let TraceStream {
            mut feed,
            parser,
            mut lines,
            ..
        } = self;
        let mut parser = parser;
        let last = lines.finish(&mut parser, &mut feed);
        feed.settle(last)?;
        feed.flush()?;
        let (format, rep_header) = parser.finish(&mut feed)?;
        feed.flush()?;
        let imported = feed.imported(format, rep_header, gzip, lines.number);
        Ok((imported, feed.into_sink()))
    }
}

/// The largest trace files a page streams: [`check_file_size`] refuses larger ones
/// before a byte is read. Memory stays flat whatever the length, so these bound the
/// time a tab is busy (about half a minute of text at the page's speed) and keep sizes
/// far below where a wasm32 module's counters would need care.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileLimits {
    /// The largest text trace, in bytes of the file.
    pub max_bytes: u64,
    /// The largest gzip'd trace, in bytes of the file: text compresses about threefold,
    /// so this holds about as many events as `max_bytes` of text.
    pub max_gzip_bytes: u64,
}

impl Default for FileLimits {
    fn default() -> FileLimits {
        FileLimits {
            max_bytes: 2 << 30,
            max_gzip_bytes: 512 << 20,
        }
    }
}

/// Refuses a trace file of `bytes` (gzip'd or not) above `limits`, with the limit named
/// and where a trace that size can run instead.
pub fn check_file_size(
    name: &str,
    bytes: u64,
    gzip: bool,
    limits: &FileLimits,
) -> Result<(), String> {
    let (limit, what) = if gzip {
        (limits.max_gzip_bytes, "gzip'd trace")
    } else {
        (limits.max_bytes, "trace")
    };
    if bytes <= limit {
        return Ok(());
    }
    Err(format!(
        "{name} is {}, over the page's limit of {} for a {what}; run it with `heaplab run -w {name}`",
        crate::format::format_bytes(bytes),
        crate::format::format_bytes(limit),
    ))
}
