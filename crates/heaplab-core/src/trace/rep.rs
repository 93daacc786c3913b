//! CS:APP malloc-lab traces (`.rep`): a header of counts, one number a line, then
//! `a <id> <bytes>`, `r <id> <bytes>` and `f <id>` lines.
//!
//! Three headers are in the wild:
//!
//! - 2002, the CS:APP driver: `heap_size num_ids num_ops weight` (heap size and weight
//!   unused);
//! - 2016, the Autolab driver: `weight num_ids num_ops` and a fourth field (a flag that
//!   driver calls `ignore_ranges`; other copies carry a largest allocation there), with
//!   a weight of 0 to 3;
//! - two lines: `num_ids num_ops`.
//!
//! The header is read first; the op lines are then streamed, counted, and their highest
//! id kept. At the end the header is the variant whose counts agree with what followed:
//! two lines or four tell the short header from the long ones, and among the four-line
//! ones, whose counts sit on the same lines, the first field does: a weight of 0 to 3
//! against a heap size in bytes. When the counts fit no variant, the import fails at the
//! header's first line with "counts that disagree with the header".

use std::fmt;

use serde::Serialize;

use super::check::{Problem, ProblemKind};
use super::fast;
use super::native::{null_free_refused, number, Line};
use super::{quote, EventSink, Feed, TraceError};
use crate::event::Event;

/// Which malloc-lab header a `.rep` had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RepHeader {
    /// `heap_size num_ids num_ops weight`.
    #[serde(rename = "2002")]
    Csapp2002,
    /// `weight num_ids num_ops` and a fourth field.
    #[serde(rename = "2016")]
    Autolab2016,
    /// `num_ids num_ops`.
    #[serde(rename = "two-line")]
    TwoLine,
}

impl RepHeader {
    /// The header's fields, as a person would list them.
    pub fn fields(self) -> &'static str {
        match self {
            RepHeader::Csapp2002 => "heap_size num_ids num_ops weight",
            RepHeader::Autolab2016 => "weight num_ids num_ops ignore_ranges",
            RepHeader::TwoLine => "num_ids num_ops",
        }
    }
}

impl fmt::Display for RepHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = match self {
            RepHeader::Csapp2002 => "2002 header",
            RepHeader::Autolab2016 => "2016 header",
            RepHeader::TwoLine => "two-line header",
        };
        write!(f, "{year} ({})", self.fields())
    }
}

/// The Autolab driver refuses weights above 3; a 2002 heap size is never that small.
const MAX_WEIGHT: u64 = 3;

/// A `.rep` being read: its header first, then its op lines, counted and their highest
/// id kept, for the header to be checked against them at the end.
#[derive(Debug)]
pub(super) struct Reader {
    /// The header's lines: their numbers and values.
    header: Vec<(u64, u64)>,
    /// Whether the header is over and op lines are being read.
    in_ops: bool,
    ops: u64,
    max_id: Option<u64>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            header: Vec::with_capacity(4),
            in_ops: false,
            ops: 0,
            max_id: None,
        }
    }

    /// Reads one line: a header line until the first that is not one number (or the
    /// fifth), then op lines.
    #[inline]
    pub fn line<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        if !self.in_ops {
            let text = feed.text(line, bytes)?.trim();
            if text.is_empty() {
                return Ok(());
            }
            match text.parse::<u64>() {
                Ok(value) if self.header.len() < 4 => {
                    self.header.push((line, value));
                    return Ok(());
                }
                _ => self.in_ops = true,
            }
        }
        // Every op line counts against the header, a bad one too: it is a line the
        // header's author counted.
        let parsed = match fast::op(bytes) {
            Some(event) => Ok(Line::Event(event)),
            None => {
                let text = feed.text(line, bytes)?;
                if text.trim().is_empty() {
                    return Ok(());
                }
                parse_op(text)
            }
        };
        self.ops += 1;
        let event = match parsed {
            // A `.rep` op line has no call site and no slab; `parse_op` gives neither
            // form with one.
            Ok(Line::Event(event) | Line::Sited(event, _) | Line::Slab { event, .. }) => event,
            Ok(Line::SiteName(..)) => return Ok(()),
            Ok(Line::NullFree) => return feed.null_free(line, null_free_refused),
            Err(problem) => return feed.problem(line, problem),
        };
        self.max_id = self.max_id.max(event.block());
        feed.op(line, event)
    }

    /// [`Reader::line`] for a run of plain op lines, once the header is over.
    #[inline]
    pub fn plain<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(usize, u64), TraceError> {
        if !self.in_ops {
            return Ok((0, 0));
        }
        let Reader { ops, max_id, .. } = self;
        fast::ops(bytes, |i, event| {
            *ops += 1;
            *max_id = (*max_id).max(event.block());
            feed.op(line + i, event)
        })
    }

    /// After the last line: the header whose counts agree with the op lines read, or
    /// the problem at the header's first line.
    pub fn finish<S: EventSink>(self, feed: &mut Feed<S>) -> Result<Option<RepHeader>, TraceError> {
        let Reader {
            header,
            ops,
            max_id,
            ..
        } = self;
        let at = header.first().map_or(1, |&(line, _)| line);
        let values: Vec<u64> = header.iter().map(|&(_, v)| v).collect();
        let (variant, num_ids, num_ops) = match values[..] {
            [ids, ops] => (RepHeader::TwoLine, ids, ops),
            [first, ids, ops, _] if first <= MAX_WEIGHT => (RepHeader::Autolab2016, ids, ops),
            [_, ids, ops, _] => (RepHeader::Csapp2002, ids, ops),
            _ => {
                let problem = Problem::new(
                    ProblemKind::HeaderCounts,
                    format!(
                    "a malloc-lab header is 2 or 4 lines of one number each (`num_ids num_ops`, \
                     or `heap_size num_ids num_ops weight`); this file starts with {} such lines",
                    values.len()
                ),
                );
                feed.problem(at, problem)?;
                return Ok(None);
            }
        };
        let ids_fit = max_id.is_none_or(|m| m < num_ids);
        if ops == num_ops && ids_fit {
            return Ok(Some(variant));
        }
        let found = match max_id {
            Some(m) => format!("{ops} op lines with ids up to {m}"),
            None => format!("{ops} op lines"),
        };
        let problem = Problem::new(
            ProblemKind::HeaderCounts,
            format!(
            "counts that disagree with the header: as `{}` it says {num_ids} ids (0 to {}) and \
             {num_ops} ops, but {found} follow; --lenient runs the op lines as they are",
            variant.fields(),
            num_ids.saturating_sub(1),
        ),
        );
        feed.problem(at, problem)?;
        Ok(None)
    }
}

/// Parses one op line: `a <id> <bytes>`, `r <id> <bytes>` or `f <id>` (`f -1` being
/// `free(NULL)`).
fn parse_op(text: &str) -> Result<Line, Problem> {
    let mut words = text.split_whitespace();
    let op = words.next().unwrap_or("");
    let mut fields = [""; 2];
    let mut n = 0;
    for w in words {
        if n == fields.len() {
            n += 1;
            break;
        }
        fields[n] = w;
        n += 1;
    }
    let usage = match op {
        "a" => "a <id> <bytes>",
        "r" => "r <id> <bytes>",
        "f" => "f <id>",
        other => {
            return Err(Problem::new(
                ProblemKind::UnknownOp,
                format!(
                    "unknown op `{}` (a malloc-lab trace has a, r and f)",
                    quote(other)
                ),
            ))
        }
    };
    let want = if op == "f" { 1 } else { 2 };
    if n != want {
        return Err(Problem::new(
            ProblemKind::BadLine,
            format!("expected `{usage}`, found {:?}", quote(text.trim())),
        ));
    }
    if op == "f" && fields[0] == "-1" {
        return Ok(Line::NullFree);
    }
    let id = number(fields[0], "id")?;
    Ok(Line::Event(match op {
        "a" => Event::alloc(id, number(fields[1], "bytes")?),
        "r" => Event::realloc(id, number(fields[1], "bytes")?),
        _ => Event::free(id),
    }))
}
