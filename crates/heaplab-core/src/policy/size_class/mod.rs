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

mod delays;
mod expiry;
mod heaps;
mod invariants;
mod large;
mod params;
mod pieces;
mod queues;
mod segments;
mod spans;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use rustc_hash::FxHashMap;

use self::heaps::{Heap, ThreadCache, ThreadHeaps};
use self::params::{Decay, EmptyPages, FreeLists, Heaps, Knobs, LargeFree, PageQueues, PurgeOn};
use self::segments::{Segment, NO_SEG};
use self::spans::Span;
use super::{AllocError, Block, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, Params};
use crate::prefetch::{prefetch, prefetch_whole};
use crate::provider::{Addr, PageProvider};
use crate::small_map::ThreadMap;

pub use self::params::FAMILY;

const NONE: u32 = u32::MAX;
/// The owner of the slots that hold the allocator's own metadata (`arena_metadata`).
const METADATA: u32 = u32::MAX - 1;

/// The class of a span that holds one large block carved from segment slots.
const LARGE: u32 = u32::MAX;

/// The largest block mimalloc's allocation fast path serves (MI_SMALL_SIZE_MAX, 128
/// words, types.h); larger requests all take `_mi_malloc_generic`.
const GENERIC_ABOVE: u64 = 1024;

/// A span descriptor should stay small; mimalloc's `mi_page_t` is about this size.
const SPAN_META: u64 = 80;
const SEGMENT_META: u64 = 128;

/// A segregated-fit, size-class slab allocator.
#[derive(Clone, Debug)]
pub struct SizeClass {
    granularity: u64,
    /// `log2` of the step of `small_lut`: the granularity, or the tiny class below it (both
    /// powers of two, as the registry keeps them).
    lut_shift: u32,
    page_shift: u32,
    seg_shift: u32,
    slots_per_seg: u32,
    /// Slots of a span of a class above `small_max` under mimalloc's page kinds
    /// (`medium_page_size`), or 0 for spans of at least eight blocks.
    medium_slots: u32,
    /// The largest block of a one-page span and of a medium page: pages of
    /// `page_min_blocks` blocks.
    small_max: u64,
    medium_max: u64,
    /// Slots of a large page (`large_page_size`), or 0; the largest block that goes in one.
    large_slots: u32,
    large_max: u64,
    /// Whether a medium page starts at a multiple of its slots (`medium_pages_aligned`).
    medium_aligned: bool,
    /// `dirty_max_fit`: the largest multiple of a request a resident free run is split
    /// for, with resident and given-back runs kept apart; 0 when runs are not told apart.
    dirty_max_fit: u32,
    large_threshold: u64,
    empty: EmptyPages,
    /// The delay of `empty_pages = delay` and `large_free = delay` in events, and in
    /// nanoseconds (0 when not given); which one counts is [`SizeClass::timed`].
    delay_events: u64,
    delay_ns: u64,
    /// `purge_extend_ms` in nanoseconds: 0, or the per-segment expiry of mimalloc 2.0.
    extend_ns: u64,
    /// Under a segment expiry, each expiry set, as (expiry, segment, generation), earliest
    /// on top; entries no longer in force are dropped lazily (see `expiry.rs`).
    expiries: BinaryHeap<Reverse<(u64, u32, u64)>>,
    /// Whether this run's delays count nanoseconds: a time delay was given and the run's
    /// every event has a time. A run's clock gives every event a time or none, so the
    /// first tick decides it for the whole run ([`SizeClass::read_clock`]).
    timed: bool,
    /// Whether the first tick has come and decided `timed`.
    clock_read: bool,
    /// `purge_on = slow-path`: due decommits wait for a call on the slow path, which
    /// sets `slow` until the tick after it.
    slow_path_only: bool,
    slow: bool,
    /// `retire_cycles`: collections an emptied only span of its class waits (0: it stays
    /// until another span of its class has room); the spans waiting; and the generic
    /// allocations since the last collection.
    retire_cycles: u32,
    retired: Vec<u32>,
    generic_calls: u32,
    /// `page_queues = mimalloc2`: mimalloc 2.0's page and span queues (see `queues.rs`).
    mimalloc2: bool,
    /// `page_offset`: bytes before the first block of a span of blocks up to 1 KiB.
    page_offset: u64,
    /// `decay = smootherstep`: the end of the current decay epoch, when the pages emptied
    /// within the delay are held to the curve (`u64::MAX` while none wait).
    smooth: bool,
    next_epoch: u64,
    /// Under `decay = smootherstep`, the spans emptied within the delay: (when, slots).
    emptied: VecDeque<(u64, u32)>,
    cache_cap: u64,
    /// Slots per commit unit and per decommit unit.
    commit_slots: u32,
    decommit_slots: u32,
    per_thread: bool,
    /// `huge_pages`: segments and large mappings are advised for transparent huge pages.
    huge_pages: bool,
    /// `arena_metadata`, in slots at the start of the first segment, and whether that
    /// segment has been made.
    metadata_slots: u32,
    metadata_placed: bool,
    /// `free_lists = sharded`: a span's own frees wait on `local_free` (mimalloc).
    sharded: bool,
    /// `min_extend`: the fewest never-used blocks a sharded span's refill links in.
    min_extend: u64,
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
        let knobs = Knobs::read(params);
        let names = Knobs::NAMES;
        let granularity = knobs.granularity;
        let per_doubling = knobs.classes_per_doubling;
        let page_size = match knobs.page_size {
            0 => os_page,
            page => page,
        };
        let segment_size = knobs.segment_size;
        let large_threshold = knobs.large_threshold;
        let field = |name: &str, message: String| ParamError {
            field: format!("policy.params.{name}"),
            message,
        };
        if page_size < os_page {
            return Err(field(
                names.page_size,
                format!("{page_size} is smaller than the provider's page size {os_page}"),
            ));
        }
        if segment_size < page_size {
            return Err(field(
                names.segment_size,
                format!("{segment_size} is smaller than page_size {page_size}"),
            ));
        }
        if large_threshold > segment_size / 2 {
            return Err(field(
                names.large_threshold,
                format!("{large_threshold} is more than half of segment_size {segment_size}"),
            ));
        }
        let medium = knobs.medium_page_size;
        if medium != 0
            && (!medium.is_power_of_two() || medium < 2 * page_size || medium > segment_size)
        {
            return Err(field(
                names.medium_page_size,
                format!(
                    "{medium} is not 0 or a power of two from twice page_size {page_size} to \
                     segment_size {segment_size}"
                ),
            ));
        }
        let large = knobs.large_page_size;
        if large != 0
            && (medium == 0 || !large.is_power_of_two() || large <= medium || large > segment_size)
        {
            return Err(field(
                names.large_page_size,
                format!(
                    "{large} is not 0 or, with medium_page_size, a power of two above \
                     medium_page_size {medium} up to segment_size {segment_size}"
                ),
            ));
        }
        if knobs.arena_metadata >= segment_size {
            return Err(field(
                names.arena_metadata,
                format!(
                    "{} leaves no room in segment_size {segment_size}",
                    knobs.arena_metadata
                ),
            ));
        }
        if knobs.page_offset >= page_size / 2 {
            return Err(field(
                names.page_offset,
                format!(
                    "{} is not less than half of page_size {page_size}",
                    knobs.page_offset
                ),
            ));
        }
        // A unit is a power of two between `floor` and the segment; 0 picks the floor.
        let unit = |name: &str, v: u64, floor: u64| -> Result<u64, ParamError> {
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
        let commit_unit = unit(
            names.commit_granularity,
            knobs.commit_granularity,
            page_size,
        )?;
        // A decommit unit below the commit unit gives back pages of memory committed in
        // larger pieces; a slot given back is committed again, with the rest of its
        // commit unit that was given back, when it is next used.
        let decommit_unit = match knobs.decommit_granularity {
            0 => commit_unit,
            v => unit(names.decommit_granularity, v, page_size)?,
        };
        let classes = class_sizes(granularity, per_doubling, large_threshold, knobs.tiny_class);
        let small_limit = (granularity * 64).min(*classes.last().expect("at least one class"));
        // The table's step is the smallest class, so that a tiny class has entries of its
        // own.
        let lut_step = classes[0].min(granularity);
        let small_lut = (0..=small_limit / lut_step)
            .map(|g| classes.partition_point(|&c| c < g * lut_step) as u32)
            .collect();
        let cache_cap = match knobs.cache_size {
            0 => segment_size,
            n => n,
        };
        Ok(SizeClass {
            granularity,
            lut_shift: lut_step.trailing_zeros(),
            page_shift: page_size.trailing_zeros(),
            seg_shift: segment_size.trailing_zeros(),
            slots_per_seg: (segment_size / page_size) as u32,
            medium_slots: (medium / page_size) as u32,
            small_max: page_size / knobs.page_min_blocks,
            medium_max: medium / knobs.page_min_blocks,
            large_slots: (large / page_size) as u32,
            large_max: large / spans::MIN_BLOCKS_PER_SPAN,
            medium_aligned: knobs.medium_pages_aligned,
            dirty_max_fit: knobs.dirty_max_fit as u32,
            large_threshold,
            empty: knobs.empty_pages,
            delay_events: knobs.decommit_delay,
            delay_ns: knobs.decommit_ms * 1_000_000,
            extend_ns: knobs.purge_extend_ms * 1_000_000,
            expiries: BinaryHeap::new(),
            timed: false,
            clock_read: false,
            slow_path_only: knobs.purge_on == PurgeOn::SlowPath,
            slow: false,
            retire_cycles: knobs.retire_cycles as u32,
            retired: Vec::new(),
            generic_calls: 0,
            mimalloc2: knobs.page_queues == PageQueues::Mimalloc2,
            page_offset: knobs.page_offset,
            smooth: knobs.decay == Decay::Smootherstep,
            next_epoch: u64::MAX,
            emptied: VecDeque::new(),
            cache_cap,
            commit_slots: (commit_unit / page_size) as u32,
            decommit_slots: (decommit_unit / page_size) as u32,
            per_thread: knobs.heaps == Heaps::PerThread,
            huge_pages: knobs.huge_pages,
            metadata_slots: knobs.arena_metadata.div_ceil(page_size) as u32,
            metadata_placed: false,
            sharded: knobs.free_lists == FreeLists::Sharded,
            min_extend: knobs.min_extend,
            thread_cache: knobs.thread_cache,
            share: knobs.share_small_large,
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
            large_free: (knobs.large_free == LargeFree::Delay).then(BTreeMap::new),
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
            let step = 1 << self.lut_shift;
            self.small_lut[((size + step - 1) >> self.lut_shift) as usize]
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
}

impl Policy for SizeClass {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
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
                    let addr = span.start + u64::from(index) * span.block;
                    mem.note(|| crate::decision::Decision::CacheHit {
                        cache: "thread cache",
                        addr,
                    });
                    return Ok(addr);
                }
            }
        }
        let heap = self.heap_of(thread);
        if !self.heaps[heap as usize].remote[class as usize].is_empty() {
            self.collect_remote(mem, heap, class)?;
        }
        if self.mimalloc2 {
            self.pass_full(heap, class);
        }
        let id = match self.heaps[heap as usize].queues[class as usize].last() {
            Some(&id) => id,
            None => {
                mem.note(|| crate::decision::Decision::Search {
                    structure: "class",
                    index: self.classes[class as usize],
                    found: None,
                });
                self.new_span(mem, heap, class)?
            }
        };
        let span = &mut self.spans[id as usize];
        let mut index = span.free.pop();
        // mimalloc's fast path serves blocks up to 1 KiB from a page's free list; every
        // other allocation is a generic one, counted only where retired spans are.
        let generic = self.retire_cycles > 0 && (index.is_none() || span.block > GENERIC_ABOVE);
        if index.is_none() && self.sharded {
            index = span.refill(mem, self.min_extend)?;
        }
        let span = &mut self.spans[id as usize];
        let index = match index {
            Some(i) => i,
            None => {
                span.extent += 1;
                span.extent - 1
            }
        };
        let found = span.start + u64::from(index) * span.block;
        mem.note(|| crate::decision::Decision::Search {
            structure: "class",
            index: self.classes[class as usize],
            found: Some(found),
        });
        span.used += 1;
        let (w, bit) = Span::bit(index);
        span.in_use[w] |= bit;
        let addr = span.start + u64::from(index) * span.block;
        if span.used == span.capacity && !self.mimalloc2 {
            self.queue_remove(id);
        }
        if generic {
            // A span a generic allocation takes a block from stops waiting, and is retired
            // afresh when it empties again (page.c `mi_find_free_page` and free.c
            // `mi_free_block_local`); the fast path leaves the count as it was.
            self.spans[id as usize].retire = 0;
            self.generic_call(mem)?;
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
        // An address in a span's `page_offset` is before its first block.
        let (index, at_start) = match block.addr.checked_sub(span.start) {
            Some(offset) => span.index_of(offset),
            None => (0, false),
        };
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
            mem.note(|| crate::decision::Decision::RemoteFree {
                owner: heap,
                thread,
            });
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
                mem.note(|| crate::decision::Decision::Cached {
                    cache: "thread cache",
                    addr: block.addr,
                });
                return Ok(());
            }
        }
        if self.sharded {
            span.local_free.push(index);
            mem.note(|| crate::decision::Decision::Reason {
                why: "onto its span's local_free list, handed out only once the free list runs out",
            });
        } else {
            span.free.push(index);
        }
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
        let Some(offset) = block.addr.checked_sub(span.start) else {
            return;
        };
        let (w, _) = Span::bit(span.index_of(offset).0);
        if let Some(word) = span.in_use.get(w) {
            prefetch(word);
        }
        if let Some(last) = span.free.last() {
            prefetch(last);
        }
        if let Some(last) = span.local_free.last() {
            prefetch(last);
        }
        mem.prefetch(block.addr);
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
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
    fn tick<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: crate::clock::Now,
    ) -> Result<(), AllocError> {
        if !self.clock_read {
            self.read_clock(now);
        }
        debug_assert_eq!(
            self.timed,
            now.ns.is_some() && self.delay_ns > 0,
            "a run's clock gives every event a time or none"
        );
        let now = match now.ns {
            Some(ns) if self.timed => ns,
            _ => now.event,
        };
        self.now = now;
        let slow = std::mem::take(&mut self.slow);
        // Most events find nothing due.
        if now < self.next_due || (self.slow_path_only && !slow) {
            return Ok(());
        }
        self.tick_due(mem, now)
    }

    /// mimalloc 2.0 sets a segment's expiry from the time of the call that frees or takes
    /// a span, so a call after a pause reads the time after it.
    fn time_mark(&mut self, now: crate::clock::Now) {
        if let (true, Some(ns)) = (self.timed, now.ns) {
            self.now = self.now.max(ns);
        }
    }

    fn block_layout(&self, addr: Addr, size: u64) -> Option<crate::policy::BlockLayout> {
        self.layout(addr, size)
    }

    fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        self.pieces(out);
        true
    }

    fn regions(&self, out: &mut Vec<crate::policy::Region>) {
        self.span_regions(out);
    }

    fn metadata_bytes(&self) -> u64 {
        let segments = self.segments.iter().flatten().count() as u64;
        let large = self.large.len() + self.large_free.as_ref().map_or(0, BTreeMap::len);
        self.live_spans * SPAN_META + segments * SEGMENT_META + large as u64 * SPAN_META
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        self.check_structures(mem)
    }
}

/// The class sizes: an 8-byte `tiny` class below a larger granule, multiples of the granule
/// up to 8 granules, then `per_doubling` classes per power of two, each a multiple of the
/// granule, up to and including the threshold.
fn class_sizes(granularity: u64, per_doubling: u64, threshold: u64, tiny: bool) -> Vec<u64> {
    const TINY: u64 = 8;
    let mut sizes: Vec<u64> = (tiny && granularity > TINY)
        .then_some(TINY)
        .into_iter()
        .chain((1..=8).map(|i| i * granularity))
        .collect();
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
