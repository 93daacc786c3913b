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
//! if they are not already. Freed memory stays committed unless `decommit_merged` is on;
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
mod starts;

use rustc_hash::{FxHashMap, FxHashSet};

use self::held_pages::HeldPages;
use self::index_set::IndexSet;
use self::starts::Starts;
use super::free_list::default_realloc;
use super::{check_align, check_size, AllocError, Block, FamilySpec, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};
use crate::provider::{Addr, PageProvider, ProviderError};

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "min_block",
        kind: ParamKind::Bytes {
            min: 8,
            max: 4096,
            pow2: true,
        },
        default: "16",
        unit: "bytes",
        doc: "Size of the smallest block, order 0. Malloc-style buddy heaps use a few words \
              (16 bytes here); the Linux page allocator's smallest block is a 4 KiB page.",
        zero_means: "",
    },
    ParamSpec {
        name: "max_order",
        kind: ParamKind::Int { min: 1, max: 30 },
        default: "22",
        unit: "orders",
        doc: "The largest block is `min_block << max_order` bytes, and arenas of that size are \
              reserved from the provider; the default gives 64 MiB arenas of 16-byte blocks \
              (Linux: orders up to 10, so 4 MiB of 4 KiB pages).",
        zero_means: "",
    },
    ParamSpec {
        name: "header_size",
        kind: ParamKind::Bytes {
            min: 0,
            max: 64,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "In-band bytes before each payload, where Knuth's buddy system keeps a block's \
              tag and order; 0 keeps them out of band, as Linux keeps a free page's order in \
              its struct page.",
        zero_means: "no header",
    },
    ParamSpec {
        name: "decommit_merged",
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Decommit the pages of every free block of a page or more once it forms by \
              freeing and merging, as allocators that purge with madvise do; off, freed \
              memory stays committed until it is reused, as in a classic buddy heap.",
        zero_means: "",
    },
];

pub const FAMILY: FamilySpec = FamilySpec {
    id: "buddy",
    title: "Binary buddy (Knuth, Linux page allocator)",
    description: "Power-of-two blocks split on allocation and merged with their buddy on free, \
                  in size-aligned arenas committed as blocks are used; a size just above a \
                  power of two wastes almost half its block.",
    params: PARAMS,
};

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
#[derive(Debug)]
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
        let min_block = params.u64("min_block");
        let max_order = params.u64("max_order") as u32;
        let arena_size = min_block
            .checked_shl(max_order)
            .filter(|&a| a <= MAX_ARENA && a >> max_order == min_block)
            .ok_or_else(|| ParamError {
                field: "policy.params.max_order".into(),
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
            header: params.u64("header_size"),
            decommit_merged: params.bool("decommit_merged"),
            decommit_from: if params.bool("decommit_merged") {
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
                !params.bool("decommit_merged")
                    && page_size >= min_block
                    && page_size <= arena_size,
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

    /// Takes a free block of order `k`, splitting a larger one or opening an arena if
    /// needed, and commits its pages. On error nothing is handed out and every block is
    /// still on its free list.
    #[inline]
    fn take_block<P: PageProvider>(
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
        self.commit_block(mem, slot, start, block, self.size_of(k))?;
        if self.free_set_mut(k).take_first() {
            self.nonempty &= !(1 << k);
        }
        Ok(block)
    }

    /// [`Buddy::take_block`] when order `k` has no free block: a larger one is split. Kept
    /// apart so that the usual case stays small enough to inline.
    #[inline(never)]
    fn split_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        k: u32,
    ) -> Result<Addr, AllocError> {
        let from = match self.nonempty >> k {
            0 => {
                self.new_arena(mem)?;
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

    /// The index of the block of order `k` at `block` in arena `slot`: the arena's position
    /// above the block's number within its arena.
    #[inline]
    fn index(&self, slot: usize, block: Addr, k: u32) -> usize {
        (slot << (self.max_order - k))
            | ((block - self.arenas[slot]) >> (self.min_shift + k)) as usize
    }

    /// The address of the block of order `k` with the given index, in arena `slot`.
    #[inline]
    fn address(&self, slot: usize, index: usize, k: u32) -> Addr {
        let within = index & ((1usize << (self.max_order - k)) - 1);
        self.arenas[slot] + ((within as u64) << (self.min_shift + k))
    }

    /// The position of the arena holding `addr` in `arenas`; `addr` is in one of them.
    #[inline]
    fn slot_of(&self, addr: Addr) -> usize {
        self.find_slot(addr)
            .expect("a block lies in one of the arenas")
    }

    /// The position of the arena holding `addr` in `arenas`, if one does.
    #[inline]
    fn find_slot(&self, addr: Addr) -> Option<usize> {
        let base = self.arena_of(addr);
        // Most heaps have one arena or a few, and the newest holds most of the traffic.
        match self.arenas.last() {
            Some(&last) if last == base => Some(self.arenas.len() - 1),
            _ => self.arenas.binary_search(&base).ok(),
        }
    }

    /// The index of order 0 of the smallest block holding `addr`, if an arena holds it.
    #[inline]
    fn start_index(&self, addr: Addr) -> Option<usize> {
        let base = self.arena_of(addr);
        let slot = self.find_slot(base)?;
        Some((slot << self.max_order) | ((addr - base) >> self.min_shift) as usize)
    }

    /// The live block whose payload is `addr`, if there is one. The start bitmap gives the
    /// block holding the payload and its order, and a block that starts there and is not
    /// on its order's free list is live.
    #[inline]
    fn live_block(&self, addr: Addr) -> Option<Live> {
        self.live_block_if(addr, self.header > 0 && self.payloads.contains(&addr))
    }

    /// [`Buddy::live_block`] given, with a header, whether `addr` is in the set of live
    /// payloads: asked, or taken out of it by a free.
    #[inline]
    fn live_block_if(&self, addr: Addr, live_payload: bool) -> Option<Live> {
        // Without a header the payload is the block's start.
        if self.header == 0 {
            return self.live_block_at(addr);
        }
        live_payload.then(|| self.payload_block(addr)).flatten()
    }

    /// The block holding `addr`, a live payload with a header, if it is not free.
    fn payload_block(&self, addr: Addr) -> Option<Live> {
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
    fn live_block_at(&self, addr: Addr) -> Option<Live> {
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

    /// Commits the pages of the block at `block` (index `start` of order 0) in arena `slot`
    /// that are not committed.
    #[inline(always)]
    fn commit_block<P: PageProvider>(
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
        mem.commit_missing(block, bytes)
    }

    #[cold]
    #[inline(never)]
    fn new_arena<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<(), AllocError> {
        let arenas = self.arenas.len() as u64 + 1;
        if !indices_fit(arenas, self.max_order, usize::BITS) {
            return Err(AllocError::Invalid(format!(
                "buddy: {arenas} arenas of 2^{} smallest blocks need more than this build's \
                 {}-bit block indices (the browser's are 32-bit); lower max_order",
                self.max_order,
                usize::BITS
            )));
        }
        let base = mem.reserve(self.arena_size, self.arena_size)?;
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

    /// Puts a block on the free list of order `k` without merging, and writes its link or
    /// gives back its pages. The block's start must be marked already.
    #[inline(always)]
    fn put_free<P: PageProvider>(
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
    fn list_free(&mut self, start: usize, k: u32) {
        self.free_set_mut(k).insert(start >> k);
        self.nonempty |= 1 << k;
    }

    /// Writes the free-list link of a free block of `size` bytes at `block` (index `start`
    /// of order 0), or gives back its pages.
    #[inline(always)]
    fn write_link<P: PageProvider>(
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
    fn give_back<P: PageProvider>(
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
    fn release_block<P: PageProvider>(
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
            if k >= self.max_order || !self.free_set(k).contains((start >> k) ^ 1) {
                return self.put_free(mem, start, block, k);
            }
        }
    }

    /// [`Policy::free`] for every case: a block mapped on its own, a header, a block
    /// that merges, an address that is not a live payload.
    #[cold]
    #[inline(never)]
    fn free_slow<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
    ) -> Result<(), AllocError> {
        // Most heaps hold no block mapped on its own, and an empty map needs no probe.
        if !self.mapped.is_empty() {
            if let Some((base, len)) = self.mapped.remove(&addr) {
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
    fn release<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        live: Live,
    ) -> Result<(), AllocError> {
        self.live_blocks -= 1;
        if live.buddy_free {
            return self.release_block(mem, live.start, live.block, live.order);
        }
        self.put_free(mem, live.start, live.block, live.order)
    }

    #[cold]
    #[inline(never)]
    fn alloc_mapped<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let offset = self.offset(align);
        // A zero-byte request over-aligned past an arena still takes a page.
        let len = mem.round_up((offset + size).max(1));
        let base = mem.map(len, align.max(self.page))?;
        let payload = base + offset;
        mem.touch(payload - self.header, self.header)?;
        self.mapped.insert(payload, (base, len));
        Ok(payload)
    }

    /// Free blocks as (address, order), for tests and the invariant scan.
    fn free_blocks(&self) -> impl Iterator<Item = (Addr, u32)> + '_ {
        self.free.iter().enumerate().flat_map(move |(k, set)| {
            let k = k as u32;
            set.iter().map(move |index| {
                let slot = index >> (self.max_order - k);
                (self.address(slot, index, k), k)
            })
        })
    }

    /// Whether the block of order `k` at `block`, in one of the arenas, is free.
    fn is_free(&self, block: Addr, k: u32) -> bool {
        self.free_set(k)
            .contains(self.index(self.slot_of(block), block, k))
    }
}

impl Policy for Buddy {
    #[inline]
    fn alloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        _thread: u32,
    ) -> Result<Addr, AllocError> {
        check_align(align)?;
        check_size(size)?;
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

    fn realloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_align(align)?;
        check_size(new_size)?;
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
        let mut spans: Vec<(Addr, u64, bool)> = Vec::new();
        let decommits = self.decommit_merged && mem.caps().can_decommit;
        for (k, set) in self.free.iter().enumerate() {
            set.check()
                .map_err(|e| format!("free set of order {k}: {e}"))?;
            if set.is_empty() == (self.nonempty & (1 << k) != 0) {
                return Err(format!(
                    "the mask of orders with free blocks is wrong at {k}"
                ));
            }
        }
        for (a, k) in self.free_blocks() {
            let size = self.size_of(k);
            if self.arenas.binary_search(&self.arena_of(a)).is_err() {
                return Err(format!("free block {a:#x} of order {k} is in no arena"));
            }
            if a % size != 0 {
                return Err(format!(
                    "free block {a:#x} of order {k} is not aligned to its size"
                ));
            }
            if k < self.max_order && self.is_free(self.buddy_of(a, k), k) {
                return Err(format!(
                    "free block {a:#x} and its buddy {:#x} of order {k} were not merged",
                    self.buddy_of(a, k)
                ));
            }
            let start = self.index(self.slot_of(a), a, 0);
            if !self.starts.contains(start) || self.starts.order_at(start) != k {
                return Err(format!(
                    "free block {a:#x} of order {k} is not where the start bitmap puts a \
                     block of its order"
                ));
            }
            if decommits && size >= self.page {
                // Checking every page would make the scan cost the heap's size.
                let last = a + size - self.page;
                if mem.is_committed(a, 1) || mem.is_committed(last, 1) {
                    return Err(format!(
                        "free block {a:#x} of order {k} still has committed pages"
                    ));
                }
            }
            spans.push((a, size, true));
        }
        // Every start begins a block that runs to the next start or its arena's end; those
        // not on their order's free list are the live blocks.
        let starts: Vec<usize> = self.starts.iter().collect();
        let arena_blocks = 1usize << self.max_order;
        if starts
            .last()
            .is_some_and(|&i| i >= self.arenas.len() * arena_blocks)
        {
            return Err("a block starts beyond the arenas".into());
        }
        let mut live = 0;
        for (n, &i) in starts.iter().enumerate() {
            let arena_end = (i | (arena_blocks - 1)) + 1;
            let next = starts.get(n + 1).map_or(arena_end, |&j| j.min(arena_end));
            let span = next - i;
            let block = self.address(i >> self.max_order, i, 0);
            if !span.is_power_of_two() || i % span != 0 {
                return Err(format!(
                    "the block at {block:#x} runs {span} smallest blocks to the next start, \
                     not a power of two it is aligned to"
                ));
            }
            let k = span.trailing_zeros();
            if self.starts.order_at(i) != k {
                return Err(format!(
                    "the start bitmap reads order {} for the block at {block:#x} of order {k}",
                    self.starts.order_at(i)
                ));
            }
            if self.free_set(k).contains(i >> k) {
                continue;
            }
            live += 1;
            let size = self.size_of(k);
            if !mem.is_committed(block, size) {
                return Err(format!(
                    "live block {block:#x} of order {k} is not committed"
                ));
            }
            spans.push((block, size, false));
        }
        if live != self.live_blocks {
            return Err(format!(
                "{live} blocks are live in the start bitmap, {} counted",
                self.live_blocks
            ));
        }
        for (slot, (&base, &fresh)) in self.arenas.iter().zip(&self.fresh_from).enumerate() {
            // Every page at or above the mark must be uncommitted; the first one is checked.
            if fresh < base + self.arena_size && mem.is_committed(fresh.max(base), 1) {
                return Err(format!(
                    "arena {slot} has a committed page at {fresh:#x}, marked never committed"
                ));
            }
        }
        if self.header > 0 {
            if self.payloads.len() as u64 != live {
                return Err(format!(
                    "{} payloads for {live} live blocks",
                    self.payloads.len()
                ));
            }
            if let Some(p) = self
                .payloads
                .iter()
                .find(|&&p| self.live_block(p).is_none())
            {
                return Err(format!("payload {p:#x} is in no live block"));
            }
        } else if !self.payloads.is_empty() {
            return Err("payloads recorded without a header".into());
        }
        // Free and live blocks must tile the arenas exactly: no overlap, nothing lost.
        spans.sort_unstable_by_key(|s| s.0);
        for w in spans.windows(2) {
            if w[0].0 + w[0].1 > w[1].0 {
                return Err(format!(
                    "blocks {:#x}+{} ({}) and {:#x}+{} ({}) overlap",
                    w[0].0,
                    w[0].1,
                    if w[0].2 { "free" } else { "live" },
                    w[1].0,
                    w[1].1,
                    if w[1].2 { "free" } else { "live" },
                ));
            }
        }
        let covered: u64 = spans.iter().map(|s| s.1).sum();
        let arenas = self.arenas.len() as u64 * self.arena_size;
        if covered != arenas {
            return Err(format!(
                "free and live blocks cover {covered} bytes of {arenas} in arenas"
            ));
        }
        // Every page recorded held must be committed and resident, or a link write would
        // skip the page map where it must not.
        for s in self.held.iter() {
            let slot = s >> self.max_order;
            if slot >= self.arenas.len() {
                return Err(format!("a page is recorded held beyond the arenas, at {s}"));
            }
            let page = self.address(slot, s, 0);
            if !mem.is_committed(page, 1) || !mem.is_resident(page) {
                return Err(format!(
                    "page {page:#x} is recorded held but is not committed and resident"
                ));
            }
        }
        for (&payload, &(base, len)) in &self.mapped {
            if !mem.is_committed(base, len) || payload < base || payload >= base + len {
                return Err(format!(
                    "mapped block {payload:#x} is not inside committed memory"
                ));
            }
        }
        Ok(())
    }
}

/// The error for a free of an address that is not a live payload.
#[cold]
/// Whether the indices of the smallest blocks of `arenas` arenas of `1 << max_order` blocks
/// each fit in a `bits`-bit `usize`: an index puts the arena's position above the block's
/// number in it, so a 32-bit target (wasm32) runs out of index bits after four arenas of
/// 2^30 blocks, long before the simulated address space ends.
fn indices_fit(arenas: u64, max_order: u32, bits: u32) -> bool {
    (u128::from(arenas) << max_order) <= 1u128 << bits
}

fn not_live(addr: Addr) -> AllocError {
    AllocError::Invalid(format!(
        "free of {addr:#x}, which this heap never handed out or already freed"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{SimMode, SimProvider};
    use serde_json::Value;

    fn buddy(params: &[(&str, Value)], page: u64) -> Buddy {
        let given = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        Buddy::new(&p, page).unwrap()
    }

    fn os(page: u64) -> Pages<SimProvider> {
        Pages::new(SimProvider::new(SimMode::Os, page))
    }

    fn block(addr: Addr, size: u64) -> Block {
        Block {
            addr,
            size,
            arena: None,
        }
    }

    fn free_list(b: &Buddy) -> Vec<(u64, u32)> {
        let base = *b.arenas.first().unwrap();
        let mut v: Vec<(u64, u32)> = b.free_blocks().map(|(a, k)| (a - base, k)).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn block_indices_fit_the_target_or_the_arena_is_refused() {
        // wasm32: four arenas of 2^30 smallest blocks use every index bit, a fifth is one
        // too many; 64-bit targets never get there.
        assert!(indices_fit(4, 30, 32));
        assert!(!indices_fit(5, 30, 32));
        assert!(indices_fit(1 << 34, 30, 64));
    }

    #[test]
    fn orders_and_buddies_follow_the_address_bits() {
        let b = buddy(&[("min_block", 16.into()), ("max_order", 10.into())], 4096);
        assert_eq!(b.arena_size, 16 << 10);
        assert_eq!(
            [1, 16, 17, 32, 33, 100, 16384].map(|n| b.order_for(b.need(n, 1))),
            [0, 0, 1, 1, 2, 3, 10]
        );
        // An alignment above the size asks for a block as large as the alignment.
        assert_eq!(b.order_for(b.need(8, 256)), 4);
        let base = 1 << 32;
        assert_eq!(b.buddy_of(base, 0), base + 16);
        assert_eq!(b.buddy_of(base + 16, 0), base);
        assert_eq!(b.buddy_of(base + 64, 2), base);
        assert_eq!(b.buddy_of(base + 192, 2), base + 128);
        assert_eq!(b.buddy_of(base + 8192, 9), base);
    }

    #[test]
    fn split_on_alloc_and_merge_on_free_by_hand() {
        let mut mem = os(4096);
        let mut b = buddy(&[("min_block", 16.into()), ("max_order", 8.into())], 4096);
        // Arena of 4 KiB. A 16-byte request splits it down to order 0.
        let a = b.alloc(&mut mem, 10, 8, None, 0).unwrap();
        let base = *b.arenas.first().unwrap();
        assert_eq!(a, base);
        assert_eq!(
            free_list(&b),
            [
                (16, 0),
                (32, 1),
                (64, 2),
                (128, 3),
                (256, 4),
                (512, 5),
                (1024, 6),
                (2048, 7)
            ]
        );
        // A 40-byte request takes the order-2 block at 64; its buddy at 0 is split.
        let c = b.alloc(&mut mem, 40, 8, None, 0).unwrap();
        assert_eq!(c - base, 64);
        let d = b.alloc(&mut mem, 16, 8, None, 0).unwrap();
        assert_eq!(d - base, 16);
        b.check_invariants(&mem).unwrap();
        // Freeing 0 cannot merge (16 is live); freeing 16 merges 0+16 and 32 into order 2,
        // which cannot merge with the live 64.
        b.free(&mut mem, block(a, 10), 0).unwrap();
        assert!(free_list(&b).contains(&(0, 0)));
        b.free(&mut mem, block(d, 16), 0).unwrap();
        assert_eq!(
            free_list(&b),
            [(0, 2), (128, 3), (256, 4), (512, 5), (1024, 6), (2048, 7)]
        );
        b.check_invariants(&mem).unwrap();
        // Freeing the last block merges everything back into one arena-sized block.
        b.free(&mut mem, block(c, 40), 0).unwrap();
        assert_eq!(free_list(&b), [(0, 8)]);
        b.check_invariants(&mem).unwrap();
        assert!(b.free(&mut mem, block(c, 40), 0).is_err());
    }

    #[test]
    fn pages_are_committed_lazily_and_decommitted_when_merged() {
        let mut mem = os(4096);
        let mut b = buddy(
            &[
                ("min_block", 64.into()),
                ("max_order", 12.into()),
                ("decommit_merged", true.into()),
            ],
            4096,
        );
        let small = b.alloc(&mut mem, 100, 16, None, 0).unwrap();
        assert_eq!(mem.stats().committed_pages.current, 1);
        let big = b.alloc(&mut mem, 20_000, 16, None, 0).unwrap();
        // 20 000 bytes take a 32 KiB block: its 8 pages are committed.
        assert_eq!(big % 32768, 0);
        assert_eq!(mem.stats().committed_pages.current, 9);
        b.check_invariants(&mem).unwrap();
        b.free(&mut mem, block(big, 20_000), 0).unwrap();
        assert_eq!(mem.stats().committed_pages.current, 1);
        b.check_invariants(&mem).unwrap();
        // The small block's page merges back into a free page-or-larger block and goes too.
        b.free(&mut mem, block(small, 100), 0).unwrap();
        assert_eq!(mem.stats().committed_pages.current, 0);
        b.check_invariants(&mem).unwrap();
        // Larger than the 256 KiB arena: a mapping of its own, released on free.
        let huge = b.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
        assert_eq!(b.mapped.len(), 1);
        b.free(&mut mem, block(huge, 300_000), 0).unwrap();
        assert!(b.mapped.is_empty());
        assert_eq!(mem.stats().committed_pages.current, 0);
    }

    #[test]
    fn pages_recorded_held_are_committed_and_resident() {
        let mut mem = os(4096);
        let mut b = buddy(&[("min_block", 16.into()), ("max_order", 12.into())], 4096);
        let a = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
        let c = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
        // Freeing writes a link into a committed page, which is then resident; the two
        // blocks merge back into the arena's block, whose link goes in the same page.
        b.free(&mut mem, block(a, 16), 0).unwrap();
        b.free(&mut mem, block(c, 16), 0).unwrap();
        assert!(b.held.contains(b.start_index(a).unwrap()));
        b.check_invariants(&mem).unwrap();
        // A page decommitted behind the heap's back, with no live block in it, is caught by
        // the scan of the pages recorded held.
        mem.decommit(a & !4095, 4096).unwrap();
        let e = b.check_invariants(&mem).unwrap_err();
        assert!(e.contains("recorded held"), "{e}");
    }

    #[test]
    fn realloc_stays_in_place_and_gives_back_what_it_no_longer_needs() {
        let mut mem = os(4096);
        let mut b = buddy(&[("max_order", 10.into())], 4096);
        let a = b.alloc(&mut mem, 1000, 16, None, 0).unwrap();
        assert_eq!(b.live_block(a).unwrap().order, 6);
        assert_eq!(b.realloc(&mut mem, block(a, 1000), 1024, 16, 0), Ok(a));
        assert_eq!(b.realloc(&mut mem, block(a, 1024), 100, 16, 0), Ok(a));
        assert_eq!(b.live_block(a).unwrap().order, 3);
        b.check_invariants(&mem).unwrap();
        // Growing past the block moves it.
        let moved = b.realloc(&mut mem, block(a, 100), 5000, 16, 0).unwrap();
        assert_ne!(moved, a);
        b.check_invariants(&mem).unwrap();
    }

    #[test]
    fn a_refused_commit_leaves_the_free_lists_as_they_were() {
        let mut mem = os(4096);
        let mut b = buddy(&[], 4096);
        mem.provider_mut().fail_commit_at(1);
        assert!(matches!(
            b.alloc(&mut mem, 64, 16, None, 0),
            Err(AllocError::OutOfMemory(_))
        ));
        b.check_invariants(&mem).unwrap();
        assert_eq!(free_list(&b), [(0, 22)]);
        assert!(b.alloc(&mut mem, 64, 16, None, 0).is_ok());
        b.check_invariants(&mem).unwrap();
    }

    #[test]
    fn an_arena_below_the_others_keeps_the_lowest_address_first() {
        let mut mem = os(4096);
        let mut b = buddy(&[("min_block", 16.into()), ("max_order", 8.into())], 4096);
        // A mapping of its own comes first and leaves a hole below the first arena.
        let huge = b.alloc(&mut mem, 3 * 4096, 16, None, 0).unwrap();
        let whole = b.alloc(&mut mem, 4096, 16, None, 0).unwrap();
        b.free(&mut mem, block(huge, 3 * 4096), 0).unwrap();
        // The next arena lands in the hole, below the first one.
        let next = b.alloc(&mut mem, 4096, 16, None, 0).unwrap();
        assert!(next < whole);
        b.check_invariants(&mem).unwrap();
        b.free(&mut mem, block(whole, 4096), 0).unwrap();
        b.check_invariants(&mem).unwrap();
        // The only free block is the first arena's, so a small request splits it.
        let small = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
        assert_eq!(small, whole);
        b.free(&mut mem, block(small, 16), 0).unwrap();
        b.free(&mut mem, block(next, 4096), 0).unwrap();
        b.check_invariants(&mem).unwrap();
        // Both arenas are free: the lower one, opened second, is taken first.
        assert_eq!(b.alloc(&mut mem, 16, 16, None, 0).unwrap(), next);
        b.check_invariants(&mem).unwrap();
    }

    #[test]
    fn headers_shift_the_payload_and_arenas_too_large_are_refused() {
        let mut mem = os(4096);
        let mut b = buddy(&[("header_size", 8.into())], 4096);
        let a = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
        assert_eq!(a % 16, 0);
        // 16 bytes after a 16-byte-aligned header slot need a 32-byte block.
        assert_eq!(b.live_block(a).unwrap().order, 1);
        let given = [("min_block", 4096), ("max_order", 30)]
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .into_iter()
            .collect();
        let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        let e = Buddy::new(&p, 4096).unwrap_err();
        assert_eq!(e.field, "policy.params.max_order");
    }

    #[test]
    fn frees_of_addresses_that_are_not_live_payloads_are_refused() {
        for header in [0u64, 8] {
            let mut mem = os(4096);
            let mut b = buddy(
                &[
                    ("min_block", 16.into()),
                    ("max_order", 10.into()),
                    ("header_size", header.into()),
                ],
                4096,
            );
            let a = b.alloc(&mut mem, 100, 16, None, 0).unwrap();
            let c = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
            let base = *b.arenas.first().unwrap();
            // Inside a live block, past the payload, a free block's start, no arena at all.
            for addr in [a + 16, a + 1, c + 16, base + 4096, base - 4096, 0] {
                assert!(
                    matches!(
                        b.free(&mut mem, block(addr, 1), 0),
                        Err(AllocError::Invalid(_))
                    ),
                    "header {header}: free of {:#x}",
                    addr.wrapping_sub(base)
                );
                b.check_invariants(&mem).unwrap();
            }
            assert_eq!(b.live_blocks, 2);
            b.free(&mut mem, block(c, 16), 0).unwrap();
            assert!(b.free(&mut mem, block(c, 16), 0).is_err(), "a double free");
            b.free(&mut mem, block(a, 100), 0).unwrap();
            b.check_invariants(&mem).unwrap();
            assert_eq!(free_list(&b), [(0, 10)]);
        }
    }

    #[test]
    fn random_programs_keep_the_structures_consistent_in_arenas_of_any_size() {
        // Arenas smaller than a word of the start bitmap, of one word, and of many; with
        // and without a header; checked after every operation against the blocks held.
        for (max_order, header) in [(2u32, 0u64), (3, 8), (6, 0), (9, 24), (12, 0)] {
            let mut mem = os(4096);
            let mut b = buddy(
                &[
                    ("min_block", 16.into()),
                    ("max_order", max_order.into()),
                    ("header_size", header.into()),
                ],
                4096,
            );
            let mut held: Vec<(Addr, u64)> = Vec::new();
            let mut x: u64 = 0x2545_F491_4F6C_DD1D ^ u64::from(max_order);
            for _ in 0..3_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let size = 1 + x % (16 << max_order.min(8));
                if held.is_empty() || x % 5 < 3 {
                    let a = b.alloc(&mut mem, size, 16, None, 0).unwrap();
                    held.push((a, size));
                } else {
                    let (a, size) = held.swap_remove((x >> 20) as usize % held.len());
                    if x.is_multiple_of(7) {
                        let moved = b.realloc(&mut mem, block(a, size), size / 2 + 1, 16, 0);
                        held.push((moved.unwrap(), size / 2 + 1));
                    } else {
                        b.free(&mut mem, block(a, size), 0).unwrap();
                    }
                }
                b.check_invariants(&mem).unwrap();
                let in_arenas = held.iter().filter(|h| !b.mapped.contains_key(&h.0));
                assert_eq!(b.live_blocks, in_arenas.count() as u64);
            }
            for (a, size) in held.drain(..) {
                b.free(&mut mem, block(a, size), 0).unwrap();
            }
            b.check_invariants(&mem).unwrap();
            assert!(free_list(&b).iter().all(|&(_, k)| k == max_order));
        }
    }
}
