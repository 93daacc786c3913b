//! glibc `mtrace` logs (`MALLOC_TRACE=file ./prog` after the program calls `mtrace()`).
//!
//! ```text
//! = Start
//! @ ./prog:[0x4005d4] + 0x5588a2b6e2a0 0x10      malloc: address, size in hex
//! @ ./prog:[0x4005e2] < 0x5588a2b6e2a0           realloc: the old address...
//! @ ./prog:[0x4005e2] > 0x5588a2b6e6d0 0x20      ...then the new one and the size
//! @ ./prog:[0x4005f0] - 0x5588a2b6e6d0           free
//! = End
//! ```
//!
//! The `@ caller` part is optional and ignored. Each address that malloc returns gets a
//! fresh block id, which a realloc carries to its new address. `free(NULL)` (`- (nil)`
//! or `- 0`) changes nothing and is counted; a failed malloc (`+ (nil) ...`), a failed
//! realloc (`! ...`) and `=` lines change nothing and are skipped without complaint.
//! glibc logs `realloc(NULL, n)` as the malloc it is (`+`); a log that writes it as a
//! pair from address 0 (`< (nil)`, `> 0x... 0x...`) is read as that malloc too, and
//! counted, unless the import is strict.

use super::check::{request, Checker, Naming, Problem, ProblemKind};
use super::{quote, EventSink, Feed, TraceError};
use crate::event::{BlockId, Event};

/// The first words of this format's lines (after the optional `@ caller`).
pub const SIGNS: &[&str] = &["@", "=", "+", "-", "<", ">", "!"];

/// One mtrace line, its caller stripped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    Malloc {
        addr: u64,
        size: u64,
    },
    Free {
        addr: u64,
    },
    ReallocFrom {
        addr: u64,
    },
    ReallocTo {
        addr: u64,
        size: u64,
    },
    /// `free(NULL)`: nothing happened to memory, and it is counted.
    NullFree,
    /// Nothing happened to memory: a marker, a failed call.
    Nothing,
}

/// An mtrace log being read: addresses turned into block ids as they come.
#[derive(Debug)]
pub(super) struct Reader {
    checker: Checker,
    next_id: BlockId,
    /// A realloc's `<` line, waiting for its `>`: the line's number and the address.
    pending: Option<(u64, u64)>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            checker: Checker::new(Naming::Address),
            next_id: 0,
            pending: None,
        }
    }

    /// Reads one line: its event, if it has one, checked and sent to the feed.
    pub fn line<S: EventSink>(
        &mut self,
        feed: &mut Feed<S>,
        line: u64,
        bytes: &[u8],
    ) -> Result<(), TraceError> {
        let text = feed.text(line, bytes)?;
        if text.trim().is_empty() {
            return Ok(());
        }
        let Reader {
            checker,
            next_id,
            pending,
        } = self;
        let parsed = match parse(text) {
            Ok(parsed) => parsed,
            Err(problem) => {
                return feed.problem(line, problem);
            }
        };
        if let Some((from_line, _)) = *pending {
            if !matches!(parsed, Line::ReallocTo { .. }) {
                *pending = None;
                feed.problem(from_line, unpaired_from())?;
            }
        }
        let result = match parsed {
            Line::Nothing => Ok(()),
            Line::NullFree => {
                // A no-op in every mode: the importer always read it so.
                feed.null_frees += 1;
                Ok(())
            }
            Line::Malloc { addr, size } => match checker.alloc(addr, *next_id, None) {
                Ok(()) => {
                    *next_id += 1;
                    feed.emit(line, Event::alloc(*next_id - 1, size))?;
                    Ok(())
                }
                Err(p) => Err(p),
            },
            Line::Free { addr } => match checker.free(line, addr) {
                Ok(id) => {
                    feed.emit(line, Event::free(id))?;
                    Ok(())
                }
                Err(p) => Err(p),
            },
            Line::ReallocFrom { addr } => {
                *pending = Some((line, addr));
                Ok(())
            }
            Line::ReallocTo { addr, size } => match pending.take() {
                None => Err(Problem::new(
                    ProblemKind::UnpairedRealloc,
                    "realloc `>` line without the `<` line before it",
                )),
                Some((_, 0)) if !feed.strict => match checker.alloc(addr, *next_id, None) {
                    Ok(()) => {
                        *next_id += 1;
                        feed.null_reallocs += 1;
                        feed.emit(line, Event::alloc(*next_id - 1, size))?;
                        Ok(())
                    }
                    Err(p) => Err(p),
                },
                Some((_, from)) => match checker.realloc_moved(line, from, addr) {
                    Ok(id) => {
                        feed.emit(line, Event::realloc(id, size))?;
                        Ok(())
                    }
                    Err(p) => Err(p),
                },
            },
        };
        match result {
            Ok(()) => Ok(()),
            Err(problem) => feed.problem(line, problem),
        }
    }

    /// After the last line: a `<` line still waiting for its `>` is a problem.
    pub fn finish<S: EventSink>(self, feed: &mut Feed<S>) -> Result<(), TraceError> {
        match self.pending {
            Some((from_line, _)) => feed.problem(from_line, unpaired_from()),
            None => Ok(()),
        }
    }
}

fn unpaired_from() -> Problem {
    Problem::new(
        ProblemKind::UnpairedRealloc,
        "realloc `<` line without the `>` line after it",
    )
}

/// Parses one line. `@ caller` runs to the first word ending in `]` (callers look like
/// `./prog:(main+0x1a)[0x4005d4]` or `[0x4005d4]`).
fn parse(text: &str) -> Result<Line, Problem> {
    let mut words = text.split_whitespace();
    let mut sign = words.next().unwrap_or("");
    if sign == "@" {
        let no_op = || {
            Problem::new(
                ProblemKind::BadLine,
                "a caller (`@ ...[0x...]`) with no operation after it",
            )
        };
        while !words.next().ok_or_else(no_op)?.ends_with(']') {}
        sign = words.next().ok_or_else(no_op)?;
    }
    let mut field = |what: &str| -> Result<u64, Problem> {
        let w = words.next().ok_or_else(|| {
            Problem::new(
                ProblemKind::BadLine,
                format!("`{sign}` line without its {what}: {:?}", quote(text.trim())),
            )
        })?;
        hex(w, what)
    };
    let parsed = match sign {
        "=" | "!" => Line::Nothing,
        "+" => {
            let addr = field("address")?;
            let size = request(field("size")?)?;
            // A malloc that returned NULL allocated nothing.
            if addr == 0 {
                Line::Nothing
            } else {
                Line::Malloc { addr, size }
            }
        }
        "-" => match field("address")? {
            0 => Line::NullFree,
            addr => Line::Free { addr },
        },
        "<" => Line::ReallocFrom {
            addr: field("address")?,
        },
        ">" => Line::ReallocTo {
            addr: field("address")?,
            size: request(field("size")?)?,
        },
        other => {
            return Err(Problem::new(
                ProblemKind::UnknownOp,
                format!(
                    "unknown mtrace line `{}` (expected +, -, <, >, !, = or @)",
                    quote(other)
                ),
            ))
        }
    };
    Ok(parsed)
}

/// A number as mtrace prints it: `0x`-prefixed hex, `(nil)` for NULL, and `0` for zero
/// (printf's `%#lx` drops the prefix there).
fn hex(word: &str, what: &str) -> Result<u64, Problem> {
    if word == "(nil)" {
        return Ok(0);
    }
    let digits = word
        .strip_prefix("0x")
        .or_else(|| word.strip_prefix("0X"))
        .unwrap_or(word);
    u64::from_str_radix(digits, 16).map_err(|_| {
        Problem::new(
            ProblemKind::BadNumber,
            format!(
                "bad {what} {:?}: expected a hex number like 0x1f",
                quote(word)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_with_and_without_a_caller() {
        assert_eq!(
            parse("@ ./prog:[0x4005d4] + 0x5588a2b6e2a0 0x10").unwrap(),
            Line::Malloc {
                addr: 0x5588a2b6e2a0,
                size: 16
            }
        );
        assert_eq!(
            parse("@ /lib/libc.so.6:(__libc_start_main+0xf3)[0x7f00] - 0x10").unwrap(),
            Line::Free { addr: 0x10 }
        );
        assert_eq!(
            parse("> 0x20 0").unwrap(),
            Line::ReallocTo {
                addr: 0x20,
                size: 0
            }
        );
        assert_eq!(parse("< 0x20").unwrap(), Line::ReallocFrom { addr: 0x20 });
        assert_eq!(parse("= Start").unwrap(), Line::Nothing);
        assert_eq!(parse("- (nil)").unwrap(), Line::NullFree);
        assert_eq!(parse("- 0").unwrap(), Line::NullFree);
        assert_eq!(parse("+ (nil) 0x100").unwrap(), Line::Nothing);
        assert_eq!(parse("! 0x20 0x100").unwrap(), Line::Nothing);
        assert_eq!(parse("* 0x20").unwrap_err().kind, ProblemKind::UnknownOp);
        assert_eq!(parse("+ 0x20").unwrap_err().kind, ProblemKind::BadLine);
        assert_eq!(parse("@ [0x1]").unwrap_err().kind, ProblemKind::BadLine);
        let p = parse("+ 0xzz 0x10").unwrap_err();
        assert_eq!(p.kind, ProblemKind::BadNumber);
        assert_eq!(
            p.message,
            "bad address \"0xzz\": expected a hex number like 0x1f"
        );
    }
}
