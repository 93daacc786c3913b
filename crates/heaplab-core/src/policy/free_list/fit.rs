//! The free structures and the fit policies: free chunks by size for best fit and bins
//! (`size_bins.rs`), or by address for first and next fit (`fit_tree.rs`), whichever the
//! policy searches.

use super::chunks::Chunk;
use super::{Fit, FreeList};

impl FreeList {
    /// Makes chunk `h` free: gives it the next stamp and puts it in the free structures.
    // Always inlined, as its callers (a free, a split) are short and hot.
    #[inline(always)]
    pub(super) fn insert_free(&mut self, h: u32) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.chunks.set_stamp(h, stamp);
        let Chunk { addr, size, .. } = self.chunks[h];
        match self.fit {
            Fit::Best | Fit::Bins => {
                let chunks = &self.chunks;
                self.bins
                    .insert(h, addr, size, stamp, |h, s| chunks[h].stamp == s);
            }
            Fit::First | Fit::Next => self.by_addr.insert(addr, size),
        }
    }

    /// Takes free chunk `h` out of the free structures; it counts as in use until it is
    /// merged away or freed again.
    #[inline]
    pub(super) fn remove_free(&mut self, h: u32) {
        let chunk = self.chunks[h];
        match self.fit {
            Fit::Best | Fit::Bins => self.bins.remove(chunk.addr, chunk.size, chunk.stamp),
            Fit::First | Fit::Next => {
                self.by_addr.remove(chunk.addr);
            }
        }
        self.chunks.set_stamp(h, 0);
    }

    /// Finds and unlinks a free chunk of at least `csize` bytes: its record.
    #[inline]
    pub(super) fn take_fit(&mut self, csize: u64) -> Option<u32> {
        let h = match self.fit {
            // glibc's small bins hold one size each and large bins are sorted by size, so
            // both hand out the smallest chunk that fits; what sets bins apart from best
            // fit is which of several equal chunks goes first.
            Fit::Best | Fit::Bins => {
                let chunks = &self.chunks;
                self.bins.take(csize, |h, s| chunks[h].stamp == s)?.0
            }
            // The textbook policies walk an address-ordered list; the tree finds the same
            // chunk without the walk.
            Fit::First | Fit::Next => {
                let a = if self.fit == Fit::Next {
                    self.by_addr
                        .first_fit_from(self.rover, csize)
                        .or_else(|| self.by_addr.first_fit_from(0, csize))
                } else {
                    self.by_addr.first_fit_from(0, csize)
                }?;
                self.by_addr.remove(a);
                self.chunks.find(a).expect("a free chunk is in the table")
            }
        };
        self.chunks.set_stamp(h, 0);
        self.rover = self.chunks[h].addr;
        Some(h)
    }
}
