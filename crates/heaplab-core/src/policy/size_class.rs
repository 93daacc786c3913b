//! The size-class family: segregated slabs as in mimalloc, rpmalloc, snmalloc and bmalloc.
//!
//! Address space comes in aligned segments (`segment_size`) cut into page slots
//! (`page_size`, the allocator's page, not the OS page). A span of one or more slots holds
//! blocks of one size class; each span has its own free list and a bump "extent" so blocks
//! are only touched when first handed out. Requests above `large_threshold` get their own
//! mapping, or with `share_small_large` a run of slots from the same segments (bmalloc).
//! What happens to a span that empties is the policy question of scenarios S2 and S3: keep
//! its memory, decommit it at once, decommit it after a delay unless reused, or park it in
//! a span cache.
//!
//! Memory is committed in units of `commit_granularity` and decommitted in aligned units of
//! `decommit_granularity`, each a whole number of slots, so one knob moves the model from
//! mimalloc (a page at a time) to snmalloc (whole segments up front). With `heaps =
//! per-thread` every program thread has its own span queues; a block freed by another
//! thread waits on its span's remote list until the owner next allocates in that class,
//! as mimalloc's `xthread_free` does. `thread_cache` adds a tcmalloc/rpmalloc-style cache of
//! freed blocks per thread in front of the spans.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};

use super::{check_align, check_size, AllocError, Block, FamilySpec, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};
use crate::prefetch::{prefetch, prefetch_whole};
use crate::provider::{Addr, PageProvider};
use crate::small_map::ThreadMap;

/// The largest `segment_size`. [`Span::index_of`] is exact only while an offset times a
/// block size, both inside one segment, is at most 2^64.
const MAX_SEGMENT: u64 = 1 << 30;
const _: () = assert!((MAX_SEGMENT as u128) * (MAX_SEGMENT as u128) <= 1u128 << 64);

/// No segment has this key (an address shifted right by at least 16 bits).
const NO_SEG: u64 = u64::MAX;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "granularity",
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
    ParamSpec {
        name: "classes_per_doubling",
        kind: ParamKind::Int { min: 1, max: 16 },
        default: "4",
        unit: "classes",
        doc: "Size classes between one power of two and the next, above 8 granules \
              (4 wastes at most 25% to rounding; 1 is power-of-two classes).",
        zero_means: "",
    },
    ParamSpec {
        name: "page_size",
        kind: ParamKind::Bytes {
            min: 4 << 10,
            max: 64 << 20,
            pow2: true,
        },
        default: "64KiB",
        unit: "bytes",
        doc: "The allocator's page: the slot a span of one size class is made of \
              (mimalloc: 64 KiB).",
        zero_means: "",
    },
    ParamSpec {
        name: "segment_size",
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
    ParamSpec {
        name: "large_threshold",
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
    ParamSpec {
        name: "large_free",
        kind: ParamKind::Choice(&["release", "delay"]),
        default: "release",
        unit: "",
        doc: "What happens to a large block's own mapping when it is freed: released at \
              once, or kept committed in a large free list that later large requests of \
              the same size or smaller reuse, and released only after `decommit_delay` \
              events (old bmalloc's large free list and its scavenger; snmalloc's and \
              rpmalloc's caches of large chunks and spans).",
        zero_means: "",
    },
    ParamSpec {
        name: "empty_pages",
        kind: ParamKind::Choice(&["keep", "decommit", "delay", "cache"]),
        default: "delay",
        unit: "",
        doc: "What happens to the memory of a span that empties: kept committed for reuse, \
              decommitted at once, decommitted after `decommit_delay` events unless reused \
              (mimalloc's purge delay), or parked committed in its heap's span cache of \
              `cache_size` bytes, whose oldest spans are decommitted when it overflows \
              (rpmalloc's span caches).",
        zero_means: "",
    },
    ParamSpec {
        name: "decommit_delay",
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        default: "10000",
        unit: "events",
        doc: "How long an empty span keeps its memory under `empty_pages = delay`.",
        zero_means: "",
    },
    ParamSpec {
        name: "cache_size",
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
    ParamSpec {
        name: "commit_granularity",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 30,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Unit in which segment memory is committed, a power of two from `page_size` to \
              `segment_size`; 0 means one page, as mimalloc commits each page as it is used. \
              Larger units commit more at once and call the OS less, like rpmalloc's spans; \
              `segment_size` commits a whole segment at its first use, as snmalloc commits \
              its chunks.",
        zero_means: "one page",
    },
    ParamSpec {
        name: "decommit_granularity",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 30,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Aligned unit that is decommitted only once every slot in it is free, a power \
              of two from the commit unit to `segment_size`; 0 means the commit unit. \
              mimalloc purges single pages; snmalloc gives memory back only in large \
              chunks, which costs fewer calls and keeps more committed.",
        zero_means: "the commit unit",
    },
    ParamSpec {
        name: "heaps",
        kind: ParamKind::Choice(&["per-thread", "shared"]),
        default: "per-thread",
        unit: "",
        doc: "Whether each program thread allocates from its own spans (mimalloc, snmalloc \
              and rpmalloc heaps; a block freed by another thread goes on its span's remote \
              list and returns to the span when the owner next allocates in that class, as \
              mimalloc collects `xthread_free`) or all threads share one set of spans. A \
              single-threaded program behaves the same either way.",
        zero_means: "",
    },
    ParamSpec {
        name: "thread_cache",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 30,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Bytes of freed small blocks each thread keeps for its next allocations before \
              blocks go back to their spans, like tcmalloc's and rpmalloc's thread caches; \
              cached blocks still count as in use, so their spans cannot empty. 0 turns \
              the cache off (mimalloc has none).",
        zero_means: "off",
    },
    ParamSpec {
        name: "share_small_large",
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
];

pub const FAMILY: FamilySpec = FamilySpec {
    id: "size-class",
    title: "Size-class slabs (mimalloc, rpmalloc, snmalloc, bmalloc)",
    description: "Blocks of one size class per page-sized span, cut from aligned segments and \
                  committed in units; per-thread heaps with remote frees and thread caches; \
                  large requests mapped on their own or shared with small spans; empty spans \
                  kept, decommitted, delayed or cached.",
    params: PARAMS,
};

const NONE: u32 = u32::MAX;

/// The class of a span that holds one large block carved from segment slots.
const LARGE: u32 = u32::MAX;

/// A span descriptor should stay small; mimalloc's `mi_page_t` is about this size.
const SPAN_META: u64 = 80;
const SEGMENT_META: u64 = 128;

/// Spans are sized to hold at least this many blocks, so big classes do not waste a page
/// per block.
const MIN_BLOCKS_PER_SPAN: u64 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EmptyPages {
    Keep,
    Decommit,
    Delay,
    Cache,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    owner: u32,
    committed: bool,
    /// Empty and committed, waiting for its decommit under the delay policy.
    pending: bool,
    /// When a pending slot becomes due.
    due: u64,
}

#[derive(Debug)]
struct Segment {
    base: Addr,
    /// The heap whose spans it holds. Under per-thread heaps each thread cuts its spans
    /// from segments of its own, as mimalloc's and snmalloc's threads do, so a segment is
    /// committed for one thread's use, and a thread's free slots serve no other thread.
    heap: u32,
    slots: Vec<Slot>,
    free_slots: u32,
    /// Distinguishes this segment from a later one in the same table entry, so a delayed
    /// decommit queued for a released segment does not touch its successor.
    generation: u64,
}

#[derive(Debug)]
struct Span {
    seg: u32,
    first: u32,
    slots: u32,
    /// A size class, or `LARGE` for a span holding one large block.
    class: u32,
    /// The heap whose queues and cache the span belongs to.
    heap: u32,
    base: Addr,
    block: u64,
    /// `ceil(2^64 / block)`, so that [`Span::index_of`] divides by a multiplication.
    recip: u64,
    capacity: u32,
    /// Blocks not on the free list: handed out, on the remote list or in a thread cache.
    used: u32,
    /// Blocks handed out at least once; blocks past it have never been written.
    extent: u32,
    free: Vec<u32>,
    /// One bit per block the program holds, to catch double frees.
    in_use: Vec<u64>,
    /// Index in its class queue, or `NONE` when full (or retired, cached or large).
    qpos: u32,
    /// Blocks freed by a thread of another heap, not yet collected by the owner.
    remote: Vec<u32>,
    /// Whether the span is on its heap's list of spans with remote frees.
    in_remote: bool,
    /// Blocks sitting in thread caches.
    tcached: u32,
    /// Index in its heap's span cache list for its slot count, or `NONE`.
    cpos: u32,
    /// When it entered the span cache, to find stale entries in the age queue.
    stamp: u64,
}

impl Span {
    fn empty() -> Span {
        Span {
            seg: 0,
            first: 0,
            slots: 0,
            class: 0,
            heap: 0,
            base: 0,
            block: 0,
            recip: 0,
            capacity: 0,
            used: 0,
            extent: 0,
            free: Vec::new(),
            in_use: Vec::new(),
            qpos: NONE,
            remote: Vec::new(),
            in_remote: false,
            tcached: 0,
            cpos: NONE,
            stamp: 0,
        }
    }

    /// `ceil(2^64 / block)` for [`Span::index_of`]; blocks are at least 8 bytes, so it fits.
    fn recip_of(block: u64) -> u64 {
        (1u128 << 64).div_ceil(u128::from(block)) as u64
    }

    /// The index of the block at `offset` bytes into the span, and whether the offset is
    /// that block's start. A hardware divide was a quarter of the time of `free`; this
    /// multiplies by the reciprocal instead. With `m = ceil(2^64 / d) = (2^64 + e) / d`,
    /// `0 <= e < d`, the product `n * m / 2^64` exceeds `n / d` by `n * e / (d * 2^64)`,
    /// less than `1 / d` whenever `n * d <= 2^64`, so its floor is exactly `n / d` (the
    /// fraction of `n / d` is at most `(d - 1) / d`). Offsets and blocks are both below a
    /// segment, at most `MAX_SEGMENT` bytes, so `n * d <= 2^64` (checked where
    /// `MAX_SEGMENT` is defined).
    #[inline]
    fn index_of(&self, offset: u64) -> (u32, bool) {
        let index = ((u128::from(offset) * u128::from(self.recip)) >> 64) as u64;
        (index as u32, index * self.block == offset)
    }

    #[inline]
    fn bit(index: u32) -> (usize, u64) {
        ((index / 64) as usize, 1u64 << (index % 64))
    }
}

/// What a thread allocates from: span queues per class, spans with remote frees per class,
/// and the cache of empty spans.
#[derive(Debug)]
struct Heap {
    queues: Vec<Vec<u32>>,
    remote: Vec<Vec<u32>>,
    /// Cached empty spans by slot count.
    cache: FxHashMap<u32, Vec<u32>>,
    /// Cached spans oldest first, as (span, stamp); entries whose stamp no longer matches
    /// are stale and skipped.
    cache_age: VecDeque<(u32, u64)>,
    cache_bytes: u64,
    cached_spans: u32,
}

impl Heap {
    fn new(classes: usize) -> Heap {
        Heap {
            queues: vec![Vec::new(); classes],
            remote: vec![Vec::new(); classes],
            cache: FxHashMap::default(),
            cache_age: VecDeque::new(),
            cache_bytes: 0,
            cached_spans: 0,
        }
    }
}

/// The heap of each thread seen, under per-thread heaps, numbered in order of first
/// allocation.
#[derive(Debug, Default)]
struct ThreadHeaps {
    heaps: ThreadMap<u32>,
    len: u32,
}

impl ThreadHeaps {
    #[inline]
    fn get(&self, thread: u32) -> Option<u32> {
        self.heaps.get(thread).copied()
    }

    /// The heap of `thread`, numbered next in order of first allocation if it had none.
    #[inline]
    fn get_or_insert(&mut self, thread: u32) -> u32 {
        match self.get(thread) {
            Some(h) => h,
            None => self.insert_next(thread),
        }
    }

    #[cold]
    #[inline(never)]
    fn insert_next(&mut self, thread: u32) -> u32 {
        let h = self.len;
        self.heaps.get_or_insert_with(thread, || h);
        self.len += 1;
        h
    }
}

/// A thread's cache of freed blocks, as (span, block index) per class.
#[derive(Debug)]
struct ThreadCache {
    lists: Vec<Vec<(u32, u32)>>,
    bytes: u64,
}

/// A segregated-fit, size-class slab allocator.
#[derive(Debug)]
pub struct SizeClass {
    granularity: u64,
    /// `log2(granularity)`, which the registry keeps a power of two.
    granularity_shift: u32,
    page_shift: u32,
    seg_shift: u32,
    slots_per_seg: u32,
    large_threshold: u64,
    empty: EmptyPages,
    delay: u64,
    cache_cap: u64,
    /// Slots per commit unit and per decommit unit.
    commit_slots: u32,
    decommit_slots: u32,
    per_thread: bool,
    thread_cache: u64,
    share: bool,
    os_page: u64,
    classes: Vec<u64>,
    /// Class index for sizes up to `small_limit`, by granule.
    small_lut: Vec<u32>,
    small_limit: u64,
    segments: Vec<Option<Segment>>,
    seg_index: FxHashMap<u64, u32>,
    /// The segment `span_of` found last, by key; cleared when a segment goes away.
    /// `(NO_SEG, _)` when there is none: a plain pair compares in one step, where an
    /// `Option` tested its tag first.
    last_seg: Cell<(u64, u32)>,
    generations: u64,
    spans: Vec<Span>,
    free_span_ids: Vec<u32>,
    heaps: Vec<Heap>,
    /// Heap of each thread seen, under per-thread heaps (in order of first allocation).
    thread_heaps: ThreadHeaps,
    tcaches: ThreadMap<ThreadCache>,
    large: FxHashMap<Addr, u64>,
    /// Under `large_free = delay`: freed large mappings kept for reuse, by (length,
    /// address), with the event at which each is to be released.
    large_free: Option<BTreeMap<(u64, Addr), u64>>,
    /// Releases of kept large mappings in due order: (due, address, length). An entry whose
    /// mapping was reused or kept again since no longer matches `large_free` and is skipped.
    large_purge: VecDeque<(u64, Addr, u64)>,
    /// A lower bound on when the first entry of `purge` or `large_purge` is due: exact
    /// after `tick_due` went through them (`u64::MAX` when both were empty then), lowered by
    /// every push. `tick` compares once instead of looking at two queues.
    next_due: u64,
    /// Delayed decommits: (due, segment, generation, first slot, slots).
    purge: VecDeque<(u64, u32, u64, u32, u32)>,
    now: u64,
    stamps: u64,
    live_spans: u64,
}

impl SizeClass {
    pub fn new(params: &Params, os_page: u64) -> Result<SizeClass, ParamError> {
        let granularity = params.u64("granularity");
        let per_doubling = params.u64("classes_per_doubling");
        let page_size = params.u64("page_size");
        let segment_size = params.u64("segment_size");
        let large_threshold = params.u64("large_threshold");
        let field = |name: &str, message: String| ParamError {
            field: format!("policy.params.{name}"),
            message,
        };
        if page_size < os_page {
            return Err(field(
                "page_size",
                format!("{page_size} is smaller than the provider's page size {os_page}"),
            ));
        }
        if segment_size < page_size {
            return Err(field(
                "segment_size",
                format!("{segment_size} is smaller than page_size {page_size}"),
            ));
        }
        if large_threshold > segment_size / 2 {
            return Err(field(
                "large_threshold",
                format!("{large_threshold} is more than half of segment_size {segment_size}"),
            ));
        }
        // A unit is a power of two between `floor` and the segment; 0 picks the floor.
        let unit = |name: &str, floor: u64| -> Result<u64, ParamError> {
            let v = params.u64(name);
            if v == 0 {
                return Ok(floor);
            }
            if !v.is_power_of_two() || v < floor || v > segment_size {
                return Err(field(
                    name,
                    format!(
                        "{v} is not 0 or a power of two from {floor} to segment_size \
                         {segment_size}"
                    ),
                ));
            }
            Ok(v)
        };
        let commit_unit = unit("commit_granularity", page_size)?;
        let decommit_unit = unit("decommit_granularity", commit_unit)?;
        let classes = class_sizes(granularity, per_doubling, large_threshold);
        let small_limit = (granularity * 64).min(*classes.last().expect("at least one class"));
        let small_lut = (0..=small_limit / granularity)
            .map(|g| classes.partition_point(|&c| c < g * granularity) as u32)
            .collect();
        let empty = match params.str("empty_pages") {
            "keep" => EmptyPages::Keep,
            "decommit" => EmptyPages::Decommit,
            "cache" => EmptyPages::Cache,
            _ => EmptyPages::Delay,
        };
        let cache_cap = match params.u64("cache_size") {
            0 => segment_size,
            n => n,
        };
        Ok(SizeClass {
            granularity,
            granularity_shift: granularity.trailing_zeros(),
            page_shift: page_size.trailing_zeros(),
            seg_shift: segment_size.trailing_zeros(),
            slots_per_seg: (segment_size / page_size) as u32,
            large_threshold,
            empty,
            delay: params.u64("decommit_delay"),
            cache_cap,
            commit_slots: (commit_unit / page_size) as u32,
            decommit_slots: (decommit_unit / page_size) as u32,
            per_thread: params.str("heaps") == "per-thread",
            thread_cache: params.u64("thread_cache"),
            share: params.bool("share_small_large"),
            os_page,
            heaps: vec![Heap::new(classes.len())],
            classes,
            small_lut,
            small_limit,
            segments: Vec::new(),
            seg_index: FxHashMap::default(),
            last_seg: Cell::new((NO_SEG, 0)),
            generations: 0,
            spans: Vec::new(),
            free_span_ids: Vec::new(),
            thread_heaps: ThreadHeaps::default(),
            tcaches: ThreadMap::default(),
            large: FxHashMap::default(),
            large_free: (params.str("large_free") == "delay").then(BTreeMap::new),
            large_purge: VecDeque::new(),
            next_due: u64::MAX,
            purge: VecDeque::new(),
            now: 0,
            stamps: 0,
            live_spans: 0,
        })
    }

    /// The size classes in use, smallest first.
    pub fn classes(&self) -> &[u64] {
        &self.classes
    }

    #[inline]
    fn class_of(&self, size: u64) -> u32 {
        if size <= self.small_limit {
            // The granularity is a power of two (the registry says so), and a shift costs
            // a cycle where the divide `div_ceil` compiled to cost tens on every allocation.
            self.small_lut[((size + self.granularity - 1) >> self.granularity_shift) as usize]
        } else {
            self.classes.partition_point(|&c| c < size) as u32
        }
    }

    fn page_size(&self) -> u64 {
        1 << self.page_shift
    }

    /// Large requests up to this size come from segment slots under `share_small_large`.
    fn shared_large_limit(&self) -> u64 {
        u64::from(self.slots_per_seg) << self.page_shift >> 1
    }

    fn span_slots(&self, block: u64) -> u32 {
        (block * MIN_BLOCKS_PER_SPAN)
            .div_ceil(self.page_size())
            .clamp(1, u64::from(self.slots_per_seg)) as u32
    }

    /// The heap a thread allocates from, made on its first allocation.
    #[inline]
    fn heap_of(&mut self, thread: u32) -> u32 {
        if !self.per_thread {
            return 0;
        }
        let h = self.thread_heaps.get_or_insert(thread);
        // A thread numbered just now has no heap yet.
        if h as usize == self.heaps.len() {
            self.heaps.push(Heap::new(self.classes.len()));
        }
        h
    }

    /// Whether `thread` allocates from heap `h`; a thread that never allocated has no heap.
    #[inline]
    fn is_local(&self, thread: u32, h: u32) -> bool {
        !self.per_thread || self.thread_heaps.get(thread) == Some(h)
    }

    fn queue_push(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let q = &mut self.heaps[span.heap as usize].queues[span.class as usize];
        let pos = q.len() as u32;
        q.push(id);
        self.spans[id as usize].qpos = pos;
    }

    fn queue_remove(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let (heap, class, pos) = (span.heap as usize, span.class as usize, span.qpos as usize);
        let q = &mut self.heaps[heap].queues[class];
        q.swap_remove(pos);
        if let Some(&moved) = q.get(pos) {
            self.spans[moved as usize].qpos = pos as u32;
        }
        self.spans[id as usize].qpos = NONE;
    }

    /// Finds `n` free slots in a row, in the first of the heap's segments that has them, or
    /// a new segment.
    fn find_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        n: u32,
    ) -> Result<(u32, u32), AllocError> {
        for (si, seg) in self.segments.iter().enumerate() {
            let Some(seg) = seg else { continue };
            if seg.free_slots < n || seg.heap != heap {
                continue;
            }
            let mut run = 0;
            for (i, slot) in seg.slots.iter().enumerate() {
                run = if slot.owner == NONE { run + 1 } else { 0 };
                if run == n {
                    return Ok((si as u32, i as u32 + 1 - n));
                }
            }
        }
        let size = u64::from(self.slots_per_seg) << self.page_shift;
        let base = mem.reserve(size, size)?;
        self.generations += 1;
        // Memory that a provider could not release comes back as it was left, possibly
        // committed (a wasm heap reusing what it freed); elsewhere it comes uncommitted.
        let slot = |i: u64| Slot {
            owner: NONE,
            committed: !mem.caps().can_release
                && mem.is_committed(base + (i << self.page_shift), 1 << self.page_shift),
            pending: false,
            due: 0,
        };
        let seg = Segment {
            base,
            heap,
            slots: (0..u64::from(self.slots_per_seg)).map(slot).collect(),
            free_slots: self.slots_per_seg,
            generation: self.generations,
        };
        let si = match self.segments.iter().position(Option::is_none) {
            Some(i) => {
                self.segments[i] = Some(seg);
                i
            }
            None => {
                self.segments.push(Some(seg));
                self.segments.len() - 1
            }
        } as u32;
        self.seg_index.insert(base >> self.seg_shift, si);
        Ok((si, 0))
    }

    /// Commits the uncommitted slots of the commit units a range touches, one provider call
    /// per contiguous run.
    fn commit_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        first: u32,
        n: u32,
    ) -> Result<(), AllocError> {
        let shift = self.page_shift;
        let unit = self.commit_slots;
        let (lo, hi) = (first / unit * unit, (first + n).div_ceil(unit) * unit);
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let mut i = lo;
        while i < hi {
            if seg.slots[i as usize].committed {
                i += 1;
                continue;
            }
            let start = i;
            while i < hi && !seg.slots[i as usize].committed {
                i += 1;
            }
            mem.commit(
                seg.base + (u64::from(start) << shift),
                u64::from(i - start) << shift,
            )?;
            for s in start..i {
                seg.slots[s as usize].committed = true;
            }
        }
        Ok(())
    }

    /// Decommits the committed slots of the decommit units a range touches whose slots are
    /// all unowned (and, when `only_due`, none waiting for a later delayed decommit), one
    /// provider call per contiguous run.
    fn decommit_units<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        first: u32,
        n: u32,
        only_due: bool,
    ) -> Result<(), AllocError> {
        // Memory that cannot be decommitted stays committed, and the slots say so.
        if !mem.caps().can_decommit {
            return Ok(());
        }
        let (shift, unit, now) = (self.page_shift, self.decommit_slots as usize, self.now);
        let Some(seg) = self.segments[si as usize].as_mut() else {
            return Ok(());
        };
        let (lo, hi) = (
            first as usize / unit * unit,
            ((first + n) as usize).div_ceil(unit) * unit,
        );
        let mut flush = |seg: &mut Segment, start: usize, end: usize| {
            mem.decommit(
                seg.base + ((start as u64) << shift),
                ((end - start) as u64) << shift,
            )?;
            for s in &mut seg.slots[start..end] {
                s.committed = false;
                s.pending = false;
            }
            Ok::<(), AllocError>(())
        };
        let mut run = None;
        let mut unit_free = false;
        for i in lo..hi {
            if i % unit == 0 {
                unit_free = seg.slots[i..i + unit]
                    .iter()
                    .all(|s| s.owner == NONE && !(only_due && s.pending && s.due > now));
            }
            if unit_free && seg.slots[i].committed {
                run.get_or_insert(i);
            } else if let Some(start) = run.take() {
                flush(seg, start, i)?;
            }
        }
        if let Some(start) = run {
            flush(seg, start, hi)?;
        }
        Ok(())
    }

    /// A span owning `n` committed slots, from the heap's span cache or fresh; its class
    /// fields are for the caller to set.
    fn obtain_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        n: u32,
    ) -> Result<u32, AllocError> {
        let cached = self.heaps[heap as usize]
            .cache
            .get(&n)
            .and_then(|v| v.last().copied());
        if let Some(id) = cached {
            self.uncache(id);
            return Ok(id);
        }
        let (si, first) = self.find_slots(mem, heap, n)?;
        self.commit_slots(mem, si, first, n)?;
        let id = match self.free_span_ids.pop() {
            Some(id) => id,
            None => {
                self.spans.push(Span::empty());
                self.spans.len() as u32 - 1
            }
        };
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        for s in &mut seg.slots[first as usize..(first + n) as usize] {
            s.owner = id;
            s.pending = false;
        }
        seg.free_slots -= n;
        let base = seg.base + (u64::from(first) << self.page_shift);
        let span = &mut self.spans[id as usize];
        span.seg = si;
        span.first = first;
        span.slots = n;
        span.base = base;
        self.live_spans += 1;
        Ok(id)
    }

    /// Sets a span up empty for `class` (or `LARGE`) in `heap`.
    fn init_span(&mut self, id: u32, heap: u32, class: u32, block: u64) {
        let page_shift = self.page_shift;
        let span = &mut self.spans[id as usize];
        let capacity = ((u64::from(span.slots) << page_shift) / block) as u32;
        span.class = class;
        span.heap = heap;
        span.block = block;
        span.recip = Span::recip_of(block);
        span.capacity = capacity;
        span.used = 0;
        span.extent = 0;
        span.free.clear();
        span.in_use.clear();
        span.in_use.resize(capacity.div_ceil(64) as usize, 0);
        span.qpos = NONE;
        span.remote.clear();
        span.in_remote = false;
        span.tcached = 0;
        span.cpos = NONE;
    }

    fn new_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        class: u32,
    ) -> Result<u32, AllocError> {
        let block = self.classes[class as usize];
        let id = self.obtain_span(mem, heap, self.span_slots(block))?;
        self.init_span(id, heap, class, block);
        self.queue_push(id);
        Ok(id)
    }

    /// Takes an empty span out of its heap's span cache.
    fn uncache(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let (h, n, pos) = (span.heap as usize, span.slots, span.cpos as usize);
        let heap = &mut self.heaps[h];
        let list = heap.cache.get_mut(&n).expect("cached span's list");
        list.swap_remove(pos);
        if let Some(&moved) = list.get(pos) {
            self.spans[moved as usize].cpos = pos as u32;
        }
        heap.cache_bytes -= u64::from(n) << self.page_shift;
        heap.cached_spans -= 1;
        self.spans[id as usize].cpos = NONE;
    }

    /// An empty span leaves its class: into its heap's span cache, or back to its segment.
    fn retire_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
    ) -> Result<(), AllocError> {
        if self.spans[id as usize].qpos != NONE {
            self.queue_remove(id);
        }
        if self.empty != EmptyPages::Cache {
            return self.release_span(mem, id);
        }
        self.stamps += 1;
        let stamp = self.stamps;
        let (h, n) = {
            let span = &self.spans[id as usize];
            (span.heap as usize, span.slots)
        };
        let heap = &mut self.heaps[h];
        let list = heap.cache.entry(n).or_default();
        let pos = list.len() as u32;
        list.push(id);
        heap.cache_age.push_back((id, stamp));
        heap.cache_bytes += u64::from(n) << self.page_shift;
        heap.cached_spans += 1;
        let span = &mut self.spans[id as usize];
        span.cpos = pos;
        span.stamp = stamp;
        // The oldest spans beyond the cap go back to their segments.
        while self.heaps[h].cache_bytes > self.cache_cap {
            let (old, stamp) = self.heaps[h]
                .cache_age
                .pop_front()
                .expect("cached bytes have an entry");
            let s = &self.spans[old as usize];
            if s.cpos == NONE || s.stamp != stamp {
                continue;
            }
            self.uncache(old);
            self.release_span(mem, old)?;
        }
        // Entries for spans reused since are dropped now and then, so the queue stays
        // proportional to the cache.
        let heap = &self.heaps[h];
        if heap.cache_age.len() > 2 * heap.cached_spans as usize + 64 {
            let spans = &self.spans;
            self.heaps[h].cache_age.retain(|&(id, stamp)| {
                let s = &spans[id as usize];
                s.cpos != NONE && s.stamp == stamp
            });
        }
        Ok(())
    }

    /// Gives a span's slots back to its segment under the empty-page policy.
    fn release_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
    ) -> Result<(), AllocError> {
        let (si, first, n) = {
            let s = &self.spans[id as usize];
            (s.seg, s.first, s.slots)
        };
        let due = self.now + self.delay;
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let delay = self.empty == EmptyPages::Delay;
        for s in &mut seg.slots[first as usize..(first + n) as usize] {
            s.owner = NONE;
            if delay {
                s.pending = true;
                s.due = due;
            }
        }
        seg.free_slots += n;
        let (generation, all_free) = (seg.generation, seg.free_slots == self.slots_per_seg);
        self.free_span_ids.push(id);
        self.live_spans -= 1;
        match self.empty {
            EmptyPages::Keep => return Ok(()),
            EmptyPages::Decommit | EmptyPages::Cache => {
                self.decommit_units(mem, si, first, n, false)?
            }
            EmptyPages::Delay => {
                self.purge.push_back((due, si, generation, first, n));
                self.next_due = self.next_due.min(due);
            }
        }
        // A wholly free segment goes back to the shared pool at once (bmalloc returns a
        // chunk whose pages are all free to its large free list, which is scavenged).
        if self.share && all_free {
            self.decommit_units(mem, si, 0, self.slots_per_seg, false)?;
        }
        self.release_if_empty(mem, si)
    }

    fn release_if_empty<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
    ) -> Result<(), AllocError> {
        let Some(seg) = &self.segments[si as usize] else {
            return Ok(());
        };
        if seg.free_slots == self.slots_per_seg && seg.slots.iter().all(|s| !s.committed) {
            let (base, size) = (seg.base, u64::from(self.slots_per_seg) << self.page_shift);
            mem.release(base, size)?;
            self.seg_index.remove(&(base >> self.seg_shift));
            self.last_seg.set((NO_SEG, 0));
            self.segments[si as usize] = None;
        }
        Ok(())
    }

    // Always inlined: it runs on every free, and as a call it cost a third of its
    // instructions in saving and restoring registers.
    #[inline(always)]
    fn span_of(&self, addr: Addr) -> Option<u32> {
        let key = addr >> self.seg_shift;
        // Frees cluster in the segment of the free before, so the last segment found is
        // tried before the hash map.
        let si = match self.last_seg.get() {
            (k, si) if k == key => si,
            _ => {
                let si = *self.seg_index.get(&key)?;
                self.last_seg.set((key, si));
                si
            }
        };
        self.owner_in(si, addr)
    }

    /// [`SizeClass::span_of`] for a hint: the remembered segment is neither used nor
    /// changed, so hints for blocks ahead do not disturb the frees in between.
    #[inline(always)]
    fn span_of_quietly(&self, addr: Addr) -> Option<u32> {
        let si = *self.seg_index.get(&(addr >> self.seg_shift))?;
        self.owner_in(si, addr)
    }

    /// The span owning the page slot of `addr` in segment `si`, if any.
    #[inline(always)]
    fn owner_in(&self, si: u32, addr: Addr) -> Option<u32> {
        let seg = self.segments[si as usize].as_ref()?;
        let slot = ((addr - seg.base) >> self.page_shift) as usize;
        let owner = seg.slots.get(slot)?.owner;
        (owner != NONE).then_some(owner)
    }

    fn alloc_large<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        if self.share && size <= self.shared_large_limit() && align <= self.page_size() {
            let n = size.div_ceil(self.page_size()) as u32;
            let heap = self.heap_of(thread);
            let id = self.obtain_span(mem, heap, n)?;
            self.init_span(id, heap, LARGE, u64::from(n) << self.page_shift);
            let span = &mut self.spans[id as usize];
            span.used = 1;
            span.extent = 1;
            span.in_use[0] = 1;
            return Ok(span.base);
        }
        let len = mem.round_up(size.max(1));
        if let Some(base) = self.reuse_large(len, align) {
            return Ok(base);
        }
        let base = mem.map(len, align.max(self.os_page))?;
        self.large.insert(base, len);
        Ok(base)
    }

    /// The smallest kept large mapping that holds `len` bytes at `align`, taken off the
    /// large free list. Its pages are still committed, so reuse costs no page operation.
    /// Mappings more than twice the request are left for larger requests, as a best-fit
    /// large free list would split them and keep the rest.
    fn reuse_large(&mut self, len: u64, align: u64) -> Option<Addr> {
        let free = self.large_free.as_mut()?;
        let (&(have, base), _) = free
            .range((len, 0)..=(len.saturating_mul(2), Addr::MAX))
            .find(|((_, base), _)| base.is_multiple_of(align))?;
        free.remove(&(have, base));
        self.large.insert(base, have);
        Some(base)
    }

    /// Frees a large block's own mapping: at once, or onto the large free list.
    fn free_large<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
        len: u64,
    ) -> Result<(), AllocError> {
        match &mut self.large_free {
            None => mem.release(addr, len)?,
            Some(free) => {
                let due = self.now + self.delay;
                free.insert((len, addr), due);
                self.large_purge.push_back((due, addr, len));
                self.next_due = self.next_due.min(due);
            }
        }
        Ok(())
    }

    /// Returns the blocks other threads freed to this heap's spans of `class` to their free
    /// lists, as mimalloc collects a page's `xthread_free` list before allocating from it.
    #[cold]
    #[inline(never)]
    fn collect_remote<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        class: u32,
    ) -> Result<(), AllocError> {
        while let Some(id) = self.heaps[heap as usize].remote[class as usize].pop() {
            let span = &mut self.spans[id as usize];
            span.in_remote = false;
            let was_full = span.qpos == NONE;
            span.used -= span.remote.len() as u32;
            let mut remote = std::mem::take(&mut span.remote);
            span.free.append(&mut remote);
            span.remote = remote;
            self.settle(mem, id, was_full)?;
        }
        Ok(())
    }

    /// After blocks came back to span `id`: a span that was full rejoins its class queue,
    /// and an empty span is retired unless it is the only one in the queue, so an
    /// alloc/free loop does not commit and decommit a page every time (mimalloc's retire
    /// heuristic). mimalloc frees such a page after a few allocation cycles; here it goes
    /// when another span of its class has room again.
    /// Most calls find the span neither newly non-full nor empty, and then its queue stays
    /// as it is: one test, inline, and no call.
    #[inline]
    fn settle<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
        was_full: bool,
    ) -> Result<(), AllocError> {
        if was_full || self.spans[id as usize].used == 0 {
            self.requeue(mem, id, was_full)?;
        }
        Ok(())
    }

    /// [`SizeClass::settle`] for a span that was full or is empty now.
    #[inline(never)]
    fn requeue<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
        was_full: bool,
    ) -> Result<(), AllocError> {
        let span = &self.spans[id as usize];
        let (heap, class, empty) = (span.heap as usize, span.class as usize, span.used == 0);
        if was_full {
            self.queue_push(id);
        }
        let q = &self.heaps[heap].queues[class];
        if empty && q.len() > 1 {
            self.retire_span(mem, id)?;
        } else if was_full && q.len() == 2 && self.spans[q[0] as usize].used == 0 {
            self.retire_span(mem, q[0])?;
        }
        Ok(())
    }

    /// Releases the kept large mappings whose delay has run out.
    #[cold]
    #[inline(never)]
    fn release_large_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, addr, len)) = self.large_purge.front() {
            if due > now {
                break;
            }
            self.large_purge.pop_front();
            let free = self
                .large_free
                .as_mut()
                .expect("only queued with a large free list");
            if free.get(&(len, addr)) == Some(&due) {
                free.remove(&(len, addr));
                mem.release(addr, len)?;
            }
        }
        Ok(())
    }

    /// Carries out the delayed decommits due by `now`.
    #[cold]
    #[inline(never)]
    fn purge_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, si, generation, first, n)) = self.purge.front() {
            if due > now {
                break;
            }
            self.purge.pop_front();
            // A segment released since, and its successor in the table, are left alone;
            // slots reused or freed again since are skipped by their due time.
            let same = self.segments[si as usize]
                .as_ref()
                .is_some_and(|seg| seg.generation == generation);
            if same {
                self.decommit_units(mem, si, first, n, true)?;
                self.release_if_empty(mem, si)?;
            }
        }
        Ok(())
    }
}

impl SizeClass {
    /// [`Policy::tick`] once something may be due: carries out what is, then finds when
    /// the next thing will be.
    #[cold]
    #[inline(never)]
    fn tick_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        if self
            .large_purge
            .front()
            .is_some_and(|&(due, ..)| due <= now)
        {
            self.release_large_due(mem, now)?;
        }
        if self.purge.front().is_some_and(|&(due, ..)| due <= now) {
            self.purge_due(mem, now)?;
        }
        let large = self.large_purge.front().map_or(u64::MAX, |e| e.0);
        let pages = self.purge.front().map_or(u64::MAX, |e| e.0);
        self.next_due = large.min(pages);
        Ok(())
    }
}

impl Policy for SizeClass {
    #[inline]
    fn alloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_align(align)?;
        check_size(size)?;
        let size = size.max(1);
        if size > self.large_threshold || align > self.page_size() {
            return self.alloc_large(mem, size, align, thread);
        }
        let mut class = self.class_of(size);
        if align > self.granularity {
            // Blocks are aligned to the largest power of two dividing the class size, so
            // an over-aligned request moves up to a class that is a multiple of it.
            while (class as usize) < self.classes.len()
                && !self.classes[class as usize].is_multiple_of(align)
            {
                class += 1;
            }
            if class as usize == self.classes.len() {
                return self.alloc_large(mem, size, align, thread);
            }
        }
        // The thread cache first: its blocks are still in use as far as their spans know.
        if self.thread_cache > 0 {
            if let Some(tc) = self.tcaches.get_mut(thread) {
                if let Some((id, index)) = tc.lists[class as usize].pop() {
                    let span = &mut self.spans[id as usize];
                    tc.bytes -= span.block;
                    span.tcached -= 1;
                    let (w, bit) = Span::bit(index);
                    span.in_use[w] |= bit;
                    return Ok(span.base + u64::from(index) * span.block);
                }
            }
        }
        let heap = self.heap_of(thread);
        if !self.heaps[heap as usize].remote[class as usize].is_empty() {
            self.collect_remote(mem, heap, class)?;
        }
        let id = match self.heaps[heap as usize].queues[class as usize].last() {
            Some(&id) => id,
            None => self.new_span(mem, heap, class)?,
        };
        let span = &mut self.spans[id as usize];
        let index = match span.free.pop() {
            Some(i) => i,
            None => {
                span.extent += 1;
                span.extent - 1
            }
        };
        span.used += 1;
        let (w, bit) = Span::bit(index);
        span.in_use[w] |= bit;
        let addr = span.base + u64::from(index) * span.block;
        if span.used == span.capacity {
            self.queue_remove(id);
        }
        Ok(addr)
    }

    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError> {
        // Blocks in segments are found through their segment, and no large mapping lies in
        // one (segments are reserved whole and aligned to their size), so the large map is
        // asked only when the segment lookup fails.
        let span = self.span_of(block.addr);
        if span.is_none() {
            if let Some(len) = self.large.remove(&block.addr) {
                return self.free_large(mem, block.addr, len);
            }
        }
        let id = span.ok_or_else(|| {
            AllocError::Invalid(format!(
                "free of {:#x}, which this heap never handed out",
                block.addr
            ))
        })?;
        let local = self.is_local(thread, self.spans[id as usize].heap);
        let span = &mut self.spans[id as usize];
        let (index, at_start) = span.index_of(block.addr - span.base);
        let (w, bit) = Span::bit(index);
        if !at_start || index >= span.extent || span.in_use[w] & bit == 0 {
            return Err(AllocError::Invalid(format!(
                "free of {:#x}, which is not a block in use",
                block.addr
            )));
        }
        span.in_use[w] &= !bit;
        if span.class == LARGE {
            // A large block goes back at once, whichever thread frees it.
            span.used = 0;
            return self.retire_span(mem, id);
        }
        let (class, block_size, heap) = (span.class, span.block, span.heap);
        // The free-list link is written into the freed block.
        mem.touch(block.addr, block_size.min(8))?;
        let span = &mut self.spans[id as usize];
        if !local {
            span.remote.push(index);
            if !span.in_remote {
                span.in_remote = true;
                self.heaps[heap as usize].remote[class as usize].push(id);
            }
            return Ok(());
        }
        if self.thread_cache > 0 {
            let classes = self.classes.len();
            let tc = self.tcaches.get_or_insert_with(thread, || ThreadCache {
                lists: vec![Vec::new(); classes],
                bytes: 0,
            });
            if tc.bytes + block_size <= self.thread_cache {
                tc.bytes += block_size;
                tc.lists[class as usize].push((id, index));
                span.tcached += 1;
                return Ok(());
            }
        }
        span.free.push(index);
        span.used -= 1;
        let was_full = span.qpos == NONE;
        // `settle` makes the same test, but called plainly here it cost ten instructions
        // per event more (callgrind, `churn`: 315 → 325) in the code around the call.
        if was_full || span.used == 0 {
            self.settle(mem, id, was_full)?;
        }
        Ok(())
    }

    /// A free reads the span's record, then the word of its in-use bitmap and the end of
    /// its free list, and writes a link into the block. With a million live blocks each is
    /// a miss, and the bitmap and list are found through the record: so the record is
    /// fetched at stage 0 and, read at stage 1, tells where the other two are.
    const HINTS_FREE: bool = true;

    #[inline(always)]
    fn prefetch_free<P: PageProvider>(&self, mem: &Pages<P>, block: &Block, stage: u32) {
        let Some(id) = self.span_of_quietly(block.addr) else {
            return;
        };
        let Some(span) = self.spans.get(id as usize) else {
            return;
        };
        if stage == 0 {
            prefetch_whole(span);
            return;
        }
        let Some(offset) = block.addr.checked_sub(span.base) else {
            return;
        };
        let (w, _) = Span::bit(span.index_of(offset).0);
        if let Some(word) = span.in_use.get(w) {
            prefetch(word);
        }
        if let Some(last) = span.free.last() {
            prefetch(last);
        }
        mem.prefetch(block.addr);
    }

    fn realloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_size(new_size)?;
        if !block.addr.is_multiple_of(align) {
            return super::free_list::default_realloc(self, mem, block, new_size, align, thread);
        }
        let size = new_size.max(1);
        if let Some(&len) = self.large.get(&block.addr) {
            // A mapping reused from the large free list may be larger than its block.
            let fits = if self.large_free.is_some() {
                (len / 2..=len).contains(&mem.round_up(new_size))
            } else {
                mem.round_up(new_size) == len
            };
            if new_size > self.large_threshold && fits {
                return Ok(block.addr);
            }
        } else if let Some(id) = self.span_of(block.addr) {
            let span = &self.spans[id as usize];
            let same = if span.class == LARGE {
                size > self.large_threshold
                    && size <= self.shared_large_limit()
                    && size.div_ceil(self.page_size()) == u64::from(span.slots)
            } else {
                size <= self.large_threshold && self.class_of(size) == span.class
            };
            if same {
                return Ok(block.addr);
            }
        }
        super::free_list::default_realloc(self, mem, block, new_size, align, thread)
    }

    #[inline]
    fn tick<P: PageProvider>(&mut self, mem: &mut Pages<P>, now: u64) -> Result<(), AllocError> {
        self.now = now;
        // Most events find nothing due.
        if now < self.next_due {
            return Ok(());
        }
        self.tick_due(mem, now)
    }

    fn metadata_bytes(&self) -> u64 {
        let segments = self.segments.iter().flatten().count() as u64;
        let large = self.large.len() + self.large_free.as_ref().map_or(0, BTreeMap::len);
        self.live_spans * SPAN_META + segments * SEGMENT_META + large as u64 * SPAN_META
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        let retired: FxHashSet<u32> = self.free_span_ids.iter().copied().collect();
        if retired.len() != self.free_span_ids.len() {
            return Err("a span id is free twice".into());
        }
        // Blocks held in thread caches, per span, checked against the spans below.
        let mut in_caches: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (thread, tc) in self.tcaches.iter() {
            let mut bytes = 0;
            for (class, list) in tc.lists.iter().enumerate() {
                for &(id, index) in list {
                    let span = self
                        .spans
                        .get(id as usize)
                        .filter(|_| !retired.contains(&id));
                    let Some(span) = span else {
                        return Err(format!("thread {thread} caches a block of dead span {id}"));
                    };
                    if span.class as usize != class || span.cpos != NONE {
                        return Err(format!(
                            "thread {thread} caches a block of span {id} in the wrong class"
                        ));
                    }
                    if self.per_thread && self.thread_heaps.get(thread) != Some(span.heap) {
                        return Err(format!(
                            "thread {thread} caches a block of another heap's span {id}"
                        ));
                    }
                    bytes += span.block;
                    in_caches.entry(id).or_default().push(index);
                }
            }
            if bytes != tc.bytes || bytes > self.thread_cache {
                return Err(format!(
                    "thread {thread} cache holds {bytes} bytes, counter {}, limit {}",
                    tc.bytes, self.thread_cache
                ));
            }
        }
        let mut live = 0;
        let mut cached_per_heap = vec![(0u32, 0u64); self.heaps.len()];
        for (id, span) in self.spans.iter().enumerate() {
            let id = id as u32;
            if retired.contains(&id) {
                continue;
            }
            live += 1;
            let seg = self.segments[span.seg as usize]
                .as_ref()
                .ok_or_else(|| format!("span {id} lies in a released segment"))?;
            if seg.heap != span.heap {
                return Err(format!(
                    "span {id} of heap {} lies in a segment of heap {}",
                    span.heap, seg.heap
                ));
            }
            for s in &seg.slots[span.first as usize..(span.first + span.slots) as usize] {
                if s.owner != id || !s.committed || s.pending {
                    return Err(format!("span {id} does not own committed slots: {s:?}"));
                }
            }
            if !mem.is_committed(span.base, u64::from(span.slots) << self.page_shift) {
                return Err(format!("span {id} memory is not committed"));
            }
            let heap = self
                .heaps
                .get(span.heap as usize)
                .ok_or_else(|| format!("span {id} names heap {}, which is not", span.heap))?;
            let bits: u32 = span.in_use.iter().map(|w| w.count_ones()).sum();
            if span.cpos != NONE {
                // A cached span is empty and sits in its heap's list for its slot count.
                if bits != 0 || span.used != 0 || span.tcached != 0 || !span.remote.is_empty() {
                    return Err(format!("cached span {id} is not empty"));
                }
                if span.qpos != NONE || span.in_remote {
                    return Err(format!("cached span {id} is also queued"));
                }
                let list = heap.cache.get(&span.slots);
                if list.and_then(|l| l.get(span.cpos as usize)) != Some(&id) {
                    return Err(format!("span {id} is not where its cache position says"));
                }
                let aged = heap
                    .cache_age
                    .iter()
                    .filter(|&&(s, stamp)| s == id && stamp == span.stamp)
                    .count();
                if aged != 1 {
                    return Err(format!("cached span {id} is {aged} times in the age queue"));
                }
                let c = &mut cached_per_heap[span.heap as usize];
                c.0 += 1;
                c.1 += u64::from(span.slots) << self.page_shift;
                continue;
            }
            if self.empty != EmptyPages::Cache && span.class == LARGE && span.used == 0 {
                return Err(format!("empty large span {id} was not retired"));
            }
            if span.class == LARGE {
                if span.used != 1 || bits != 1 || span.capacity != 1 || span.extent != 1 {
                    return Err(format!("large span {id} does not hold exactly one block"));
                }
                if span.qpos != NONE || span.in_remote || span.tcached != 0 {
                    return Err(format!("large span {id} is queued or cached"));
                }
                continue;
            }
            // Every block below the extent is exactly one of: held by the program, free,
            // freed remotely, or in a thread cache.
            let cached_here = in_caches.get(&id).map_or(&[][..], Vec::as_slice);
            if cached_here.len() != span.tcached as usize {
                return Err(format!(
                    "span {id}: {} blocks in thread caches, counter {}",
                    cached_here.len(),
                    span.tcached
                ));
            }
            let mut seen = span.in_use.clone();
            for &index in span.free.iter().chain(&span.remote).chain(cached_here) {
                let (w, bit) = Span::bit(index);
                if index >= span.extent || seen[w] & bit != 0 {
                    return Err(format!("span {id}: block {index} is accounted twice"));
                }
                seen[w] |= bit;
            }
            if bits + span.remote.len() as u32 + span.tcached != span.used
                || span.used as usize + span.free.len() != span.extent as usize
            {
                return Err(format!(
                    "span {id}: {} in use by bitmap, {} remote, {} cached, counter {}, {} \
                     free of extent {}",
                    bits,
                    span.remote.len(),
                    span.tcached,
                    span.used,
                    span.free.len(),
                    span.extent
                ));
            }
            if span.extent > span.capacity {
                return Err(format!("span {id} handed out more blocks than it holds"));
            }
            let queued = span.qpos != NONE;
            if queued != (span.used < span.capacity) {
                return Err(format!(
                    "span {id} queue membership disagrees with its fill"
                ));
            }
            if queued && heap.queues[span.class as usize].get(span.qpos as usize) != Some(&id) {
                return Err(format!("span {id} is not where its queue position says"));
            }
            if queued && span.used == 0 && heap.queues[span.class as usize].len() > 1 {
                return Err(format!("empty span {id} is not the only one of its class"));
            }
            let listed = heap.remote[span.class as usize]
                .iter()
                .filter(|&&s| s == id)
                .count();
            if span.in_remote == span.remote.is_empty() || listed != usize::from(span.in_remote) {
                return Err(format!(
                    "span {id} has {} remote frees and is listed {listed} times",
                    span.remote.len()
                ));
            }
        }
        if live != self.live_spans {
            return Err(format!(
                "{live} live spans, counter says {}",
                self.live_spans
            ));
        }
        for (h, heap) in self.heaps.iter().enumerate() {
            let listed: usize = heap.cache.values().map(Vec::len).sum();
            let (spans, bytes) = cached_per_heap[h];
            if listed != spans as usize
                || spans != heap.cached_spans
                || bytes != heap.cache_bytes
                || bytes > self.cache_cap
            {
                return Err(format!(
                    "heap {h} caches {spans} spans of {bytes} bytes; its counters say {} and \
                     {}, its lists {listed}, its cap {}",
                    heap.cached_spans, heap.cache_bytes, self.cache_cap
                ));
            }
            for (class, q) in heap.queues.iter().enumerate() {
                for &id in q {
                    let s = &self.spans[id as usize];
                    if retired.contains(&id) || s.heap as usize != h || s.class as usize != class {
                        return Err(format!("heap {h} queues span {id}, which is not its own"));
                    }
                }
            }
            for (class, list) in heap.remote.iter().enumerate() {
                for &id in list {
                    let s = &self.spans[id as usize];
                    if retired.contains(&id) || s.heap as usize != h || s.class as usize != class {
                        return Err(format!(
                            "heap {h} lists span {id} with remote frees, which is not its own"
                        ));
                    }
                }
            }
        }
        for (si, seg) in self.segments.iter().enumerate() {
            let Some(seg) = seg else { continue };
            let free = seg.slots.iter().filter(|s| s.owner == NONE).count() as u32;
            if free != seg.free_slots {
                return Err(format!(
                    "segment {si}: {free} free slots, counter says {}",
                    seg.free_slots
                ));
            }
            if self.seg_index.get(&(seg.base >> self.seg_shift)) != Some(&(si as u32)) {
                return Err(format!("segment {si} is missing from the address index"));
            }
            for (i, s) in seg.slots.iter().enumerate() {
                let addr = seg.base + ((i as u64) << self.page_shift);
                if s.committed != mem.is_committed(addr, 1 << self.page_shift) {
                    return Err(format!(
                        "segment {si} slot {i} commit state disagrees with the page map"
                    ));
                }
                if s.pending && (s.owner != NONE || !s.committed) {
                    return Err(format!("segment {si} slot {i} is pending but {s:?}"));
                }
                if s.owner != NONE {
                    let span = self.spans.get(s.owner as usize);
                    let covers = span.is_some_and(|sp| {
                        sp.seg as usize == si
                            && (sp.first..sp.first + sp.slots).contains(&(i as u32))
                    });
                    if !covers || retired.contains(&s.owner) {
                        return Err(format!("segment {si} slot {i} names a span not there"));
                    }
                }
            }
            // Commit units are committed whole, and decommit never splits them; only memory
            // reused from a provider that cannot release may come partly committed.
            if mem.caps().can_release {
                for (u, unit) in seg.slots.chunks(self.commit_slots as usize).enumerate() {
                    if unit.iter().any(|s| s.committed != unit[0].committed) {
                        return Err(format!("segment {si} commit unit {u} is partly committed"));
                    }
                }
            }
        }
        for (&addr, &len) in &self.large {
            if !mem.is_committed(addr, len) {
                return Err(format!("large block {addr:#x} is not committed"));
            }
        }
        for &(len, addr) in self.large_free.iter().flat_map(BTreeMap::keys) {
            if self.large.contains_key(&addr) {
                return Err(format!("large mapping {addr:#x} is both in use and free"));
            }
            if !mem.is_committed(addr, len) {
                return Err(format!("kept large mapping {addr:#x} is not committed"));
            }
        }
        Ok(())
    }
}

/// The class sizes: multiples of the granule up to 8 granules, then `per_doubling` classes
/// per power of two, each a multiple of the granule, up to and including the threshold.
fn class_sizes(granularity: u64, per_doubling: u64, threshold: u64) -> Vec<u64> {
    let mut sizes: Vec<u64> = (1..=8).map(|i| i * granularity).collect();
    let mut base = 8 * granularity;
    while *sizes.last().expect("non-empty") < threshold {
        let step = (base / per_doubling).next_multiple_of(granularity);
        let mut s = base + step;
        while s <= 2 * base {
            sizes.push(s);
            s += step;
        }
        if *sizes.last().expect("non-empty") != 2 * base {
            sizes.push(2 * base);
        }
        base *= 2;
    }
    sizes.dedup();
    while sizes.len() > 1 && sizes[sizes.len() - 2] >= threshold {
        sizes.pop();
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_of_divides_exactly() {
        let mut blocks: Vec<u64> = class_sizes(8, 4, 1 << 20);
        blocks.extend([8, 24, 4096, 3 << 12, (1 << 29) + 4096, 1 << 30]);
        for &block in &blocks {
            let span = Span {
                block,
                recip: Span::recip_of(block),
                ..Span::empty()
            };
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for k in 0..2000u64 {
                // Offsets near multiples of the block, and spread up to a 1 GiB segment.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = if k % 2 == 0 {
                    ((x % (1 << 30)) / block * block)
                        .wrapping_add(k % 3)
                        .wrapping_sub(1)
                } else {
                    x % (1 << 30)
                } % (1 << 30);
                let (i, at_start) = span.index_of(n);
                assert_eq!(u64::from(i), n / block, "{n} / {block}");
                assert_eq!(at_start, n % block == 0, "{n} % {block}");
            }
        }
    }

    #[test]
    fn class_sizes_follow_the_spacing() {
        let c = class_sizes(16, 4, 1024);
        assert_eq!(&c[..8], &[16, 32, 48, 64, 80, 96, 112, 128]);
        assert_eq!(&c[8..12], &[160, 192, 224, 256]);
        assert_eq!(*c.last().unwrap(), 1024);
        let pow2 = class_sizes(8, 1, 4096);
        assert_eq!(&pow2[8..], &[128, 256, 512, 1024, 2048, 4096]);
    }

    use crate::provider::{SimMode, SimProvider};

    fn policy(given: &[(&str, &str)]) -> (SizeClass, Pages<SimProvider>) {
        let given = given
            .iter()
            .map(|&(k, v)| (k.to_string(), serde_json::Value::from(v)))
            .collect();
        let params = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        let mem = Pages::new(SimProvider::new(SimMode::Os, 4096));
        (SizeClass::new(&params, 4096).unwrap(), mem)
    }

    fn block(addr: Addr, size: u64) -> Block {
        Block {
            addr,
            size,
            arena: None,
        }
    }

    #[test]
    fn a_block_freed_by_another_thread_waits_for_its_owner() {
        let (mut p, mut mem) = policy(&[]);
        let a: Vec<Addr> = (0..3)
            .map(|_| p.alloc(&mut mem, 64, 16, None, 1).unwrap())
            .collect();
        // Thread 2 frees thread 1's block: it goes on the span's remote list, still in use
        // as far as the span knows.
        p.free(&mut mem, block(a[0], 64), 2).unwrap();
        p.check_invariants(&mem).unwrap();
        let owner = p.span_of(a[0]).unwrap();
        assert_eq!(p.spans[owner as usize].used, 3);
        assert_eq!(p.spans[owner as usize].remote, vec![0]);
        // Thread 2 allocates from a span of its own heap.
        let b = p.alloc(&mut mem, 64, 16, None, 2).unwrap();
        assert_ne!(p.span_of(b), Some(owner));
        // The owner collects the remote free on its next allocation in the class and hands
        // the block out again.
        assert_eq!(p.alloc(&mut mem, 64, 16, None, 1).unwrap(), a[0]);
        assert!(p.spans[owner as usize].remote.is_empty());
        p.check_invariants(&mem).unwrap();
        // A free of a remotely freed block, before collection, is caught.
        p.free(&mut mem, block(a[1], 64), 3).unwrap();
        assert!(p.free(&mut mem, block(a[1], 64), 1).is_err());

        // With one shared heap the same free is an ordinary one.
        let (mut p, mut mem) = policy(&[("heaps", "shared")]);
        let a = p.alloc(&mut mem, 64, 16, None, 1).unwrap();
        p.alloc(&mut mem, 64, 16, None, 1).unwrap();
        p.free(&mut mem, block(a, 64), 2).unwrap();
        assert_eq!(p.alloc(&mut mem, 64, 16, None, 2).unwrap(), a);
        p.check_invariants(&mem).unwrap();
    }

    #[test]
    fn thread_caches_keep_spans_from_emptying() {
        let (mut p, mut mem) = policy(&[("thread_cache", "1KiB"), ("empty_pages", "decommit")]);
        // Two spans of 8 KiB blocks (8 to a 64 KiB page), then the first one freed: the
        // cache is too small for them, so the span empties and is decommitted.
        let a: Vec<Addr> = (0..9)
            .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
            .collect();
        for &x in &a[..8] {
            p.free(&mut mem, block(x, 8192), 0).unwrap();
        }
        assert_eq!(mem.stats().decommit_ops, 1);
        // 64-byte blocks fit: the cache holds 16 of them and their span cannot retire.
        let b: Vec<Addr> = (0..2048)
            .map(|_| p.alloc(&mut mem, 64, 16, None, 0).unwrap())
            .collect();
        for &x in &b[..16] {
            p.free(&mut mem, block(x, 64), 0).unwrap();
        }
        assert_eq!(p.tcaches[&0].bytes, 1024);
        p.check_invariants(&mem).unwrap();
        // The cache hands its newest block out first.
        assert_eq!(p.alloc(&mut mem, 64, 16, None, 0).unwrap(), b[15]);
        p.check_invariants(&mem).unwrap();
    }

    /// Commit and decommit calls for 17 blocks of 8 KiB (three one-page spans, the last
    /// with one block) of which the first 16 are freed, in a 1 MiB segment.
    fn ops_for(given: &[(&str, &str)]) -> (u64, u64) {
        let mut all = vec![("segment_size", "1MiB"), ("empty_pages", "decommit")];
        all.extend_from_slice(given);
        let (mut p, mut mem) = policy(&all);
        let a: Vec<Addr> = (0..17)
            .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
            .collect();
        for &x in &a[..16] {
            p.free(&mut mem, block(x, 8192), 0).unwrap();
            p.check_invariants(&mem).unwrap();
        }
        (mem.stats().commit_ops, mem.stats().decommit_ops)
    }

    #[test]
    fn memory_is_committed_and_decommitted_in_whole_units() {
        // A page at a time (mimalloc): a commit per span, a decommit per emptied span.
        assert_eq!(ops_for(&[]), (3, 2));
        // Two pages at a time: the second span lies in the first unit, which goes back
        // only when both of its spans are empty.
        assert_eq!(ops_for(&[("commit_granularity", "128KiB")]), (2, 1));
        // Decommit only whole 256 KiB units: the third span is still live in the first.
        assert_eq!(ops_for(&[("decommit_granularity", "256KiB")]), (3, 0));
        // The whole segment at once (snmalloc): one commit, nothing given back.
        assert_eq!(ops_for(&[("commit_granularity", "1MiB")]), (1, 0));
        let e = policy_error(&[("commit_granularity", "32KiB")]);
        assert!(e.contains("power of two from 65536"), "{e}");
    }

    fn policy_error(given: &[(&str, &str)]) -> String {
        let given = given
            .iter()
            .map(|&(k, v)| (k.to_string(), serde_json::Value::from(v)))
            .collect();
        let params = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        SizeClass::new(&params, 4096).unwrap_err().to_string()
    }

    #[test]
    fn freed_large_mappings_wait_on_a_free_list_and_are_reused() {
        let (mut p, mut mem) = policy(&[("large_free", "delay"), ("decommit_delay", "100")]);
        let a = p.alloc(&mut mem, 1 << 20, 16, None, 0).unwrap();
        p.free(&mut mem, block(a, 1 << 20), 0).unwrap();
        p.check_invariants(&mem).unwrap();
        // Kept committed: nothing released, and a request of up to the same size reuses it
        // without a page operation.
        assert_eq!(mem.stats().release_ops, 0);
        let ops = mem.stats().page_ops();
        let b = p.alloc(&mut mem, 700_000, 16, None, 0).unwrap();
        assert_eq!((b, mem.stats().page_ops()), (a, ops));
        // A request less than half its size does not take it.
        p.free(&mut mem, block(b, 700_000), 0).unwrap();
        let c = p.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
        assert_ne!(c, a);
        p.check_invariants(&mem).unwrap();
        // Once the delay has passed, the kept mapping goes back to the OS.
        p.tick(&mut mem, 50).unwrap();
        assert_eq!(mem.stats().release_ops, 0);
        p.tick(&mut mem, 100).unwrap();
        assert_eq!(mem.stats().release_ops, 1);
        assert!(!mem.is_committed(a, 1));
        p.check_invariants(&mem).unwrap();
    }

    #[test]
    fn per_thread_heaps_cut_spans_from_segments_of_their_own() {
        let (mut p, mut mem) = policy(&[("heaps", "per-thread")]);
        let a = p.alloc(&mut mem, 100, 16, None, 0).unwrap();
        let b = p.alloc(&mut mem, 100, 16, None, 1).unwrap();
        let seg = |addr: Addr| addr >> p.seg_shift;
        assert_ne!(seg(a), seg(b));
        // A cross-thread free goes back to the owner's segment, not the freeing thread's.
        p.free(&mut mem, block(a, 100), 1).unwrap();
        p.check_invariants(&mem).unwrap();
    }

    #[test]
    fn shared_pages_serve_large_blocks_and_empty_segments_go_back() {
        let (mut p, mut mem) = policy(&[("share_small_large", "true")]);
        let small = p.alloc(&mut mem, 100, 16, None, 0).unwrap();
        let large = p.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
        // Both in the same segment; a request above half a segment is mapped on its own.
        assert_eq!(small >> 22, large >> 22);
        let huge = p.alloc(&mut mem, 3 << 20, 16, None, 0).unwrap();
        assert!(p.large.contains_key(&huge));
        p.check_invariants(&mem).unwrap();
        let reserved = mem.stats().reserve_ops;
        p.free(&mut mem, block(large, 300_000), 1).unwrap();
        p.free(&mut mem, block(huge, 3 << 20), 0).unwrap();
        p.check_invariants(&mem).unwrap();
        // The segment still holds the small span, which stays (the only one of its class).
        assert_eq!(mem.stats().release_ops, 1);
        assert_eq!(p.alloc(&mut mem, 300_000, 16, None, 0).unwrap(), large);
        assert_eq!(mem.stats().reserve_ops, reserved);
    }

    #[test]
    fn the_span_cache_keeps_empty_spans_up_to_its_size() {
        let (mut p, mut mem) = policy(&[("empty_pages", "cache"), ("cache_size", "128KiB")]);
        // Four spans of 8 KiB blocks, three emptied: two stay cached, the oldest goes.
        let a: Vec<Addr> = (0..25)
            .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
            .collect();
        for &x in &a[..24] {
            p.free(&mut mem, block(x, 8192), 0).unwrap();
        }
        p.check_invariants(&mem).unwrap();
        assert_eq!(p.heaps[0].cached_spans, 2);
        assert_eq!(mem.stats().decommit_ops, 1);
        assert!(!mem.is_committed(a[0], 1));
        // A new span of one page comes from the cache, committed already.
        let commits = mem.stats().commit_ops;
        for _ in 0..8 {
            p.alloc(&mut mem, 8192, 16, None, 0).unwrap();
        }
        p.alloc(&mut mem, 4096, 16, None, 0).unwrap();
        assert_eq!(mem.stats().commit_ops, commits);
        p.check_invariants(&mem).unwrap();
    }
}
