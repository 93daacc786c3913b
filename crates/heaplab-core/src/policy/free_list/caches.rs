//! glibc's per-thread caches (tcache) and fast bins: chunks of one exact size kept in use
//! for the next request of that size, without coalescing, and `malloc_consolidate`, which
//! frees the fast bins' chunks into the heap.

use super::FreeList;
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::PageProvider;

impl FreeList {
    /// A chunk size in alignment units: its thread-cache bin and fast bin.
    #[inline]
    pub(super) fn size_bin(&self, csize: u64) -> usize {
        (csize >> self.shift) as usize
    }

    /// Takes a chunk of exactly `csize` bytes from `thread`'s cache, if it holds one.
    #[inline]
    pub(super) fn tcache_take(&mut self, thread: u32, csize: u64) -> Option<u32> {
        if csize > self.tcache_max_chunk {
            return None;
        }
        let bin = self.size_bin(csize);
        self.tcache.get_mut(thread)?[bin].pop()
    }

    /// Takes a chunk of exactly `csize` bytes from the fast bins, if they hold one.
    #[inline]
    pub(super) fn fast_take(&mut self, csize: u64) -> Option<u32> {
        if csize > self.fast_max_chunk {
            return None;
        }
        let bin = self.size_bin(csize);
        let c = self.fastbins[bin].pop()?;
        self.fast_chunks -= 1;
        Some(c)
    }

    /// Frees every chunk in the fast bins into the heap, coalescing it with its free
    /// neighbours and the top: glibc's `malloc_consolidate`. Most heaps have no fast
    /// bins, so the test is inline and the work out of line.
    #[inline]
    pub(super) fn consolidate<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
    ) -> Result<(), AllocError> {
        if self.fast_chunks == 0 {
            return Ok(());
        }
        self.consolidate_bins(mem)
    }

    /// Says why a free consolidates the fast bins, as glibc's `_int_free` does once the
    /// chunk it merged reaches `FASTBIN_CONSOLIDATION_THRESHOLD`.
    #[inline]
    pub(super) fn note_consolidation<P: PageProvider>(&self, mem: &mut Pages<P>, merged: u64) {
        if self.fast_chunks > 0 {
            mem.note(|| crate::decision::Decision::Rule {
                rule: "consolidate",
                text: format!(
                    "fast bins consolidated: the merged free chunk of {} reaches {} (glibc's FASTBIN_CONSOLIDATION_THRESHOLD)",
                    crate::format::format_bytes(merged),
                    crate::format::format_bytes(super::FASTBIN_CONSOLIDATION_THRESHOLD)
                ),
            });
        }
    }

    #[cold]
    pub(super) fn consolidate_bins<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
    ) -> Result<(), AllocError> {
        if self.fast_chunks == 0 {
            return Ok(());
        }
        // Emptied first, so the frees below never consolidate again.
        let mut chunks: Vec<u32> = self.fastbins.iter_mut().flat_map(std::mem::take).collect();
        self.fast_chunks = 0;
        // Address order, as glibc's bins are walked: chunks in use are neither moved nor
        // merged, so their records still say where they are.
        chunks.sort_unstable_by_key(|&h| self.chunks[h].addr);
        for h in chunks {
            self.release_chunk(mem, h, true)?;
        }
        Ok(())
    }

    /// Puts a chunk the program freed into `thread`'s cache if its bin has room. The chunk
    /// stays in use as far as the heap is concerned: no coalescing, no trimming past it.
    #[inline]
    pub(super) fn tcache_put(&mut self, thread: u32, h: u32, csize: u64) -> bool {
        if csize > self.tcache_max_chunk {
            return false;
        }
        let bins = self.size_bin(self.tcache_max_chunk) + 1;
        let bin = self.size_bin(csize);
        let bin = &mut self
            .tcache
            .get_or_insert_with(thread, || vec![Vec::new(); bins])[bin];
        if bin.len() >= self.tcache_count {
            return false;
        }
        bin.push(h);
        true
    }
}
