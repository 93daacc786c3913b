//! Freeing a block: merged with its buddy while the buddy is free, then put on the free
//! set of its order with its link written where its pages are held, or its pages given
//! back under `decommit_merged`; and the frees that take the slow path.

use super::{not_live, Buddy, Live, LINK};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

impl Buddy {
    /// Puts a block on the free list of order `k` without merging, and writes its link or
    /// gives back its pages. The block's start must be marked already.
    #[inline(always)]
    pub(super) fn put_free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        start: usize,
        block: Addr,
        k: u32,
    ) -> Result<(), AllocError> {
        self.list_free(start, k);
        self.write_link(mem, start, block, self.size_of(k))
    }

    /// Puts the block of order `k` starting at index `start` on its free list.
    #[inline(always)]
    pub(super) fn list_free(&mut self, start: usize, k: u32) {
        self.free_set_mut(k).insert(start >> k);
        self.nonempty |= 1 << k;
    }

    /// Writes the free-list link of a free block of `size` bytes at `block` (index `start`
    /// of order 0), or gives back its pages.
    #[inline(always)]
    pub(super) fn write_link<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        start: usize,
        block: Addr,
        size: u64,
    ) -> Result<(), AllocError> {
        if size >= self.decommit_from {
            return self.give_back(mem, block, size);
        }
        let bytes = LINK.min(size);
        if self.held.contains(start) {
            // A page committed and resident: `touch_if_committed` would only hand the write
            // to the provider, so it is handed over without the page-map lookup (which
            // debug builds make, to check the record).
            mem.write_resident(block, bytes);
            return Ok(());
        }
        // The link goes where the pages are still held; otherwise it is kept out of band.
        if mem.touch_if_committed(block, bytes)? {
            // The write made the page resident if it was not.
            self.held.insert(start);
        }
        Ok(())
    }

    /// [`Buddy::put_free`] for a block of a page or more with `decommit_merged` on.
    #[cold]
    #[inline(never)]
    pub(super) fn give_back<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Addr,
        size: u64,
    ) -> Result<(), AllocError> {
        if mem.caps().can_decommit {
            // The block spans whole pages and holds nothing: give them back, and keep its
            // links out of band so the pages stay untouched. Past the arena's untouched
            // mark there is nothing to give back.
            let fresh = self.fresh_from[self.slot_of(block)];
            if block < fresh {
                mem.note(|| crate::decision::Decision::Reason {
                    why: "decommit_merged: a free block of a page or more",
                });
                mem.decommit_committed(block, size.min(fresh - block))?;
            }
        } else {
            mem.touch_if_committed(block, LINK.min(size))?;
        }
        Ok(())
    }

    /// Frees a live block, merging it with its buddy while the buddy is free at the same
    /// order; the upper half of each pair merged no longer starts a block. Arenas are
    /// aligned to their size, so the lower half's address is the block's with one bit
    /// cleared, as its index is.
    ///
    /// The buddy of the block of order `k` at `block` (index `start`) must be free: the
    /// caller's test says so, so the first merge needs no test. The block comes in three
    /// registers, where a `Live` passed by reference was stored and read back.
    #[inline(never)]
    pub(super) fn release_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        mut start: usize,
        mut block: Addr,
        mut k: u32,
    ) -> Result<(), AllocError> {
        loop {
            if self.free_set_mut(k).remove_member((start >> k) ^ 1) {
                self.nonempty &= !(1 << k);
            }
            self.starts.clear(start | 1 << k);
            start &= !(1 << k);
            block &= !self.size_of(k);
            k += 1;
            let size = self.size_of(k);
            mem.note(|| crate::decision::Decision::Coalesce {
                with: "buddy",
                addr: block,
                size,
            });
            if k >= self.max_order || !self.free_set(k).contains((start >> k) ^ 1) {
                if mem.watching() {
                    self.note_freed(mem, block, k);
                }
                return self.put_free(mem, start, block, k);
            }
        }
    }

    /// [`Policy::free`] for every case: a block mapped on its own, a header, a block
    /// that merges, an address that is not a live payload.
    #[cold]
    #[inline(never)]
    pub(super) fn free_slow<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
    ) -> Result<(), AllocError> {
        // Most heaps hold no block mapped on its own, and an empty map needs no probe.
        if !self.mapped.is_empty() {
            if let Some((base, len)) = self.mapped.remove(&addr) {
                mem.note(|| crate::decision::Decision::Reason {
                    why: "a block mapped on its own goes back when freed",
                });
                mem.release(base, len)?;
                return Ok(());
            }
        }
        // With a header, taking the payload out of its set is the test that it was live:
        // one lookup, where asking first and removing after took two.
        let live_payload = self.header > 0 && self.payloads.remove(&addr);
        let Some(live) = self.live_block_if(addr, live_payload) else {
            return Err(not_live(addr));
        };
        self.release(mem, live)
    }

    /// Frees the live block `live`: merged if its buddy is free, else put on its list.
    #[inline(always)]
    pub(super) fn release<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        live: Live,
    ) -> Result<(), AllocError> {
        self.live_blocks -= 1;
        if live.buddy_free {
            return self.release_block(mem, live.start, live.block, live.order);
        }
        // A constant for any provider but teaching mode's, and false while it runs fast.
        if mem.watching() {
            self.note_freed(mem, live.block, live.order);
        }
        self.put_free(mem, live.start, live.block, live.order)
    }

    /// For teaching mode, before a freed block of order `k` at `block` (merged as far as it
    /// goes) is put on its free list: what happens to its pages and which knob decides,
    /// and, for a whole arena free again, that the arena is kept. Knuth's buddy system
    /// (TAOCP vol. 1, 2.5, Algorithm R) and Linux's `__free_one_page` (mm/page_alloc.c)
    /// merge a freed block with its buddy up to the largest order and put it on that
    /// order's free list; neither gives its memory back to anything below. Only
    /// `decommit_merged` does, as allocators that purge free memory with madvise do.
    #[cold]
    #[inline(never)]
    pub(super) fn note_freed<P: PageProvider>(&self, mem: &mut Pages<P>, block: Addr, k: u32) {
        use crate::format::format_bytes;
        let (size, page) = (self.size_of(k), self.page);
        let at = format!("the free {} block at {block:#x}", format_bytes(size));
        let text = if !self.decommit_merged {
            // A block under a page shares it with other blocks: the page's fate is theirs,
            // which the pinned pages of the line say.
            (size >= page).then(|| {
                format!(
                    "{at} keeps its pages committed: decommit_merged is off, so freed memory \
                     stays until it is reused"
                )
            })
        } else if size < page {
            Some(format!(
                "no decommit: {at} is smaller than a page ({}); decommit_merged gives back \
                 free blocks of a page or more",
                format_bytes(page)
            ))
        } else if !mem.caps().can_decommit {
            Some(format!(
                "no decommit: decommit_merged is on, but this memory cannot be decommitted, \
                 so {at} keeps its pages"
            ))
        } else {
            // What `give_back` decommits: the block's committed pages below the arena's
            // untouched part. A freed block holds the live block's committed pages, so
            // there is always something.
            let fresh = self.fresh_from[self.slot_of(block)];
            let committed = mem.committed_bytes(block, size.min(fresh.saturating_sub(block)));
            Some(format!(
                "decommit_merged: {at} spans whole pages: its {} of committed pages are \
                 decommitted",
                format_bytes(committed)
            ))
        };
        if let Some(text) = text {
            mem.note(|| crate::decision::Decision::Rule {
                rule: "decommit",
                text,
            });
        }
        if k == self.max_order {
            let (arena, max_order) = (self.arena_size, self.max_order);
            mem.note(|| crate::decision::Decision::Rule {
                rule: "arena",
                text: format!(
                    "the arena at {block:#x} is one free block of {} again (max_order {max_order}): \
                     it stays reserved for later requests, as a buddy heap keeps its zone",
                    format_bytes(arena)
                ),
            });
        }
    }
}
