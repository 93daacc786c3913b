//! Workloads modelled on the programs behind the seed scenarios
//! (`workloads/scenarios/README.md`):
//! a JIT compiler in a long-lived process (S1), a multi-threaded linker (S3), a web
//! browser moving back and forward (S4) and an interpreter's short strings (S5).

use rand::Rng;

use super::{rng, scale_of, scaled, Sink, SEED};
use crate::event::{BlockId, Event, DEFAULT_ALIGN};
use crate::params::{choice, knobs, ParamKind, Params};

knobs! {
    /// The knobs of `jit`.
    pub(super) struct JitKnobs, names JitNames, specs JIT;
    seed: u64 = SEED,
    scale: f64 = scale_of("1", "Arena bytes per compilation, as a multiple of 8 MiB."),
    compiles: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: "5",
        unit: "",
        doc: "Compilations in the process's life.",
        zero_means: "",
    },
    long_lived_every: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "64",
        unit: "allocations",
        doc: "One small block that outlives the compilation per this many arena allocations.",
        zero_means: "",
    },
}

knobs! {
    /// The knobs of `linker`.
    pub(super) struct LinkerKnobs, names LinkerNames, specs LINKER;
    seed: u64 = SEED,
    scale: f64 = scale_of("0.1", "Work items, as a multiple of 4000."),
    threads: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 128 },
        default: "16",
        unit: "threads",
        doc: "Linker threads (LLD used 36 to 72).",
        zero_means: "",
    },
}

choice! {
    /// How a browser's pointer vector grows (Dillo's `SimpleVector`, scenario S4).
    pub(super) enum Growth {
        Double = "2x",
        PlusOne = "+1",
        /// Doubling while the page loads, then one realloc to the exact size.
        DoubleThenFit = "custom",
    }
}

knobs! {
    /// The knobs of `browser`.
    pub(super) struct BrowserKnobs, names BrowserNames, specs BROWSER;
    seed: u64 = SEED,
    scale: f64 = scale_of("0.1", "Size of the huge page, as a multiple of 100 MiB."),
    vector_growth: Growth = ParamSpec {
        kind: ParamKind::Choice(Growth::NAMES),
        default: "2x",
        unit: "",
        doc: "How pointer vectors grow: double, one slot per push, or double while \
              loading and shrink to the exact size when the element is done.",
        zero_means: "",
    },
}

knobs! {
    /// The knobs of `short_strings`.
    pub(super) struct ShortStringsKnobs, names ShortStringsNames, specs SHORT_STRINGS;
    seed: u64 = SEED,
    scale: f64 = scale_of("0.25", "Strings made, as a multiple of 200,000."),
    header_bytes: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 256,
            pow2: false,
        },
        default: "32",
        unit: "bytes",
        doc: "Bytes of string header before the characters.",
        zero_means: "",
    },
    short_fraction: f64 = ParamSpec {
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.9",
        unit: "",
        doc: "Share of strings of at most 32 characters.",
        zero_means: "",
    },
    long_max: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 33,
            max: 1 << 20,
            pow2: false,
        },
        default: "256",
        unit: "characters",
        doc: "Longest of the longer strings (33 characters up to this).",
        zero_means: "",
    },
}

/// Hands out block ids.
struct Ids(BlockId);

impl Ids {
    fn next(&mut self) -> BlockId {
        self.0 += 1;
        self.0
    }
}

/// `jit` (S1): a long-lived process that compiles every so often. Each compilation builds
/// its data in arenas (register allocation, selection DAG, ...) and drops them when done;
/// between arena allocations the process allocates small blocks that outlive the
/// compilation (compiled-code metadata, caches), which is what pins heap-backed slabs.
pub(super) fn jit<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = JitKnobs::read(params);
    let mut rng = rng(knobs.seed);
    let compiles = knobs.compiles;
    let arena_bytes = scaled(knobs.scale, (8u64 << 20) as f64);
    let every = knobs.long_lived_every.max(1);
    let mut ids = Ids(0);
    let mut long_lived = Vec::new();
    sink(Event::Phase("startup".into()))?;
    for _ in 0..(arena_bytes / 4096).max(16) {
        let id = ids.next();
        sink(Event::alloc(id, rng.random_range(16..=256)))?;
        long_lived.push(id);
    }
    for c in 0..compiles {
        sink(Event::Phase(format!("compile {}", c + 1)))?;
        // Four arenas of a quarter each, as LLVM's passes keep their own allocators.
        let arenas: Vec<u32> = (0..4).map(|a| (c * 4 + a) as u32).collect();
        for &a in &arenas {
            sink(Event::ArenaCreate(a))?;
        }
        let mut used = 0;
        let mut n = 0u64;
        while used < arena_bytes {
            let size = rng.random_range(16..=256u64);
            let arena = arenas[(n % 4) as usize];
            sink(Event::Alloc {
                id: ids.next(),
                size,
                align: 8,
                arena: Some(arena),
                thread: 0,
            })?;
            used += size;
            n += 1;
            if n.is_multiple_of(every) {
                let id = ids.next();
                sink(Event::alloc(id, rng.random_range(16..=128)))?;
                long_lived.push(id);
            }
        }
        for &a in &arenas {
            sink(Event::ArenaDrop(a))?;
        }
        sink(Event::Phase(format!("run {}", c + 1)))?;
        // Running the program churns small short-lived objects.
        for _ in 0..(arena_bytes / 1024) {
            let id = ids.next();
            sink(Event::alloc(id, rng.random_range(16..=64)))?;
            sink(Event::free(id))?;
        }
    }
    sink(Event::Phase("exit".into()))?;
    for id in long_lived {
        sink(Event::free(id))?;
    }
    Ok(())
}

/// `linker` (S3): many threads each process input files: symbol tables of small blocks,
/// medium buffers, and now and then a large section buffer; a work item's memory is freed
/// when it is done, partly by other threads (results handed on).
pub(super) fn linker<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = LinkerKnobs::read(params);
    let mut rng = rng(knobs.seed);
    let threads = knobs.threads as u32;
    let items = scaled(knobs.scale, 4000.0);
    let mut ids = Ids(0);
    // Work items in flight, one per thread, freed when the thread takes its next item.
    let mut in_flight: Vec<Vec<BlockId>> = vec![Vec::new(); threads as usize];
    let mut kept = Vec::new();
    for item in 0..items {
        let thread = (item % u64::from(threads)) as u32;
        let done = std::mem::take(&mut in_flight[thread as usize]);
        for id in done {
            // A quarter of the blocks were handed to another thread, which frees them.
            let by = if rng.random_bool(0.25) {
                rng.random_range(0..threads)
            } else {
                thread
            };
            sink(Event::Free { id, thread: by })?;
        }
        let mut blocks = Vec::new();
        let alloc =
            |size: u64, blocks: &mut Vec<BlockId>, ids: &mut Ids, sink: &mut Sink<'_, E>| {
                let id = ids.next();
                blocks.push(id);
                sink(Event::Alloc {
                    id,
                    size,
                    align: DEFAULT_ALIGN,
                    arena: None,
                    thread,
                })
            };
        // Input files differ a lot in size: most are small, a few are large objects whose
        // symbol tables take many times the memory. A thread done with a large one is left
        // with empty pages that only its own later work, or the OS, can take back.
        let weight = match rng.random_range(0..100) {
            0..75 => 1,
            75..95 => 4,
            _ => 16,
        };
        for _ in 0..weight * rng.random_range(200..600) {
            alloc(rng.random_range(16..=256), &mut blocks, &mut ids, sink)?;
        }
        for _ in 0..weight * rng.random_range(2..8) {
            alloc(rng.random_range(4096..=65536), &mut blocks, &mut ids, sink)?;
        }
        if rng.random_bool(0.02) {
            alloc(
                rng.random_range(1 << 20..=4 << 20),
                &mut blocks,
                &mut ids,
                sink,
            )?;
        }
        // The symbol table's merged entries live until the end of the link.
        let keep = blocks.len() / 100;
        kept.extend(blocks.drain(..keep));
        in_flight[thread as usize] = blocks;
    }
    for (thread, blocks) in in_flight.into_iter().enumerate() {
        for id in blocks {
            sink(Event::Free {
                id,
                thread: thread as u32,
            })?;
        }
    }
    for id in kept {
        sink(Event::free(id))?;
    }
    Ok(())
}

/// Bytes of one word in a text block's vector: text pointer, size, style and position.
const WORD: u64 = 48;

/// `browser` (S4): a browser at rest, a directory listing, a huge page, then back and
/// forward three times. Each page is DOM-like nodes, text of mixed sizes and pointer
/// vectors grown by realloc; long-lived browser state is allocated along the way.
pub(super) fn browser<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = BrowserKnobs::read(params);
    let mut rng = rng(knobs.seed);
    let growth = knobs.vector_growth;
    let huge = scaled(knobs.scale, (100u64 << 20) as f64);
    let mut ids = Ids(0);
    let mut state = Vec::new();
    let page = |label: &str,
                bytes: u64,
                ids: &mut Ids,
                state: &mut Vec<BlockId>,
                rng: &mut rand_pcg::Pcg64Mcg,
                sink: &mut Sink<'_, E>|
     -> Result<Vec<BlockId>, E> {
        sink(Event::Phase(label.into()))?;
        let mut blocks = Vec::new();
        let mut used = 0;
        while used < bytes {
            // A text block's words, kept inline in a vector (Dillo's SimpleVector<Word>)
            // that grows as the page parses; some words have a node or text of their own.
            let vector = ids.next();
            let items = rng.random_range(8..1024u64);
            let mut cap = match growth {
                Growth::PlusOne => 1,
                _ => 4,
            };
            sink(Event::alloc(vector, cap * WORD))?;
            for i in 0..items {
                if i == cap {
                    cap = match growth {
                        Growth::PlusOne => cap + 1,
                        _ => cap * 2,
                    };
                    sink(Event::realloc(vector, cap * WORD))?;
                }
                if rng.random_bool(0.2) {
                    let node = ids.next();
                    let size = rng.random_range(32..=256);
                    sink(Event::alloc(node, size))?;
                    blocks.push(node);
                    used += size;
                }
                if rng.random_bool(0.1) {
                    let text = ids.next();
                    let len = rng.random_range(8..=512);
                    sink(Event::alloc(text, len))?;
                    blocks.push(text);
                    used += len;
                }
            }
            if growth == Growth::DoubleThenFit && cap > items {
                sink(Event::realloc(vector, items * WORD))?;
            }
            blocks.push(vector);
            used += items * WORD;
            // Now and then a node outlives the page (history, cache and font entries made
            // while it loaded), scattered through the memory the page used.
            if blocks.len() >= 2 && rng.random_bool(0.5) {
                // The block just before the vector is a word's node or text, never a vector.
                let node = blocks.swap_remove(blocks.len() - 2);
                state.push(node);
            }
        }
        Ok(blocks)
    };
    let close = |blocks: Vec<BlockId>, sink: &mut Sink<'_, E>| -> Result<(), E> {
        for id in blocks {
            sink(Event::free(id))?;
        }
        Ok(())
    };
    let bare = page("bare", huge / 32, &mut ids, &mut state, &mut rng, sink)?;
    let dir = page("dir list", huge / 16, &mut ids, &mut state, &mut rng, sink)?;
    close(dir, sink)?;
    for step in 0..3 {
        let label = if step == 0 {
            "huge page".to_string()
        } else {
            format!("forward {step}")
        };
        let big = page(&label, huge, &mut ids, &mut state, &mut rng, sink)?;
        sink(Event::Phase(format!("back {}", step + 1)))?;
        close(big, sink)?;
        // Going back re-renders the small directory page.
        let dir = page(
            &format!("dir list {}", step + 2),
            huge / 16,
            &mut ids,
            &mut state,
            &mut rng,
            sink,
        )?;
        close(dir, sink)?;
    }
    sink(Event::Phase("exit".into()))?;
    close(bare, sink)?;
    close(state, sink)
}

/// `short_strings` (S5): an interpreter's strings, each a header and its characters in
/// one allocation; most are short. Strings are made, some die young, and the survivors are
/// still live when the run ends.
pub(super) fn short_strings<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = ShortStringsKnobs::read(params);
    let mut rng = rng(knobs.seed);
    let count = scaled(knobs.scale, 200_000.0);
    let header = knobs.header_bytes;
    let short = knobs.short_fraction;
    let long_max = knobs.long_max;
    let mut ids = Ids(0);
    sink(Event::Phase("make".into()))?;
    let mut live: Vec<BlockId> = Vec::new();
    for _ in 0..count {
        let len = if rng.random_bool(short) {
            rng.random_range(1..=32)
        } else {
            rng.random_range(33..=long_max.max(33))
        };
        let id = ids.next();
        sink(Event::alloc(id, header + len + 1))?;
        live.push(id);
        // Half of all strings are temporaries that die soon after they are made.
        if live.len() > 64 && rng.random_bool(0.5) {
            let i = rng.random_range(live.len() - 64..live.len());
            sink(Event::free(live.swap_remove(i)))?;
        }
    }
    // The survivors stay live: the counters are read with the program's strings in
    // memory, as `Debug.memory_usage()` reads them.
    sink(Event::Phase("report".into()))
}
