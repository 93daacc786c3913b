//! Built-in workloads: generators that push events into a sink, deterministic for a given
//! seed, with a `scale` knob so each fits a browser tab.
//!
//! Each generator declares its knobs with [`knobs!`](crate::params::knobs) beside its code
//! and reads them typed when it starts; the `seed` and `scale` specs every workload has
//! are shared from here. Most MallocBench and malloc-lab ports have no other knobs: they
//! share one declaration of the two, `SeedScale`, and each gives only its default scale.

mod bench;
mod mallocbench;
mod malloclab;
mod parametric;
mod scenarios;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::event::Event;
use crate::params::{knobs, ParamError, ParamKind, ParamSpec, Params};

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

    /// The pace of a real run of this workload's events, in nanoseconds per event: the
    /// model's clock when a run gives none, so that delays a real allocator counts in time
    /// (mimalloc's purge delay, jemalloc's decay) see as much time pass as they would. Only
    /// the MallocBench ports have one, each measured once as the median of five replays
    /// of its events at its default scale through glibc, every byte written
    /// (`heaplab baseline -a system -w <id> --repeat 5`, on a 2-core x86_64 Debian 12
    /// machine, glibc 2.36, December 2026), rounded to two figures. A replay makes the
    /// calls and writes the blocks but does none of the benchmark's own work between them
    /// (walking its tree or list), so a real MallocBench run is somewhat slower still.
    pub fn rate_ns(&self) -> Option<f64> {
        Some(match self.kind {
            Kind::Churn => 30.0,
            Kind::TreeChurn => 110.0,
            Kind::Medium => 2_400.0,
            Kind::ListAllocate => 70.0,
            Kind::TreeAllocate => 150.0,
            Kind::Fragment => 130.0,
            Kind::FragmentIterate => 140.0,
            Kind::Big => 39_000.0,
            Kind::MessageOne => 63.0,
            Kind::MessageMany => 120.0,
            Kind::Balloon => 420.0,
            Kind::Binary
            | Kind::Coalescing
            | Kind::Random
            | Kind::Realloc
            | Kind::Parametric
            | Kind::Jit
            | Kind::Linker
            | Kind::Browser
            | Kind::ShortStrings => return None,
        })
    }

    /// Checks what the parameters' own ranges cannot, such as a histogram's syntax.
    pub fn check(&self, params: &Params) -> Result<(), ParamError> {
        match self.kind {
            Kind::Parametric => parametric::check(params),
            _ => Ok(()),
        }
    }
}

/// The `seed` knob, the same in every workload's knob list.
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

knobs! {
    /// The knobs of a MallocBench or malloc-lab port that has only the `seed` and `scale`
    /// every workload has. The ports' knob lists differ in nothing but the default scale,
    /// so they are declared once, here, and [`seed_and_scale`] makes each port's list with
    /// its own default; one struct then reads them all. Some ports draw nothing at random
    /// and leave the seed unread, but take it all the same, as every workload does.
    pub(super) struct SeedScale, names SeedScaleNames, specs SEED_SCALE;
    seed: u64 = SEED,
    scale: f64 = scale_of("1", "Fraction of MallocBench's full size (1 = the original benchmark)."),
}

/// The knob list of a port read as [`SeedScale`] that runs at `default_scale` unless told
/// otherwise: [`SEED_SCALE`], whose names `knobs!` checked against the struct's fields,
/// with the default of 1 it is written with replaced, so every port's list reads the same
/// way and names the one thing it differs in.
const fn seed_and_scale(default_scale: &'static str) -> [ParamSpec; 2] {
    let [seed, mut scale] = [SEED_SCALE[0], SEED_SCALE[1]];
    scale.default = default_scale;
    [seed, scale]
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
pub static WORKLOADS: &[WorkloadSpec] = &[
    WorkloadSpec {
        id: "churn",
        title: "churn (MallocBench)",
        description: "Allocate an 8-byte object, use it, free it, 7 million times, next to one \
                      long-lived object. At most two blocks are live: the allocator's fast path \
                      and nothing else.",
        params: mallocbench::CHURN,
        kind: Kind::Churn,
    },
    WorkloadSpec {
        id: "tree_churn",
        title: "tree_churn (MallocBench)",
        description: "Build a complete binary tree of depth 15 (48-byte nodes, each with a small \
                      payload), then walk it in order 160 times; every 8th node visited gets both \
                      subtrees replaced by new ones and the old ones freed. A long-lived structure \
                      with steady churn of mixed small sizes.",
        params: mallocbench::TREE_CHURN,
        kind: Kind::TreeChurn,
    },
    WorkloadSpec {
        id: "medium",
        title: "medium (MallocBench)",
        description: "Allocate 1 GiB in total of zeroed objects of 1 to 8 KiB, all live at once, \
                      then free them in allocation order. Tests how medium sizes are packed and \
                      whether freed memory goes back to the system.",
        params: mallocbench::MEDIUM,
        kind: Kind::Medium,
    },
    WorkloadSpec {
        id: "list_allocate",
        title: "list_allocate (MallocBench)",
        description:
            "Build a singly linked list of 32K nodes (32-byte node plus a 1-byte payload) \
                      and free it from the head, 70 times. Short-lived small objects in LIFO-ish \
                      batches: how quickly freed memory is reused.",
        params: mallocbench::LIST_ALLOCATE,
        kind: Kind::ListAllocate,
    },
    WorkloadSpec {
        id: "tree_allocate",
        title: "tree_allocate (MallocBench)",
        description: "Build a complete binary tree of depth 16 (48-byte nodes with payloads sized \
                      by depth) and free it, 24 times. Mixed small sizes allocated and freed in \
                      bulk.",
        params: mallocbench::TREE_ALLOCATE,
        kind: Kind::TreeAllocate,
    },
    WorkloadSpec {
        id: "fragment",
        title: "fragment (MallocBench)",
        description: "25 rounds of allocating 128K objects of 32 bytes, replacing 32K of them at \
                      random, and freeing all in index order. Tests whether holes left by the \
                      replaced objects are reused.",
        params: mallocbench::FRAGMENT,
        kind: Kind::Fragment,
    },
    WorkloadSpec {
        id: "fragment_iterate",
        title: "fragment_iterate (MallocBench)",
        description: "Allocate 512K objects of 32 bytes, free a quarter of them at random, then \
                      allocate as many again as a list; the new ones land in the holes, scattered \
                      over the heap. Then everything is freed.",
        params: mallocbench::FRAGMENT_ITERATE,
        kind: Kind::FragmentIterate,
    },
    WorkloadSpec {
        id: "big",
        title: "big (MallocBench)",
        description: "Like medium, with objects of 8 to 128 KiB: 1 GiB in total, all live at \
                      once, then freed in allocation order. Large-object handling and whether it \
                      goes back to the system.",
        params: mallocbench::BIG,
        kind: Kind::Big,
    },
    WorkloadSpec {
        id: "message_one",
        title: "message_one (MallocBench)",
        description:
            "A producer thread builds 1000 messages (an 8 KiB pointer array and 1024 nodes \
                      of 256 bytes each); one consumer thread frees each message a few messages \
                      later. Every free is a cross-thread free.",
        params: mallocbench::MESSAGE,
        kind: Kind::MessageOne,
    },
    WorkloadSpec {
        id: "message_many",
        title: "message_many (MallocBench)",
        description:
            "As message_one, with eight consumer threads taking turns, so freed memory is \
                      scattered over eight threads' heaps in a per-thread allocator.",
        params: mallocbench::MESSAGE,
        kind: Kind::MessageMany,
    },
    WorkloadSpec {
        id: "balloon",
        title: "balloon (MallocBench)",
        description:
            "Inflate to 100 MiB of 1 KiB chunks, free them all, then hold a 10 MiB steady \
                      state with churn. The phases show how much memory goes back after the drain \
                      and how fast.",
        params: mallocbench::BALLOON,
        kind: Kind::Balloon,
    },
    WorkloadSpec {
        id: "binary",
        title: "binary (malloc-lab look-alike)",
        description: "Small power-of-two blocks (64 B) alternating with large odd ones (448 B); \
                      the large ones are freed and 512-byte blocks requested, which the holes \
                      cannot hold. A pattern that defeats buddy allocators and simple segregated \
                      fits.",
        params: malloclab::BINARY,
        kind: Kind::Binary,
    },
    WorkloadSpec {
        id: "coalescing",
        title: "coalescing (malloc-lab look-alike)",
        description: "Allocate two 4095-byte blocks, free both, then ask for 8190 bytes: it fits \
                      in the hole only if the allocator merged the two freed blocks.",
        params: malloclab::COALESCING,
        kind: Kind::Coalescing,
    },
    WorkloadSpec {
        id: "random",
        title: "random (malloc-lab look-alike)",
        description: "Allocations of random sizes from 1 byte to 16 KiB and frees of random live \
                      blocks, up to 1200 live at once: no structure for a policy to exploit.",
        params: malloclab::RANDOM,
        kind: Kind::Random,
    },
    WorkloadSpec {
        id: "realloc",
        title: "realloc (malloc-lab look-alike)",
        description: "A buffer grown by realloc a few hundred bytes at a time while short-lived \
                      small blocks are allocated between the steps: growing in place works only \
                      when nothing sits right after the buffer.",
        params: malloclab::REALLOC,
        kind: Kind::Realloc,
    },
    WorkloadSpec {
        id: "parametric",
        title: "parametric (size × lifetime × shape)",
        description: "Requests drawn from a size distribution, freed in a lifetime order, with \
                      live memory following a shape over the run (ramp, plateau, peak, sawtooth), \
                      spread over threads. Change one knob at a time to see which one a policy \
                      cares about.",
        params: parametric::PARAMETRIC,
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
        params: scenarios::JIT,
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
        params: scenarios::LINKER,
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
        params: scenarios::BROWSER,
        kind: Kind::Browser,
    },
    WorkloadSpec {
        id: "short_strings",
        title: "short_strings (scenario S5: an interpreter's strings)",
        description: "An interpreter makes strings, each a header and its characters in one \
                      allocation; most are short. Half are temporaries that die young; the rest \
                      are still live when the run ends, when the counters are read. Putting short \
                      strings in a fixed-size block pool instead of malloc is Pike's change.",
        params: scenarios::SHORT_STRINGS,
        kind: Kind::ShortStrings,
    },
];

/// Looks a workload up by id.
pub fn find(id: &str) -> Result<&'static WorkloadSpec, ParamError> {
    WORKLOADS.iter().find(|w| w.id == id).ok_or_else(|| {
        let ids: Vec<&str> = WORKLOADS.iter().map(|w| w.id).collect();
        ParamError {
            field: "workload.id".into(),
            message: format!(
                "unknown workload {id:?}{}; built-in ones are: {} (or give a .trace file)",
                crate::names::did_you_mean(id, &ids),
                ids.join(", ")
            ),
        }
    })
}

/// The generator's random source for a workload's `seed`: a fixed algorithm, so a seed
/// means the same events on every platform, native or wasm.
pub(crate) fn rng(seed: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed)
}

/// `full` times a workload's `scale`, rounded, at least one.
pub(crate) fn scaled(scale: f64, full: f64) -> u64 {
    ((full * scale).round() as u64).max(1)
}
