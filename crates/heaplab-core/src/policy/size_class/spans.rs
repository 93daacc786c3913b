//! Spans: runs of page slots holding the blocks of one size class (or one large block),
//! each with its free list, in-use bitmap and bump extent. A heap allocates from the spans
//! in its class queues; a span that empties is retired, parked in its heap's span cache or
//! given back to its segment under the empty-page policy.

use super::{EmptyPages, SizeClass, LARGE, NONE};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

/// Spans are sized to hold at least this many blocks, so big classes do not waste a page
/// per block.
pub(super) const MIN_BLOCKS_PER_SPAN: u64 = 8;

/// How much of a page mimalloc threads onto its free list at a time when it runs out
/// (`MI_MAX_EXTEND_SIZE` in page.c, "one OS page seems to work well").
const MAX_EXTEND: u64 = 4 << 10;

#[derive(Clone, Debug)]
pub(super) struct Span {
    pub(super) seg: u32,
    pub(super) first: u32,
    pub(super) slots: u32,
    /// A size class, or `LARGE` for a span holding one large block.
    pub(super) class: u32,
    /// The heap whose queues and cache the span belongs to.
    pub(super) heap: u32,
    pub(super) base: Addr,
    /// The first block's address: `base`, or `page_offset` past it.
    pub(super) start: Addr,
    pub(super) block: u64,
    /// `ceil(2^64 / block)`, so that [`Span::index_of`] divides by a multiplication.
    pub(super) recip: u64,
    pub(super) capacity: u32,
    /// Blocks on neither free list: handed out, on the remote list or in a thread cache.
    pub(super) used: u32,
    /// Blocks handed out at least once; blocks past it have never been written.
    pub(super) extent: u32,
    /// The blocks allocations pop from, last pushed first out.
    pub(super) free: Vec<u32>,
    /// Under `free_lists = sharded`: blocks this span's own thread freed (and remote frees
    /// once collected), which become `free` only when it runs out. Empty otherwise.
    pub(super) local_free: Vec<u32>,
    /// One bit per block the program holds, to catch double frees.
    pub(super) in_use: Vec<u64>,
    /// Index in its class queue, or `NONE` when full (or retired, cached or large).
    pub(super) qpos: u32,
    /// Blocks freed by a thread of another heap, not yet collected by the owner.
    pub(super) remote: Vec<u32>,
    /// Whether the span is on its heap's list of spans with remote frees.
    pub(super) in_remote: bool,
    /// Blocks sitting in thread caches.
    pub(super) tcached: u32,
    /// Index in its heap's span cache list for its slot count, or `NONE`.
    pub(super) cpos: u32,
    /// When it entered the span cache, to find stale entries in the age queue.
    pub(super) stamp: u64,
    /// Under `retire_cycles`: the collections left before this empty span, its class's
    /// only one, is given back; 0 when it is not waiting.
    pub(super) retire: u32,
}

impl Span {
    pub(super) fn empty() -> Span {
        Span {
            seg: 0,
            first: 0,
            slots: 0,
            class: 0,
            heap: 0,
            base: 0,
            start: 0,
            block: 0,
            recip: 0,
            capacity: 0,
            used: 0,
            extent: 0,
            free: Vec::new(),
            local_free: Vec::new(),
            in_use: Vec::new(),
            qpos: NONE,
            remote: Vec::new(),
            in_remote: false,
            tcached: 0,
            cpos: NONE,
            stamp: 0,
            retire: 0,
        }
    }

    /// `ceil(2^64 / block)` for [`Span::index_of`]; blocks are at least 8 bytes, so it fits.
    pub(super) fn recip_of(block: u64) -> u64 {
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
    pub(super) fn index_of(&self, offset: u64) -> (u32, bool) {
        let index = ((u128::from(offset) * u128::from(self.recip)) >> 64) as u64;
        (index as u32, index * self.block == offset)
    }

    #[inline]
    pub(super) fn bit(index: u32) -> (usize, u64) {
        ((index / 64) as usize, 1u64 << (index % 64))
    }

    /// Under sharding, the span's `free` list is empty: refilled as mimalloc refills a
    /// page's (page.c). `_mi_page_free_collect` makes `local_free` the free list whole;
    /// failing that, `mi_page_extend_free` threads the next never-used blocks onto it, at
    /// most `MI_MAX_EXTEND_SIZE` (4 KiB) of them and at least `min_extend`
    /// (`MI_MIN_EXTEND`), writing a link into each. So a block freed just now is handed
    /// out only after those, and a link written at the start of each block makes its first
    /// page resident: for blocks of a page or more, `min_extend` blocks at a time.
    #[cold]
    #[inline(never)]
    pub(super) fn refill<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        min_extend: u64,
    ) -> Result<Option<u32>, AllocError> {
        if !self.local_free.is_empty() {
            std::mem::swap(&mut self.free, &mut self.local_free);
            mem.note(|| crate::decision::Decision::Reason {
                why: "the span's free list ran out: its local_free list becomes the free list",
            });
        } else if self.extent < self.capacity {
            let n = (MAX_EXTEND / self.block)
                .max(min_extend)
                .clamp(1, u64::from(self.capacity - self.extent)) as u32;
            let start = self.start + u64::from(self.extent) * self.block;
            let link = self.block.min(8);
            if self.block < MAX_EXTEND {
                // The links are at most a page apart: every page between them is written.
                mem.touch(start, u64::from(n - 1) * self.block + link)?;
            } else {
                for k in 0..u64::from(n) {
                    mem.touch(start + k * self.block, link)?;
                }
            }
            // The lowest of them is handed out first, as mimalloc links them in order.
            self.free.extend((self.extent..self.extent + n).rev());
            self.extent += n;
            mem.note(|| crate::decision::Decision::Reason {
                why: "the span's free lists are empty: its next never-used blocks, up to 4 KiB \
                      and at least min_extend of them, are linked into its free list",
            });
        }
        Ok(self.free.pop())
    }
}

impl SizeClass {
    /// The pages of a span of `block`-byte blocks: mimalloc's small and medium pages under
    /// `medium_page_size` (and its large pages under `large_page_size`), and above those
    /// (or without them) enough for at least eight blocks.
    pub(super) fn span_slots(&self, block: u64) -> u32 {
        if self.medium_slots > 0 {
            if block <= self.small_max {
                return 1;
            }
            if block <= self.medium_max {
                return self.medium_slots;
            }
            if block <= self.large_max {
                return self.large_slots;
            }
        }
        (block * MIN_BLOCKS_PER_SPAN)
            .div_ceil(self.page_size())
            .clamp(1, u64::from(self.slots_per_seg)) as u32
    }

    pub(super) fn queue_push(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let q = &mut self.heaps[span.heap as usize].queues[span.class as usize];
        let pos = q.len() as u32;
        q.push(id);
        self.spans[id as usize].qpos = pos;
    }

    pub(super) fn queue_remove(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let (heap, class, pos) = (span.heap as usize, span.class as usize, span.qpos as usize);
        let q = &mut self.heaps[heap].queues[class];
        if self.mimalloc2 {
            // mimalloc's queues are lists: the others keep their order.
            q.remove(pos);
            for (p, &moved) in q.iter().enumerate().skip(pos) {
                self.spans[moved as usize].qpos = p as u32;
            }
        } else {
            q.swap_remove(pos);
            if let Some(&moved) = q.get(pos) {
                self.spans[moved as usize].qpos = pos as u32;
            }
        }
        self.spans[id as usize].qpos = NONE;
    }

    /// A span owning `n` committed slots, from the heap's span cache or fresh; its class
    /// fields are for the caller to set.
    pub(super) fn obtain_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        n: u32,
    ) -> Result<u32, AllocError> {
        // Taking a span from a segment is a slow-path call, where mimalloc 2.0.9 checks
        // its delayed decommits (segment.c, `mi_segments_page_alloc`).
        self.slow = true;
        // mimalloc 3 counts its retired pages down before it takes a fresh one
        // (`mi_page_queue_find_free_ex`).
        if self.retire_cycles > 0 {
            self.collect_retired(mem)?;
        }
        let cached = self.heaps[heap as usize]
            .cache
            .get(&n)
            .and_then(|v| v.last().copied());
        if let Some(id) = cached {
            self.uncache(id);
            let addr = self.spans[id as usize].base;
            mem.note(|| crate::decision::Decision::CacheHit {
                cache: "span cache",
                addr,
            });
            return Ok(id);
        }
        let (si, first) = self.find_slots(mem, heap, n)?;
        self.commit_slots(mem, si, first, n, "first use")?;
        let id = match self.free_span_ids.pop() {
            Some(id) => id,
            None => {
                self.spans.push(Span::empty());
                self.spans.len() as u32 - 1
            }
        };
        let (base, mask_reused) = self.take_slots(id, si, first, n);
        let span = &mut self.spans[id as usize];
        span.seg = si;
        span.first = first;
        span.slots = n;
        span.base = base;
        self.live_spans += 1;
        let bytes = u64::from(n) << self.page_shift;
        mem.note(|| crate::decision::Decision::NewRegion {
            what: "span",
            addr: base,
            bytes,
        });
        if mask_reused {
            self.mask_reused(mem, si);
        }
        Ok(id)
    }

    /// Gives slots `first..first + n` of segment `si` to span `id`, and returns their
    /// address and whether they took slots of a segment expiry's mask out of it. Apart
    /// from the generic code, which is built once for each provider.
    #[inline(never)]
    fn take_slots(&mut self, id: u32, si: u32, first: u32, n: u32) -> (Addr, bool) {
        let expiry = self.segment_expiry();
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let range = first as usize..(first + n) as usize;
        // mimalloc 2.0 commits a page's memory liberally, in whole commit units
        // (MI_MINIMAL_COMMIT_SIZE), and that takes every slot of those units out of the
        // mask, resetting the expiry if any was in it (segment.c `mi_segment_commitx`).
        let unit = self.commit_slots;
        let units = (first / unit * unit) as usize..((first + n).div_ceil(unit) * unit) as usize;
        let mask_reused = expiry && seg.slots[units.clone()].iter().any(|s| s.pending);
        if mask_reused {
            for s in &mut seg.slots[units] {
                s.pending = false;
            }
        }
        for s in &mut seg.slots[range] {
            s.owner = id;
            s.pending = false;
            seg.free_committed -= u32::from(s.committed);
        }
        // What is left of a resident run after the span is cut from it is a run of its
        // own, as jemalloc leaves the trail of a split extent (`extent_split_interior`).
        if self.dirty_max_fit > 0 {
            if let Some(next) = seg.slots.get_mut((first + n) as usize) {
                next.apart = true;
            }
        }
        seg.free_slots -= n;
        let base = seg.base + (u64::from(first) << self.page_shift);
        if seg
            .slots
            .get((first + n) as usize)
            .is_some_and(|s| s.owner == NONE)
        {
            // What is left of the run goes back in its bin, as the last freed
            // (`mi_segment_slice_split`).
            self.stamp_run(si, first + n);
        }
        (base, mask_reused)
    }

    /// Sets a span up empty for `class` (or `LARGE`) in `heap`.
    pub(super) fn init_span(&mut self, id: u32, heap: u32, class: u32, block: u64) {
        let page_shift = self.page_shift;
        // mimalloc 2.0 starts the blocks of up to 1 KiB `start_offset` into their page, "to
        // avoid page/cache effects" (segment.c `_mi_segment_page_start_from_slice`).
        let offset = if block <= 1024 { self.page_offset } else { 0 };
        let span = &mut self.spans[id as usize];
        span.start = span.base + offset;
        let capacity = (((u64::from(span.slots) << page_shift) - offset) / block) as u32;
        span.class = class;
        span.heap = heap;
        span.block = block;
        span.recip = Span::recip_of(block);
        span.capacity = capacity;
        span.used = 0;
        span.extent = 0;
        span.free.clear();
        span.local_free.clear();
        span.in_use.clear();
        span.in_use.resize(capacity.div_ceil(64) as usize, 0);
        span.qpos = NONE;
        span.remote.clear();
        span.in_remote = false;
        span.tcached = 0;
        span.cpos = NONE;
        span.retire = 0;
    }

    pub(super) fn new_span<P: PageProvider>(
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
    pub(super) fn uncache(&mut self, id: u32) {
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
    pub(super) fn retire_span<P: PageProvider>(
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
        let cap = self.cache_cap;
        mem.note(|| crate::decision::Decision::Rule {
            rule: "empty span",
            text: format!(
                "empty span {id} kept in its heap's span cache (empty_pages = cache, cache_size {}), its pages committed",
                crate::format::format_bytes(cap)
            ),
        });
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
    pub(super) fn release_span<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
    ) -> Result<(), AllocError> {
        let (si, first, n, large) = {
            let s = &self.spans[id as usize];
            (s.seg, s.first, s.slots, s.class == LARGE)
        };
        // So is giving one back (`_mi_segment_page_free` via `mi_segment_span_free`).
        self.slow = true;
        let due = self.now + 1 + self.delay();
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let delay = self.empty == EmptyPages::Delay;
        for s in &mut seg.slots[first as usize..(first + n) as usize] {
            s.owner = NONE;
            s.apart = false;
            seg.free_committed += u32::from(s.committed);
            if delay {
                s.pending = true;
                s.due = due;
            }
        }
        // jemalloc joins a freed large block's extent to the free resident ones beside it
        // at once, and leaves a slab apart until it is purged (extent.c `extent_record`:
        // dirty extents are coalesced late, but those of at least SC_LARGE_MINCLASS, 16 KiB,
        // eagerly; most slabs are smaller, the largest of 4 KiB pages being 28 KiB).
        if self.dirty_max_fit > 0 {
            seg.slots[first as usize].apart = !large;
            if let Some(next) = seg.slots.get_mut((first + n) as usize) {
                next.apart = !large;
            }
        }
        seg.free_slots += n;
        let (generation, all_free) = (seg.generation, seg.free_slots == self.slots_per_seg);
        self.stamp_freed_run(si, first);
        self.free_span_ids.push(id);
        self.live_spans -= 1;
        let bytes = u64::from(n) << self.page_shift;
        match self.empty {
            EmptyPages::Keep => {
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "empty span",
                    text: format!(
                        "empty span {id} given back to its segment, its {} kept committed (empty_pages = keep)",
                        crate::format::format_bytes(bytes)
                    ),
                });
                return Ok(());
            }
            EmptyPages::Decommit | EmptyPages::Cache => {
                self.decommit_units(mem, si, first, n, false)?
            }
            EmptyPages::Delay if self.segment_expiry() => {
                self.span_emptied(mem, id, si, first, n)?;
            }
            EmptyPages::Delay => {
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "decommit",
                    text: format!(
                        "decommit of empty span {id}'s {} postponed to {} ({}), unless it is reused first",
                        crate::format::format_bytes(bytes),
                        self.moment(due),
                        self.delay_named()
                    ),
                });
                self.purge.push_back((due, si, generation, first, n));
                self.next_due = self.next_due.min(due);
                if self.smooth {
                    self.emptied.push_back((self.now, n));
                    self.start_epochs();
                }
            }
        }
        // A wholly free segment goes back to the shared pool at once (bmalloc returns a
        // chunk whose pages are all free to its large free list, which is scavenged);
        // under jemalloc's decay its pages decay like any others.
        if self.share && all_free && !self.smooth {
            self.decommit_units(mem, si, 0, self.slots_per_seg, false)?;
        }
        self.release_if_empty(mem, si)
    }

    /// After blocks came back to span `id`: a span that was full rejoins its class queue,
    /// and an empty span is retired unless it is the only one in the queue, so an
    /// alloc/free loop does not commit and decommit a page every time (mimalloc's retire
    /// heuristic). mimalloc frees such a page after a few allocation cycles; here it goes
    /// when another span of its class has room again.
    /// Most calls find the span neither newly non-full nor empty, and then its queue stays
    /// as it is: one test, inline, and no call.
    #[inline]
    pub(super) fn settle<P: PageProvider>(
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
    pub(super) fn requeue<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
        was_full: bool,
    ) -> Result<(), AllocError> {
        let span = &self.spans[id as usize];
        let (heap, class, empty) = (span.heap as usize, span.class as usize, span.used == 0);
        if was_full && self.mimalloc2 {
            self.queue_push_behind(id);
        } else if was_full {
            self.queue_push(id);
        }
        // mimalloc 2.0 retires no page of blocks above the medium ones (MI_MAX_RETIRE_SIZE).
        let retires = self.retire_cycles > 0
            && !(self.mimalloc2 && self.spans[id as usize].block > self.medium_max);
        let q = &self.heaps[heap].queues[class];
        if empty && q.len() <= 1 && retires {
            self.retire_later(mem, id);
        } else if empty && q.len() <= 1 && self.retire_cycles == 0 {
            let block = self.classes.get(class).copied().unwrap_or(0);
            mem.note(|| crate::decision::Decision::Rule {
                rule: "empty span",
                text: format!(
                    "empty span {id} kept: it is the only span of class {} B in its heap, and a class's last span stays until another has room (mimalloc's retire heuristic)",
                    crate::format::format_count(i128::from(block))
                ),
            });
        } else if empty {
            self.retire_span(mem, id)?;
        } else if was_full && !self.mimalloc2 && q.len() == 2 && self.spans[q[0] as usize].used == 0
        {
            self.retire_span(mem, q[0])?;
        }
        Ok(())
    }
}

impl SizeClass {
    /// Under `retire_cycles`: an empty span, its class's only one, waits that many
    /// collections (a quarter of them above the one-page spans) before it is given back,
    /// as mimalloc 3 retires a page (page.c `_mi_page_retire`). A span already waiting
    /// keeps its count.
    fn retire_later<P: PageProvider>(&mut self, mem: &mut Pages<P>, id: u32) {
        let cycles = self.retire_cycles;
        let small_max = self.small_max;
        let span = &mut self.spans[id as usize];
        // mimalloc 2.0 sets the count afresh each time a page empties; mimalloc 3 keeps a
        // count already running.
        if span.retire != 0 && !self.mimalloc2 {
            return;
        }
        // Above the small blocks a quarter of the cycles: MI_RETIRE_CYCLES / 4 in mimalloc
        // 3, and 1 + 8 / 4 in 2.0, whose count is 1 + MI_RETIRE_CYCLES.
        span.retire = if span.block <= small_max {
            cycles
        } else if self.mimalloc2 {
            1 + cycles.saturating_sub(1) / 4
        } else {
            (cycles / 4).max(1)
        };
        let (n, block) = (span.retire, span.block);
        // A span given back and set up again may still be listed from before: it is
        // listed once, so its count goes down once a collection.
        if !self.retired.contains(&id) {
            self.retired.push(id);
        }
        mem.note(|| crate::decision::Decision::Rule {
            rule: "empty span",
            text: format!(
                "empty span {id} kept: it is the only span of class {} B in its heap, retired \
                 for {n} collections before it is given back (mimalloc's retire heuristic, \
                 retire_cycles {cycles})",
                crate::format::format_count(i128::from(block))
            ),
        });
    }

    /// A generic allocation under `retire_cycles`: every 1,000th runs a collection, as
    /// mimalloc 3's `_mi_malloc_generic` does (2.0 has no such collection).
    pub(super) fn generic_call<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
    ) -> Result<(), AllocError> {
        if self.mimalloc2 {
            return Ok(());
        }
        self.generic_calls += 1;
        if self.generic_calls >= 1000 {
            self.generic_calls = 0;
            self.collect_retired(mem)?;
        }
        Ok(())
    }

    /// A collection: each retired span still empty and still its class's counts down,
    /// and goes back to its segment at 0 (`_mi_theap_collect_retired`); one that has had
    /// blocks handed out since stops waiting.
    pub(super) fn collect_retired<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
    ) -> Result<(), AllocError> {
        if self.retired.is_empty() {
            return Ok(());
        }
        for id in std::mem::take(&mut self.retired) {
            let span = &mut self.spans[id as usize];
            if span.retire == 0 {
                continue;
            }
            // mimalloc 2.0 looks only at the head of each class queue
            // (`_mi_heap_collect_retired`): a retired page that a new one went before is
            // no longer counted down.
            let behind = self.mimalloc2
                && self.heaps[span.heap as usize].queues[span.class as usize].last() != Some(&id);
            if span.used != 0 || span.qpos == NONE || behind {
                self.spans[id as usize].retire = 0;
                continue;
            }
            let span = &mut self.spans[id as usize];
            span.retire -= 1;
            if span.retire > 0 {
                self.retired.push(id);
                continue;
            }
            let block = span.block;
            mem.note(|| crate::decision::Decision::Rule {
                rule: "empty span",
                text: format!(
                    "retired empty span {id} of class {} B given back: its collections ran out",
                    crate::format::format_count(i128::from(block))
                ),
            });
            self.retire_span(mem, id)?;
        }
        Ok(())
    }
}
