//! The size-class family's knobs, declared once: the specs the registry lists, the typed
//! struct [`SizeClass::new`](super::SizeClass::new) reads them as, the enums of its choice
//! knobs, and the family's entry in the registry.

use crate::params::{choice, knobs, ParamKind};
use crate::policy::FamilySpec;

/// The largest `segment_size`. [`Span::index_of`](super::spans::Span::index_of) is exact
/// only while an offset times a block size, both inside one segment, is at most 2^64.
const MAX_SEGMENT: u64 = 1 << 30;
const _: () = assert!((MAX_SEGMENT as u128) * (MAX_SEGMENT as u128) <= 1u128 << 64);

/// The kind of the byte knobs that may be anything up to the largest segment (0 included),
/// and are checked against the segment when the heap is built.
const UP_TO_1_GIB: ParamKind = ParamKind::Bytes {
    min: 0,
    max: MAX_SEGMENT,
    pow2: false,
};

choice! {
    /// What becomes of a large block's own mapping when it is freed.
    pub(super) enum LargeFree {
        Release = "release",
        Delay = "delay",
    }
}

choice! {
    /// What happens to the memory of a span that empties.
    pub(super) enum EmptyPages {
        Keep = "keep",
        Decommit = "decommit",
        Delay = "delay",
        Cache = "cache",
    }
}

choice! {
    /// Which calls carry out the delayed decommits that are due.
    pub(super) enum PurgeOn {
        EveryCall = "every-call",
        SlowPath = "slow-path",
    }
}

choice! {
    /// How the delay of an empty span's pages runs out.
    pub(super) enum Decay {
        AtOnce = "at-once",
        Smootherstep = "smootherstep",
    }
}

choice! {
    /// Where a span's own thread puts the blocks it frees.
    pub(super) enum FreeLists {
        One = "one",
        Sharded = "sharded",
    }
}

choice! {
    /// How a heap orders its spans: which one an allocation takes blocks from, and where
    /// a new span is cut.
    pub(super) enum PageQueues {
        Newest = "newest",
        Mimalloc2 = "mimalloc2",
    }
}

choice! {
    /// Whether each program thread has a heap of its own.
    pub(super) enum Heaps {
        PerThread = "per-thread",
        Shared = "shared",
    }
}

knobs! {
    /// The size-class family's knobs, read once when a heap is built.
    pub(super) struct Knobs, names KnobNames, specs PARAMS;

    granularity: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 8,
            max: 16,
            pow2: true,
        },
        default: "16",
        unit: "bytes",
        doc: "Smallest class and step between small classes; 16 keeps x86-64 `new` alignment.",
        zero_means: "",
    },
    tiny_class: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Whether requests of at most 8 bytes get an 8-byte class of their own below a \
              16-byte granularity, 8-byte aligned, as jemalloc's tiny class (SC_LG_TINY_MIN \
              3 in sc.h) and mimalloc's one-word bin (page-queue.c `mi_bin`) give them: C \
              asks a block only to be aligned for what fits in it. Requests that ask for \
              more alignment than malloc's default still move up.",
        zero_means: "",
    },
    classes_per_doubling: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 16 },
        default: "4",
        unit: "classes",
        doc: "Size classes between one power of two and the next, above 8 granules \
              (4 wastes at most 25% to rounding; 1 is power-of-two classes).",
        zero_means: "",
    },
    page_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 4 << 10,
            max: 64 << 20,
            pow2: true,
        },
        default: "64KiB",
        unit: "bytes",
        doc: "The allocator's page: the slot a span of one size class is made of \
              (mimalloc: 64 KiB). 0 means the OS page, as jemalloc's page is the \
              system's (LG_PAGE, found when it is built).",
        zero_means: "the OS page",
    },
    medium_page_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 64 << 20,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "mimalloc's page kinds: a class that fits `page_min_blocks` times in a page gets \
              a span of one page, a larger one that fits as often in this many bytes a \
              span of this size (mimalloc's small and medium pages, MI_MEDIUM_PAGE_SIZE \
              512 KiB, segment.c `mi_segment_page_alloc`), and larger ones spans of at \
              least eight blocks. A power of two from twice `page_size` \
              to `segment_size`; 0 keeps spans of at least eight blocks for every class.",
        zero_means: "spans of at least eight blocks",
    },
    large_page_size: u64 = ParamSpec {
        kind: UP_TO_1_GIB,
        default: "0",
        unit: "bytes",
        doc: "With `medium_page_size`: classes above the medium pages that fit eight times \
              in this many bytes get spans of this size (mimalloc 3's 4 MiB large pages, \
              types.h). A power of two above `medium_page_size`; 0 keeps spans of eight \
              blocks there.",
        zero_means: "spans of eight blocks above the medium pages",
    },
    medium_pages_aligned: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "With `medium_page_size`: medium pages start at a multiple of their size in \
              the segment (mimalloc 3's bitmap.c `mi_bchunk_try_find_and_clear8`).",
        zero_means: "",
    },
    segment_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 64 << 10,
            max: MAX_SEGMENT,
            pow2: true,
        },
        default: "4MiB",
        unit: "bytes",
        doc: "Aligned address-space unit pages are cut from (mimalloc: 4 MiB).",
        zero_means: "",
    },
    large_threshold: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 16,
            max: 64 << 20,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "Requests above this get a mapping of their own, returned on free, unless \
              `share_small_large` carves them from segments.",
        zero_means: "",
    },
    large_free: LargeFree = ParamSpec {
        kind: ParamKind::Choice(LargeFree::NAMES),
        default: "release",
        unit: "",
        doc: "What happens to a large block's own mapping when it is freed: released at \
              once, or kept committed in a large free list that later large requests of \
              the same size or smaller reuse, and released only after `decommit_delay` \
              events (old bmalloc's large free list and its scavenger; snmalloc's and \
              rpmalloc's caches of large chunks and spans).",
        zero_means: "",
    },
    empty_pages: EmptyPages = ParamSpec {
        kind: ParamKind::Choice(EmptyPages::NAMES),
        default: "delay",
        unit: "",
        doc: "What happens to the memory of a span that empties: kept committed for reuse, \
              decommitted at once, decommitted after `decommit_delay` events unless reused \
              (mimalloc's purge delay), or parked committed in its heap's span cache of \
              `cache_size` bytes, whose oldest spans are decommitted when it overflows \
              (rpmalloc's span caches).",
        zero_means: "",
    },
    decommit_delay: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        default: "10000",
        unit: "events",
        doc: "How long an empty span keeps its memory under `empty_pages = delay`, and a \
              large mapping under `large_free = delay`, in events, when the run has no clock \
              or `decommit_ms` is 0.",
        zero_means: "",
    },
    decommit_ms: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 0,
            max: 3_600_000,
        },
        default: "0",
        unit: "ms",
        doc: "The same delay in milliseconds of the run's clock, as the real allocators count \
              it (mimalloc's purge delay, jemalloc's decay time). It applies when every event \
              of the run has a time: a trace that opens with a time mark, `--clock trace` or \
              `--clock rate=<ns>`; otherwise `decommit_delay` events count, and 0 means \
              they always do.",
        zero_means: "count `decommit_delay` events",
    },
    decay: Decay = ParamSpec {
        kind: ParamKind::Choice(Decay::NAMES),
        default: "at-once",
        unit: "",
        doc: "How the delay of `empty_pages = delay` runs out: each empty span's pages all at \
              once when it is up (mimalloc), or gradually, as jemalloc decays dirty pages: \
              the delay is cut into 200 epochs, and at the end of each the pages emptied \
              within the delay may stay committed only up to the smoother-step curve \
              1 - (6x^5 - 15x^4 + 10x^3) of their age x (a fraction of the delay), the \
              oldest going first (jemalloc's smoothstep.h and decay.c).",
        zero_means: "",
    },
    purge_extend_ms: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 0,
            max: 60_000,
        },
        default: "0",
        unit: "ms",
        doc: "With a delay in milliseconds, keeps one expiry per segment, as mimalloc 2.0 \
              does (segment.c `mi_segment_perhaps_decommit`): a span that empties makes \
              the committed slots of its free run wait; the first sets the expiry \
              `decommit_ms` ahead, each further one pushes it this much later, or, if it ran \
              out longer ago, has all waiting slots decommitted at once; a span cut over \
              waiting slots sets it `decommit_ms` ahead again. Once it passes, the waiting \
              slots go together. 0 means each span waits out its own delay.",
        zero_means: "each span waits out its own delay",
    },
    purge_on: PurgeOn = ParamSpec {
        kind: ParamKind::Choice(PurgeOn::NAMES),
        default: "every-call",
        unit: "",
        doc: "Which calls carry out delayed decommits once they are due: any call, or only a \
              call on the slow path, an allocation that finds no free block in its class's \
              current span (or no span, or is large). mimalloc acts on an expired purge \
              delay only from its generic allocation path, so a program that stops \
              allocating keeps its freed pages however long it runs.",
        zero_means: "",
    },
    cache_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 40,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Under `empty_pages = cache`, how many bytes of empty spans each heap keeps \
              committed for reuse by a span of the same slot count, as rpmalloc's per-thread \
              span caches do; 0 means one segment's worth.",
        zero_means: "one segment's worth",
    },
    commit_granularity: u64 = ParamSpec {
        kind: UP_TO_1_GIB,
        default: "0",
        unit: "bytes",
        doc: "Unit in which segment memory is committed, a power of two from `page_size` to \
              `segment_size`; 0 means one page, as mimalloc commits each page as it is used. \
              Larger units commit more at once and call the OS less, like rpmalloc's spans; \
              `segment_size` commits a whole segment at its first use, as snmalloc commits \
              its chunks.",
        zero_means: "one page",
    },
    decommit_granularity: u64 = ParamSpec {
        kind: UP_TO_1_GIB,
        default: "0",
        unit: "bytes",
        doc: "Aligned unit that is decommitted only once every slot in it is free, a power \
              of two from `page_size` to `segment_size`; 0 means the commit unit. \
              mimalloc purges single pages; snmalloc gives memory back only in large chunks, which costs fewer calls and \
              keeps more committed.",
        zero_means: "the commit unit",
    },
    huge_pages: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Advise segments and large mappings `MADV_HUGEPAGE`, as mimalloc 3 does \
              (allow_thp): Linux then backs an aligned 2 MiB, committed whole and with \
              nothing resident, by a huge page at its first write. Acts with \
              `commit_granularity` = `segment_size`.",
        zero_means: "",
    },
    page_min_blocks: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 64 },
        default: "4",
        unit: "blocks",
        doc: "With `medium_page_size`: a class goes in a small or medium page only if this \
              many of its blocks fit: 4 in mimalloc 2, 6 in mimalloc 3 (types.h).",
        zero_means: "",
    },
    arena_metadata: u64 = ParamSpec {
        kind: UP_TO_1_GIB,
        default: "0",
        unit: "bytes",
        doc: "Bytes at the start of the first segment kept for the allocator's metadata, \
              first page written: mimalloc 3's arena info takes its first 33 slices \
              (arena.c `mi_arena_info_slices_needed`).",
        zero_means: "",
    },
    heaps: Heaps = ParamSpec {
        kind: ParamKind::Choice(Heaps::NAMES),
        default: "per-thread",
        unit: "",
        doc: "Whether each program thread allocates from its own spans (mimalloc, snmalloc \
              and rpmalloc heaps; a block freed by another thread goes on its span's remote \
              list and returns to the span when the owner next allocates in that class, as \
              mimalloc collects `xthread_free`) or all threads share one set of spans. A \
              single-threaded program behaves the same either way.",
        zero_means: "",
    },
    free_lists: FreeLists = ParamSpec {
        kind: ParamKind::Choice(FreeLists::NAMES),
        default: "one",
        unit: "",
        doc: "Where a span's own thread puts the blocks it frees: on the one free list \
              allocations pop from, so the block freed last is the next one handed out; or, \
              as mimalloc shards each page's free list, on a separate `local_free` list that \
              becomes the free list only once `free` runs out, so a just-freed block waits \
              until the span's other free blocks are used (mimalloc's `mi_free_block_local` \
              and `_mi_page_free_collect`). Blocks from other threads join `local_free` \
              when collected, and a span whose lists are both empty threads its next 4 KiB \
              of never-used blocks onto `free` (`mi_page_extend_free`).",
        zero_means: "",
    },
    retire_cycles: u64 = ParamSpec {
        kind: ParamKind::Int { min: 0, max: 1000 },
        default: "0",
        unit: "collections",
        doc: "An emptied span that is its class's only one is given back after this many \
              collections (a quarter above one-page spans; 1 + a quarter of the rest under \
              `page_queues = mimalloc2`), run before a span \
              is taken from a segment and, but under `page_queues = mimalloc2`, every 1,000 \
              allocations above 1 KiB or off a span's free list: mimalloc 3's retired pages \
              (page.c, MI_RETIRE_CYCLES 16; 2.0 sets 1 + 8). 0 keeps it until another span \
              of its class has room.",
        zero_means: "kept until another span of its class has room",
    },
    min_extend: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 64 },
        default: "4",
        unit: "blocks",
        doc: "With `free_lists = sharded`: the fewest never-used blocks a span links into \
              its free list at a time, each written, however large: 4 in mimalloc 2, 1 in \
              mimalloc 3 (page.c MI_MIN_EXTEND).",
        zero_means: "",
    },
    page_queues: PageQueues = ParamSpec {
        kind: ParamKind::Choice(PageQueues::NAMES),
        default: "newest",
        unit: "",
        doc: "`newest`: a span that has room again is the next allocated from, and spans \
              are cut from the lowest free slots that fit. `mimalloc2`: mimalloc 2.0's \
              queues. A page with room again goes behind the others (page.c \
              `_mi_page_unfull`), a full one leaves its queue when an allocation passes it \
              (`mi_page_queue_find_free_ex`), and a page is cut from the front of the \
              last-freed free run in the smallest size bin that fits (segment.c \
              `mi_segments_page_find_and_allocate`). A retired page counts down only at \
              the head of its queue, starts again if it empties again, and is not kept \
              for blocks above the medium ones (`_mi_page_retire`).",
        zero_means: "",
    },
    page_offset: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 0,
            max: 4096,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Bytes left unused at the start of each span of blocks up to 1 KiB, so fewer \
              blocks fit: mimalloc 2.0's start_offset, 3 × MI_MAX_ALIGN_GUARANTEE = 384 \
              (segment.c `_mi_segment_page_start_from_slice`). Less than half a page.",
        zero_means: "",
    },
    dirty_max_fit: u64 = ParamSpec {
        kind: ParamKind::Int { min: 0, max: 1 << 20 },
        default: "0",
        unit: "times",
        doc: "Free runs still resident are reused first, each split only for a request of \
              at least 1/this of it, and never joined to runs given back: jemalloc's \
              dirty extents (`lg_extent_max_active_fit` 6, so 64; extent.c). 0 means \
              any free run is reused, whatever its pages.",
        zero_means: "any free run, resident or not",
    },
    thread_cache: u64 = ParamSpec {
        kind: UP_TO_1_GIB,
        default: "0",
        unit: "bytes",
        doc: "Bytes of freed small blocks each thread keeps for its next allocations before \
              blocks go back to their spans, like tcmalloc's and rpmalloc's thread caches; \
              cached blocks still count as in use, so their spans cannot empty. 0 turns \
              the cache off (mimalloc has none).",
        zero_means: "off",
    },
    share_small_large: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Whether large requests up to half a segment are carved from the same segments \
              as small spans, so both return pages to one pool, and a segment whose pages are \
              all free is decommitted and released at once rather than waiting in small-page \
              lists, as bmalloc does since it made small and large objects share memory. \
              Larger requests keep mappings of their own.",
        zero_means: "",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "size-class",
    title: "Size-class slabs (mimalloc, rpmalloc, snmalloc, bmalloc)",
    description: "Blocks of one size class per page-sized span, cut from aligned segments and \
                  committed in units; per-thread heaps with remote frees and thread caches; \
                  large requests mapped on their own or shared with small spans; empty spans \
                  kept, decommitted, delayed or cached.",
    params: PARAMS,
};
