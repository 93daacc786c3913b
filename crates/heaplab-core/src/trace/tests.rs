//! Importing each format through [`import`]: sniffing, checks, lenient counts, gzip.

use std::io::Write;

use flate2::{write::GzEncoder, Compression};
use proptest::prelude::*;

use super::*;

/// Imports `text` as file `name` with `options`, returning the events and what the
/// import found, or the error's message. Every call also pushes the same bytes through
/// [`stream::TraceStream`] in chunks of several sizes (one byte, a few, many) and
/// asserts the same answer, so each test here checks both ways of reading.
fn import_with(
    text: &[u8],
    name: &str,
    options: &ImportOptions,
) -> Result<(Vec<Event>, Imported), String> {
    let mut events = Vec::new();
    let pulled = import(text, name, options, &mut |e| {
        events.push(e);
        Ok::<(), String>(())
    })
    .map(|imported| (events, imported))
    .map_err(|e| e.to_string());
    for size in [1, 3, 64, 1 << 20] {
        assert_eq!(
            streamed(text, name, options, size),
            pulled,
            "pushed in chunks of {size} bytes"
        );
    }
    pulled
}

/// The events of a sink that keeps them.
#[derive(Debug, Default)]
struct Kept(Vec<Event>);

impl EventSink for Kept {
    type Error = String;
    fn event(&mut self, event: Event) -> Result<(), String> {
        self.0.push(event);
        Ok(())
    }
}

/// [`import_with`] through [`stream::TraceStream`], `text` pushed `size` bytes at a time.
fn streamed(
    text: &[u8],
    name: &str,
    options: &ImportOptions,
    size: usize,
) -> Result<(Vec<Event>, Imported), String> {
    let mut stream = stream::TraceStream::new(name, options, Kept::default());
    for chunk in text.chunks(size) {
        stream.push(chunk).map_err(|e| e.to_string())?;
    }
    let (imported, kept) = stream.finish().map_err(|e| e.to_string())?;
    Ok((kept.0, imported))
}

fn events_of(text: &[u8], name: &str, lenient: bool) -> Result<(Vec<Event>, Imported), String> {
    import_with(
        text,
        name,
        &ImportOptions {
            lenient,
            ..ImportOptions::default()
        },
    )
}

fn error_of(text: &str, name: &str) -> String {
    events_of(text.as_bytes(), name, false).unwrap_err()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

// ------------------------------------------------------------------------------------
// Sniffing

#[test]
fn the_format_is_found_by_content_whatever_the_name() {
    let cases = [
        ("# ours\na 1 16\nf 1\n", Format::Trace),
        ("\n\na 1 16\nf 1\n", Format::Trace),
        ("2\n2\na 0 16\nf 0\n", Format::Rep),
        ("= Start\n+ 0x10 0x10\n- 0x10\n= End\n", Format::Mtrace),
        ("@ ./a.out:[0x4005d4] + 0x10 0x10\n", Format::Mtrace),
        ("", Format::Trace),
    ];
    for (text, format) in cases {
        let (_, imported) = events_of(text.as_bytes(), "data.txt", false).unwrap();
        assert_eq!(imported.format, format, "{text:?}");
        assert!(!imported.gzip);
    }
}

#[test]
fn a_first_line_no_format_claims_falls_back_to_the_extension() {
    assert_eq!(
        error_of("hello\n", "x.rep.gz"),
        "x.rep.gz:1: unknown op `hello` (a malloc-lab trace has a, r and f)"
    );
    assert!(error_of("hello\n", "prog.mtrace").starts_with("prog.mtrace:1: unknown mtrace line"));
    assert!(error_of("hello\n", "x.trace").starts_with("x.trace:1: unknown op `hello`"));
}

// ------------------------------------------------------------------------------------
// Bad lines: the first stops the import with file:line

#[test]
fn each_bad_kind_names_file_and_line() {
    let cases = [
        (
            "a 1 16\nz 3\n",
            "x.trace:2: unknown op `z` (expected a, f, r, p, t, arena, reset, drop or site)",
        ),
        (
            "a 1 sixteen\n",
            "x.trace:1: bad size \"sixteen\": expected a non-negative whole number",
        ),
        (
            "a 1\n",
            "x.trace:1: expected `a <id> <size> [align]`, found \"a 1\"",
        ),
        (
            "a 1 16\nf 2\n",
            "x.trace:2: free of id 2, which was never allocated",
        ),
        (
            "a 1 16\nf 1\n\nf 1\n",
            "x.trace:4: double free of id 1 (freed at line 2)",
        ),
        (
            "a 1 16\nf 1\nr 1 32\n",
            "x.trace:3: realloc of id 1, which was freed at line 2",
        ),
        (
            "a 1 16\na 1 16\n",
            "x.trace:2: alloc of id 1, which is already live",
        ),
        (
            "a 1 16 arena=2\n",
            "x.trace:1: alloc in arena 2, which was not created",
        ),
        (
            "t 500\na 1 16\nt 400\n",
            "x.trace:3: time mark 400 ns is earlier than the one before it (500 ns); marks never go back",
        ),
        ("t\n", "x.trace:1: expected `t <ns>`, found \"t\""),
        (
            "t -5\n",
            "x.trace:1: bad time \"-5\": expected a non-negative whole number",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(error_of(text, "x.trace"), message, "{text:?}");
    }
}

#[test]
fn bad_rep_and_mtrace_lines_name_file_and_line() {
    let rep = "2\n3\na 0 16\nf 0\nf 0\n";
    assert_eq!(
        error_of(rep, "t.rep"),
        "t.rep:5: double free of id 0 (freed at line 4)"
    );
    assert_eq!(
        error_of("2\n2\na 0 16\nx 0\n", "t.rep"),
        "t.rep:4: unknown op `x` (a malloc-lab trace has a, r and f)"
    );
    assert_eq!(
        error_of("2\n2\na 0 -16\nf 0\n", "t.rep"),
        "t.rep:3: bad bytes \"-16\": expected a non-negative whole number"
    );
    let mtrace = "= Start\n+ 0x10 0x20\n- 0x10\n- 0x10\n";
    assert_eq!(
        error_of(mtrace, "m.log"),
        "m.log:4: double free of address 0x10 (freed at line 3)"
    );
    assert_eq!(
        error_of("+ 0x10 0x20\n- 0x30\n", "m.log"),
        "m.log:2: free of address 0x30, which was never allocated"
    );
    assert_eq!(
        error_of("+ 0x10 0x20\n+ 0x10 0x20\n", "m.log"),
        "m.log:2: alloc of address 0x10, which is already live"
    );
    assert_eq!(
        error_of("+ 0x10 0x20\n< 0x10\n+ 0x40 0x8\n", "m.log"),
        "m.log:2: realloc `<` line without the `>` line after it"
    );
    assert_eq!(
        error_of("+ 0x10 0x20\n> 0x40 0x8\n", "m.log"),
        "m.log:2: realloc `>` line without the `<` line before it"
    );
    assert_eq!(
        error_of("+ 0x10 0x20\n- 0x10\n< 0x10\n> 0x40 0x8\n", "m.log"),
        "m.log:4: realloc of address 0x10, which was freed at line 2"
    );
}

#[test]
fn an_event_the_simulator_refuses_is_named_at_its_line() {
    let mut n = 0;
    let err = import(
        "a 1 8\n# two\na 2 8\n".as_bytes(),
        "z.trace",
        &ImportOptions::default(),
        &mut |_| {
            n += 1;
            if n == 2 {
                Err("event 2: out of memory")
            } else {
                Ok(())
            }
        },
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "z.trace:3: event 2: out of memory");
}

/// A sink that takes events in batches, as the simulator's does, and refuses the
/// `refuse`-th event (1-based) with the message a simulator gives.
#[derive(Debug)]
struct Refusing {
    taken: u64,
    refuse: u64,
}

impl EventSink for Refusing {
    type Error = String;
    fn event(&mut self, _: Event) -> Result<(), String> {
        unreachable!("this sink takes batches")
    }
    fn events(&mut self, events: &mut Vec<Event>) -> Result<(), (usize, String)> {
        for (i, _) in events.iter().enumerate() {
            self.taken += 1;
            if self.taken == self.refuse {
                return Err((i, format!("event {}: out of memory", self.taken)));
            }
        }
        Ok(())
    }
}

/// That importing `text` as `name` into a sink refusing event `refuse` stops with
/// `message`, read whole and pushed `sizes` bytes at a time.
fn assert_stops_at(text: &str, name: &str, refuse: u64, message: &str, sizes: &[usize]) {
    let sink = Refusing { taken: 0, refuse };
    let pulled = import_into(text.as_bytes(), name, &ImportOptions::default(), sink)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(pulled.to_string(), message, "refusing event {refuse}");
    for &size in sizes {
        let sink = Refusing { taken: 0, refuse };
        let mut stream = stream::TraceStream::new(name, &ImportOptions::default(), sink);
        let pushed = text
            .as_bytes()
            .chunks(size)
            .try_for_each(|chunk| stream.push(chunk))
            .and_then(|()| stream.finish().map(|_| ()))
            .unwrap_err();
        assert_eq!(pushed.to_string(), message, "pushed {size} bytes at a time");
    }
}

/// Events go to the sink in batches, yet what stops an import is what would have
/// stopped it had each event gone on as soon as it was read: a refused event before a
/// bad line is the error, a bad line before a refused event is.
#[test]
fn a_refusal_in_a_batch_comes_before_a_bad_line_after_it_and_after_one_before_it() {
    let mut lines: Vec<String> = (0..2000).map(|i| format!("a {i} 8")).collect();
    lines[1500] = "a 1500 x".into();
    let text = lines.join("\n") + "\n";
    let cases = [
        // Refused at line 1200 (event 1200), in the batch the bad line 1501 flushes.
        (1200, "r.trace:1200: event 1200: out of memory"),
        // Refused after the bad line: the bad line stops the import first.
        (
            1600,
            "r.trace:1501: bad size \"x\": expected a non-negative whole number",
        ),
        // The last event, which only the end of the file flushes.
        (
            1999,
            "r.trace:1501: bad size \"x\": expected a non-negative whole number",
        ),
    ];
    for (refuse, message) in cases {
        assert_stops_at(&text, "r.trace", refuse, message, &[7, 4096, 1 << 20]);
    }
    // Without a bad line, a refusal in the last, partial batch is found at the end.
    let good: String = (0..1000).map(|i| format!("a {i} 8\n")).collect();
    let sink = Refusing {
        taken: 0,
        refuse: 999,
    };
    let err = import_into(good.as_bytes(), "g.trace", &ImportOptions::default(), sink)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.to_string(), "g.trace:999: event 999: out of memory");
}

/// Ops are checked a batch at a time, yet a problem the checker finds comes in line
/// order too: after a refusal of an earlier event, before a bad line after it.
#[test]
fn a_problem_the_checker_finds_in_a_batch_is_reported_in_line_order() {
    let mut lines: Vec<String> = (0..2000).map(|i| format!("a {i} 8")).collect();
    lines[1300] = "f 5".into();
    lines[1400] = "f 5".into();
    lines[1500] = "a 1500 x".into();
    let text = lines.join("\n") + "\n";
    let double = "c.trace:1401: double free of id 5 (freed at line 1301)";
    for (refuse, message) in [
        (1200, "c.trace:1200: event 1200: out of memory"),
        (1390, "c.trace:1390: event 1390: out of memory"),
        (1401, double),
        (1999, double),
    ] {
        assert_stops_at(&text, "c.trace", refuse, message, &[5, 4096]);
    }
}

// ------------------------------------------------------------------------------------
// Lenient: skip and count

#[test]
fn lenient_skips_bad_events_and_counts_them_by_kind() {
    let text = "a 1 16\nf 1\nf 1\nf 1\nq 7\na 2 x\nf 9\na 3 16\na 3 16\nf 3\n";
    let (events, imported) = events_of(text.as_bytes(), "x.trace", true).unwrap();
    assert_eq!(
        events,
        [
            Event::alloc(1, 16),
            Event::free(1),
            Event::alloc(3, 16),
            Event::free(3)
        ]
    );
    let skipped = imported.skipped.unwrap();
    let expected: Skipped = [
        (ProblemKind::DoubleFree, 2),
        (ProblemKind::UnknownOp, 1),
        (ProblemKind::BadNumber, 1),
        (ProblemKind::UnknownId, 1),
        (ProblemKind::AllocOfLive, 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(skipped, expected);
    assert_eq!(
        serde_json::to_value(&skipped).unwrap(),
        serde_json::json!({"unknown_op": 1, "bad_number": 1, "unknown_id": 1, "double_free": 2, "alloc_of_live": 1})
    );
    // Strict imports report no skipped map at all; a clean lenient one an empty map.
    let (_, strict) = events_of(b"a 1 16\n", "x.trace", false).unwrap();
    assert_eq!(strict.skipped, None);
    let (_, clean) = events_of(b"a 1 16\n", "x.trace", true).unwrap();
    assert_eq!(clean.skipped, Some(Skipped::new()));
}

#[test]
fn lenient_mtrace_and_rep_count_their_own_kinds() {
    let mtrace = "+ 0x10 0x20\n< 0x10\n- 0x10\n> 0x40 0x8\n- 0x10\n";
    let (events, imported) = events_of(mtrace.as_bytes(), "m", true).unwrap();
    assert_eq!(events, [Event::alloc(0, 32), Event::free(0)]);
    let skipped = imported.skipped.unwrap();
    assert_eq!(skipped[&ProblemKind::UnpairedRealloc], 2);
    assert_eq!(skipped[&ProblemKind::DoubleFree], 1);
    // A header that fits no count is counted, and the run goes on without a variant.
    let (events, imported) = events_of(b"20000\n3\n9\n1\na 0 8\nf 0\n", "t.rep", true).unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(imported.rep_header, None);
    assert_eq!(imported.skipped.unwrap()[&ProblemKind::HeaderCounts], 1);
}

// ------------------------------------------------------------------------------------
// malloc-lab headers

/// The CS:APP README's example trace, ops only.
const REP_OPS: &str = "a 0 512\na 1 128\nr 0 640\na 2 128\nf 1\nr 0 768\nf 0\nf 2\n";

#[test]
fn each_rep_header_variant_is_sniffed() {
    let cases = [
        ("20000\n3\n8\n1\n", RepHeader::Csapp2002),
        ("1\n3\n8\n0\n", RepHeader::Autolab2016),
        ("0\n3\n8\n4096\n", RepHeader::Autolab2016),
        ("3\n8\n", RepHeader::TwoLine),
    ];
    for (header, variant) in cases {
        let text = format!("{header}{REP_OPS}");
        let (events, imported) = events_of(text.as_bytes(), "short.rep", false).unwrap();
        assert_eq!(imported.format, Format::Rep);
        assert_eq!(imported.rep_header, Some(variant), "{header:?}");
        assert_eq!(events.len(), 8);
        assert_eq!(events[2], Event::realloc(0, 640));
        assert_eq!(
            serde_json::to_value(&imported).unwrap()["rep_header"],
            serde_json::to_value(variant).unwrap()
        );
    }
}

#[test]
fn a_header_that_fits_no_variant_is_an_error_at_the_header() {
    let wrong_ops = format!("20000\n3\n9\n1\n{REP_OPS}");
    assert_eq!(
        error_of(&wrong_ops, "short.rep"),
        "short.rep:1: counts that disagree with the header: as `heap_size num_ids num_ops \
         weight` it says 3 ids (0 to 2) and 9 ops, but 8 op lines with ids up to 2 follow; \
         --lenient runs the op lines as they are"
    );
    let wrong_ids = format!("2\n8\n{REP_OPS}");
    assert_eq!(
        error_of(&wrong_ids, "short.rep"),
        "short.rep:1: counts that disagree with the header: as `num_ids num_ops` it says 2 \
         ids (0 to 1) and 8 ops, but 8 op lines with ids up to 2 follow; --lenient runs the \
         op lines as they are"
    );
    let three = format!("\n20000\n3\n8\n{REP_OPS}");
    assert!(
        error_of(&three, "short.rep")
            .starts_with("short.rep:2: a malloc-lab header is 2 or 4 lines of one number each"),
        "{}",
        error_of(&three, "short.rep")
    );
}

// ------------------------------------------------------------------------------------
// mtrace

#[test]
fn mtrace_addresses_become_ids_and_realloc_pairs_keep_them() {
    let log = "\
= Start
@ ./prog:[0x4005d4] + 0x5588a2b6e2a0 0x10
@ ./prog:[0x4005e0] + 0x5588a2b6e2c0 0x20
@ ./prog:[0x4005e2] < 0x5588a2b6e2a0
@ ./prog:[0x4005e2] > 0x5588a2b6e6d0 0x100
@ ./prog:[0x4005f0] - (nil)
@ ./prog:(main+0x40)[0x4005f4] - 0x5588a2b6e6d0
@ ./prog:[0x4005f8] + 0x5588a2b6e2a0 0x8
@ ./prog:[0x400600] < 0x5588a2b6e2a0
@ ./prog:[0x400600] > 0x5588a2b6e2a0 0x18
- 0x5588a2b6e2a0
- 0x5588a2b6e2c0
= End
";
    let (events, imported) = events_of(log.as_bytes(), "prog.mtrace", false).unwrap();
    assert_eq!(imported.format, Format::Mtrace);
    assert_eq!(
        events,
        [
            Event::alloc(0, 0x10),
            Event::alloc(1, 0x20),
            Event::realloc(0, 0x100),
            Event::free(0),
            // The address comes back from malloc: a new block, a new id.
            Event::alloc(2, 0x8),
            // A realloc in place keeps both address and id.
            Event::realloc(2, 0x18),
            Event::free(2),
            Event::free(1),
        ]
    );
}

// ------------------------------------------------------------------------------------
// gzip

#[test]
fn gzip_round_trips_in_every_format() {
    let texts = [
        (
            "x.trace",
            "# c\narena 1\na 1 16 arena=1\na 2 100 64\np step\nr 2 300\nreset 1\nf 2\n",
        ),
        (
            "x.rep",
            "20000\n3\n8\n1\na 0 512\na 1 128\nr 0 640\na 2 128\nf 1\nr 0 768\nf 0\nf 2\n",
        ),
        (
            "x.mtrace",
            "= Start\n+ 0x10 0x20\n< 0x10\n> 0x30 0x40\n- 0x30\n= End\n",
        ),
    ];
    for (name, text) in texts {
        let (plain, plain_info) = events_of(text.as_bytes(), name, false).unwrap();
        let (packed, packed_info) = events_of(&gzip(text.as_bytes()), name, false).unwrap();
        assert_eq!(plain, packed, "{name}");
        assert!(!plain.is_empty());
        assert!(packed_info.gzip && !plain_info.gzip);
        assert_eq!(plain_info.format, packed_info.format);
        assert_eq!(plain_info.rep_header, packed_info.rep_header);
        assert_eq!(plain_info.lines, packed_info.lines);
    }
    // Two members one after the other, as `cat a.gz b.gz` makes, read as one file.
    let mut two = gzip(b"a 1 16\n");
    two.extend(gzip(b"f 1\n"));
    let (events, _) = events_of(&two, "two.trace.gz", false).unwrap();
    assert_eq!(events, [Event::alloc(1, 16), Event::free(1)]);
}

#[test]
fn a_corrupt_gzip_is_an_error_not_a_panic() {
    let mut bad = gzip(b"a 1 16\nf 1\n");
    let n = bad.len();
    bad[n / 2] ^= 0xff;
    bad.truncate(n - 4);
    let err = events_of(&bad, "bad.trace.gz", false).unwrap_err();
    assert!(err.starts_with("bad.trace.gz:"), "{err}");
}

// ------------------------------------------------------------------------------------
// Round trips of valid programs

/// A valid op-program: allocations, frees and reallocs of live ids only.
fn arb_program() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec((0u8..3, 0usize..64, 1u64..5000), 0..200).prop_map(|steps| {
        let mut live: Vec<u64> = Vec::new();
        let mut next = 0u64;
        let mut events = Vec::new();
        for (op, pick, size) in steps {
            match op {
                1 if !live.is_empty() => {
                    let id = live.swap_remove(pick % live.len());
                    events.push(Event::free(id));
                }
                2 if !live.is_empty() => {
                    events.push(Event::realloc(live[pick % live.len()], size));
                }
                _ => {
                    events.push(Event::alloc(next, size));
                    live.push(next);
                    next += 1;
                }
            }
        }
        events
    })
}

proptest! {
    /// A valid program written as `.trace`, as `.rep` with each header, and gzip'd,
    /// imports back to itself.
    #[test]
    fn valid_programs_import_back_unchanged(events in arb_program(), zip in any::<bool>()) {
        let mut trace = Vec::new();
        for e in &events {
            write_event(&mut trace, e).unwrap();
        }
        let ids = events.iter().filter(|e| matches!(e, Event::Alloc { .. })).count();
        let mut ops = String::new();
        for e in &events {
            match e {
                Event::Alloc { id, size, .. } => ops.push_str(&format!("a {id} {size}\n")),
                Event::Free { id, .. } => ops.push_str(&format!("f {id}\n")),
                Event::Realloc { id, size, .. } => ops.push_str(&format!("r {id} {size}\n")),
                _ => unreachable!(),
            }
        }
        let n = events.len();
        let reps = [
            (format!("20000\n{ids}\n{n}\n1\n{ops}"), RepHeader::Csapp2002),
            (format!("1\n{ids}\n{n}\n0\n{ops}"), RepHeader::Autolab2016),
            (format!("{ids}\n{n}\n{ops}"), RepHeader::TwoLine),
        ];
        let wrap = |b: &[u8]| if zip { gzip(b) } else { b.to_vec() };
        let (back, _) = events_of(&wrap(&trace), "p.trace", false).unwrap();
        prop_assert_eq!(&back, &events);
        for (text, variant) in reps {
            let (back, imported) = events_of(&wrap(text.as_bytes()), "p.rep", false).unwrap();
            prop_assert_eq!(&back, &events);
            prop_assert_eq!(imported.rep_header, Some(variant));
            prop_assert_eq!(imported.gzip, zip);
        }
    }
}

#[test]
fn trace_extensions_are_told_from_other_files_gzipped_or_not() {
    for name in [
        "a.trace",
        "dir/b.rep",
        "c.mtrace.gz",
        "d.trace.gz",
        "e.rep.gz",
    ] {
        assert!(has_trace_extension(name), "{name}");
    }
    for name in [
        "notes.txt",
        "config.json.gz",
        "README.md",
        "trace",
        "a.trace.txt",
    ] {
        assert!(!has_trace_extension(name), "{name}");
    }
}

// ------------------------------------------------------------------------------------
// Recorders' conventions: free(NULL) and realloc(NULL, n)

fn strict_error_of(text: &str, name: &str) -> String {
    let options = ImportOptions {
        strict: true,
        ..ImportOptions::default()
    };
    import_with(text.as_bytes(), name, &options).unwrap_err()
}

#[test]
fn free_null_and_realloc_null_import_as_c_means_them_in_rep() {
    let rep = "2\n6\na 0 16\nf -1\nr 1 32\nf 0\nf -1\nf 1\n";
    let (events, imported) = events_of(rep.as_bytes(), "t.rep", false).unwrap();
    assert_eq!(
        events,
        [
            Event::alloc(0, 16),
            Event::alloc(1, 32),
            Event::free(0),
            Event::free(1)
        ]
    );
    assert_eq!((imported.null_frees, imported.null_reallocs), (2, 1));
    // The `f -1` lines are op lines the header counted.
    assert_eq!(imported.rep_header, Some(RepHeader::TwoLine));
    let json = serde_json::to_value(&imported).unwrap();
    assert_eq!(json["null_frees"], 2);
    assert_eq!(json["null_reallocs"], 1);
    assert_eq!(
        imported.to_string(),
        "malloc-lab .rep, two-line header (num_ids num_ops), 8 lines, \
         2 free(NULL) as nothing, 1 realloc(NULL, n) as malloc"
    );
    // Strict keeps the refusals that were.
    assert_eq!(
        strict_error_of(rep, "t.rep"),
        "t.rep:4: bad id \"-1\": expected a non-negative whole number"
    );
    assert_eq!(
        strict_error_of("2\n2\na 0 16\nr 1 32\n", "t.rep"),
        "t.rep:4: realloc of id 1, which was never allocated"
    );
}

#[test]
fn free_null_and_realloc_null_import_as_c_means_them_in_trace() {
    let text = "a 1 16\nf -1\nr 2 64 thread=3\nf -1 thread=3\nf 1\nf 2\n";
    let (events, imported) = events_of(text.as_bytes(), "x.trace", false).unwrap();
    assert_eq!(
        events,
        [
            Event::alloc(1, 16),
            Event::Alloc {
                id: 2,
                size: 64,
                align: crate::event::DEFAULT_ALIGN,
                arena: None,
                thread: 3
            },
            Event::free(1),
            Event::free(2)
        ]
    );
    assert_eq!((imported.null_frees, imported.null_reallocs), (2, 1));
    assert_eq!(
        strict_error_of(text, "x.trace"),
        "x.trace:2: bad id \"-1\": expected a non-negative whole number"
    );
    assert_eq!(
        strict_error_of("r 2 64\n", "x.trace"),
        "x.trace:1: realloc of id 2, which was never allocated"
    );
    // A trace without them counts none, and says nothing of them.
    let (_, plain) = events_of(b"a 1 16\nf 1\n", "x.trace", false).unwrap();
    assert_eq!((plain.null_frees, plain.null_reallocs), (0, 0));
    assert_eq!(plain.to_string(), "heaplab .trace, 2 lines");
}

#[test]
fn free_null_and_realloc_null_import_as_c_means_them_in_mtrace() {
    let log = "+ 0x10 0x20\n- (nil)\n- 0\n< (nil)\n> 0x40 0x80\n- 0x10\n- 0x40\n";
    let (events, imported) = events_of(log.as_bytes(), "m.mtrace", false).unwrap();
    assert_eq!(
        events,
        [
            Event::alloc(0, 0x20),
            Event::alloc(1, 0x80),
            Event::free(0),
            Event::free(1)
        ]
    );
    assert_eq!((imported.null_frees, imported.null_reallocs), (2, 1));
    // mtrace's free(NULL) was always read as nothing; strict refuses only the realloc.
    assert_eq!(
        strict_error_of(log, "m.mtrace"),
        "m.mtrace:5: realloc of address 0x0, which was never allocated"
    );
}

#[test]
fn what_stays_an_error_keeps_its_line() {
    let cases = [
        // A missing field.
        (
            "2\n1\nr 0\n",
            "t.rep:3: expected `r <id> <bytes>`, found \"r 0\"",
        ),
        ("f\n", "x.trace:1: expected `f <id>`, found \"f\""),
        // A live id allocated again.
        (
            "2\n2\na 0 8\na 0 8\n",
            "t.rep:4: alloc of id 0, which is already live",
        ),
        // A double free.
        (
            "2\n3\na 0 8\nf 0\nf 0\n",
            "t.rep:5: double free of id 0 (freed at line 4)",
        ),
        // A free of an id never allocated, other than -1.
        (
            "2\n1\nf 1\n",
            "t.rep:3: free of id 1, which was never allocated",
        ),
        (
            "f -2\n",
            "x.trace:1: bad id \"-2\": expected a non-negative whole number",
        ),
        // A realloc of a freed id.
        (
            "2\n3\na 0 8\nf 0\nr 0 16\n",
            "t.rep:5: realloc of id 0, which was freed at line 4",
        ),
        (
            "a 0 8\nf 0\nr 0 16\n",
            "x.trace:3: realloc of id 0, which was freed at line 2",
        ),
    ];
    for (text, message) in cases {
        let name = if text.starts_with('2') {
            "t.rep"
        } else {
            "x.trace"
        };
        assert_eq!(error_of(text, name), message, "{text:?}");
    }
}

#[test]
fn a_header_a_few_ops_off_says_lenient_runs_the_op_lines() {
    let text = format!("20000\n3\n7\n1\n{REP_OPS}");
    let err = error_of(&text, "short.rep");
    assert!(
        err.starts_with("short.rep:1: counts that disagree with the header"),
        "{err}"
    );
    assert!(
        err.contains("it says 3 ids (0 to 2) and 7 ops, but 8 op lines"),
        "{err}"
    );
    assert!(
        err.ends_with("--lenient runs the op lines as they are"),
        "{err}"
    );
    let (events, _) = events_of(text.as_bytes(), "short.rep", true).unwrap();
    assert_eq!(events.len(), 8);
}

/// A `.rep` written as recorders write it runs to the summary of the same program
/// written without `free(NULL)` and with `realloc(NULL, n)` as the allocation it is.
#[test]
fn a_rep_with_null_conventions_runs_as_the_trace_without_them() {
    use crate::config::{RunConfig, WorkloadConfig};
    let config = |name: &str| {
        let mut config = RunConfig::new("", "size-class");
        config.workload = WorkloadConfig::trace(name);
        config
    };
    let rep = "20000\n4\n11\n1\nf -1\na 0 100\nr 1 5000\nf -1\nr 0 300\nr 2 24\nf 0\na 3 70000\nf 1\nf 3\nf 2\n";
    let plain = "a 0 100\na 1 5000\nr 0 300\na 2 24\nf 0\na 3 70000\nf 1\nf 3\nf 2\n";
    let options = ImportOptions::default();
    let with = crate::run::run_trace(&config("w.rep"), rep.as_bytes(), &options).unwrap();
    let without = crate::run::run_trace(&config("p.trace"), plain.as_bytes(), &options).unwrap();
    assert_eq!(with.report.summary, without.report.summary);
    assert_eq!(with.series, without.series);
    let found = with.trace.unwrap();
    assert_eq!(found.rep_header, Some(RepHeader::Csapp2002));
    assert_eq!((found.null_frees, found.null_reallocs), (2, 2));
    let json = serde_json::to_value(with_json(&config("w.rep"), rep)).unwrap();
    assert_eq!(json["trace"]["null_frees"], 2);
    assert_eq!(json["trace"]["null_reallocs"], 2);
}

fn with_json(config: &crate::config::RunConfig, text: &str) -> serde_json::Value {
    let out = crate::run::run_trace(config, text.as_bytes(), &ImportOptions::default()).unwrap();
    serde_json::to_value(out.json()).unwrap()
}

// ------------------------------------------------------------------------------------
// Pushed in chunks

#[test]
fn a_line_longer_than_a_megabyte_is_refused_at_its_line_when_pushed() {
    let mut text = b"a 1 16\nf 1\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', stream::MAX_LINE_BYTES + 1));
    let err = streamed(&text, "blob.trace", &ImportOptions::default(), 64 * 1024).unwrap_err();
    assert!(
        err.starts_with("blob.trace:3: the line is longer than 1 MiB"),
        "{err}"
    );
}

#[test]
fn a_line_longer_than_a_megabyte_is_refused_when_one_chunk_holds_it_whole() {
    let mut text = b"a 1 16\nf 1\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', stream::MAX_LINE_BYTES + 1));
    text.extend(b"\na 2 16\n");
    let err = streamed(&text, "blob.trace", &ImportOptions::default(), 4 << 20).unwrap_err();
    assert!(
        err.starts_with("blob.trace:3: the line is longer than 1 MiB"),
        "{err}"
    );
}

#[test]
fn a_gzip_cut_short_is_an_error_at_the_line_it_stopped_when_pushed() {
    let text: String = (0..2000).map(|i| format!("a {i} 16\n")).collect();
    let gz = gzip(text.as_bytes());
    let cut = &gz[..gz.len() - 12];
    let err = streamed(cut, "cut.trace.gz", &ImportOptions::default(), 100).unwrap_err();
    assert!(err.starts_with("cut.trace.gz:"), "{err}");
    assert!(err.contains("cannot read"), "{err}");
    let whole = streamed(&gz, "cut.trace.gz", &ImportOptions::default(), 100).unwrap();
    assert_eq!(
        (whole.0.len(), whole.1.lines, whole.1.gzip),
        (2000, 2000, true)
    );
}

#[test]
fn a_trace_run_pushed_in_chunks_reports_what_run_trace_reports_for_each_config() {
    use crate::config::{RunConfig, WorkloadConfig};
    use crate::run::{run_trace, TraceRun};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../workloads/");
    for (file, lenient) in [
        ("examples/tiny-binary.rep", true),
        ("examples/jit-arenas.trace", false),
        ("traces/cc1.trace.gz", false),
    ] {
        let bytes = std::fs::read(format!("{root}{file}")).unwrap();
        let configs: Vec<RunConfig> = ["size-class", "free-list", "glibc-like"]
            .iter()
            .map(|policy| {
                let mut config = RunConfig::new("", policy);
                config.workload = WorkloadConfig::trace(file);
                config
            })
            .collect();
        let options = ImportOptions {
            lenient,
            ..ImportOptions::default()
        };
        let mut run = TraceRun::new(&configs, &options).unwrap();
        for chunk in bytes.chunks(65_536) {
            run.push(chunk).unwrap();
        }
        let pushed = run.finish().unwrap();
        assert_eq!(pushed.len(), configs.len());
        for (config, out) in configs.iter().zip(&pushed) {
            let pulled = run_trace(config, &bytes[..], &options).unwrap();
            assert_eq!(
                serde_json::to_value(out.json()).unwrap(),
                serde_json::to_value(pulled.json()).unwrap(),
                "{file} with {:?}",
                config.policy
            );
            assert_eq!(out.series, pulled.series, "{file}");
        }
    }
}

#[test]
fn a_trace_run_names_the_file_and_line_of_a_bad_event() {
    use crate::config::{RunConfig, WorkloadConfig};
    let mut config = RunConfig::new("", "size-class");
    config.workload = WorkloadConfig::trace("bad.trace");
    let mut run = crate::run::TraceRun::new(&[config], &ImportOptions::default()).unwrap();
    run.push(b"a 1 16\nf 1\nf").unwrap();
    let err = run.push(b" 1\n").unwrap_err().to_string();
    assert_eq!(err, "bad.trace:3: double free of id 1 (freed at line 2)");
}

#[test]
fn a_file_over_the_page_limits_is_refused_with_the_limit_named() {
    use stream::{check_file_size, FileLimits};
    let limits = FileLimits::default();
    assert_eq!(check_file_size("a.trace", 2 << 30, false, &limits), Ok(()));
    assert_eq!(
        check_file_size("a.trace", (2 << 30) + 1, false, &limits).unwrap_err(),
        "a.trace is 2 GiB, over the page's limit of 2 GiB for a trace; run it with `heaplab run -w a.trace`"
    );
    assert_eq!(
        check_file_size("b.trace.gz", 600 << 20, true, &limits).unwrap_err(),
        "b.trace.gz is 600 MiB, over the page's limit of 512 MiB for a gzip'd trace; run it with `heaplab run -w b.trace.gz`"
    );
    assert_eq!(
        check_file_size("b.trace.gz", 600 << 20, false, &limits),
        Ok(())
    );
}

/// A program's arena slabs (`slab=`) and the frees and reallocs of their blocks are left
/// out of what a replay sees and counted, whichever way the lines come (the plain lines'
/// fast path, a line with a site, a thread), pulled or pushed in chunks, plain or gzip'd;
/// an id freed is a slab no more, so a later block under it is the program's own.
#[test]
fn slabs_and_their_frees_and_reallocs_are_left_out_of_a_replay() {
    let text = "arena 1\n\
                a 1 4096 slab=1\n\
                a 2 40 8 arena=1\n\
                a 3 65536 slab=1 thread=2 site=0x10\n\
                a 4 24\n\
                r 3 131072 site=0x20\n\
                reset 1\n\
                f 1\n\
                a 1 32\n\
                f 3 thread=2\n\
                f 1\n\
                f 4\n";
    let want = vec![
        Event::ArenaCreate(1),
        Event::alloc_in(1, 2, 40),
        Event::alloc(4, 24),
        Event::ArenaReset(1),
        Event::alloc(1, 32),
        Event::free(1),
        Event::free(4),
    ];
    for bytes in [text.as_bytes().to_vec(), gzip(text.as_bytes())] {
        let (events, imported) = events_of(&bytes, "slabs.trace", false).unwrap();
        assert_eq!(events, want);
        assert_eq!(imported.slab_lines, 5);
        assert!(imported
            .to_string()
            .contains("5 lines of the program's arena slabs"));
    }
    let (_, plain) = events_of(b"a 1 16\nf 1\n", "plain.trace", false).unwrap();
    assert_eq!(plain.slab_lines, 0);
    assert!(!plain.to_string().contains("slab"));
}

/// A sink that keeps slabs is given each one with its arena and site, and the frees and
/// reallocs of their blocks as plain events, so writing them out again loses nothing.
#[test]
fn a_sink_that_keeps_slabs_gets_them_all() {
    #[derive(Debug, Default)]
    struct Keeps(Vec<String>);
    impl EventSink for Keeps {
        type Error = String;
        const KEEPS_SLABS: bool = true;
        fn event(&mut self, event: Event) -> Result<(), String> {
            self.0.push(format!("{event:?}"));
            Ok(())
        }
        fn slab_event(
            &mut self,
            event: Event,
            arena: crate::event::ArenaId,
            site: Option<u64>,
        ) -> Result<(), String> {
            self.0.push(format!("slab {arena} {site:?} {event:?}"));
            Ok(())
        }
    }
    let text = "arena 1\na 1 4096 slab=1 site=0x10\nr 1 8192\nf 1\n";
    let (imported, kept) = import_into(
        text.as_bytes(),
        "k.trace",
        &ImportOptions::default(),
        Keeps::default(),
    )
    .unwrap();
    assert_eq!(imported.slab_lines, 0);
    assert_eq!(
        kept.0,
        [
            format!("{:?}", Event::ArenaCreate(1)),
            format!("slab 1 Some(16) {:?}", Event::alloc(1, 4096)),
            format!("{:?}", Event::realloc(1, 8192)),
            format!("{:?}", Event::free(1)),
        ]
    );
    let mut stream =
        stream::TraceStream::new("k.trace", &ImportOptions::default(), Keeps::default());
    stream.push(text.as_bytes()).unwrap();
    let (_, pushed) = stream.finish().unwrap();
    assert_eq!(pushed.0, kept.0);
}

/// A bad `slab=` is named at its line, as a malformed line of any other kind; a slab is
/// checked as any allocation (an id still live is refused) and, when lenient, skipped and
/// counted by kind.
#[test]
fn bad_slabs_are_named_at_their_line() {
    assert_eq!(
        error_of("arena 1\na 1 4096 slab=x\n", "s.trace"),
        "s.trace:2: bad slab arena \"x\": expected a non-negative whole number"
    );
    assert_eq!(
        error_of("a 1 16\na 1 4096 slab=1\n", "s.trace"),
        "s.trace:2: alloc of id 1, which is already live"
    );
    let (events, imported) = events_of(
        b"a 1 4096 slab=1 arena=1\nf 1 slab=2\na 2 8\n",
        "s.trace",
        true,
    )
    .unwrap();
    assert_eq!(events, vec![Event::alloc(2, 8)]);
    assert_eq!(imported.skipped.unwrap()[&ProblemKind::BadLine], 2);
}

// ------------------------------------------------------------------------------------
// Time marks

#[test]
fn time_marks_read_as_events_of_their_own_and_equal_marks_are_fine() {
    let text = "t 0\na 1 16\nt 120000\nt 120000\nf 1\n";
    let (events, _) = events_of(text.as_bytes(), "x.trace", false).unwrap();
    assert_eq!(
        events,
        [
            Event::Time(0),
            Event::alloc(1, 16),
            Event::Time(120_000),
            Event::Time(120_000),
            Event::free(1)
        ]
    );
    // Streamed in pieces of any size, the same events.
    for size in [1, 3, 64] {
        let (pieces, _) =
            streamed(text.as_bytes(), "x.trace", &ImportOptions::default(), size).unwrap();
        assert_eq!(pieces, events, "{size}-byte pieces");
    }
}

#[test]
fn lenient_skips_a_mark_that_goes_back_and_counts_it() {
    let (events, imported) = events_of(b"t 9\na 1 16\nt 3\nt 12\n", "x.trace", true).unwrap();
    assert_eq!(
        events,
        [Event::Time(9), Event::alloc(1, 16), Event::Time(12)]
    );
    let skipped = serde_json::to_value(imported.skipped.unwrap()).unwrap();
    assert_eq!(skipped, serde_json::json!({"time_back": 1}));
}
