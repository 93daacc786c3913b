//! The `.trace` text format: malloc-lab's op lines plus phases, arenas and threads.
//!
//! ```text
//! # comment
//! a <id> <size> [align] [arena=<n>] [thread=<n>]   allocate
//! f <id> [thread=<n>]                               free
//! r <id> <size> [thread=<n>]                        realloc
//! p <label>                                         phase marker
//! arena <n> | reset <n> | drop <n>                  arena create, reset, drop
//! ```
//!
//! Reading streams line by line into a sink, so a trace never has to fit in memory.

use std::fmt;
use std::io::{self, BufRead, Write};

use crate::event::{Event, DEFAULT_ALIGN};
use crate::workload::Sink;

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

/// Parses one line; `Ok(None)` for blank lines and comments.
pub fn parse_line(line: &str) -> Result<Option<Event>, String> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let op = words.next().expect("non-empty line has a word");
    if op == "p" {
        let label = line[1..].trim();
        if label.is_empty() {
            return Err("`p` needs a phase label".into());
        }
        return Ok(Some(Event::Phase(label.to_string())));
    }
    let mut positional = Vec::new();
    let (mut arena, mut thread) = (None, 0u32);
    for w in words {
        match w.split_once('=') {
            Some(("arena", v)) => arena = Some(number(v, "arena")?),
            Some(("thread", v)) => thread = number(v, "thread")?,
            Some((k, _)) => {
                return Err(format!(
                    "unknown option `{k}=` (expected arena= or thread=)"
                ))
            }
            None => positional.push(w),
        }
    }
    let arity = |min: usize, max: usize, usage: &str| {
        if positional.len() < min || positional.len() > max {
            Err(format!("expected `{usage}`, found {line:?}"))
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
                        return Err(format!("align {a} is not a power of two"));
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
            return Err(format!(
                "unknown op `{other}` (expected a, f, r, p, arena, reset or drop)"
            ))
        }
    };
    Ok(Some(event))
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("bad {what} {text:?}: expected a non-negative whole number"))
}

/// Reads a trace, sending each event to `sink`. A parse error, or an error from the sink
/// (an event the simulator refused), stops the read and names the line.
pub fn read<R: BufRead, E: fmt::Display>(
    mut reader: R,
    name: &str,
    sink: &mut Sink<'_, E>,
) -> Result<u64, TraceError> {
    let mut buf = String::new();
    let mut line = 0u64;
    let mut events = 0u64;
    let fail = |line, message| TraceError {
        name: name.to_string(),
        line,
        message,
    };
    loop {
        buf.clear();
        let n = reader
            .read_line(&mut buf)
            .map_err(|e| fail(line + 1, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(events);
        }
        line += 1;
        if let Some(event) = parse_line(&buf).map_err(|m| fail(line, m))? {
            sink(event).map_err(|e| fail(line, e.to_string()))?;
            events += 1;
        }
    }
}

/// Writes one event as a trace line.
pub fn write_event<W: Write>(w: &mut W, event: &Event) -> io::Result<()> {
    let opts = |arena: Option<u32>, thread: u32| {
        let mut s = String::new();
        if let Some(a) = arena {
            s.push_str(&format!(" arena={a}"));
        }
        if thread != 0 {
            s.push_str(&format!(" thread={thread}"));
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
        Event::Free { id, thread } => writeln!(w, "f {id}{}", opts(None, *thread)),
        Event::Realloc { id, size, thread } => writeln!(w, "r {id} {size}{}", opts(None, *thread)),
        Event::Phase(label) => writeln!(w, "p {label}"),
        Event::ArenaCreate(a) => writeln!(w, "arena {a}"),
        Event::ArenaReset(a) => writeln!(w, "reset {a}"),
        Event::ArenaDrop(a) => writeln!(w, "drop {a}"),
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
        ]
    }

    proptest! {
        #[test]
        fn events_round_trip(events in prop::collection::vec(arb_event(), 0..50)) {
            let mut text = Vec::new();
            for e in &events {
                write_event(&mut text, e).unwrap();
            }
            let mut back = Vec::new();
            read(&text[..], "t", &mut |e| { back.push(e); Ok::<(), String>(()) }).unwrap();
            prop_assert_eq!(back, events);
        }
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let text = "# a comment\na 1 16\n\nf 1\nz 3\n";
        let err = read(text.as_bytes(), "x.trace", &mut |_| Ok::<(), String>(())).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.trace:5: unknown op `z` (expected a, f, r, p, arena, reset or drop)"
        );
        let err = read("a 1\n".as_bytes(), "y.trace", &mut |_| Ok::<(), String>(())).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("y.trace:1: expected `a <id> <size> [align]`"),
            "{err}"
        );
        let err = read("a 1 -5\n".as_bytes(), "y.trace", &mut |_| {
            Ok::<(), String>(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("bad size \"-5\""), "{err}");
        let err = read("a 1 8 3\n".as_bytes(), "y.trace", &mut |_| {
            Ok::<(), String>(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("not a power of two"), "{err}");
        // An error from the sink is reported at the line of the event that caused it.
        let err = read("a 1 8\nf 2\n".as_bytes(), "z.trace", &mut |e| match e {
            Event::Free { .. } => Err("free of block id 2, which is not live"),
            _ => Ok(()),
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "z.trace:2: free of block id 2, which is not live"
        );
    }
}
