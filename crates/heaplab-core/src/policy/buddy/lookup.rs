//! Where blocks are: a block's index in the free sets and the start bitmap (its arena's
//! position above its number in the arena), the arena that holds an address, and the live
//! block at a payload, read from the start bitmap and the free set of its order.

use super::{Buddy, Live};
use crate::provider::Addr;

impl Buddy {
    /// The index of the block of order `k` at `block` in arena `slot`: the arena's position
    /// above the block's number within its arena.
    #[inline]
    pub(super) fn index(&self, slot: usize, block: Addr, k: u32) -> usize {
        (slot << (self.max_order - k))
            | ((block - self.arenas[slot]) >> (self.min_shift + k)) as usize
    }

    /// The address of the block of order `k` with the given index, in arena `slot`.
    #[inline]
    pub(super) fn address(&self, slot: usize, index: usize, k: u32) -> Addr {
        let within = index & ((1usize << (self.max_order - k)) - 1);
        self.arenas[slot] + ((within as u64) << (self.min_shift + k))
    }

    /// The position of the arena holding `addr` in `arenas`; `addr` is in one of them.
    #[inline]
    pub(super) fn slot_of(&self, addr: Addr) -> usize {
        self.find_slot(addr)
            .expect("a block lies in one of the arenas")
    }

    /// The position of the arena holding `addr` in `arenas`, if one does.
    #[inline]
    pub(super) fn find_slot(&self, addr: Addr) -> Option<usize> {
        let base = self.arena_of(addr);
        // Most heaps have one arena or a few, and the newest holds most of the traffic.
        match self.arenas.last() {
            Some(&last) if last == base => Some(self.arenas.len() - 1),
            _ => self.arenas.binary_search(&base).ok(),
        }
    }

    /// The index of order 0 of the smallest block holding `addr`, if an arena holds it.
    #[inline]
    pub(super) fn start_index(&self, addr: Addr) -> Option<usize> {
        let base = self.arena_of(addr);
        let slot = self.find_slot(base)?;
        Some((slot << self.max_order) | ((addr - base) >> self.min_shift) as usize)
    }

    /// The live block whose payload is `addr`, if there is one. The start bitmap gives the
    /// block holding the payload and its order, and a block that starts there and is not
    /// on its order's free list is live.
    #[inline]
    pub(super) fn live_block(&self, addr: Addr) -> Option<Live> {
        self.live_block_if(addr, self.header > 0 && self.payloads.contains(&addr))
    }

    /// [`Buddy::live_block`] given, with a header, whether `addr` is in the set of live
    /// payloads: asked, or taken out of it by a free.
    #[inline]
    pub(super) fn live_block_if(&self, addr: Addr, live_payload: bool) -> Option<Live> {
        // Without a header the payload is the block's start.
        if self.header == 0 {
            return self.live_block_at(addr);
        }
        live_payload.then(|| self.payload_block(addr)).flatten()
    }

    /// The block holding `addr`, a live payload with a header, if it is not free.
    pub(super) fn payload_block(&self, addr: Addr) -> Option<Live> {
        // The payload lies past the block's start, up to its end, so the byte before it is
        // in the block.
        let key = addr - 1;
        let start = self.starts.start_of(self.start_index(key)?);
        let order = self.starts.order_at(start);
        let (free, buddy_free) = self.free_set(order).pair(start >> order);
        let block = self.arena_of(key) + (((start & self.arena_mask) as u64) << self.min_shift);
        (!free).then_some(Live {
            start,
            block,
            order,
            buddy_free: buddy_free && order < self.max_order,
        })
    }

    /// [`Buddy::live_block`] without a header, where the payload is the block's start.
    #[inline(always)]
    pub(super) fn live_block_at(&self, addr: Addr) -> Option<Live> {
        if addr & (self.min_block - 1) != 0 {
            return None;
        }
        let start = self.start_index(addr)?;
        let order = self.starts.order_if_start(start)?;
        // The block and its buddy share a word of the free set: one read says whether the
        // block is live and whether freeing it merges.
        let (free, buddy_free) = self.free_set(order).pair(start >> order);
        (!free).then_some(Live {
            start,
            block: addr,
            order,
            // The arena's whole block has no buddy.
            buddy_free: buddy_free && order < self.max_order,
        })
    }

    /// Free blocks as (address, order), for tests and the invariant scan.
    pub(super) fn free_blocks(&self) -> impl Iterator<Item = (Addr, u32)> + '_ {
        self.free.iter().enumerate().flat_map(move |(k, set)| {
            let k = k as u32;
            set.iter().map(move |index| {
                let slot = index >> (self.max_order - k);
                (self.address(slot, index, k), k)
            })
        })
    }

    /// Whether the block of order `k` at `block`, in one of the arenas, is free.
    pub(super) fn is_free(&self, block: Addr, k: u32) -> bool {
        self.free_set(k)
            .contains(self.index(self.slot_of(block), block, k))
    }
}

impl Buddy {
    /// The buddy block around the live payload at `addr`: the header in front of it and
    /// the size of the block's order, or a mapping of its own for a block mapped alone.
    /// `None` when no live block holds the payload.
    pub(super) fn layout(&self, addr: Addr, size: u64) -> Option<crate::policy::BlockLayout> {
        let (start, slot) = if let Some(&(base, len)) = self.mapped.get(&addr) {
            (base, len)
        } else {
            let live = if self.header == 0 {
                self.live_block_at(addr)?
            } else if self.payloads.contains(&addr) {
                self.payload_block(addr)?
            } else {
                return None;
            };
            (live.block, self.size_of(live.order))
        };
        (start <= addr && addr + size <= start + slot).then_some(crate::policy::BlockLayout {
            header: addr - start,
            slot,
        })
    }
}
