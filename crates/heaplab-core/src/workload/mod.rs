//! Built-in workloads: generators that push events into a sink, deterministic for a given
//! seed, with a `scale` knob so each fits a browser tab.

mod bench;
mod mallocbench;
mod malloclab;
mod parametric;
mod scenarios;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::event::Event;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};

pub use bench::{gibibyte_rounds, steady_state};

/// Where a generator sends its events. The error stops the generator at once; it is the
/// simulator's, passed through untouched.
pub type Sink<'a, E> = dyn FnMut(Event) -> Result<(), E> + 'a;

/// A built-in workload: id, what it is, its knobs and its generator.
#[derive(Clone, Copy, Debug)]
pub struct WorkloadSpec {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    kind: Kind,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Churn,
    ListAllocate,
    TreeAllocate,
    TreeChurn,
    Fragment,
    FragmentIterate,
    Medium,
    Big,
    MessageOne,
    MessageMany,
    Balloon,
    Binary,
    Coalescing,
    Random,
    Realloc,
    Parametric,
    Jit,
    Linker,
    Browser,
    ShortStrings,
}

impl WorkloadSpec {
    /// Runs the generator with resolved parameters.
    pub fn generate<E>(&self, params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
        match self.kind {
            Kind::Churn => mallocbench::churn(params, sink),
            Kind::ListAllocate => mallocbench::list_allocate(params, sink),
            Kind::TreeAllocate => mallocbench::tree_allocate(params, sink),
            Kind::TreeChurn => mallocbench::tree_churn(params, sink),
            Kind::Fragment => mallocbench::fragment(params, sink),
            Kind::FragmentIterate => mallocbench::fragment_iterate(params, sink),
            Kind::Medium => mallocbench::medium(params, sink),
            Kind::Big => mallocbench::big(params, sink),
            Kind::MessageOne => mallocbench::message(params, 1, sink),
            Kind::MessageMany => mallocbench::message(params, 8, sink),
            Kind::Balloon => mallocbench::balloon(params, sink),
            Kind::Binary => malloclab::binary(params, sink),
            Kind::Coalescing => malloclab::coalescing(params, sink),
            Kind::Random => malloclab::random(params, sink),
            Kind::Realloc => malloclab::realloc(params, sink),
            Kind::Parametric => parametric::generate(params, sink),
            Kind::Jit => scenarios::jit(params, sink),
            Kind::Linker => scenarios::linker(params, sink),
            Kind::Browser => scenarios::browser(params, sink),
            Kind::ShortStrings => scenarios::short_strings(params, sink),
        }
    }

    /// Checks what the parameters' own ranges cannot, such as a histogram's syntax.
    pub fn check(&self, params: &Params) -> Result<(), ParamError> {
        match self.kind {
            Kind::Parametric => parametric::check(params),
            _ => Ok(()),
        }
    }
}

const SEED: ParamSpec = ParamSpec {
    name: "seed",
    // JavaScript numbers hold integers exactly up to 2^53 - 1, and seeds travel in links.
    kind: ParamKind::Int {
        min: 0,
        max: (1 << 53) - 1,
    },
    default: "1",
    unit: "",
    doc: "Seed of the random choices; the same seed gives the same events.",
    zero_means: "",
};

const fn scale(default: &'static str) -> ParamSpec {
    scale_of(
        default,
        "Fraction of MallocBench's full size (1 = the original benchmark).",
    )
}

/// The `scale` knob, with a default and a sentence saying what 1 means.
const fn scale_of(default: &'static str, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name: "scale",
        kind: ParamKind::Float {
            min: 0.0001,
            max: 10.0,
        },
        default,
        unit: "x",
        doc,
        zero_means: "",
    }
}

/// Every built-in workload.
pub const WORKLOADS: &[WorkloadSpec] = &[
    WorkloadSpec {
        id: "churn",
        title: "churn (MallocBench)",
        description: "Allocate an 8-byte object, use it, free it, 7 million times, next to one \
                      long-lived object. At most two blocks are live: the allocator's fast path \
                      and nothing else.",
        params: &[SEED, scale("0.1")],
        kind: Kind::Churn,
    },
    WorkloadSpec {
        id: "tree_churn",
        title: "tree_churn (MallocBench)",
        description: "Build a complete binary tree of depth 15 (48-byte nodes, each with a small \
                      payload), then walk it in order 160 times; every 8th node visited gets both \
                      subtrees replaced by new ones and the old ones freed. A long-lived structure \
                      with steady churn of mixed small sizes.",
        params: &[SEED, scale("0.05")],
        kind: Kind::TreeChurn,
    },
    WorkloadSpec {
        id: "medium",
        title: "medium (MallocBench)",
        description: "Allocate 1 GiB in total of zeroed objects of 1 to 8 KiB, all live at once, \
                      then free them in allocation order. Tests how medium sizes are packed and \
                      whether freed memory goes back to the system.",
        params: &[SEED, scale("0.05")],
        kind: Kind::Medium,
    },
    WorkloadSpec {
        id: "list_allocate",
        title: "list_allocate (MallocBench)",
        description:
            "Build a singly linked list of 32K nodes (32-byte node plus a 1-byte payload) \
                      and free it from the head, 70 times. Short-lived small objects in LIFO-ish \
                      batches: how quickly freed memory is reused.",
        params: &[SEED, scale("0.05")],
        kind: Kind::ListAllocate,
    },
    WorkloadSpec {
        id: "tree_allocate",
        title: "tree_allocate (MallocBench)",
        description: "Build a complete binary tree of depth 16 (48-byte nodes with payloads sized \
                      by depth) and free it, 24 times. Mixed small sizes allocated and freed in \
                      bulk.",
        params: &[SEED, scale("0.1")],
        kind: Kind::TreeAllocate,
    },
    WorkloadSpec {
        id: "fragment",
        title: "fragment (MallocBench)",
        description: "25 rounds of allocating 128K objects of 32 bytes, replacing 32K of them at \
                      random, and freeing all in index order. Tests whether holes left by the \
                      replaced objects are reused.",
        params: &[SEED, scale("0.1")],
        kind: Kind::Fragment,
    },
    WorkloadSpec {
        id: "fragment_iterate",
        title: "fragment_iterate (MallocBench)",
        description: "Allocate 512K objects of 32 bytes, free a quarter of them at random, then \
                      allocate as many again as a list; the new ones land in the holes, scattered \
                      over the heap. Then everything is freed.",
        params: &[SEED, scale("0.25")],
        kind: Kind::FragmentIterate,
    },
    WorkloadSpec {
        id: "big",
        title: "big (MallocBench)",
        description: "Like medium, with objects of 8 to 128 KiB: 1 GiB in total, all live at \
                      once, then freed in allocation order. Large-object handling and whether it \
                      goes back to the system.",
        params: &[SEED, scale("0.05")],
        kind: Kind::Big,
    },
    WorkloadSpec {
        id: "message_one",
        title: "message_one (MallocBench)",
        description:
            "A producer thread builds 1000 messages (an 8 KiB pointer array and 1024 nodes \
                      of 256 bytes each); one consumer thread frees each message a few messages \
                      later. Every free is a cross-thread free.",
        params: &[SEED, scale("0.05")],
        kind: Kind::MessageOne,
    },
    WorkloadSpec {
        id: "message_many",
        title: "message_many (MallocBench)",
        description:
            "As message_one, with eight consumer threads taking turns, so freed memory is \
                      scattered over eight threads' heaps in a per-thread allocator.",
        params: &[SEED, scale("0.05")],
        kind: Kind::MessageMany,
    },
    WorkloadSpec {
        id: "balloon",
        title: "balloon (MallocBench)",
        description:
            "Inflate to 100 MiB of 1 KiB chunks, free them all, then hold a 10 MiB steady \
                      state with churn. The phases show how much memory goes back after the drain \
                      and how fast.",
        params: &[SEED, scale("0.1")],
        kind: Kind::Balloon,
    },
    WorkloadSpec {
        id: "binary",
        title: "binary (malloc-lab look-alike)",
        description: "Small power-of-two blocks (64 B) alternating with large odd ones (448 B); \
                      the large ones are freed and 512-byte blocks requested, which the holes \
                      cannot hold. A pattern that defeats buddy allocators and simple segregated \
                      fits.",
        params: &[SEED, scale("1")],
        kind: Kind::Binary,
    },
    WorkloadSpec {
        id: "coalescing",
        title: "coalescing (malloc-lab look-alike)",
        description: "Allocate two 4095-byte blocks, free both, then ask for 8190 bytes: it fits \
                      in the hole only if the allocator merged the two freed blocks.",
        params: &[SEED, scale("1")],
        kind: Kind::Coalescing,
    },
    WorkloadSpec {
        id: "random",
        title: "random (malloc-lab look-alike)",
        description: "Allocations of random sizes from 1 byte to 16 KiB and frees of random live \
                      blocks, up to 1200 live at once: no structure for a policy to exploit.",
        params: &[SEED, scale("1")],
        kind: Kind::Random,
    },
    WorkloadSpec {
        id: "realloc",
        title: "realloc (malloc-lab look-alike)",
        description: "A buffer grown by realloc a few hundred bytes at a time while short-lived \
                      small blocks are allocated between the steps: growing in place works only \
                      when nothing sits right after the buffer.",
        params: &[SEED, scale("1")],
        kind: Kind::Realloc,
    },
    WorkloadSpec {
        id: "parametric",
        title: "parametric (size × lifetime × shape)",
        description: "Requests drawn from a size distribution, freed in a lifetime order, with \
                      live memory following a shape over the run (ramp, plateau, peak, sawtooth), \
                      spread over threads. Change one knob at a time to see which one a policy \
                      cares about.",
        params: PARAMETRIC,
        kind: Kind::Parametric,
    },
    WorkloadSpec {
        id: "jit",
        title: "jit (scenario S1: a JIT in a long-lived process)",
        description: "A long-lived process compiles every so often. Each compilation builds about \
                      8 MiB of small nodes in four arenas and drops them when done; meanwhile the \
                      process allocates small blocks that outlive the compilation. With arena \
                      slabs taken from the heap those survivors pin the freed slabs; with slabs \
                      mapped from the OS the memory goes back after each compilation.",
        params: &[
            SEED,
            scale_of("1", "Arena bytes per compilation, as a multiple of 8 MiB."),
            ParamSpec {
                name: "compiles",
                kind: ParamKind::Int { min: 1, max: 1000 },
                default: "5",
                unit: "",
                doc: "Compilations in the process's life.",
                zero_means: "",
            },
            ParamSpec {
                name: "long_lived_every",
                kind: ParamKind::Int {
                    min: 1,
                    max: 1_000_000,
                },
                default: "64",
                unit: "allocations",
                doc:
                    "One small block that outlives the compilation per this many arena allocations.",
                zero_means: "",
            },
        ],
        kind: Kind::Jit,
    },
    WorkloadSpec {
        id: "linker",
        title: "linker (scenario S3: a multi-threaded link)",
        description:
            "Many threads each take input files in turn: a symbol table of small blocks, a \
                      few medium buffers and now and then a large section buffer. Files differ \
                      a lot in size (one in four takes 4 or 16 times the memory of the rest). A \
                      work item's memory is freed when its thread moves on, a quarter of it by \
                      other threads, and a hundredth lives to the end of the link.",
        params: &[
            SEED,
            scale_of("0.1", "Work items, as a multiple of 4000."),
            ParamSpec {
                name: "threads",
                kind: ParamKind::Int { min: 1, max: 128 },
                default: "16",
                unit: "threads",
                doc: "Linker threads (LLD used 36 to 72).",
                zero_means: "",
            },
        ],
        kind: Kind::Linker,
    },
    WorkloadSpec {
        id: "browser",
        title: "browser (scenario S4: back and forward)",
        description: "A browser at rest, a directory listing, a huge page, then back and forward \
                      three times; RSS after each step is the question. Pages are small nodes, \
                      text of mixed sizes and pointer vectors grown by realloc, whose growth \
                      policy is a knob: doubling, one slot at a time, or doubling then a final \
                      shrink to fit.",
        params: &[
            SEED,
            scale_of("0.1", "Size of the huge page, as a multiple of 100 MiB."),
            ParamSpec {
                name: "vector_growth",
                kind: ParamKind::Choice(&["2x", "+1", "custom"]),
                default: "2x",
                unit: "",
                doc: "How pointer vectors grow: double, one slot per push, or double while \
                      loading and shrink to the exact size when the element is done.",
                zero_means: "",
            },
        ],
        kind: Kind::Browser,
    },
    WorkloadSpec {
        id: "short_strings",
        title: "short_strings (scenario S5: an interpreter's strings)",
        description: "An interpreter makes strings, each a header and its characters in one \
                      allocation; most are short. Half are temporaries that die young; the rest \
                      are still live when the run ends, when the counters are read. Putting short \
                      strings in a fixed-size block pool instead of malloc is Pike's change.",
        params: &[
            SEED,
            scale_of("0.25", "Strings made, as a multiple of 200,000."),
            ParamSpec {
                name: "header_bytes",
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
            ParamSpec {
                name: "short_fraction",
                kind: ParamKind::Float { min: 0.0, max: 1.0 },
                default: "0.9",
                unit: "",
                doc: "Share of strings of at most 32 characters.",
                zero_means: "",
            },
            ParamSpec {
                name: "long_max",
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
        ],
        kind: Kind::ShortStrings,
    },
];

const PARAMETRIC: &[ParamSpec] = &[
    SEED,
    scale_of("1", "Number of steps, as a multiple of 200,000."),
    ParamSpec {
        name: "sizes",
        kind: ParamKind::Choice(&["fixed", "uniform", "power-law", "log-normal", "histogram"]),
        default: "log-normal",
        unit: "",
        doc: "How request sizes are drawn: all `mean_size`; uniform in min..max; a power law \
              (Pareto, exponent `alpha`) from `min_size`; log-normal around `mean_size` with \
              spread `sigma`; or the weights in `histogram`.",
        zero_means: "",
    },
    ParamSpec {
        name: "min_size",
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "16",
        unit: "bytes",
        doc: "Smallest request (uniform, power-law and log-normal are clamped to it).",
        zero_means: "",
    },
    ParamSpec {
        name: "max_size",
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "4KiB",
        unit: "bytes",
        doc: "Largest request.",
        zero_means: "",
    },
    ParamSpec {
        name: "mean_size",
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "64",
        unit: "bytes",
        doc: "The fixed size, or the median of the log-normal distribution.",
        zero_means: "",
    },
    ParamSpec {
        name: "sigma",
        kind: ParamKind::Float {
            min: 0.01,
            max: 5.0,
        },
        default: "1",
        unit: "",
        doc: "Spread of the log-normal distribution (of the logarithm of the size).",
        zero_means: "",
    },
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Float {
            min: 0.1,
            max: 10.0,
        },
        default: "1.5",
        unit: "",
        doc: "Exponent of the power law: smaller means more large requests.",
        zero_means: "",
    },
    ParamSpec {
        name: "histogram",
        kind: ParamKind::Text { max_len: 2000 },
        default: "16:50,64:30,1KiB:20",
        unit: "size:weight,…",
        doc: "Sizes and their relative weights, for `sizes = histogram`.",
        zero_means: "",
    },
    ParamSpec {
        name: "lifetime",
        kind: ParamKind::Choice(&["lifo", "fifo", "random", "exponential"]),
        default: "random",
        unit: "",
        doc: "Which live block is freed when live memory is above the shape: the newest, the \
              oldest, any, or the one whose exponentially distributed lifetime ends first.",
        zero_means: "",
    },
    ParamSpec {
        name: "mean_lifetime",
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000_000,
        },
        default: "1000",
        unit: "steps",
        doc: "Mean lifetime under `lifetime = exponential`.",
        zero_means: "",
    },
    ParamSpec {
        name: "shape",
        kind: ParamKind::Choice(&["ramp", "plateau", "peak", "sawtooth"]),
        default: "plateau",
        unit: "",
        doc: "Live memory over the run: rising to the end, rising then held, rising then \
              falling back, or `cycles` rises each followed by a drop.",
        zero_means: "",
    },
    ParamSpec {
        name: "peak_live",
        kind: ParamKind::Bytes {
            min: 1024,
            max: 1 << 34,
            pow2: false,
        },
        default: "16MiB",
        unit: "bytes",
        doc: "Live bytes at the top of the shape.",
        zero_means: "",
    },
    ParamSpec {
        name: "cycles",
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: "4",
        unit: "",
        doc: "Teeth of the sawtooth.",
        zero_means: "",
    },
    ParamSpec {
        name: "threads",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: "1",
        unit: "threads",
        doc: "Program threads allocating; each block is allocated by a random one.",
        zero_means: "",
    },
    ParamSpec {
        name: "remote_free",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0",
        unit: "",
        doc: "Chance that a block is freed by a random thread rather than its own.",
        zero_means: "",
    },
];

/// Looks a workload up by id.
pub fn find(id: &str) -> Result<&'static WorkloadSpec, ParamError> {
    WORKLOADS.iter().find(|w| w.id == id).ok_or_else(|| {
        let ids: Vec<&str> = WORKLOADS.iter().map(|w| w.id).collect();
        ParamError {
            field: "workload.id".into(),
            message: format!(
                "unknown workload {id:?}; built-in ones are: {} (or give a .trace file)",
                ids.join(", ")
            ),
        }
    })
}

/// The generator's random source: a fixed algorithm, so a seed means the same events on
/// every platform, native or wasm.
pub(crate) fn rng(params: &Params) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(params.u64("seed"))
}

/// `full` scaled, at least one.
pub(crate) fn scaled(params: &Params, full: f64) -> u64 {
    ((full * params.f64("scale")).round() as u64).max(1)
}
