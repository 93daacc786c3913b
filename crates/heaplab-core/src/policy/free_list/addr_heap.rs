//! One best-fit bin's entries, lowest address first: a binary min-heap that compares
//! addresses only.
//!
//! `BinaryHeap<Reverse<(Addr, u64, u32)>>` did the same job, but compared whole tuples and
//! went through `Reverse` and `Option` on every step; a steady-state best-fit event spent
//! about a quarter of its instructions there. Two entries of one address can be in a bin at
//! once only if one of them is stale (a chunk has one live entry), and stale entries are
//! skipped whichever comes out first, so ordering by address alone changes no result.

use crate::provider::Addr;

/// A free chunk's entry: its address, the stamp it was freed with, and its record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub addr: Addr,
    pub stamp: u64,
    pub chunk: u32,
}

#[derive(Clone, Debug, Default)]
pub(super) struct AddrHeap {
    entries: Vec<Entry>,
}

impl AddrHeap {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    #[inline]
    pub(super) fn push(&mut self, entry: Entry) {
        let pos = self.entries.len();
        self.entries.push(entry);
        self.sift_up(pos, entry);
    }

    /// Puts `entry` in the hole at `pos` or above it: parents move down into the hole
    /// until one is not above the entry.
    #[inline(always)]
    fn sift_up(&mut self, mut pos: usize, entry: Entry) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            let p = self.entries[parent];
            if p.addr <= entry.addr {
                break;
            }
            self.entries[pos] = p;
            pos = parent;
        }
        self.entries[pos] = entry;
    }

    /// Takes the lowest-addressed entry.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Entry> {
        let last = self.entries.pop()?;
        let n = self.entries.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.entries[0];
        // Floyd's pop: the hole at the root goes down the smaller child all the way to a
        // leaf, then the last entry sifts up from there; entries that left the root are
        // seldom small, so this saves a compare per level over stopping early.
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < n {
            if self.entries[child + 1].addr < self.entries[child].addr {
                child += 1;
            }
            self.entries[pos] = self.entries[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child < n {
            self.entries[pos] = self.entries[child];
            pos = child;
        }
        self.sift_up(pos, last);
        Some(top)
    }

    /// Keeps the entries `keep` says yes to, in heap order.
    pub(super) fn retain(&mut self, keep: impl FnMut(&Entry) -> bool) {
        // Sorted by address is a valid min-heap, rebuilt in place.
        self.entries.retain(keep);
        self.entries.sort_unstable_by_key(|e| e.addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pops_in_address_order(ops in prop::collection::vec((0u64..64, any::<bool>()), 1..500)) {
            let mut heap = AddrHeap::default();
            let mut model: Vec<Addr> = Vec::new();
            for (i, (addr, push)) in ops.into_iter().enumerate() {
                if push {
                    heap.push(Entry { addr, stamp: i as u64, chunk: 0 });
                    model.push(addr);
                } else {
                    model.sort_unstable_by(|a, b| b.cmp(a));
                    prop_assert_eq!(heap.pop().map(|e| e.addr), model.pop());
                }
                prop_assert_eq!(heap.len(), model.len());
                if i % 50 == 0 {
                    heap.retain(|e| e.addr % 3 != 0);
                    model.retain(|a| a % 3 != 0);
                }
            }
        }
    }
}
