//! `page_queues = mimalloc2`: the order in which mimalloc 2.0.9 uses its pages and the
//! free spans of its segments, which decides where each block goes, which page empties,
//! and so when the segment's decommit expiry is reset (`expiry.rs`).
//!
//! - A class queue's head, where allocations take blocks, is the newest page (page-queue.c
//!   `mi_page_queue_push`); in a heap's `queues` it is the last entry. A page that was
//!   full and has room again goes behind all the others (page.c `_mi_page_unfull`, through
//!   `mi_page_queue_enqueue_from`): the first entry here.
//! - A page leaves its queue for the full list only when an allocation finds it has no
//!   block left (`mi_page_queue_find_free_ex`), so a block freed to the head page before
//!   then is used from there again.
//! - Free runs of slots are kept in size bins, last freed first (segment.c
//!   `mi_span_queue_push`, `mi_slice_bin8`), and a new page is cut from the front of the
//!   first run that holds it, searching from the bin of its size up
//!   (`mi_segments_page_find_and_allocate`). Each run's first slot carries a stamp of when
//!   it was put in its bin: when its span was freed and merged with the runs beside it,
//!   when it was left over from a split, or when its segment was made.

use std::cmp::Reverse;

use super::segments::{free_run_around, runs_where};
use super::{SizeClass, NONE};

impl SizeClass {
    /// The queue's head spans with no block left leave it, as mimalloc moves a page it
    /// passes to its full list.
    #[inline(never)]
    pub(super) fn pass_full(&mut self, heap: u32, class: u32) {
        while let Some(&id) = self.heaps[heap as usize].queues[class as usize].last() {
            let span = &self.spans[id as usize];
            if span.used < span.capacity {
                return;
            }
            self.queue_remove(id);
        }
    }

    /// Span `id`, full until now, goes behind every other span of its class.
    #[inline(never)]
    pub(super) fn queue_push_behind(&mut self, id: u32) {
        let span = &self.spans[id as usize];
        let q = &mut self.heaps[span.heap as usize].queues[span.class as usize];
        q.insert(0, id);
        for (pos, &moved) in q.iter().enumerate() {
            self.spans[moved as usize].qpos = pos as u32;
        }
    }

    /// Stamps the free run of segment `si` that begins at slot `first`, as the run put in
    /// its bin last.
    #[inline(never)]
    pub(super) fn stamp_run(&mut self, si: u32, first: u32) {
        if !self.mimalloc2 {
            return;
        }
        self.stamps += 1;
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        if let Some(slot) = seg.slots.get_mut(first as usize) {
            if slot.owner == NONE {
                slot.stamp = self.stamps;
            }
        }
    }

    /// Slots `first..first + n` of segment `si` were just freed: the free run they are now
    /// part of, merged with the runs beside it, goes in its bin as the last freed.
    #[inline(never)]
    pub(super) fn stamp_freed_run(&mut self, si: u32, first: u32) {
        if !self.mimalloc2 {
            return;
        }
        let seg = self.segments[si as usize].as_ref().expect("live segment");
        let (lo, _) = free_run_around(&seg.slots, first as usize, first as usize);
        self.stamp_run(si, lo as u32);
    }

    /// The heap's free run a page of `n` slots is cut from: among the runs that hold it,
    /// the one in the smallest bin, the last freed of that bin; as (segment, first slot).
    #[inline(never)]
    pub(super) fn binned_fit(&self, heap: u32, n: u32) -> Option<(u32, u32)> {
        let mut best = None;
        let mut best_key = (u32::MAX, Reverse(0));
        for (si, seg) in self.segments.iter().enumerate() {
            let Some(seg) = seg.as_ref().filter(|s| s.heap == heap && s.free_slots >= n) else {
                continue;
            };
            for (first, len) in runs_where(&seg.slots, |s| s.owner == NONE) {
                let key = (slice_bin(len), Reverse(seg.slots[first as usize].stamp));
                if len >= n && key < best_key {
                    (best, best_key) = (Some((si as u32, first)), key);
                }
            }
        }
        best
    }
}

/// mimalloc 2.0's size bin of a free span of `n` slices (segment.c `mi_slice_bin8`): one
/// bin each up to 7, then four per doubling.
fn slice_bin(n: u32) -> u32 {
    if n <= 1 {
        return n;
    }
    let m = n - 1;
    let s = 31 - m.leading_zeros();
    if s <= 2 {
        return m + 1;
    }
    ((s << 2) | ((m >> (s - 2)) & 3)) - 4
}

#[cfg(test)]
mod tests {
    use super::slice_bin;

    /// The bins mimalloc 2.0.9's `mi_slice_bin8` gives spans of 1 to 17 slices and a
    /// whole segment's 512, as printed by that function compiled on its own.
    #[test]
    fn free_runs_are_binned_as_mimalloc_2_bins_spans() {
        let bins: Vec<u32> = (1..=17).map(slice_bin).collect();
        assert_eq!(
            bins,
            [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 9, 9, 10, 10, 11, 11, 12]
        );
        assert_eq!(slice_bin(512), 31);
    }
}
