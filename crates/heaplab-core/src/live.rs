//! The simulator's table of live blocks, by block id.
//!
//! The live ids crowd into a window that slides forward (see [`crate::id_window`]), so
//! the table keeps them in an [`IdWindow`], which makes every lookup one array access
//! instead of a hash probe (the probe was the simulator's largest single cost with a
//! million live blocks).
//!
//! Ids that do not fit the window (a long-lived block far behind the others, or ids that
//! are not sequential at all) live in overflow maps. No insert leaves the window
//! spanning more than about twice the blocks it holds plus a constant (frees leave it as it
//! is until the next insert), so memory grows with the peak of live blocks, never with the
//! number of events.

use rustc_hash::FxHashMap;

use crate::event::{ArenaId, BlockId};
use crate::id_window::{IdWindow, WindowSlot};
use crate::policy::Block;

/// Slack the window may always have, whatever it holds: enough that short-lived blocks
/// never leave the fast path.
const MIN_SPAN: u64 = 1 << 16;

/// Live blocks by id.
#[derive(Clone, Debug, Default)]
pub struct LiveTable {
    /// The blocks with ids in the window, and those parked past it, too far to reach
    /// when they came.
    window: IdWindow<Slot>,
    /// Live blocks in the window itself.
    in_window: usize,
    /// Blocks with ids below the window: they never come back into it, because the window
    /// only moves forward.
    behind: FxHashMap<BlockId, Block>,
    /// The arenas of blocks allocated in one, by id, for the blocks in the window or
    /// parked ahead of it (see [`Slot`]).
    arenas: FxHashMap<BlockId, ArenaId>,
}

impl LiveTable {
    pub fn len(&self) -> usize {
        self.in_window + self.behind.len() + self.window.ahead_len()
    }

    /// At least as many as the live blocks allocated in an arena: those in the window or
    /// ahead of it have their arena noted aside, and those behind it are counted whatever
    /// their arena.
    pub fn in_arenas_at_most(&self) -> usize {
        self.arenas.len() + self.behind.len()
    }

    /// The widest the window may be when it holds `n` blocks.
    fn max_span(n: usize) -> u64 {
        2 * n as u64 + MIN_SPAN
    }

    /// Whether the window may stretch to take in `id` (at or past its end).
    fn reaches(&self, id: BlockId) -> bool {
        id - self.window.base() < Self::max_span(self.in_window + 1)
    }

    #[inline(always)]
    pub fn get(&self, id: BlockId) -> Option<Block> {
        match self.window.index(id) {
            Some(i) => self.block_at(id, self.window[i]),
            None => self.get_outside(id),
        }
    }

    // Always inlined: every allocation asks whether its new id, just past the window, is
    // live, and as a call this cost the simulator 1.5% more instructions.
    #[inline(always)]
    fn get_outside(&self, id: BlockId) -> Option<Block> {
        if id < self.window.base() {
            self.behind.get(&id).copied()
        } else {
            let slot = *self.window.ahead_get(id)?;
            self.block_at(id, slot)
        }
    }

    /// The block in slot `slot`, which holds id `id`.
    #[inline(always)]
    fn block_at(&self, id: BlockId, slot: Slot) -> Option<Block> {
        if !slot.is_full() {
            return None;
        }
        let arena = if slot.in_arena() {
            self.arenas.get(&id).copied()
        } else {
            None
        };
        Some(Block {
            addr: slot.addr,
            size: slot.size(),
            arena,
        })
    }

    /// The block in slot `slot`, which held id `id` and leaves the table or goes behind
    /// the window: its arena id, if it had one, is taken out of the side map with the same
    /// lookup that reads it.
    #[inline(always)]
    fn take(&mut self, id: BlockId, slot: Slot) -> Option<Block> {
        if !slot.is_full() {
            return None;
        }
        let arena = if slot.in_arena() {
            self.arenas.remove(&id)
        } else {
            None
        };
        Some(Block {
            addr: slot.addr,
            size: slot.size(),
            arena,
        })
    }

    /// Puts `block` in window slot `i`, which holds id `id`; whether the slot was empty.
    #[inline(always)]
    fn put(&mut self, id: BlockId, i: usize, block: Block) -> bool {
        let was_empty = !self.window[i].is_full();
        if !was_empty && self.window[i].in_arena() {
            self.arenas.remove(&id);
        }
        self.window[i] = self.slot_for(id, block);
        was_empty
    }

    /// The slot for `block` with id `id`, its arena noted aside.
    #[inline(always)]
    fn slot_for(&mut self, id: BlockId, block: Block) -> Slot {
        if let Some(a) = block.arena {
            self.arenas.insert(id, a);
        }
        Slot::full(block)
    }

    /// Starts bringing the slot of `id` into the cache, for a lookup a few events later.
    #[inline(always)]
    pub fn prefetch(&self, id: BlockId) {
        if let Some(i) = self.window.index(id) {
            crate::prefetch::prefetch(&self.window[i]);
        }
    }

    #[inline]
    pub fn contains(&self, id: BlockId) -> bool {
        self.get(id).is_some()
    }

    /// Adds or replaces the block with id `id`. Always inlined: passed to a call, the block
    /// goes through memory with its arena written in halves and read whole (see [`Slot`]).
    #[inline(always)]
    pub fn insert(&mut self, id: BlockId, block: Block) {
        if let Some(i) = self.window.index(id) {
            if self.put(id, i, block) {
                self.in_window += 1;
            }
        } else if self.window.may_push(id) && self.reaches(id) {
            // The most common case: the id right after the newest one, one push. The
            // window must still reach it, or it would stretch past twice its blocks, and
            // nothing may be parked at that id, or the id would be in two places.
            let slot = self.slot_for(id, block);
            self.window.push(slot);
            self.in_window += 1;
        } else {
            self.insert_slow(id, block);
        }
    }

    /// [`LiveTable::insert`] of an id outside the window and not right after it.
    #[cold]
    #[inline(never)]
    fn insert_slow(&mut self, id: BlockId, block: Block) {
        if self.len() == 0 {
            // An empty table can start its window anywhere; start it here.
            self.window.restart_at(id);
            self.arenas.clear();
        }
        if id < self.window.base() {
            self.behind.insert(id, block);
            return;
        }
        if !self.reaches(id) {
            self.slide_for(id);
        }
        if id >= self.window.base() && self.reaches(id) {
            // A new id past the newest one, or one the window now reaches: the blocks
            // parked on the way are taken in, their arenas already noted aside.
            let mut taken = 0;
            self.window.grow_to(id + 1, |_, _| taken += 1);
            self.in_window += taken;
            let i = self
                .window
                .index(id)
                .expect("the window was grown over the id");
            if self.put(id, i, block) {
                self.in_window += 1;
            }
        } else {
            let slot = self.slot_for(id, block);
            if let Some(old) = self.window.ahead_get(id).copied() {
                if old.in_arena() && block.arena.is_none() {
                    self.arenas.remove(&id);
                }
            }
            self.window.park_ahead(id, slot);
        }
    }

    /// Moves blocks from the front of the window to `behind` until the window is dense
    /// enough to reach `id`. Each block moves at most once, so the work is paid for by
    /// the allocations that pushed the window forward.
    fn slide_for(&mut self, id: BlockId) {
        self.trim_front();
        while !self.window.is_empty() && !self.reaches(id) {
            let id = self.window.base();
            if let Some(b) = self.window.pop_front().and_then(|slot| self.take(id, slot)) {
                self.in_window -= 1;
                self.behind.insert(id, b);
            }
        }
        self.trim_front();
    }

    // Always inlined: returned through memory, the block was written as two words and read
    // back as one 16-byte move, a store-forwarding stall that `perf annotate` showed as a
    // fifth of the simulator's time on `churn`.
    #[inline(always)]
    pub fn remove(&mut self, id: BlockId) -> Option<Block> {
        match self.window.index(id) {
            Some(i) => {
                // The dead front is left for `slide_for` to drop, when an insert finds the
                // window too wide: one scan then instead of a check on every free.
                let slot = self.window[i];
                if !slot.is_full() {
                    return None;
                }
                self.window[i] = Slot::EMPTY;
                self.in_window -= 1;
                // Read, then removed: `take`'s single lookup cost every free four
                // instructions more (bump on `tree_churn`), though few blocks have an arena.
                let block = self.block_at(id, slot);
                if slot.in_arena() {
                    self.arenas.remove(&id);
                }
                block
            }
            None => self.remove_outside(id),
        }
    }

    #[cold]
    #[inline(never)]
    fn remove_outside(&mut self, id: BlockId) -> Option<Block> {
        if id < self.window.base() {
            self.behind.remove(&id)
        } else {
            let slot = self.window.ahead_remove(id)?;
            self.take(id, slot)
        }
    }

    /// Drops dead slots from the front so the window follows the oldest live block.
    fn trim_front(&mut self) {
        let dead = self.window.dead_front();
        if dead > 0 {
            self.window.drop_front(dead);
        }
    }

    /// Every live block, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (BlockId, Block)> + '_ {
        self.window
            .iter()
            .chain(self.window.ahead_iter())
            .filter_map(move |(id, slot)| self.block_at(id, slot).map(|b| (id, b)))
            .chain(self.behind.iter().map(|(&id, &b)| (id, b)))
    }
}

/// A window slot: a block's address and size, or nothing when `size` is `EMPTY`.
///
/// Sixteen bytes and aligned to them, so a slot never straddles two cache lines: the
/// look-ahead fetches one line per freed block, and four slots share a line. A block's
/// arena, which few workloads use, is kept aside in `LiveTable::arenas`, and the top bit
/// of `size` says it is there. `Option<Block>` in the slot had also kept its tag in the
/// arena field's spare values, so emptying a slot wrote four bytes that the next read
/// took back in a wider move, a store-forwarding stall on every alloc and free.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Slot {
    addr: u64,
    size: u64,
}

/// No block is this large: policies refuse requests above `MAX_REQUEST` before the
/// simulator records a block.
const EMPTY: u64 = u64::MAX;

/// Set in a slot's `size` when the block's arena is in `LiveTable::arenas`.
const IN_ARENA: u64 = 1 << 63;

// A block's size with the flag set never reads as `EMPTY`.
const _: () = assert!(crate::policy::MAX_REQUEST < IN_ARENA - 1);

impl WindowSlot for Slot {
    const EMPTY: Slot = Slot {
        addr: 0,
        size: EMPTY,
    };

    #[inline(always)]
    fn is_empty(&self) -> bool {
        !self.is_full()
    }
}

impl Slot {
    #[inline(always)]
    fn full(b: Block) -> Slot {
        debug_assert!(
            b.size < IN_ARENA,
            "a block of {} bytes cannot be recorded",
            b.size
        );
        Slot {
            addr: b.addr,
            size: b.size | if b.arena.is_some() { IN_ARENA } else { 0 },
        }
    }

    #[inline(always)]
    fn is_full(&self) -> bool {
        self.size != EMPTY
    }

    #[inline(always)]
    fn in_arena(&self) -> bool {
        self.size & IN_ARENA != 0
    }

    #[inline(always)]
    fn size(&self) -> u64 {
        self.size & !IN_ARENA
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Block `n`; two in three are in an arena, whose id is kept aside.
    fn block(n: u64) -> Block {
        Block {
            addr: n * 16,
            size: n,
            arena: (!n.is_multiple_of(3)).then_some((n % 7) as ArenaId),
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u64),
        Remove(u64),
    }

    fn arb_id() -> impl Strategy<Value = u64> {
        prop_oneof![0u64..300, 0u64..200_000, any::<u64>()]
    }

    proptest! {
        /// The table behaves as a map, whatever the ids.
        #[test]
        fn agrees_with_a_hash_map(ops in prop::collection::vec(
            prop_oneof![arb_id().prop_map(Op::Insert), arb_id().prop_map(Op::Remove)], 0..400)) {
            let mut t = LiveTable::default();
            let mut model = HashMap::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(id) => {
                        t.insert(id, block(n as u64));
                        model.insert(id, block(n as u64));
                    }
                    Op::Remove(id) => prop_assert_eq!(t.remove(id), model.remove(&id)),
                }
                prop_assert_eq!(t.len(), model.len());
                // Arena ids kept aside belong to blocks in the window or parked ahead of it, and
                // are all there is.
                let flagged = t
                    .window
                    .iter()
                    .chain(t.window.ahead_iter())
                    .filter(|(_, s)| s.is_full() && s.in_arena())
                    .count();
                prop_assert_eq!(t.arenas.len(), flagged);
            }
            for (id, b) in &model {
                prop_assert_eq!(t.get(*id), Some(*b));
            }
            let mut all: Vec<_> = t.iter().collect();
            all.sort_by_key(|(id, _)| *id);
            let mut want: Vec<_> = model.into_iter().collect();
            want.sort_by_key(|(id, _)| *id);
            prop_assert_eq!(all, want);
        }
    }

    /// A sliding window of sequential ids with one immortal block stays small: the old
    /// block moves to the overflow map instead of pinning the window.
    #[test]
    fn memory_follows_live_blocks_not_ids() {
        let mut t = LiveTable::default();
        t.insert(0, block(0));
        for id in 1..1_000_000u64 {
            t.insert(id, block(id));
            if id > 100 {
                t.remove(id - 100);
            }
        }
        assert_eq!(t.len(), 101);
        assert!(
            t.window.len() as u64 <= LiveTable::max_span(t.len()),
            "{}",
            t.window.len()
        );
        assert_eq!(t.get(0), Some(block(0)));
        assert_eq!(t.behind.len(), 1);
    }
}
