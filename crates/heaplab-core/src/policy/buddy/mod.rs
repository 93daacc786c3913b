//! The buddy family: a binary buddy allocator, as in Knuth's buddy system and the Linux
//! page allocator.
//!
//! Memory comes from the provider in arenas of `min_block << max_order` bytes, each
//! reserved aligned to its own size, so a block of order `k` (`min_block << k` bytes) lies
//! at a multiple of its size and its buddy is found by flipping one address bit. A request
//! takes the smallest order that holds it: a free block of that order, or a larger one split
//! in halves until it fits, the upper halves going to the free lists. A freed block merges
//! with its buddy while the buddy is free at the same order.
//!
//! Arenas are committed lazily: the pages of a block are committed when it is handed out,
//! if they are not already. Freed memory stays committed unless `decommit_merged` is on
//! (teaching mode says which, for every freed block of a page or more: `note_freed`);
//! then a free block of a page or more (after merging) has its pages decommitted and its
//! free-list links kept out of band, so it costs no resident memory. Arenas are kept for
//! the whole run, as a buddy heap keeps its zone; with `decommit_merged` an arena that
//! merged back into one free block holds no committed pages. Requests larger than an arena
//! get a mapping of their own, released on free.
//!
//! Every block size is a power of two, so a request just above one wastes almost half its
//! block: the internal fragmentation that the malloc-lab `binary` pattern exposes.
//!
//! The bookkeeping is out of band and indexed, with no hash lookup on the usual path: the
//! free blocks of each order are a bitmap (`index_set.rs`) that keeps its lowest member,
//! and a bitmap of where blocks start (`starts.rs`) gives a live block's order from its
//! address, since blocks tile their arena; a block that starts there and is not free is
//! live. Only with a header is a set of payloads kept, since the payload's place in its
//! block then depends on the alignment asked for.

mod grow_bits;
mod held_pages;
mod index_set;
mod invariants;
mod lookup;
mod merge;
mod params;
mod split;
mod starts;
#[cfg(test)]
mod tests;

use rustc_hash::{FxHashMap, FxHashSet};

use self::held_pages::HeldPages;
use self::index_set::IndexSet;
use self::params::Knobs;
use self::starts::Starts;
use super::free_list::default_realloc;
use super::{AllocError, Block, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, Params};
use crate::provider::{Addr, PageProvider};

pub use self::params::FAMILY;

/// Arenas larger than this are refused: the simulated address space is 64 TiB.
const MAX_ARENA: u64 = 1 << 40;

/// Bytes a free-list link takes in a free block.
const LINK: u64 = 8;

/// A live block: where it starts, as an address (the payload may follow a header) and as
/// the index of its first smallest block (`index` of order 0), and its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Live {
    start: usize,
    block: Addr,
    order: u32,
    /// Whether its buddy is free, so that freeing it merges the two.
    buddy_free: bool,
}

/// A binary buddy heap.
#[derive(Clone, Debug)]
pub struct Buddy {
    min_block: u64,
    min_shift: u32,
    max_order: u32,
    /// Smallest blocks per arena, less one: the arena's part of an index of order 0.
    arena_mask: usize,
    arena_size: u64,
    header: u64,
    decommit_merged: bool,
    /// Free blocks of this size or more have their pages decommitted: a page with
    /// `decommit_merged` on, never otherwise.
    decommit_from: u64,
    page: u64,
    /// Free blocks of each order, as indices (`index`): allocation takes the lowest one,
    /// which keeps the used part of an arena compact. A bitmap answers "is the buddy free"
    /// with one word and finds the lowest free block in a word per summary level, where a
    /// B-tree per order cost a search and node rebalancing on every split and merge.
    /// Read through `free_set` and `free_set_mut`, which mask the order.
    free: [IndexSet; 32],
    /// Bit `k` is set when order `k` has a free block, so a request finds the smallest
    /// order that can serve it with one count of trailing zeros.
    nonempty: u64,
    /// Arena bases, each aligned to `arena_size`, in address order: an arena's position
    /// here is the high part of its blocks' indices, so index order is address order.
    arenas: Vec<Addr>,
    /// For each arena, an address at or above which none of its pages is committed, since
    /// none was since the arena was reserved (rounded up to a page; the arena's end when
    /// the provider may have handed back memory it kept): a link written there is kept out
    /// of band and a decommit has nothing to do, which spares a page lookup for each upper
    /// half split off a block that reaches into the untouched part of an arena.
    fresh_from: Vec<Addr>,
    /// Where every block, live or free, starts: with the free sets, the record of the
    /// live blocks (see `starts.rs`).
    starts: Starts,
    /// Pages known committed and resident, which need no page-map lookup (see
    /// `held_pages.rs`).
    held: HeldPages,
    /// How many blocks are live.
    live_blocks: u64,
    /// With a header, the payload of each live block: the start bitmap finds the block
    /// that holds an address, but where its payload lies depends on the alignment asked
    /// for, which only this set remembers. Empty without a header.
    payloads: FxHashSet<Addr>,
    /// Blocks larger than an arena, mapped on their own: payload to (mapping start, length).
    mapped: FxHashMap<Addr, (Addr, u64)>,
}

impl Buddy {
    pub fn new(params: &Params, page_size: u64) -> Result<Buddy, ParamError> {
        let knobs = Knobs::read(params);
        let min_block = knobs.min_block;
        let max_order = knobs.max_order as u32;
        let arena_size = min_block
            .checked_shl(max_order)
            .filter(|&a| a <= MAX_ARENA && a >> max_order == min_block)
            .ok_or_else(|| ParamError {
                field: format!("policy.params.{}", Knobs::NAMES.max_order),
                message: format!(
                    "min_block {min_block} << max_order {max_order} is larger than the 1 TiB \
                     an arena may take"
                ),
            })?;
        Ok(Buddy {
            min_block,
            min_shift: min_block.trailing_zeros(),
            max_order,
            arena_mask: (1 << max_order) - 1,
            arena_size,
            header: knobs.header_size,
            decommit_merged: knobs.decommit_merged,
            decommit_from: if knobs.decommit_merged {
                page_size
            } else {
                u64::MAX
            },
            page: page_size,
            free: std::array::from_fn(|_| IndexSet::default()),
            nonempty: 0,
            arenas: Vec::new(),
            fresh_from: Vec::new(),
            starts: Starts::new(max_order),
            // Kept unless pages are decommitted, and unless a page is smaller than a block or
            // larger than an arena, where page and block numbers do not line up.
            held: HeldPages::new(
                page_size
                    .trailing_zeros()
                    .saturating_sub(min_block.trailing_zeros()),
                !knobs.decommit_merged && page_size >= min_block && page_size <= arena_size,
            ),
            live_blocks: 0,
            payloads: FxHashSet::default(),
            mapped: FxHashMap::default(),
        })
    }

    /// Bytes in a block of order `k`.
    #[inline]
    fn size_of(&self, k: u32) -> u64 {
        self.min_block << k
    }

    /// The smallest order whose blocks hold `need` bytes (`min_block <= need <= arena_size`).
    #[inline]
    fn order_for(&self, need: u64) -> u32 {
        need.next_power_of_two().trailing_zeros() - self.min_shift
    }

    /// Where the payload starts in its block: after the header, at the alignment asked for.
    #[inline]
    fn offset(&self, align: u64) -> u64 {
        // `align` is a power of two: a mask, where `next_multiple_of` divides.
        (self.header + align - 1) & !(align - 1)
    }

    /// Bytes a block must span for `size` bytes at `align`. A block at least as large as
    /// the alignment is aligned to it, since every block is aligned to its own size.
    #[inline]
    fn need(&self, size: u64, align: u64) -> u64 {
        (self.offset(align) + size).max(align).max(self.min_block)
    }

    /// The block's buddy: the other half of the block of order `k + 1` holding it.
    #[inline]
    fn buddy_of(&self, block: Addr, k: u32) -> Addr {
        block ^ self.size_of(k)
    }

    /// The free blocks of order `k`. The order is masked to five bits, which the compiler
    /// knows is in bounds, so no index is checked; orders above `max_order` stay empty.
    #[inline(always)]
    fn free_set(&self, k: u32) -> &IndexSet {
        &self.free[k as usize & 31]
    }

    #[inline(always)]
    fn free_set_mut(&mut self, k: u32) -> &mut IndexSet {
        &mut self.free[k as usize & 31]
    }

    fn arena_of(&self, addr: Addr) -> Addr {
        addr & !(self.arena_size - 1)
    }
}

impl Policy for Buddy {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        _thread: u32,
    ) -> Result<Addr, AllocError> {
        // As `need`, with the offset kept for the payload.
        let offset = self.offset(align);
        let need = (offset + size).max(align).max(self.min_block);
        if need > self.arena_size {
            return self.alloc_mapped(mem, size, align);
        }
        let k = self.order_for(need);
        let block = self.take_block(mem, k)?;
        let payload = block + offset;
        // Nothing to record: the block starts where it was split off, and it is no longer
        // on a free list, which is what makes it live.
        self.live_blocks += 1;
        if self.header > 0 {
            self.payloads.insert(payload);
            mem.touch(payload - self.header, self.header)?;
        }
        Ok(payload)
    }

    #[inline(always)]
    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        _thread: u32,
    ) -> Result<(), AllocError> {
        // The usual free, inline: no header, no block mapped on its own, and most often a
        // block whose buddy is in use, so that nothing merges.
        if self.header == 0 && self.mapped.is_empty() {
            if let Some(live) = self.live_block_at(block.addr) {
                return self.release(mem, live);
            }
        }
        self.free_slow(mem, block.addr)
    }

    const HINTS_FREE: bool = true;

    /// Fetches the words the free of `block` reads: its bit in the start bitmap, and its
    /// bit and its buddy's in the free set of its order. The order is read from the start
    /// bitmap at the free, too late to fetch ahead, so it is guessed from the size, which
    /// gives it unless an alignment above the size was asked for, or a header that is not
    /// a multiple of the alignment made the block larger; a wrong guess only fetches a
    /// line for nothing. Both words are found from the address alone, so they are asked
    /// for at the first hint, sixteen events ahead. With a header, the free first asks the
    /// set of payload addresses, which is not fetched ahead.
    #[inline(always)]
    fn prefetch_free<P: PageProvider>(&self, _mem: &Pages<P>, block: &Block, stage: u32) {
        if stage != 0 {
            return;
        }
        let Some(start) = self.start_index(block.addr) else {
            return;
        };
        self.starts.prefetch(start);
        let need = self.need(block.size, 1);
        if need <= self.arena_size {
            let k = self.order_for(need);
            self.free_set(k).prefetch(start >> k);
        }
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        let aligned = block.addr.is_multiple_of(align);
        if let Some(live) = self.live_block(block.addr) {
            let need = (block.addr - live.block + new_size)
                .max(align)
                .max(self.min_block);
            if aligned && need <= self.size_of(live.order) {
                // It still fits: stay, and give back the upper halves it no longer needs.
                // Each half's buddy is the lower half, which stays in use, so none merges.
                let want = self.order_for(need);
                for k in (want..live.order).rev() {
                    self.starts.set(live.start + (1 << k));
                    if mem.watching() {
                        self.note_freed(mem, live.block + self.size_of(k), k);
                    }
                    self.put_free(mem, live.start + (1 << k), live.block + self.size_of(k), k)?;
                }
                return Ok(block.addr);
            }
        } else if let Some(&(base, len)) = self.mapped.get(&block.addr) {
            if aligned && block.addr + new_size <= base + len {
                return Ok(block.addr);
            }
        } else {
            return Err(AllocError::Invalid(format!(
                "realloc of {:#x}, which this heap never handed out",
                block.addr
            )));
        }
        default_realloc(self, mem, block, new_size, align, thread)
    }

    fn block_layout(&self, addr: Addr, size: u64) -> Option<crate::policy::BlockLayout> {
        self.layout(addr, size)
    }

    fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        // The free blocks of each order, as the order's free set holds them.
        out.extend(
            self.free_blocks()
                .map(|(addr, k)| crate::policy::FreePiece {
                    addr,
                    size: self.size_of(k),
                    structure: format!("order {k}"),
                    // Each order hands out its lowest free block first.
                    list: crate::policy::ListPlace::new(format!("order {k}"), addr),
                }),
        );
        true
    }

    fn reserves_at_once(&self) -> Option<(&'static str, u64)> {
        Some((Knobs::NAMES.max_order, self.arena_size))
    }

    fn metadata_bytes(&self) -> u64 {
        // The order of every live block (its header, or a byte in a side table), a record
        // per mapping, and the free-list heads, one per order.
        let per_block = self.header.max(1);
        let heads = if self.arenas.is_empty() {
            0
        } else {
            16 * (u64::from(self.max_order) + 1)
        };
        per_block * self.live_blocks + 16 * self.mapped.len() as u64 + heads
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        self.check_structures(mem)
    }
}

/// Whether the indices of the smallest blocks of `arenas` arenas of `1 << max_order` blocks
/// each fit in a `bits`-bit `usize`: an index puts the arena's position above the block's
/// number in it, so a 32-bit target (wasm32) runs out of index bits after four arenas of
/// 2^30 blocks, long before the simulated address space ends.
fn indices_fit(arenas: u64, max_order: u32, bits: u32) -> bool {
    (u128::from(arenas) << max_order) <= 1u128 << bits
}

/// The error for a free of an address that is not a live payload.
#[cold]
fn not_live(addr: Addr) -> AllocError {
    AllocError::Invalid(format!(
        "free of {addr:#x}, which this heap never handed out or already freed"
    ))
}
