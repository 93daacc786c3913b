//! The size-class family: segregated slabs as in mimalloc, rpmalloc, snmalloc and bmalloc.
//!
//! Address space comes in aligned segments (`segment_size`) cut into page slots
//! (`page_size`, the allocator's page, not the OS page). A span of one or more slots holds
//! blocks of one size class; each span has its own free list and a bump "extent" so blocks
//! are only touched when first handed out. Requests above `large_threshold` get their own
//! mapping. What happens to a span that empties is the policy question of scenarios S2 and
//! S3: keep its memory, decommit it at once, or decommit it after a delay unless reused.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::{check_align, check_size, AllocError, Block, FamilySpec, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};
use crate::provider::{Addr, PageProvider};

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
    },
    ParamSpec {
        name: "classes_per_doubling",
        kind: ParamKind::Int { min: 1, max: 16 },
        default: "4",
        unit: "classes",
        doc: "Size classes between one power of two and the next, above 8 granules \
              (4 wastes at most 25% to rounding; 1 is power-of-two classes).",
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
    },
    ParamSpec {
        name: "segment_size",
        kind: ParamKind::Bytes {
            min: 64 << 10,
            max: 1 << 30,
            pow2: true,
        },
        default: "4MiB",
        unit: "bytes",
        doc: "Aligned address-space unit pages are cut from (mimalloc: 4 MiB).",
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
        doc: "Requests above this get a mapping of their own, returned on free.",
    },
    ParamSpec {
        name: "empty_pages",
        kind: ParamKind::Choice(&["keep", "decommit", "delay"]),
        default: "delay",
        unit: "",
        doc: "What happens to the memory of a span that empties: kept committed for reuse, \
              decommitted at once, or decommitted after `decommit_delay` events unless reused.",
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
    },
];

pub const FAMILY: FamilySpec = FamilySpec {
    id: "size-class",
    title: "Size-class slabs (mimalloc, rpmalloc, snmalloc, bmalloc)",
    description: "Blocks of one size class per page-sized span, cut from aligned segments; \
                  large requests mapped on their own; empty spans kept or decommitted.",
    params: PARAMS,
};

const NONE: u32 = u32::MAX;

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
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    owner: u32,
    committed: bool,
    /// Empty and committed, waiting for its decommit under the delay policy.
    pending: bool,
}

#[derive(Debug)]
struct Segment {
    base: Addr,
    slots: Vec<Slot>,
    free_slots: u32,
}

#[derive(Debug)]
struct Span {
    seg: u32,
    first: u32,
    slots: u32,
    class: u32,
    base: Addr,
    block: u64,
    capacity: u32,
    used: u32,
    /// Blocks handed out at least once; blocks past it have never been written.
    extent: u32,
    free: Vec<u32>,
    /// One bit per block in use, to catch double frees.
    in_use: Vec<u64>,
    /// Index in its class queue, or `NONE` when full (or retired).
    qpos: u32,
}

/// A segregated-fit, size-class slab allocator.
#[derive(Debug)]
pub struct SizeClass {
    granularity: u64,
    page_shift: u32,
    seg_shift: u32,
    slots_per_seg: u32,
    large_threshold: u64,
    empty: EmptyPages,
    delay: u64,
    os_page: u64,
    classes: Vec<u64>,
    /// Class index for sizes up to `small_limit`, by granule.
    small_lut: Vec<u32>,
    small_limit: u64,
    segments: Vec<Option<Segment>>,
    seg_index: FxHashMap<u64, u32>,
    spans: Vec<Span>,
    free_span_ids: Vec<u32>,
    queues: Vec<Vec<u32>>,
    large: FxHashMap<Addr, u64>,
    purge: VecDeque<(u64, u32, u32, u32)>,
    now: u64,
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
        let classes = class_sizes(granularity, per_doubling, large_threshold);
        let small_limit = (granularity * 64).min(*classes.last().expect("at least one class"));
        let small_lut = (0..=small_limit / granularity)
            .map(|g| classes.partition_point(|&c| c < g * granularity) as u32)
            .collect();
        let empty = match params.str("empty_pages") {
            "keep" => EmptyPages::Keep,
            "decommit" => EmptyPages::Decommit,
            _ => EmptyPages::Delay,
        };
        Ok(SizeClass {
            granularity,
            page_shift: page_size.trailing_zeros(),
            seg_shift: segment_size.trailing_zeros(),
            slots_per_seg: (segment_size / page_size) as u32,
            large_threshold,
            empty,
            delay: params.u64("decommit_delay"),
            os_page,
            queues: vec![Vec::new(); classes.len()],
            classes,
            small_lut,
            small_limit,
            segments: Vec::new(),
            seg_index: FxHashMap::default(),
            spans: Vec::new(),
            free_span_ids: Vec::new(),
            large: FxHashMap::default(),
            purge: VecDeque::new(),
            now: 0,
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
            self.small_lut[size.div_ceil(self.granularity) as usize]
        } else {
            self.classes.partition_point(|&c| c < size) as u32
        }
    }

    fn page_size(&self) -> u64 {
        1 << self.page_shift
    }

    fn span_slots(&self, block: u64) -> u32 {
        (block * MIN_BLOCKS_PER_SPAN)
            .div_ceil(self.page_size())
            .clamp(1, u64::from(self.slots_per_seg)) as u32
    }

    fn queue_push(&mut self, id: u32) {
        let class = self.spans[id as usize].class as usize;
        self.spans[id as usize].qpos = self.queues[class].len() as u32;
        self.queues[class].push(id);
    }

    fn queue_remove(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let (class, pos) = (span.class as usize, span.qpos as usize);
        let q = &mut self.queues[class];
        q.swap_remove(pos);
        if let Some(&moved) = q.get(pos) {
            self.spans[moved as usize].qpos = pos as u32;
        }
        self.spans[id as usize].qpos = NONE;
    }

    /// Finds `n` free slots in a row, in the first segment that has them, or a new segment.
    fn find_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        n: u32,
    ) -> Result<(u32, u32), AllocError> {
        for (si, seg) in self.segments.iter().enumerate() {
            let Some(seg) = seg else { continue };
            if seg.free_slots < n {
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
        let seg = Segment {
            base,
            slots: vec![
                Slot {
                    owner: NONE,
                    committed: false,
                    pending: false
                };
                self.slots_per_seg as usize
            ],
            free_slots: self.slots_per_seg,
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

    /// Commits the uncommitted slots of a range, one provider call per contiguous run.
    fn commit_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        first: u32,
        n: u32,
    ) -> Result<(), AllocError> {
        let shift = self.page_shift;
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let mut i = first;
        while i < first + n {
            if seg.slots[i as usize].committed {
                i += 1;
                continue;
            }
            let start = i;
            while i < first + n && !seg.slots[i as usize].committed {
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

    /// Decommits the committed, unowned slots of a range (only those waiting for a delayed
    /// decommit when `only_pending`), one provider call per contiguous run.
    fn decommit_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        first: u32,
        n: u32,
        only_pending: bool,
    ) -> Result<(), AllocError> {
        // Memory that cannot be decommitted stays committed, and the slots say so.
        if !mem.caps().can_decommit {
            return Ok(());
        }
        let shift = self.page_shift;
        let Some(seg) = self.segments[si as usize].as_mut() else {
            return Ok(());
        };
        let eligible = |s: &Slot| s.owner == NONE && s.committed && (s.pending || !only_pending);
        let mut i = first;
        while i < first + n {
            if !eligible(&seg.slots[i as usize]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < first + n && eligible(&seg.slots[i as usize]) {
                i += 1;
            }
            mem.decommit(
                seg.base + (u64::from(start) << shift),
                u64::from(i - start) << shift,
            )?;
            for s in start..i {
                let slot = &mut seg.slots[s as usize];
                slot.committed = false;
                slot.pending = false;
            }
        }
        Ok(())
    }

    fn new_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        class: u32,
    ) -> Result<u32, AllocError> {
        let block = self.classes[class as usize];
        let n = self.span_slots(block);
        let (si, first) = self.find_slots(mem, n)?;
        self.commit_slots(mem, si, first, n)?;
        let id = match self.free_span_ids.pop() {
            Some(id) => id,
            None => {
                self.spans.push(Span {
                    seg: 0,
                    first: 0,
                    slots: 0,
                    class: 0,
                    base: 0,
                    block: 0,
                    capacity: 0,
                    used: 0,
                    extent: 0,
                    free: Vec::new(),
                    in_use: Vec::new(),
                    qpos: NONE,
                });
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
        let capacity = ((u64::from(n) << self.page_shift) / block) as u32;
        let span = &mut self.spans[id as usize];
        *span = Span {
            seg: si,
            first,
            slots: n,
            class,
            base,
            block,
            capacity,
            used: 0,
            extent: 0,
            free: std::mem::take(&mut span.free),
            in_use: std::mem::take(&mut span.in_use),
            qpos: NONE,
        };
        span.free.clear();
        span.in_use.clear();
        span.in_use.resize(capacity.div_ceil(64) as usize, 0);
        self.live_spans += 1;
        self.queue_push(id);
        Ok(id)
    }

    /// Gives an empty span's slots back to its segment under the empty-page policy.
    fn retire_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
    ) -> Result<(), AllocError> {
        if self.spans[id as usize].qpos != NONE {
            self.queue_remove(id);
        }
        let (si, first, n) = {
            let s = &self.spans[id as usize];
            (s.seg, s.first, s.slots)
        };
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        for s in &mut seg.slots[first as usize..(first + n) as usize] {
            s.owner = NONE;
        }
        seg.free_slots += n;
        self.free_span_ids.push(id);
        self.live_spans -= 1;
        match self.empty {
            EmptyPages::Keep => Ok(()),
            EmptyPages::Decommit => {
                self.decommit_slots(mem, si, first, n, false)?;
                self.release_if_empty(mem, si)
            }
            EmptyPages::Delay => {
                for s in &mut seg.slots[first as usize..(first + n) as usize] {
                    s.pending = true;
                }
                self.purge.push_back((self.now + self.delay, si, first, n));
                Ok(())
            }
        }
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
            self.segments[si as usize] = None;
        }
        Ok(())
    }

    fn span_of(&self, addr: Addr) -> Option<u32> {
        let si = *self.seg_index.get(&(addr >> self.seg_shift))?;
        let seg = self.segments[si as usize].as_ref()?;
        let slot = ((addr - seg.base) >> self.page_shift) as usize;
        let owner = seg.slots[slot].owner;
        (owner != NONE).then_some(owner)
    }

    fn alloc_large<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let len = mem.round_up(size.max(1));
        let base = mem.reserve(len, align.max(self.os_page))?;
        if let Err(e) = mem.commit(base, len) {
            mem.release(base, len)?;
            return Err(e.into());
        }
        self.large.insert(base, len);
        Ok(base)
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
        _thread: u32,
    ) -> Result<Addr, AllocError> {
        check_align(align)?;
        check_size(size)?;
        let size = size.max(1);
        if size > self.large_threshold || align > self.page_size() {
            return self.alloc_large(mem, size, align);
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
                return self.alloc_large(mem, size, align);
            }
        }
        let id = match self.queues[class as usize].last() {
            Some(&id) => id,
            None => self.new_span(mem, class)?,
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
        span.in_use[(index / 64) as usize] |= 1 << (index % 64);
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
        _thread: u32,
    ) -> Result<(), AllocError> {
        if let Some(len) = self.large.remove(&block.addr) {
            mem.release(block.addr, len)?;
            return Ok(());
        }
        let id = self.span_of(block.addr).ok_or_else(|| {
            AllocError::Invalid(format!(
                "free of {:#x}, which this heap never handed out",
                block.addr
            ))
        })?;
        let span = &mut self.spans[id as usize];
        let offset = block.addr - span.base;
        let index = (offset / span.block) as u32;
        let bit = 1u64 << (index % 64);
        if !offset.is_multiple_of(span.block)
            || index >= span.extent
            || span.in_use[(index / 64) as usize] & bit == 0
        {
            return Err(AllocError::Invalid(format!(
                "free of {:#x}, which is not a block in use",
                block.addr
            )));
        }
        span.in_use[(index / 64) as usize] &= !bit;
        span.free.push(index);
        span.used -= 1;
        let (was_full, now_empty, block_size) = (span.qpos == NONE, span.used == 0, span.block);
        // The free-list link is written into the freed block.
        mem.touch(block.addr, block_size.min(8))?;
        if was_full {
            self.queue_push(id);
        }
        // The only span of its class stays put even when empty, so an alloc/free loop does
        // not commit and decommit a page every time (mimalloc's retire heuristic).
        if now_empty && self.queues[self.spans[id as usize].class as usize].len() > 1 {
            self.retire_span(mem, id)?;
        }
        Ok(())
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
        if let Some(&len) = self.large.get(&block.addr) {
            if new_size > self.large_threshold && mem.round_up(new_size) == len {
                return Ok(block.addr);
            }
        } else if let Some(id) = self.span_of(block.addr) {
            let size = new_size.max(1);
            if size <= self.large_threshold && self.class_of(size) == self.spans[id as usize].class
            {
                return Ok(block.addr);
            }
        }
        super::free_list::default_realloc(self, mem, block, new_size, align, thread)
    }

    fn tick<P: PageProvider>(&mut self, mem: &mut Pages<P>, now: u64) -> Result<(), AllocError> {
        self.now = now;
        while let Some(&(due, si, first, n)) = self.purge.front() {
            if due > now {
                break;
            }
            self.purge.pop_front();
            // Slots reused since they were queued are no longer pending and are skipped.
            let still_pending = self.segments[si as usize].as_ref().is_some_and(|seg| {
                seg.slots[first as usize..(first + n) as usize]
                    .iter()
                    .any(|s| s.pending)
            });
            if still_pending {
                self.decommit_slots(mem, si, first, n, true)?;
                self.release_if_empty(mem, si)?;
            }
        }
        Ok(())
    }

    fn metadata_bytes(&self) -> u64 {
        let segments = self.segments.iter().flatten().count() as u64;
        self.live_spans * SPAN_META + segments * SEGMENT_META + self.large.len() as u64 * SPAN_META
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        let mut live = 0;
        for (id, span) in self.spans.iter().enumerate() {
            if self.free_span_ids.contains(&(id as u32)) {
                continue;
            }
            live += 1;
            let seg = self.segments[span.seg as usize]
                .as_ref()
                .ok_or_else(|| format!("span {id} lies in a released segment"))?;
            for s in &seg.slots[span.first as usize..(span.first + span.slots) as usize] {
                if s.owner != id as u32 || !s.committed || s.pending {
                    return Err(format!("span {id} does not own committed slots: {s:?}"));
                }
            }
            if !mem.is_committed(span.base, u64::from(span.slots) << self.page_shift) {
                return Err(format!("span {id} memory is not committed"));
            }
            let bits: u32 = span.in_use.iter().map(|w| w.count_ones()).sum();
            if bits != span.used || span.used as usize + span.free.len() != span.extent as usize {
                return Err(format!(
                    "span {id}: {} in use by bitmap, counter {}, {} free of extent {}",
                    bits,
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
            if queued
                && self.queues[span.class as usize].get(span.qpos as usize) != Some(&(id as u32))
            {
                return Err(format!("span {id} is not where its queue position says"));
            }
        }
        if live != self.live_spans {
            return Err(format!(
                "{live} live spans, counter says {}",
                self.live_spans
            ));
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
            for (i, s) in seg.slots.iter().enumerate() {
                let addr = seg.base + ((i as u64) << self.page_shift);
                if s.committed != mem.is_committed(addr, 1 << self.page_shift) {
                    return Err(format!(
                        "segment {si} slot {i} commit state disagrees with the page map"
                    ));
                }
            }
        }
        for (&addr, &len) in &self.large {
            if !mem.is_committed(addr, len) {
                return Err(format!("large block {addr:#x} is not committed"));
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
    fn class_sizes_follow_the_spacing() {
        let c = class_sizes(16, 4, 1024);
        assert_eq!(&c[..8], &[16, 32, 48, 64, 80, 96, 112, 128]);
        assert_eq!(&c[8..12], &[160, 192, 224, 256]);
        assert_eq!(*c.last().unwrap(), 1024);
        let pow2 = class_sizes(8, 1, 4096);
        assert_eq!(&pow2[8..], &[128, 256, 512, 1024, 2048, 4096]);
    }
}
