//! What a stranger can feed heaplab, as functions of arbitrary bytes: each must return
//! without panicking, whatever the bytes, and each checks what must hold besides. The
//! fuzz targets in `fuzz/fuzz_targets/` call these and nothing else, and the seeded test
//! `tests/fuzz.rs` replays the committed corpus and every crash found through the very
//! same functions, so whatever the fuzzer finds, `cargo test` finds again.
//!
//! A refusal (a bad line, a broken link, an impossible parameter) is an answer, not a
//! finding; a panic, a broken invariant or two readers that disagree is a finding.

use heaplab_core::config::RunConfig;
use heaplab_core::event::{BlockId, Event};
use heaplab_core::policy::FAMILIES;
use heaplab_core::presets::PRESETS;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::trace::{self, EventSink, ImportOptions};

use crate::link;
use crate::sweep::values::parse_values;

/// The most events one input runs, so a small input cannot ask for a long run.
const MAX_EVENTS: usize = 20_000;

/// The file names a trace input is read under: the name picks the format where the
/// content does not say, so every reader is reached.
const TRACE_NAMES: [&str; 4] = ["fuzz.trace", "fuzz.rep", "fuzz.mtrace", "fuzz"];

/// Keeps at most [`MAX_EVENTS`] events, refusing the next, which ends the import.
#[derive(Default)]
struct Kept(Vec<Event>);

impl EventSink for Kept {
    type Error = String;

    fn event(&mut self, e: Event) -> Result<(), String> {
        if self.0.len() == MAX_EVENTS {
            return Err("enough events".into());
        }
        self.0.push(e);
        Ok(())
    }
}

/// The name and options the first byte of a trace input picks, and the trace itself.
fn trace_input(data: &[u8]) -> Option<(&'static str, ImportOptions, &[u8])> {
    let (&pick, text) = data.split_first()?;
    let options = ImportOptions {
        lenient: pick & 4 != 0,
        strict: pick & 8 != 0,
    };
    Some((TRACE_NAMES[usize::from(pick & 3)], options, text))
}

/// Reads the bytes as a trace (any format, gzip'd or not, lenient or strict as the first
/// byte says), then runs what it read through two policies with their invariants checked:
/// a trace the reader takes is one the simulator takes.
pub fn trace(data: &[u8]) {
    let Some((name, options, text)) = trace_input(data) else {
        return;
    };
    let Ok((_, Kept(events))) = trace::import_into(text, name, &options, Kept::default()) else {
        return;
    };
    for policy in ["glibc-like", "size-class"] {
        run_checked(policy, &events);
    }
}

/// Pushes the bytes as a trace to the streaming reader the page uses, in chunks whose
/// sizes the input picks, and checks it reads what the whole-file reader reads.
pub fn stream(data: &[u8]) {
    let Some((&chunk, data)) = data.split_first() else {
        return;
    };
    let Some((name, options, text)) = trace_input(data) else {
        return;
    };
    let whole = trace::import_into(text, name, &options, Kept::default());
    let mut stream = trace::stream::TraceStream::new(name, &options, Kept::default());
    let size = usize::from(chunk).max(1);
    let pushed = text
        .chunks(size)
        .try_for_each(|c| stream.push(c))
        .and_then(|()| stream.finish().map(|(_, kept)| kept.0));
    match (whole, pushed) {
        (Ok((_, Kept(events))), Ok(streamed)) => assert_eq!(
            events, streamed,
            "the stream read other events than the whole file"
        ),
        (Ok(_), Err(e)) => panic!("the stream refused what the whole file reader took: {e}"),
        (Err(e), Ok(_)) => panic!("the stream took what the whole file reader refused: {e}"),
        (Err(_), Err(_)) => {}
    }
}

/// Reads the bytes as a link: as text when the first byte is even, else as the JSON
/// inside a version 2 link (so the checks behind the base64 and the deflate are reached
/// too), and resolves every configuration of a link that opens.
pub fn link(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = if pick % 2 == 0 {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        link::fragment_of(rest)
    };
    if let Ok(state) = link::decode(&text) {
        // A link that opens is one the page and the CLI can run or show.
        let _ = state.run_configs(100);
        let again = link::decode(&link::encode(&state));
        assert_eq!(
            again.as_ref().ok(),
            Some(&state),
            "a link did not read back"
        );
    }
}

/// Reads the bytes as a configuration, in JSON when the first byte is even and TOML when
/// odd, and checks it as a run would.
pub fn config(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let parsed = if pick % 2 == 0 {
        RunConfig::from_json(&text).map_err(|e| e.to_string())
    } else {
        toml::from_str::<RunConfig>(&text).map_err(|e| e.to_string())
    };
    if let Ok(config) = parsed {
        if let Ok(resolved) = config.resolve() {
            // Resolving a resolved config changes nothing.
            assert_eq!(resolved.resolve().ok(), Some(resolved.clone()));
        }
    }
}

/// Reads the bytes as a `--vary` list for a numeric parameter the first byte picks, and
/// checks the values it gives are as many as a sweep allows.
pub fn vary(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let specs: Vec<_> = FAMILIES
        .iter()
        .flat_map(|f| f.params)
        .filter(|p| crate::sweep::values::is_numeric(p))
        .collect();
    let spec = specs[usize::from(pick) % specs.len()];
    if let Ok(values) = parse_values(spec, &String::from_utf8_lossy(rest)) {
        assert!(
            values.len() <= crate::sweep::values::MAX_VALUES,
            "{} values for {}",
            values.len(),
            spec.name
        );
    }
}

/// The most calls one program makes: every invariant is checked after each, which costs
/// time growing with the heap, so a long program would slow the fuzzer to a crawl.
const MAX_CALLS: usize = 600;

/// Runs the bytes as a program of allocator calls through the family or preset the first
/// byte picks, with every invariant checked after each call: three bytes a call, the
/// first its kind and the others its argument.
pub fn ops(data: &[u8]) {
    let Some((&pick, program)) = data.split_first() else {
        return;
    };
    let names: Vec<&str> = FAMILIES
        .iter()
        .map(|f| f.id)
        .chain(PRESETS.iter().map(|p| p.id))
        .collect();
    let name = names[usize::from(pick) % names.len()];
    let mut live: Vec<BlockId> = Vec::new();
    let mut next: BlockId = 0;
    let mut events = Vec::new();
    for call in program.chunks_exact(3).take(MAX_CALLS) {
        let arg = u64::from(u16::from_le_bytes([call[1], call[2]]));
        let event = match call[0] % 6 {
            // Small sizes most of the time, as programs ask.
            0 | 1 => Event::alloc(next, arg % 2048),
            // Now and then a large one, up to 4 MiB: past mmap thresholds and spans.
            2 => Event::alloc(next, arg << 6),
            3 if !live.is_empty() => Event::free(live.swap_remove(arg as usize % live.len())),
            4 if !live.is_empty() => Event::realloc(live[arg as usize % live.len()], arg % 8192),
            5 => Event::Alloc {
                id: next,
                size: arg % 512,
                align: 1 << (arg % 13),
                arena: None,
                thread: u32::from(call[1] % 4),
            },
            _ => continue,
        };
        if let Event::Alloc { id, .. } = event {
            live.push(id);
            next += 1;
        }
        events.push(event);
    }
    run_checked(name, &events);
}

/// Live bytes up to which the invariants are checked after every event. The check looks at
/// every page under every live block, so above this (a trace may well allocate 19 GiB at
/// once, and the simulator takes it in microseconds) checking each event would take the
/// fuzzer's whole timeout; the heap is then checked after the last event instead.
const CHECK_EVERY_EVENT_UP_TO: u64 = 1 << 30;

/// Bytes asked for in all, over which a run writes only the first byte of each block.
/// Writing every byte costs the simulator a page-map entry per page: a trace that reallocs
/// a block to 10 TiB, well inside heaplab's 64 TiB limit, takes seconds natively and
/// minutes under the fuzzer's sanitizer, without any more of the policy's code running.
const TOUCH_ALL_UP_TO: u64 = 4 << 30;

/// Bytes asked for in all, over which the events are not simulated at all. Even untouched,
/// a block's pages are committed one page-map entry each, so 2 TiB in a 3 KB input kept
/// the fuzzer a minute on one run; the readers have parsed such a trace by then, and the
/// size limits have tests of their own (the malformed-input corpus's limit cases).
const SIMULATE_UP_TO: u64 = 64 << 30;

/// Runs `events` through the policy named `name`, checking its invariants after every
/// event (after the last one only while more than [`CHECK_EVERY_EVENT_UP_TO`] bytes are
/// live). An event the simulator refuses (out of memory, an address space spent) ends the
/// run; it must leave the heap as sound as before.
fn run_checked(name: &str, events: &[Event]) {
    let asked = events
        .iter()
        .map(|e| match *e {
            Event::Alloc { size, .. } | Event::Realloc { size, .. } => size,
            _ => 0,
        })
        .fold(0u64, u64::saturating_add);
    if asked > SIMULATE_UP_TO {
        return;
    }
    let mut config = RunConfig::new("churn", name)
        .resolve()
        .unwrap_or_else(|e| panic!("{name} does not resolve: {e}"));
    if asked > TOUCH_ALL_UP_TO {
        config.touch = heaplab_core::config::TouchMode::First;
    }
    let mut sim = Simulation::new(&config, sim_provider(&config))
        .unwrap_or_else(|e| panic!("{name} does not build: {e}"));
    for (i, e) in events.iter().enumerate() {
        let refused = sim.apply_ref(e).is_err();
        let last = refused || i + 1 == events.len();
        if last || sim.live_bytes() <= CHECK_EVERY_EVENT_UP_TO {
            if let Err(broken) = sim.check_invariants() {
                panic!("{name}: after event {} ({e:?}): {broken}", i + 1);
            }
        }
        if refused {
            break;
        }
    }
    let _ = sim.finish();
}

/// A fuzz target: arbitrary bytes in, a panic out when it finds something.
pub type Target = fn(&[u8]);

/// Every target by name, for the seeded test and `cargo xtask fuzz`.
pub const TARGETS: [(&str, Target); 6] = [
    ("trace", trace),
    ("stream", stream),
    ("link", link),
    ("config", config),
    ("vary", vary),
    ("ops", ops),
];
