//! The `.trace` text format: malloc-lab's op lines plus phases, arenas and threads.
//!
//! ```text
//! # comment
//! a <id> <size> [align] [arena=<n>] [thread=<n>] [site=0x<hex>]   allocate
//! a <id> <size> [align] slab=<n> [thread=<n>] [site=0x<hex>]       allocate a slab of arena n
//! f <id> [thread=<n>]                                              free
//! r <id> <size> [thread=<n>] [site=0x<hex>]                        realloc
//! p <label>                                                        phase marker
//! t <ns>                                                           time mark
//! arena <n> | reset <n> | drop <n>                                 arena create, reset, drop
//! site 0x<hex> <name>                                              what a call site is
//! ```
//!
//! The `a`, `f` and `r` lines are CS:APP malloc-lab's op lines, so a `.rep` without its
//! header reads as a `.trace`.
//!
//! `t <ns>` says that the program's clock read `ns` nanoseconds since the trace began
//! when its next call came: `heaplab record` writes one before a call when at least
//! 100 µs have passed since the last, so a busy program's trace grows by a mark per
//! hundreds of calls while an idle spell costs one line. Marks never go back. They are
//! what `--clock trace` runs the model's time on (see [`crate::clock`]); a trace
//! without them still runs, on a rate.
//!
//! `site=` is the call site of an allocation or realloc: the return address of the
//! `malloc` (or `calloc`, `realloc`) call, which `heaplab record --callers` writes. A
//! `site` line names such an address once it is symbolised (`site 0x55d0c0a1b2c3
//! parse_json (json.c:212)`, or a module and offset, `site 0x7f1c2a3b4c5d
//! libfoo.so+0x1c5d`, when the module has no symbols); the name is the rest of the line
//! and cannot hold `#`. Sites are optional: a trace without them reads as before, and
//! they change no event; [`super::sites`] says where they go.
//!
//! `slab=<n>` marks a malloc the program made to back its own arena `n` (a bump
//! allocator's slab, say), which `heaplab record` writes when the program annotates its
//! arenas. The arena's own allocations are in the trace as `a … arena=<n>` lines, so a
//! replay leaves the slab, its frees and its reallocs out and lets the policy back the
//! arena as it does ([`super::EventSink::KEEPS_SLABS`]); a block is in an arena or a
//! slab of one, never both.

use std::io::{self, Write};

use super::check::{Problem, ProblemKind};
use super::fast;
use super::sites::{hex, parse_addr};
use super::{quote, EventSink, Feed, TraceError};
use crate::event::{ArenaId, Event, DEFAULT_ALIGN};

/// The first words of this format's lines, for telling it from the others.
pub const OPS: &[&str] = &["a", "f", "r", "p", "t", "arena", "reset", "drop", "site"];

/// Reads one line of a `.trace`: its event checked and sent to the feed.
#[inline]
pub(super) fn line<S: EventSink>(
    feed: &mut Feed<S>,
    line: u64,
    bytes: &[u8],
) -> Result<(), TraceError> {
    if let Some(event) = fast::op(bytes) {
        return feed.op(line, event);
    }
    match parse_line(feed.text(line, bytes)?) {
        Ok(Some(Line::Event(event))) => feed.op(line, event),
        Ok(Some(Line::Sited(event, site))) => feed.op_at(line, event, site),
        Ok(Some(Line::SiteName(addr, name))) => feed.site_name(addr, &name),
        Ok(Some(Line::Slab { event, arena, site })) => feed.slab(line, event, arena, site),
        Ok(Some(Line::NullFree)) => feed.null_free(line, null_free_refused),
        Ok(None) => Ok(()),
        Err(problem) => feed.problem(line, problem),
    }
}

/// What a line of a trace says.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    Event(Event),
    /// An `a` or `r` line with `site=`: the event and its call site.
    Sited(Event, u64),
    /// `f -1`: the program called `free(NULL)`, which does nothing. Recorders write it
    /// so; an id is otherwise never negative.
    NullFree,
    /// `site 0x<hex> <name>`: what the call site at an address is.
    SiteName(u64, String),
    /// An `a` line with `slab=`: an allocation that backs the program's own arena
    /// `arena`, with its call site when the line named one.
    Slab {
        event: Event,
        arena: ArenaId,
        site: Option<u64>,
    },
}

/// What `f -1` is when the import is strict: the bad id it was before recorders'
/// `free(NULL)` was taken in. `.rep` shares it.
pub(super) fn null_free_refused() -> Problem {
    Problem::new(
        ProblemKind::BadNumber,
        "bad id \"-1\": expected a non-negative whole number",
    )
}

/// Parses one line; `Ok(None)` for blank lines and comments.
pub fn parse_line(line: &str) -> Result<Option<Line>, Problem> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let op = words.next().expect("non-empty line has a word");
    if op == "p" {
        let label = line[1..].trim();
        if label.is_empty() {
            return Err(Problem::new(
                ProblemKind::BadLine,
                "`p` needs a phase label",
            ));
        }
        return Ok(Some(Line::Event(Event::Phase(label.to_string()))));
    }
    if op == "site" {
        return site_name(line);
    }
    // No op takes more than three positional words; more are only counted, for the
    // message. An array rather than a `Vec`: no allocation for every line of a trace.
    let mut words3 = [""; 3];
    let mut count = 0;
    let (mut arena, mut thread, mut site, mut slab) = (None, 0u32, None, None);
    for w in words {
        match w.split_once('=') {
            Some(("arena", v)) => arena = Some(number(v, "arena")?),
            Some(("thread", v)) => thread = number(v, "thread")?,
            Some(("site", v)) => site = Some(parse_addr(v)?),
            Some(("slab", v)) => slab = Some(number(v, "slab arena")?),
            Some((k, _)) => {
                return Err(Problem::new(
                    ProblemKind::BadLine,
                    format!(
                        "unknown option `{}=` (expected arena=, thread=, site= or slab=)",
                        quote(k)
                    ),
                ))
            }
            None => {
                if let Some(slot) = words3.get_mut(count) {
                    *slot = w;
                }
                count += 1;
            }
        }
    }
    let positional = &words3[..count.min(words3.len())];
    let arity = |min: usize, max: usize, usage: &str| {
        if count < min || count > max {
            Err(Problem::new(
                ProblemKind::BadLine,
                format!("expected `{usage}`, found {:?}", quote(line)),
            ))
        } else {
            Ok(())
        }
    };
    let event = match op {
        "a" => {
            arity(2, 3, "a <id> <size> [align]")?;
            let align = match positional.get(2) {
                Some(a) => {
                    let a: u64 = number(a, "align")?;
                    if !a.is_power_of_two() {
                        return Err(Problem::new(
                            ProblemKind::BadNumber,
                            format!("align {a} is not a power of two"),
                        ));
                    }
                    a
                }
                None => DEFAULT_ALIGN,
            };
            Event::Alloc {
                id: number(positional[0], "id")?,
                size: number(positional[1], "size")?,
                align,
                arena,
                thread,
            }
        }
        "f" => {
            arity(1, 1, "f <id>")?;
            if positional[0] == "-1" {
                return Ok(Some(Line::NullFree));
            }
            Event::Free {
                id: number(positional[0], "id")?,
                thread,
            }
        }
        "r" => {
            arity(2, 2, "r <id> <size>")?;
            Event::Realloc {
                id: number(positional[0], "id")?,
                size: number(positional[1], "size")?,
                thread,
            }
        }
        "t" => {
            arity(1, 1, "t <ns>")?;
            Event::Time(number(positional[0], "time")?)
        }
        "arena" | "reset" | "drop" => {
            arity(1, 1, &format!("{op} <arena>"))?;
            let a = number(positional[0], "arena")?;
            match op {
                "arena" => Event::ArenaCreate(a),
                "reset" => Event::ArenaReset(a),
                _ => Event::ArenaDrop(a),
            }
        }
        other => {
            return Err(Problem::new(
                ProblemKind::UnknownOp,
                format!(
                    "unknown op `{}` (expected a, f, r, p, t, arena, reset, drop or site)",
                    quote(other)
                ),
            ))
        }
    };
    if let Some(slab) = slab {
        return slab_line(line, event, slab, site);
    }
    match (site, &event) {
        (None, _) => Ok(Some(Line::Event(event))),
        (Some(site), Event::Alloc { .. } | Event::Realloc { .. }) => {
            Ok(Some(Line::Sited(event, site)))
        }
        (Some(_), _) => Err(Problem::new(
            ProblemKind::BadLine,
            format!(
                "`site=` belongs on `a` and `r` lines, found {:?}",
                quote(line)
            ),
        )),
    }
}

/// An op line with `slab=<n>`: only an allocation outside any arena backs one.
fn slab_line(
    line: &str,
    event: Event,
    arena: ArenaId,
    site: Option<u64>,
) -> Result<Option<Line>, Problem> {
    match event {
        Event::Alloc { arena: None, .. } => Ok(Some(Line::Slab { event, arena, site })),
        Event::Alloc { arena: Some(_), .. } => Err(Problem::new(
            ProblemKind::BadLine,
            format!(
                "a block is in an arena (`arena=`) or a slab of one (`slab=`), not both: {:?}",
                quote(line)
            ),
        )),
        _ => Err(Problem::new(
            ProblemKind::BadLine,
            format!("`slab=` belongs on `a` lines, found {:?}", quote(line)),
        )),
    }
}

/// A `site 0x<hex> <name>` line, comment already cut off.
fn site_name(line: &str) -> Result<Option<Line>, Problem> {
    let rest = line["site".len()..].trim_start();
    let (addr, name) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let name = name.trim();
    if addr.is_empty() || name.is_empty() {
        return Err(Problem::new(
            ProblemKind::BadLine,
            format!("expected `site 0x<hex> <name>`, found {:?}", quote(line)),
        ));
    }
    Ok(Some(Line::SiteName(parse_addr(addr)?, name.to_string())))
}

/// A field that must be a whole number; malloc-lab's `.rep` shares it.
pub(super) fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, Problem> {
    text.parse().map_err(|_| {
        Problem::new(
            ProblemKind::BadNumber,
            format!(
                "bad {what} {:?}: expected a non-negative whole number",
                quote(text)
            ),
        )
    })
}

/// Writes one event as a trace line.
pub fn write_event<W: Write>(w: &mut W, event: &Event) -> io::Result<()> {
    write_sited(w, event, None)
}

/// Writes a `site` line naming the call site at `addr`. The name is one line without
/// `#` (the comment sign): line breaks become spaces and `#` becomes `?`, and an empty
/// name is written as the address.
pub fn write_site_name<W: Write>(w: &mut W, addr: u64, name: &str) -> io::Result<()> {
    let clean: String = name
        .trim()
        .chars()
        .map(|c| match c {
            '#' => '?',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let clean = if clean.trim().is_empty() {
        hex(addr)
    } else {
        clean
    };
    writeln!(w, "site {} {}", hex(addr), clean.trim())
}

/// Writes one event as a trace line, with its call site (`site=`) on an `a` or `r` line
/// when it has one.
pub fn write_sited<W: Write>(w: &mut W, event: &Event, site: Option<u64>) -> io::Result<()> {
    write_line_of(w, event, None, site)
}

/// Writes an allocation that backs the program's arena `arena` (`slab=`), with its call
/// site when it has one.
pub fn write_slab<W: Write>(
    w: &mut W,
    event: &Event,
    arena: ArenaId,
    site: Option<u64>,
) -> io::Result<()> {
    write_line_of(w, event, Some(arena), site)
}

/// Writes one event as a trace line, with `slab=` and `site=` when given.
fn write_line_of<W: Write>(
    w: &mut W,
    event: &Event,
    slab: Option<ArenaId>,
    site: Option<u64>,
) -> io::Result<()> {
    let opts = |arena: Option<u32>, thread: u32| {
        let mut s = String::new();
        if let Some(a) = arena {
            s.push_str(&format!(" arena={a}"));
        }
        if let Some(a) = slab {
            s.push_str(&format!(" slab={a}"));
        }
        if thread != 0 {
            s.push_str(&format!(" thread={thread}"));
        }
        if let Some(site) = site {
            s.push_str(&format!(" site={}", hex(site)));
        }
        s
    };
    match event {
        Event::Alloc {
            id,
            size,
            align,
            arena,
            thread,
        } => {
            if *align == DEFAULT_ALIGN {
                writeln!(w, "a {id} {size}{}", opts(*arena, *thread))
            } else {
                writeln!(w, "a {id} {size} {align}{}", opts(*arena, *thread))
            }
        }
        Event::Free { id, thread } => {
            let thread = if *thread != 0 {
                format!(" thread={thread}")
            } else {
                String::new()
            };
            writeln!(w, "f {id}{thread}")
        }
        Event::Realloc { id, size, thread } => writeln!(w, "r {id} {size}{}", opts(None, *thread)),
        Event::Phase(label) => writeln!(w, "p {label}"),
        Event::ArenaCreate(a) => writeln!(w, "arena {a}"),
        Event::ArenaReset(a) => writeln!(w, "reset {a}"),
        Event::ArenaDrop(a) => writeln!(w, "drop {a}"),
        Event::Time(ns) => writeln!(w, "t {ns}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_event() -> impl Strategy<Value = Event> {
        prop_oneof![
            (
                any::<u64>(),
                0u64..1 << 40,
                0u32..13,
                prop::option::of(0u32..100),
                0u32..8
            )
                .prop_map(|(id, size, a, arena, thread)| Event::Alloc {
                    id,
                    size,
                    align: 1 << a,
                    arena,
                    thread
                }),
            (any::<u64>(), 0u32..8).prop_map(|(id, thread)| Event::Free { id, thread }),
            (any::<u64>(), any::<u64>(), 0u32..8).prop_map(|(id, size, thread)| Event::Realloc {
                id,
                size,
                thread
            }),
            "[a-z][a-z0-9 _-]{0,20}[a-z0-9]".prop_map(Event::Phase),
            (0u32..1000).prop_map(Event::ArenaCreate),
            (0u32..1000).prop_map(Event::ArenaReset),
            (0u32..1000).prop_map(Event::ArenaDrop),
            any::<u64>().prop_map(Event::Time),
        ]
    }

    proptest! {
        /// Every event survives being written and parsed back, line for line.
        #[test]
        fn events_round_trip(events in prop::collection::vec(arb_event(), 0..50)) {
            let mut text = Vec::new();
            for e in &events {
                write_event(&mut text, e).unwrap();
            }
            let text = String::from_utf8(text).unwrap();
            let back: Vec<Event> = text
                .lines()
                .map(|l| match parse_line(l).unwrap().unwrap() {
                    Line::Event(e) => e,
                    other => panic!("{l:?} read as {other:?}"),
                })
                .collect();
            prop_assert_eq!(back, events);
        }
    }

    fn arb_line() -> impl Strategy<Value = Line> {
        prop_oneof![
            arb_event().prop_map(Line::Event),
            (arb_event(), any::<u64>()).prop_map(|(e, site)| match e {
                Event::Alloc { .. } | Event::Realloc { .. } => Line::Sited(e, site),
                other => Line::Event(other),
            }),
            (
                any::<u64>(),
                "[A-Za-z_][A-Za-z0-9_:<> ]{0,20}[a-z0-9)]( \\([a-z]{1,8}\\.c:[0-9]{1,4}\\))?"
            )
                .prop_map(|(a, n)| Line::SiteName(a, n)),
            (
                any::<u64>(),
                0u64..1 << 40,
                any::<u32>(),
                0u32..8,
                prop::option::of(any::<u64>())
            )
                .prop_map(|(id, size, arena, thread, site)| Line::Slab {
                    event: Event::Alloc {
                        id,
                        size,
                        align: DEFAULT_ALIGN,
                        arena: None,
                        thread
                    },
                    arena,
                    site
                }),
        ]
    }

    fn write_line(w: &mut Vec<u8>, line: &Line) {
        match line {
            Line::Event(e) => write_event(w, e),
            Line::Sited(e, site) => write_sited(w, e, Some(*site)),
            Line::SiteName(a, n) => write_site_name(w, *a, n),
            Line::NullFree => writeln!(w, "f -1"),
            Line::Slab { event, arena, site } => write_slab(w, event, *arena, *site),
        }
        .unwrap();
    }

    proptest! {
        /// Lines with call sites and `site` lines survive being written and read back.
        #[test]
        fn sites_round_trip(lines in prop::collection::vec(arb_line(), 0..50)) {
            let mut text = Vec::new();
            for l in &lines {
                write_line(&mut text, l);
            }
            let text = String::from_utf8(text).unwrap();
            let back: Vec<Line> = text.lines().map(|l| parse_line(l).unwrap().unwrap()).collect();
            prop_assert_eq!(back, lines);
        }
    }

    #[test]
    fn sites_read_as_written() {
        assert_eq!(
            parse_line("a 9 48 site=0x55d0c0a1b2c3").unwrap(),
            Some(Line::Sited(Event::alloc(9, 48), 0x55d0_c0a1_b2c3))
        );
        assert_eq!(
            parse_line("r 9 64 thread=2 site=0xab").unwrap(),
            Some(Line::Sited(
                Event::Realloc {
                    id: 9,
                    size: 64,
                    thread: 2
                },
                0xab
            ))
        );
        assert_eq!(
            parse_line("site 0x55d0c0a1b2c3 parse_json (json.c:212)").unwrap(),
            Some(Line::SiteName(
                0x55d0_c0a1_b2c3,
                "parse_json (json.c:212)".into()
            ))
        );
        let mut out = Vec::new();
        write_sited(&mut out, &Event::alloc(9, 48), Some(0x55d0_c0a1_b2c3)).unwrap();
        write_site_name(&mut out, 0xab, "odd#name\nhere").unwrap();
        write_site_name(&mut out, 0xcd, "  ").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a 9 48 site=0x55d0c0a1b2c3\nsite 0xab odd?name here\nsite 0xcd 0xcd\n"
        );
    }

    #[test]
    fn bad_sites_say_what_is_wrong() {
        let err = |line: &str| parse_line(line).unwrap_err();
        assert_eq!(err("a 1 16 site=").kind, ProblemKind::BadNumber);
        assert_eq!(err("a 1 16 site=55d0").kind, ProblemKind::BadNumber);
        assert_eq!(
            err("a 1 16 site=0xzz").message,
            "bad site \"0xzz\": expected an address in hex, as 0x55d0c0a1b2c3"
        );
        assert_eq!(err("f 1 site=0x10").kind, ProblemKind::BadLine);
        assert_eq!(err("site").kind, ProblemKind::BadLine);
        assert_eq!(err("site 0x10").kind, ProblemKind::BadLine);
        assert_eq!(err("site main 0x10").kind, ProblemKind::BadNumber);
    }

    #[test]
    fn slabs_read_as_written_and_bad_ones_say_what_is_wrong() {
        assert_eq!(
            parse_line("a 4 65536 slab=2").unwrap(),
            Some(Line::Slab {
                event: Event::alloc(4, 65536),
                arena: 2,
                site: None
            })
        );
        let err = |line: &str| parse_line(line).unwrap_err();
        assert_eq!(
            err("a 4 65536 slab=x").message,
            "bad slab arena \"x\": expected a non-negative whole number"
        );
        assert_eq!(err("a 4 65536 slab=-1").kind, ProblemKind::BadNumber);
        assert_eq!(err("a 4 65536 slab=").kind, ProblemKind::BadNumber);
        assert_eq!(err("a 4 8 arena=1 slab=1").kind, ProblemKind::BadLine);
        assert_eq!(err("f 4 slab=1").kind, ProblemKind::BadLine);
        assert_eq!(err("r 4 8 slab=1").kind, ProblemKind::BadLine);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let kind = |line: &str| parse_line(line).unwrap_err().kind;
        assert_eq!(parse_line("  # only a comment").unwrap(), None);
        assert_eq!(kind("z 3"), ProblemKind::UnknownOp);
        assert_eq!(kind("a 1"), ProblemKind::BadLine);
        assert_eq!(kind("a 1 16 8 9"), ProblemKind::BadLine);
        assert_eq!(kind("a 1 16 color=red"), ProblemKind::BadLine);
        assert_eq!(kind("p"), ProblemKind::BadLine);
        assert_eq!(kind("a 1 -5"), ProblemKind::BadNumber);
        assert_eq!(kind("a 1 8 3"), ProblemKind::BadNumber);
        assert_eq!(kind("f x"), ProblemKind::BadNumber);
        assert_eq!(kind("f -2"), ProblemKind::BadNumber);
        assert_eq!(kind("a -1 8"), ProblemKind::BadNumber);
        assert_eq!(parse_line("f -1 thread=2").unwrap(), Some(Line::NullFree));
        assert_eq!(
            parse_line("a 1 -5").unwrap_err().message,
            "bad size \"-5\": expected a non-negative whole number"
        );
    }
}
