//! Taking a block: a free one of the order asked for, or a larger one split in halves
//! whose upper halves go to the free sets, or a new arena; committing the pages it needs;
//! and mapping a request larger than an arena on its own.

use super::index_set::IndexSet;
use super::{indices_fit, Buddy, LINK};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider, ProviderError};

impl Buddy {
    /// Takes a free block of order `k`, splitting a larger one or opening an arena if
    /// needed, and commits its pages. On error nothing is handed out and every block is
    /// still on its free list.
    #[inline]
    pub(super) fn take_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        k: u32,
    ) -> Result<Addr, AllocError> {
        if self.nonempty & (1 << k) == 0 {
            return self.split_block(mem, k);
        }
        // A free block of the order asked for, the usual case once the heap has churned.
        let index = self
            .free_set(k)
            .first()
            .expect("the order has a free block");
        let start = index << k;
        let slot = start >> self.max_order;
        let block = self.address(slot, start, 0);
        mem.note(|| crate::decision::Decision::Search {
            structure: "order",
            index: u64::from(k),
            found: Some(block),
        });
        self.commit_block(mem, slot, start, block, self.size_of(k))?;
        if self.free_set_mut(k).take_first() {
            self.nonempty &= !(1 << k);
        }
        Ok(block)
    }

    /// [`Buddy::take_block`] when order `k` has no free block: a larger one is split. Kept
    /// apart so that the usual case stays small enough to inline.
    #[inline(never)]
    pub(super) fn split_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        k: u32,
    ) -> Result<Addr, AllocError> {
        let from = match self.nonempty >> k {
            0 => {
                self.new_arena(mem, k)?;
                self.max_order
            }
            above => k + above.trailing_zeros(),
        };
        let index = self
            .free_set(from)
            .first()
            .expect("the order found has a free block");
        let start = index << from;
        let slot = start >> self.max_order;
        let block = self.address(slot, start, 0);
        let (whole, taken) = (self.size_of(from), self.size_of(k));
        mem.note(|| crate::decision::Decision::Search {
            structure: "order",
            index: u64::from(k),
            found: None,
        });
        mem.note(|| crate::decision::Decision::Halve {
            addr: block,
            size: whole,
            taken,
        });
        // Commit first: the block keeps the address of the block it is split from, so a
        // refusal leaves the free lists as they were.
        self.commit_block(mem, slot, start, block, self.size_of(k))?;
        if self.free_set_mut(from).take_first() {
            self.nonempty &= !(1 << from);
        }
        // The upper halves go to the free lists, each a new block. `from` is the lowest
        // order at or above `k` with a free block, so each half is alone on its list, and
        // the orders' bits are set with one mask.
        self.starts.set_halves(start, k, from);
        for j in k..from {
            self.free_set_mut(j).insert_alone((start >> j) | 1);
        }
        self.nonempty |= (1 << from) - (1 << k);
        // A block split within one page known held has every link in that page, which
        // needs no page lookup; otherwise each half is asked about, largest first, and
        // those in the arena's untouched part get no link written.
        if self.size_of(from) <= self.page && self.held.contains(start) {
            for j in (k..from).rev() {
                mem.write_resident(block + self.size_of(j), LINK.min(self.size_of(j)));
            }
            return Ok(block);
        }
        let fresh = self.fresh_from[slot];
        for j in (k..from).rev() {
            let (half, at) = (start + (1 << j), block + self.size_of(j));
            if at < fresh {
                self.write_link(mem, half, at, self.size_of(j))?;
            }
        }
        Ok(block)
    }

    /// Commits the pages of the block at `block` (index `start` of order 0) in arena `slot`
    /// that are not committed.
    #[inline(always)]
    pub(super) fn commit_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        slot: usize,
        start: usize,
        block: Addr,
        bytes: u64,
    ) -> Result<(), ProviderError> {
        // Once the heap has grown, nearly every block handed out lies in pages still held:
        // a block of a page or less lies in one page, which may be known held.
        if bytes <= self.page && self.held.contains(start) {
            return Ok(());
        }
        if mem.is_committed(block, bytes) {
            return Ok(());
        }
        // Marked before committing, so that pages committed before a refusal are covered.
        let end = (block + bytes).next_multiple_of(mem.page_size());
        let fresh = &mut self.fresh_from[slot];
        *fresh = (*fresh).max(end);
        mem.note(|| crate::decision::Decision::Reason { why: "first use" });
        mem.commit_missing(block, bytes)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn new_arena<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        k: u32,
    ) -> Result<(), AllocError> {
        let arenas = self.arenas.len() as u64 + 1;
        if !indices_fit(arenas, self.max_order, usize::BITS) {
            return Err(AllocError::Invalid(format!(
                "buddy: {arenas} arenas of 2^{} smallest blocks need more than this build's \
                 {}-bit block indices (the browser's are 32-bit); lower max_order",
                self.max_order,
                usize::BITS
            )));
        }
        let (min_block, max_order, bytes) = (self.min_block, self.max_order, self.arena_size);
        mem.note(|| crate::decision::Decision::Rule {
            rule: "arena",
            text: format!(
                "no free block of order {k} or above: a new arena of {} (min_block {} << \
                 max_order {max_order}), reserved whole and committed as its blocks are used",
                crate::format::format_bytes(bytes),
                crate::format::format_bytes(min_block)
            ),
        });
        let base = mem.reserve(self.arena_size, self.arena_size)?;
        mem.note(|| crate::decision::Decision::NewRegion {
            what: "arena",
            addr: base,
            bytes,
        });
        let slot = self.arenas.partition_point(|&a| a < base);
        // A provider that cannot release hands back memory it kept, whose pages may still
        // be committed; then nothing is known of the arena's pages.
        let fresh = if mem.caps().can_release {
            base
        } else {
            base + self.arena_size
        };
        self.fresh_from.insert(slot, fresh);
        if slot == self.arenas.len() {
            // The free sets and the start bitmap grow as blocks are marked in them.
            self.arenas.push(base);
        } else {
            // The provider reused a gap below an arena we hold: every later arena's blocks
            // change index, so the free sets and starts are built again (rare: arenas are
            // never given back, so this happens only when an earlier mapping left a hole).
            let blocks: Vec<(Addr, u32)> = self.free_blocks().collect();
            let starts: Vec<Addr> = self
                .starts
                .iter()
                .map(|i| self.address(i >> self.max_order, i, 0))
                .collect();
            self.arenas.insert(slot, base);
            for set in self.free.iter_mut() {
                *set = IndexSet::default();
            }
            self.starts.clear_all();
            self.held.clear();
            for (a, k) in blocks {
                let index = self.index(self.slot_of(a), a, k);
                self.free_set_mut(k).insert(index);
            }
            for a in starts {
                let i = self.index(self.slot_of(a), a, 0);
                self.starts.set(i);
            }
        }
        let index = self.index(slot, base, self.max_order);
        self.free_set_mut(self.max_order).insert(index);
        self.starts.set(index << self.max_order);
        self.nonempty |= 1 << self.max_order;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    pub(super) fn alloc_mapped<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let offset = self.offset(align);
        let (arena, min_block, max_order) = (self.arena_size, self.min_block, self.max_order);
        mem.note(|| crate::decision::Decision::Rule {
            rule: "mapped",
            text: format!(
                "mapped on its own: {} with its header and alignment is more than an arena \
                 of {} (min_block {} << max_order {max_order})",
                crate::format::format_exact_bytes(self.need(size, align)),
                crate::format::format_bytes(arena),
                crate::format::format_bytes(min_block)
            ),
        });
        // A zero-byte request over-aligned past an arena still takes a page.
        let len = mem.round_up((offset + size).max(1));
        let base = mem.map(len, align.max(self.page))?;
        let payload = base + offset;
        mem.touch(payload - self.header, self.header)?;
        self.mapped.insert(payload, (base, len));
        Ok(payload)
    }
}
