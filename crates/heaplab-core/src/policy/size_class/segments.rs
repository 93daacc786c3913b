//! Segments: aligned reservations of `segment_size` bytes cut into page slots, each owned
//! by a span or free. Slots are committed and decommitted in whole units, and a segment
//! whose slots are all free and uncommitted goes back to the provider. The owner of an
//! address's slot is the span that holds it.

use super::{SizeClass, METADATA, NONE};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

/// No segment has this key (an address shifted right by at least 16 bits).
pub(super) const NO_SEG: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slot {
    pub(super) owner: u32,
    pub(super) committed: bool,
    /// Empty and committed, waiting for its decommit under the delay policy.
    pub(super) pending: bool,
    /// When a pending slot becomes due.
    pub(super) due: u64,
    /// Under `page_queues = mimalloc2`, at the first slot of a free run: when the run was
    /// put in its bin (`queues.rs`).
    pub(super) stamp: u64,
    /// Under `dirty_max_fit`: a run of free committed slots begins here, apart from the
    /// one before it, as jemalloc keeps a small freed slab and what was split off an extent
    /// as extents of their own until they are purged.
    pub(super) apart: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Segment {
    pub(super) base: Addr,
    /// The heap whose spans it holds. Under per-thread heaps each thread cuts its spans
    /// from segments of its own, as mimalloc's and snmalloc's threads do, so a segment is
    /// committed for one thread's use, and a thread's free slots serve no other thread.
    pub(super) heap: u32,
    pub(super) slots: Vec<Slot>,
    pub(super) free_slots: u32,
    /// Of the free slots, those committed: what `dirty_max_fit`'s first search can use, so
    /// a segment with too few is passed over without looking at its slots.
    pub(super) free_committed: u32,
    /// Distinguishes this segment from a later one in the same table entry, so a delayed
    /// decommit queued for a released segment does not touch its successor.
    pub(super) generation: u64,
    /// Under `purge_extend_ms`: when this segment's pending decommits are carried out, all
    /// together (0 while none wait), as mimalloc 2.0 keeps one expiry per segment.
    pub(super) expire: u64,
}

/// The runs of slots in a row that `pred` takes, as (first slot, slots): the pending
/// slots a segment's purge decommits, or the free runs mimalloc 2.0's span queues bin.
pub(super) fn runs_where<'a>(
    slots: &'a [Slot],
    pred: impl Fn(&Slot) -> bool + 'a,
) -> impl Iterator<Item = (u32, u32)> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < slots.len() && !pred(&slots[i]) {
            i += 1;
        }
        let first = i;
        while i < slots.len() && pred(&slots[i]) {
            i += 1;
        }
        (i > first).then(|| (first as u32, (i - first) as u32))
    })
}

/// The free run that slots `first..end`, just freed, are part of, merged with the free
/// slots beside them: its first slot and its end.
pub(super) fn free_run_around(slots: &[Slot], first: usize, end: usize) -> (usize, usize) {
    let used = |s: &Slot| s.owner != NONE;
    let lo = slots[..first].iter().rposition(used).map_or(0, |i| i + 1);
    let hi = slots[end..]
        .iter()
        .position(used)
        .map_or(slots.len(), |i| end + i);
    (lo, hi)
}

impl SizeClass {
    /// Finds `n` free slots in a row, in the first of the heap's segments that has them, or
    /// a new segment.
    pub(super) fn find_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        n: u32,
    ) -> Result<(u32, u32), AllocError> {
        // mimalloc 3 finds any run of eight slices, a medium page's, as a whole byte of
        // its bitmap, at a multiple of eight; every other run is the lowest that fits.
        let align = if self.medium_aligned && n == self.medium_slots {
            n
        } else {
            1
        };
        if self.mimalloc2 {
            if let Some(found) = self.binned_fit(heap, n) {
                return Ok(found);
            }
        }
        let mine = |seg: &&Segment| seg.free_slots >= n && seg.heap == heap;
        let found = if self.dirty_max_fit > 0 {
            // Resident runs first, each only for a request it is not too large for; then
            // runs given back, as jemalloc tries its dirty extents before its retained ones.
            let most = n.saturating_mul(self.dirty_max_fit);
            let resident = |seg: &&Segment| mine(seg) && seg.free_committed >= n;
            let given_back = |seg: &&Segment| mine(seg) && seg.free_slots - seg.free_committed >= n;
            self.first_in_segments(&resident, |seg| {
                Self::first_kept_run(seg, n, align, true, most)
            })
            .or_else(|| {
                self.first_in_segments(&given_back, |seg| {
                    Self::first_kept_run(seg, n, align, false, u32::MAX)
                })
            })
        } else {
            self.first_in_segments(&mine, |seg| Self::first_run(seg, n, align))
        };
        if let Some(found) = found {
            return Ok(found);
        }
        let size = u64::from(self.slots_per_seg) << self.page_shift;
        let base = mem.reserve(size, size)?;
        mem.note(|| crate::decision::Decision::NewRegion {
            what: "segment",
            addr: base,
            bytes: size,
        });
        if self.huge_pages {
            mem.advise_huge(base, size)?;
        }
        self.generations += 1;
        // Memory that a provider could not release comes back as it was left, possibly
        // committed (a wasm heap reusing what it freed); elsewhere it comes uncommitted.
        let slot = |i: u64| Slot {
            owner: NONE,
            committed: !mem.caps().can_release
                && mem.is_committed(base + (i << self.page_shift), 1 << self.page_shift),
            pending: false,
            due: 0,
            stamp: 0,
            apart: false,
        };
        let slots: Vec<Slot> = (0..u64::from(self.slots_per_seg)).map(slot).collect();
        let seg = Segment {
            base,
            heap,
            free_committed: slots.iter().filter(|s| s.committed).count() as u32,
            slots,
            free_slots: self.slots_per_seg,
            generation: self.generations,
            expire: 0,
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
        self.stamp_run(si, 0);
        if !self.metadata_placed && self.metadata_slots > 0 {
            self.place_metadata(mem, si)?;
            return self.find_slots(mem, heap, n);
        }
        Ok((si, 0))
    }

    /// The first segment passing `mine` in which `run` finds slots, and those slots.
    fn first_in_segments(
        &self,
        mine: &impl Fn(&&Segment) -> bool,
        run: impl Fn(&Segment) -> Option<u32>,
    ) -> Option<(u32, u32)> {
        self.segments
            .iter()
            .enumerate()
            .filter_map(|(si, seg)| Some((si as u32, seg.as_ref().filter(mine)?)))
            .find_map(|(si, seg)| Some((si, run(seg)?)))
    }

    /// The first slot of `n` in a row at a multiple of `align`, in the first run of `seg`
    /// that holds them and is at most `most` slots long. A run is the slots in a row that
    /// `joins` takes, asked with `false` for the slot that would begin one and `true` for
    /// those that would extend it.
    fn first_fit(
        seg: &Segment,
        n: u32,
        align: u32,
        most: u32,
        joins: impl Fn(&Slot, bool) -> bool,
    ) -> Option<u32> {
        let len = seg.slots.len();
        let mut i = 0;
        while i < len {
            if !joins(&seg.slots[i], false) {
                i += 1;
                continue;
            }
            let start = i as u32;
            let first = start.next_multiple_of(align);
            i += 1;
            while i < len && joins(&seg.slots[i], true) {
                i += 1;
                // A run of any length is taken as soon as it holds the slots.
                if most == u32::MAX && first + n <= i as u32 {
                    return Some(first);
                }
            }
            let end = i as u32;
            if end - start <= most && first + n <= end {
                return Some(first);
            }
        }
        None
    }

    /// The first slot of the first run of `n` free slots in `seg` that starts at a
    /// multiple of `align`.
    fn first_run(seg: &Segment, n: u32, align: u32) -> Option<u32> {
        Self::first_fit(seg, n, align, u32::MAX, |s, _| s.owner == NONE)
    }

    /// Under `dirty_max_fit`: [`SizeClass::first_run`] among free slots all `committed`
    /// (or all not), in a run at most `most` slots long. A resident run also ends where a
    /// slot set `apart` begins another, and a resident run and a given-back one beside it
    /// stay two runs, as jemalloc's dirty and retained extents never merge.
    fn first_kept_run(
        seg: &Segment,
        n: u32,
        align: u32,
        committed: bool,
        most: u32,
    ) -> Option<u32> {
        Self::first_fit(seg, n, align, most, |s, extends| {
            s.owner == NONE && s.committed == committed && !(extends && committed && s.apart)
        })
    }

    /// Keeps the first slots of the heap's first segment for the allocator's own metadata
    /// (`arena_metadata`), committed, with their first page written, as mimalloc 3
    /// initialises its arena's info and bitmaps at the arena's start. They are never cut
    /// into spans, so that segment is never released.
    fn place_metadata<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
    ) -> Result<(), AllocError> {
        let m = self.metadata_slots;
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        for slot in &mut seg.slots[..m as usize] {
            slot.owner = METADATA;
            seg.free_committed -= u32::from(slot.committed);
        }
        seg.free_slots -= m;
        let base = seg.base;
        self.commit_slots(mem, si, 0, m, "the arena's metadata")?;
        mem.touch(base, self.os_page)?;
        self.metadata_placed = true;
        Ok(())
    }

    /// Commits the uncommitted slots of the commit units a range touches, one provider call
    /// per contiguous run; `why` is the reason teaching mode gives.
    pub(super) fn commit_slots<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        first: u32,
        n: u32,
        why: &'static str,
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
            mem.note(|| crate::decision::Decision::Reason { why });
            mem.commit(
                seg.base + (u64::from(start) << shift),
                u64::from(i - start) << shift,
            )?;
            for s in start..i {
                let slot = &mut seg.slots[s as usize];
                slot.committed = true;
                seg.free_committed += u32::from(slot.owner == NONE);
            }
        }
        Ok(())
    }

    /// Decommits the committed slots of the decommit units a range touches whose slots are
    /// all unowned (and, when `only_due`, none waiting for a later delayed decommit), one
    /// provider call per contiguous run.
    pub(super) fn decommit_units<P: PageProvider>(
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
            mem.note(|| crate::decision::Decision::Reason {
                why: "empty span's pages given back",
            });
            mem.decommit(
                seg.base + ((start as u64) << shift),
                ((end - start) as u64) << shift,
            )?;
            for s in &mut seg.slots[start..end] {
                s.committed = false;
                s.pending = false;
            }
            // Only a unit whose slots are all free is decommitted.
            seg.free_committed -= (end - start) as u32;
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

    pub(super) fn release_if_empty<P: PageProvider>(
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
    pub(super) fn span_of(&self, addr: Addr) -> Option<u32> {
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
    pub(super) fn span_of_quietly(&self, addr: Addr) -> Option<u32> {
        let si = *self.seg_index.get(&(addr >> self.seg_shift))?;
        self.owner_in(si, addr)
    }

    /// The span owning the page slot of `addr` in segment `si`, if any.
    #[inline(always)]
    pub(super) fn owner_in(&self, si: u32, addr: Addr) -> Option<u32> {
        let seg = self.segments[si as usize].as_ref()?;
        let slot = ((addr - seg.base) >> self.page_shift) as usize;
        let owner = seg.slots.get(slot)?.owner;
        (owner != NONE && owner != METADATA).then_some(owner)
    }
}
