//! A vector of slots indexed by `id - base`, for tables whose ids crowd into a range that
//! slides forward.
//!
//! Workloads and recorded traces number their blocks in allocation order, so at any moment
//! the ids in use sit in a window whose old end dies and whose new end grows. Keeping that
//! window as a vector makes every lookup one array access instead of a hash probe. Two
//! tables are built on it: the simulator's live blocks ([`crate::live::LiveTable`]) and the
//! trace checker's record of every key ([`crate::trace::check`]).
//!
//! The window holds what both share: the vector, whose front drops in O(1), and the keys
//! too far past its end to reach, parked in a map until the window grows over them and
//! takes them in, so that no id is ever in two places. When to move the front, and what
//! happens to the slots left behind, is each table's own policy: the live table slides
//! as blocks die, the checker cuts in batches and keeps the deaths it still remembers.

use rustc_hash::FxHashMap;

/// What a window holds per id.
pub trait WindowSlot: Copy {
    /// The slot of an id that holds nothing.
    const EMPTY: Self;

    fn is_empty(&self) -> bool;
}

/// Slots for the ids `base..end`, and a map of those parked past `end`.
#[derive(Clone, Debug)]
pub struct IdWindow<S> {
    /// `slots[i]` is the slot of id `origin + i`; those before `base - origin` have been
    /// dropped. A plain vector that drops its front in batches: cheaper to index than a
    /// ring buffer. Keeping the id of `slots[0]` rather than the count of dropped slots
    /// makes a lookup one subtraction and two comparisons, and lets the compiler drop the
    /// bounds check: three instructions fewer on every alloc and free.
    slots: Vec<S>,
    origin: u64,
    base: u64,
    /// Slots of ids at or past `end`, too far to reach when they came.
    ahead: FxHashMap<u64, S>,
    /// No key of `ahead` is below this; `u64::MAX` when it may be empty.
    ahead_min: u64,
}

impl<S> Default for IdWindow<S> {
    fn default() -> IdWindow<S> {
        IdWindow {
            slots: Vec::new(),
            origin: 0,
            base: 0,
            ahead: FxHashMap::default(),
            ahead_min: u64::MAX,
        }
    }
}

impl<S: WindowSlot> IdWindow<S> {
    /// The first id the window holds.
    #[inline(always)]
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The id just past the window.
    #[inline(always)]
    pub fn end(&self) -> u64 {
        self.origin + self.slots.len() as u64
    }

    /// How many ids the window spans, empty slots included.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.end() - self.base) as usize
    }

    /// How many slots at the vector's front have been dropped.
    #[inline(always)]
    fn dropped(&self) -> usize {
        (self.base - self.origin) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The position of `id`'s slot, if the window spans it: an index into the window
    /// until its front next moves.
    #[inline(always)]
    pub fn index(&self, id: u64) -> Option<usize> {
        let i = id.wrapping_sub(self.origin);
        (id >= self.base && i < self.slots.len() as u64).then_some(i as usize)
    }

    /// The slot of `id`, if the window spans it.
    #[inline(always)]
    pub fn slot_mut(&mut self, id: u64) -> Option<&mut S> {
        let i = self.index(id)?;
        self.slots.get_mut(i)
    }

    /// Whether `id` may be pushed: it is the window's end, and nothing is parked there.
    #[inline(always)]
    pub fn may_push(&self, id: u64) -> bool {
        id == self.end() && id < self.ahead_min
    }

    /// Appends the slot of id [`IdWindow::end`]; [`IdWindow::may_push`] must allow it.
    #[inline(always)]
    pub fn push(&mut self, slot: S) {
        debug_assert!(self.ahead_min > self.end());
        self.slots.push(slot);
    }

    /// Starts an empty window at `base`. Nothing may be parked ahead, since the keys
    /// parked there would then fall behind the window's new start or inside it.
    pub fn restart_at(&mut self, base: u64) {
        debug_assert!(self.ahead.is_empty());
        self.slots.clear();
        self.origin = base;
        self.base = base;
        self.ahead_min = u64::MAX;
    }

    /// Stretches the window to end at `end` (no shorter than it is), taking in the slots
    /// parked ahead that it now covers; `took` sees each one, already in its place.
    pub fn grow_to(&mut self, end: u64, mut took: impl FnMut(u64, S)) {
        let old_end = self.end();
        debug_assert!(end >= old_end);
        self.slots.resize((end - self.origin) as usize, S::EMPTY);
        if end <= self.ahead_min {
            return;
        }
        let (origin, slots) = (self.origin, &mut self.slots);
        let mut min = u64::MAX;
        self.ahead.retain(|&id, s| {
            if (old_end..end).contains(&id) {
                slots[(id - origin) as usize] = *s;
                took(id, *s);
                false
            } else {
                min = min.min(id);
                true
            }
        });
        self.ahead_min = min;
    }

    /// Parks the slot of `id`, which lies at or past the window's end.
    pub fn park_ahead(&mut self, id: u64, slot: S) {
        *self.ahead_entry(id) = slot;
    }

    /// The parked slot of `id` (at or past the window's end), parked empty if it was not.
    pub fn ahead_entry(&mut self, id: u64) -> &mut S {
        debug_assert!(id >= self.end());
        self.ahead_min = self.ahead_min.min(id);
        self.ahead.entry(id).or_insert(S::EMPTY)
    }

    pub fn ahead_get(&self, id: u64) -> Option<&S> {
        self.ahead.get(&id)
    }

    pub fn ahead_remove(&mut self, id: u64) -> Option<S> {
        self.ahead.remove(&id)
    }

    pub fn ahead_len(&self) -> usize {
        self.ahead.len()
    }

    /// Keeps the parked slots `keep` accepts.
    pub fn retain_ahead(&mut self, keep: impl FnMut(&u64, &mut S) -> bool) {
        // A removal leaves `ahead_min` a lower bound still, which is all it promises.
        self.ahead.retain(keep);
    }

    /// The parked slots, in no particular order.
    pub fn ahead_iter(&self) -> impl Iterator<Item = (u64, S)> + '_ {
        self.ahead.iter().map(|(&id, &s)| (id, s))
    }

    /// Takes the first slot out of the window, which then starts one id later.
    #[inline]
    pub fn pop_front(&mut self) -> Option<S> {
        let front = *self.slots.get(self.dropped())?;
        self.drop_front(1);
        Some(front)
    }

    /// How many empty slots lead the window. One pass over the slice, without the bounds
    /// checks and compaction test a `pop_front` per slot would repeat.
    #[inline]
    pub fn dead_front(&self) -> usize {
        let live = &self.slots[self.dropped()..];
        let mut n = 0;
        while n < live.len() && live[n].is_empty() {
            n += 1;
        }
        n
    }

    /// Drops the first `n` slots, which must be there: the window then starts `n` ids
    /// later.
    #[inline]
    pub fn drop_front(&mut self, n: usize) {
        debug_assert!(n <= self.len());
        self.base += n as u64;
        let dropped = self.dropped();
        // Compacting once the dropped front is half the vector moves at most one slot per
        // slot dropped. The floor is small so that a window that stays short (alloc, free,
        // alloc, ...) cycles through a few cache lines rather than through a buffer larger
        // than the L1 cache.
        if dropped >= 64 && dropped * 2 >= self.slots.len() {
            self.compact();
        }
    }

    /// Gives the dropped front back in one move, once it is half the vector.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.slots.drain(..self.dropped());
        self.origin = self.base;
    }

    /// The window's slots with their ids, empty ones included.
    pub fn iter(&self) -> impl Iterator<Item = (u64, S)> + '_ {
        let base = self.base;
        self.slots[self.dropped()..]
            .iter()
            .enumerate()
            .map(move |(i, &s)| (base + i as u64, s))
    }

    /// The window's slots, to rewrite in place.
    pub fn slots_mut(&mut self) -> &mut [S] {
        let dropped = self.dropped();
        &mut self.slots[dropped..]
    }
}

/// Indexed by the positions [`IdWindow::index`] gives.
impl<S> std::ops::Index<usize> for IdWindow<S> {
    type Output = S;

    #[inline(always)]
    fn index(&self, i: usize) -> &S {
        &self.slots[i]
    }
}

impl<S> std::ops::IndexMut<usize> for IdWindow<S> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut S {
        &mut self.slots[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl WindowSlot for Option<u32> {
        const EMPTY: Self = None;

        fn is_empty(&self) -> bool {
            self.is_none()
        }
    }

    #[test]
    fn a_window_grown_over_parked_ids_takes_them_in() {
        let mut w = IdWindow::<Option<u32>>::default();
        w.restart_at(10);
        assert!(w.may_push(10));
        w.push(Some(10));
        w.park_ahead(20, Some(20));
        w.park_ahead(40, Some(40));
        // The end is free, but an id parked there would be in two places.
        assert!(w.may_push(11));
        let mut took = Vec::new();
        w.grow_to(25, |id, s| took.push((id, s)));
        assert_eq!(took, [(20, Some(20))]);
        assert_eq!(w[w.index(20).unwrap()], Some(20));
        assert_eq!((w.base(), w.end(), w.ahead_len()), (10, 25, 1));
        assert_eq!(w.ahead_get(40), Some(&Some(40)));
        w.grow_to(40, |_, _| panic!("nothing is parked below 40"));
        assert!(!w.may_push(40));
    }

    #[test]
    fn the_front_drops_and_ids_keep_their_slots() {
        let mut w = IdWindow::<Option<u32>>::default();
        for id in 0..1000 {
            w.push(Some(id));
        }
        for id in 0..700 {
            *w.slot_mut(id).unwrap() = None;
        }
        assert_eq!(w.dead_front(), 700);
        w.drop_front(699);
        assert_eq!(w.pop_front(), Some(None));
        assert_eq!((w.base(), w.len()), (700, 300));
        assert_eq!(w.index(699), None);
        assert_eq!(w[w.index(999).unwrap()], Some(999));
        assert_eq!(w.iter().next(), Some((700, Some(700))));
        assert!(w.slot_mut(1000).is_none());
    }
}
