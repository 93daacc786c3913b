//! The free-list family's knobs, declared once: the specs the registry lists, the typed
//! struct [`FreeList::new`](super::FreeList::new) reads them as, the enums of its choice
//! knobs, and the family's entry in the registry.

use crate::params::{choice, knobs, ParamKind};
use crate::policy::FamilySpec;

choice! {
    /// How a free chunk is picked for a request.
    pub(super) enum Fit {
        Best = "best",
        Bins = "bins",
        First = "first",
        Next = "next",
    }
}

choice! {
    /// What becomes of the whole pages inside a free chunk.
    pub(super) enum Release {
        Never = "never",
        Immediate = "immediate",
        Delay = "delay",
    }
}

knobs! {
    /// The free-list family's knobs, read once when a heap is built.
    pub(super) struct Knobs, names KnobNames, specs PARAMS;

    fit: Fit = ParamSpec {
        kind: ParamKind::Choice(Fit::NAMES),
        default: "best",
        unit: "",
        doc: "Which free chunk serves a request: the smallest that fits (lowest address \
              among equals); glibc-style bins, exact-size small bins and size-sorted large \
              bins that hand out the oldest of equal chunks first; the lowest-addressed \
              that fits; or the first that fits after the previous one (a roving pointer).",
        zero_means: "",
    },
    coalesce: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "true",
        unit: "",
        doc: "Merge a freed chunk with free neighbours and with the top of the heap.",
        zero_means: "",
    },
    header_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 64,
            pow2: false,
        },
        default: "8",
        unit: "bytes",
        doc: "In-band bytes before each payload (dlmalloc: 8 on 64-bit, as prev_size overlaps).",
        zero_means: "",
    },
    alignment: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 8,
            max: 4096,
            pow2: true,
        },
        default: "16",
        unit: "bytes",
        doc: "Chunk granularity and payload alignment.",
        zero_means: "",
    },
    trim_threshold: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 40,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "When the committed free space at the top exceeds this, it is decommitted \
              (glibc M_TRIM_THRESHOLD).",
        zero_means: "",
    },
    top_pad: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 30,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "Extra bytes committed whenever the heap grows, and kept when it is trimmed \
              (glibc M_TOP_PAD).",
        zero_means: "",
    },
    mmap_threshold: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 40,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "Requests of at least this size get their own mapping, returned on free; \
              0 turns this off (glibc M_MMAP_THRESHOLD).",
        zero_means: "off",
    },
    segment_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 64 << 10,
            max: 1 << 40,
            pow2: false,
        },
        default: "64MiB",
        unit: "bytes",
        doc: "Address space reserved for the heap at a time; a full heap reserves another.",
        zero_means: "",
    },
    dynamic_mmap_threshold: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Raise the mmap threshold to the size of each mapped block freed (up to 32 MiB) and \
              the trim threshold to twice that, as glibc does since 2.7.",
        zero_means: "",
    },
    release_free_pages: Release = ParamSpec {
        kind: ParamKind::Choice(Release::NAMES),
        default: "never",
        unit: "",
        doc: "Whether whole pages inside free chunks go back to the OS (madvise-style): never \
              (dlmalloc, glibc without malloc_trim), at once, or after `release_delay` events if \
              the chunk is still free (jemalloc's decay, roughly).",
        zero_means: "",
    },
    release_delay: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        default: "10000",
        unit: "events",
        doc: "How long a free chunk keeps its pages under `release_free_pages = delay`.",
        zero_means: "",
    },
    tcache_count: u64 = ParamSpec {
        kind: ParamKind::Int { min: 0, max: 65535 },
        default: "0",
        unit: "chunks",
        doc: "Freed small chunks each thread keeps per size, uncoalesced and still counted in \
              use, and hands out first to its next request of that size: glibc's tcache \
              (7 since 2.26). Such chunks sit in the heap like live blocks, so one near the \
              top keeps the heap from shrinking. 0 turns the cache off.",
        zero_means: "off",
    },
    tcache_max: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 20,
            pow2: false,
        },
        default: "1032",
        unit: "bytes",
        doc: "Largest request whose chunk goes to the thread cache (glibc: 1032 bytes, the \
              size of its 64th bin).",
        zero_means: "",
    },
    fastbin_max: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 160,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Largest request whose freed chunk goes to a fast bin: kept in use, uncoalesced, \
              and handed out first to the next request of its size, until a request of 1 KiB \
              or more, or a free that leaves 64 KiB free in one piece, consolidates every \
              fast bin into the heap (glibc's fastbins, M_MXFAST = 128 on 64-bit). Memory \
              freed in small blocks alone never reaches the top, so the heap keeps its peak. \
              0 turns fast bins off.",
        zero_means: "off",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "free-list",
    title: "Free list (dlmalloc, glibc)",
    description: "Boundary-tag chunks in one growing heap with first, best or next fit and \
                  coalescing; memory returns to the OS only from the top, and large \
                  requests are mapped on their own.",
    params: PARAMS,
};
