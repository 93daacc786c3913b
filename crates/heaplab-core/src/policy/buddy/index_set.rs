//! A set of block indices, lowest first: the free blocks of one order.

/// The most levels a set has: 64^8 = 2^48 indices, more than the simulated address space
/// holds smallest blocks.
const MAX_LEVELS: usize = 8;

/// A set of indices, lowest first, growing as they are inserted: a bitmap with summary levels above it.
/// Bit `i` of level `l + 1` says whether word `i` of level `l` has any bit set, and the top
/// level is one word, so the lowest member is found by reading one word per level, and an
/// insert or removal touches more than one level only when a word turns empty or non-empty.
///
/// The lowest member is kept apart, since allocation asks for it every time and a removal
/// other than of the lowest leaves it as it is. A set of at most one member (the usual state
/// of an order in a heap that reuses what it frees: a block freed, then taken again) keeps
/// its summary levels empty, so its insert and removal write one word and not one per level.
#[derive(Clone, Debug)]
pub(super) struct IndexSet {
    /// Level 0: the members.
    leaves: Vec<u64>,
    /// The summary levels above it, one after the other, in one allocation; where each
    /// starts follows from the number of words in `leaves` (see [`Level`]). Empty when
    /// `leaves` is one word.
    summary: Vec<u64>,
    len: usize,
    /// The lowest member, when there is one.
    lowest: usize,
}

// Eight words: the sets of a heap's orders lie a power of two apart, so finding one takes
// a shift, not a multiplication.
const _: () = assert!(std::mem::size_of::<IndexSet>() == 8 * std::mem::size_of::<usize>());

impl Default for IndexSet {
    fn default() -> IndexSet {
        IndexSet {
            leaves: vec![0],
            summary: Vec::new(),
            len: 0,
            lowest: usize::MAX,
        }
    }
}

/// One summary level: where it starts in `summary` and how many words it has. Each level
/// has a 64th of the words of the level below, rounded up, and the top one is a single
/// word, so the layout follows from the number of leaf words and is not kept in the set:
/// a set takes eight words, and the sets of a buddy heap's orders are found by a shift.
/// The searches that run on allocations and frees step up from level 1 one level at a time.
#[derive(Clone, Copy, Debug)]
struct Level {
    start: usize,
    words: usize,
}

impl Level {
    /// Level 1, above `leaf_words` words of level 0: there is one when level 0 has more
    /// than one word, and then `summary` is not empty.
    #[inline(always)]
    fn first(leaf_words: usize) -> Option<Level> {
        (leaf_words > 1).then(|| Level {
            start: 0,
            words: leaf_words.div_ceil(64),
        })
    }

    /// The level above this one, if this one is not the top.
    #[inline(always)]
    fn up(self) -> Option<Level> {
        (self.words > 1).then(|| Level {
            start: self.start + self.words,
            words: self.words.div_ceil(64),
        })
    }
}

/// Every summary level of a set at once, for growing it and for the invariant scan.
#[derive(Clone, Copy, Debug)]
struct Levels {
    /// Where level `l` (from 1) starts in `summary`.
    start: [usize; MAX_LEVELS],
    /// Levels in all, counting level 0.
    count: usize,
    /// Words in all the summary levels.
    words: usize,
}

impl Levels {
    fn of(leaf_words: usize) -> Levels {
        let mut all = Levels {
            start: [0; MAX_LEVELS],
            count: 1,
            words: 0,
        };
        let mut level = Level::first(leaf_words);
        while let Some(l) = level {
            assert!(all.count < MAX_LEVELS, "an index set of {leaf_words} words");
            all.start[all.count] = l.start;
            all.count += 1;
            all.words = l.start + l.words;
            level = l.up();
        }
        all
    }
}

impl IndexSet {
    fn levels(&self) -> Levels {
        Levels::of(self.leaves.len())
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.leaves
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Whether `i` is a member, and whether `i ^ 1` is: one word, since both share it.
    #[inline]
    pub(super) fn pair(&self, i: usize) -> (bool, bool) {
        let w = self.leaves.get(i / 64).copied().unwrap_or(0) >> ((i % 64) & !1);
        let (even, odd) = (w & 1 != 0, w & 2 != 0);
        if i.is_multiple_of(2) {
            (even, odd)
        } else {
            (odd, even)
        }
    }

    /// Asks for the cache line holding `i`'s bit, if the set has one.
    #[inline(always)]
    pub(super) fn prefetch(&self, i: usize) {
        if let Some(w) = self.leaves.get(i / 64) {
            crate::prefetch::prefetch(w);
        }
    }

    /// The lowest member.
    #[inline]
    pub(super) fn first(&self) -> Option<usize> {
        (self.len > 0).then_some(self.lowest)
    }

    /// Adds `i`, which must not be a member. The capacity grows to hold it: blocks are
    /// handed out lowest first, so the free blocks of a heap stay in the low part of the
    /// index space, and a bitmap as large as the arenas cost zeroing it on every new heap.
    #[inline(always)]
    pub(super) fn insert(&mut self, i: usize) {
        let word = match self.leaves.get_mut(i / 64) {
            Some(word) => word,
            None => {
                self.grow_to_hold(i);
                &mut self.leaves[i / 64]
            }
        };
        let was = *word;
        let bit = 1 << (i % 64);
        debug_assert!(was & bit == 0, "{i} is a member already");
        *word = was | bit;
        self.len += 1;
        if self.len == 1 {
            // One member: no summary, the member is the lowest.
            self.lowest = i;
            return;
        }
        if self.len == 2 {
            // The summary starts now, with the member that was alone.
            self.summarize(self.lowest);
        }
        // The level above learns that this word has members, whether or not it knew: a
        // bit set again costs less than the branch on `was`, which the CPU guesses wrong
        // about as often as a split or a merge changes a word's state.
        self.mark_word(i);
        self.lowest = self.lowest.min(i);
    }

    /// Adds `i` to the set, which must be empty: a split puts each upper half on the list of
    /// an order that had no free block, so the word is written and no summary level is.
    #[inline(always)]
    pub(super) fn insert_alone(&mut self, i: usize) {
        debug_assert!(self.len == 0, "the set holds {} members", self.len);
        if i / 64 >= self.leaves.len() {
            self.grow_to_hold(i);
        }
        // An empty set's words are all zero, since every removal clears its bit.
        self.leaves[i / 64] = 1 << (i % 64);
        self.len = 1;
        self.lowest = i;
    }

    /// Removes the lowest member, which must exist, and says whether the set is empty now.
    #[inline(always)]
    pub(super) fn take_first(&mut self) -> bool {
        self.remove_member(self.lowest)
    }

    /// Removes `i`, which must be a member, and says whether the set is empty now.
    #[inline(always)]
    pub(super) fn remove_member(&mut self, i: usize) -> bool {
        let word = &mut self.leaves[i / 64];
        debug_assert!(*word & 1 << (i % 64) != 0, "{i} is not a member");
        let rest = *word & !(1 << (i % 64));
        *word = rest;
        self.len -= 1;
        if self.len == 0 {
            // It was alone, so no summary holds it.
            self.lowest = usize::MAX;
            return true;
        }
        self.remove_summarized(i, rest);
        false
    }

    /// Removes `i`, and says whether it was a member.
    #[cfg(test)]
    pub(super) fn remove(&mut self, i: usize) -> bool {
        let member = self
            .leaves
            .get(i / 64)
            .is_some_and(|word| word & 1 << (i % 64) != 0);
        if member {
            self.remove_member(i);
        }
        member
    }

    /// [`IndexSet::remove_member`] once two members or more were summarized, with `rest` the
    /// word that held `i` as it is now: not rare, since a heap that splits and merges small
    /// blocks keeps several free in each order, so inline, with the rarer steps apart.
    #[inline(always)]
    fn remove_summarized(&mut self, i: usize, rest: u64) {
        self.unmark_word_if(i, rest == 0);
        if i == self.lowest {
            self.lowest = self.successor(i);
        }
        if self.len == 1 {
            self.clear_summary();
        }
    }

    /// Empties the summary when one member is left: its path through the summary is the
    /// only one, so clearing every word on it clears them all.
    #[inline(never)]
    fn clear_summary(&mut self) {
        let mut at = self.lowest / 64;
        let mut level = Level::first(self.leaves.len());
        while let Some(l) = level {
            self.summary[l.start + at / 64] = 0;
            at /= 64;
            level = l.up();
        }
    }

    /// Marks in the summary levels that the level-0 word of `i` has members.
    #[inline(never)]
    fn summarize(&mut self, i: usize) {
        if let Some(one) = Level::first(self.leaves.len()) {
            self.summarize_from(one, i / 64);
        }
    }

    /// Sets the bit of the level-0 word of `i` in level 1, and in the levels above when the
    /// word of level 1 had no bit set. The first step has no branch on whether the bit was
    /// set already; the climb is rare, since a word of level 1 covers 4,096 indices.
    #[inline(always)]
    fn mark_word(&mut self, i: usize) {
        if self.summary.is_empty() {
            return;
        }
        let at = i / 64;
        let word = &mut self.summary[at / 64];
        let was = *word;
        *word = was | 1 << (at % 64);
        if was == 0 {
            if let Some(two) = Level::first(self.leaves.len()).and_then(Level::up) {
                self.summarize_from(two, at / 64);
            }
        }
    }

    /// Clears the bit of the level-0 word of `i` in level 1 when `empty` (the word turned
    /// empty), and in the levels above when the word of level 1 turns empty too. As
    /// [`IndexSet::mark_word`], the first step has no branch on `empty`.
    #[inline(always)]
    fn unmark_word_if(&mut self, i: usize, empty: bool) {
        if self.summary.is_empty() {
            return;
        }
        let at = i / 64;
        let word = &mut self.summary[at / 64];
        let now = *word & !(u64::from(empty) << (at % 64));
        *word = now;
        if now == 0 {
            if let Some(two) = Level::first(self.leaves.len()).and_then(Level::up) {
                self.unsummarize_from(two, at / 64);
            }
        }
    }

    /// Marks in `level` and up that word `at` of the level below has members.
    #[inline(never)]
    fn summarize_from(&mut self, level: Level, mut at: usize) {
        let mut level = Some(level);
        while let Some(l) = level {
            let word = &mut self.summary[l.start + at / 64];
            let was = *word;
            *word |= 1 << (at % 64);
            if was != 0 {
                break;
            }
            at /= 64;
            level = l.up();
        }
    }

    /// Clears in `level` and up the bit of word `at` of the level below, which turned
    /// empty.
    #[inline(never)]
    fn unsummarize_from(&mut self, level: Level, mut at: usize) {
        let mut level = Some(level);
        while let Some(l) = level {
            let word = &mut self.summary[l.start + at / 64];
            *word &= !(1 << (at % 64));
            if *word != 0 {
                break;
            }
            at /= 64;
            level = l.up();
        }
    }

    /// The lowest member above `i`, which was the lowest: allocation takes the lowest block
    /// each time, and the next one is most often in the same word or one the level above
    /// finds, so the search climbs from `i` rather than descending from the top.
    #[inline(never)]
    fn successor(&self, i: usize) -> usize {
        // Shifted in two steps so that bit 63 shifts out.
        let above = self.leaves[i / 64] >> (i % 64) >> 1;
        if above != 0 {
            return i + 1 + above.trailing_zeros() as usize;
        }
        // Where each level passed on the way up starts, for the way down.
        let mut starts = [0; MAX_LEVELS];
        let mut at = i / 64;
        let mut level = Level::first(self.leaves.len());
        let mut passed = 0;
        while let Some(l) = level {
            let above = self.summary[l.start + at / 64] >> (at % 64) >> 1;
            if above != 0 {
                // Down again, the lowest member of the first marked word on each level.
                let mut at = at + 1 + above.trailing_zeros() as usize;
                for &start in starts[..passed].iter().rev() {
                    at = at * 64 + self.summary[start + at].trailing_zeros() as usize;
                }
                return at * 64 + self.leaves[at].trailing_zeros() as usize;
            }
            starts[passed] = l.start;
            passed += 1;
            at /= 64;
            level = l.up();
        }
        unreachable!("a set of {} members has one above its lowest", self.len)
    }

    /// The lowest member by the summary levels, one word per level; the set holds two
    /// members or more, or one whose summary has not been cleared yet.
    #[cfg(test)]
    fn walk(&self) -> usize {
        let lv = self.levels();
        let mut i = 0;
        for l in (1..lv.count).rev() {
            i = i * 64 + self.summary[lv.start[l] + i].trailing_zeros() as usize;
        }
        i * 64 + self.leaves[i].trailing_zeros() as usize
    }

    /// Grows the capacity past `i`, to a power of two of at least 4,096 indices, so that
    /// growing by one block at a time costs a copy only now and then.
    #[cold]
    #[inline(never)]
    fn grow_to_hold(&mut self, i: usize) {
        self.grow((i + 1).next_power_of_two().max(4096));
    }

    /// Raises the capacity to at least `bits`; the new indices are not members. New words
    /// come zeroed from the allocator and only the old non-zero ones are copied, so the
    /// pages of a large bitmap are not touched until blocks in them are freed.
    #[cold]
    pub(super) fn grow(&mut self, bits: usize) {
        let leaf_words = bits.div_ceil(64).max(1);
        if leaf_words <= self.leaves.len() {
            return;
        }
        let (old, new) = (self.levels(), Levels::of(leaf_words));
        let mut leaves = vec![0u64; leaf_words];
        copy_nonzero(&self.leaves, &mut leaves);
        let mut summary = vec![0u64; new.words];
        for l in 1..new.count {
            let at = new.start[l];
            if l < old.count {
                copy_nonzero(self.level(l), &mut summary[at..]);
            } else if self.len >= 2 {
                // A new level above the old top: its bits come from the level below.
                let (lower, upper) = summary.split_at_mut(at);
                let below: &[u64] = if l == 1 {
                    &leaves
                } else {
                    &lower[new.start[l - 1]..]
                };
                for (j, _) in below.iter().enumerate().filter(|(_, &w)| w != 0) {
                    upper[j / 64] |= 1 << (j % 64);
                }
            }
        }
        self.leaves = leaves;
        self.summary = summary;
    }

    /// Summary level `l` (from 1).
    fn level(&self, l: usize) -> &[u64] {
        let lv = self.levels();
        let end = if l + 1 < lv.count {
            lv.start[l + 1]
        } else {
            self.summary.len()
        };
        &self.summary[lv.start[l]..end]
    }

    /// The members in increasing order, skipping empty words through the level above.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let leaves = &self.leaves;
        let words: Box<dyn Iterator<Item = usize> + '_> = match (self.len, self.summary.is_empty())
        {
            (0, _) => Box::new(std::iter::empty()),
            (1, _) => Box::new(std::iter::once(self.lowest / 64)),
            (_, true) => Box::new(0..leaves.len()),
            _ => Box::new(bits(self.level(1))),
        };
        words.flat_map(move |w| bits(&leaves[w..=w]).map(move |b| w * 64 + b))
    }

    /// Checks the count, the lowest member and the summary levels against each other: for
    /// the invariant scan. Level 0 is read through the summary, as `iter` reads it (a word
    /// the summary missed would drop its members from the count); the levels above, a
    /// 64th of the size, are read whole.
    pub(super) fn check(&self) -> Result<(), String> {
        let mut members = self.iter();
        let lowest = members.next();
        let len = usize::from(lowest.is_some()) + members.count();
        if len != self.len || lowest != self.first() {
            return Err(format!(
                "{len} members from {lowest:?} kept as {} from {:?}",
                self.len,
                self.first()
            ));
        }
        #[cfg(test)]
        if self.len >= 2 && self.walk() != self.lowest {
            return Err(format!(
                "the summary leads to {}, not {}",
                self.walk(),
                self.lowest
            ));
        }
        let lv = self.levels();
        if lv.count > 1 {
            // Level 1 may mark only words of level 0 with members (those it fails to mark
            // were missed by the count above).
            if let Some(j) = bits(self.level(1)).find(|&j| self.len < 2 || self.leaves[j] == 0) {
                return Err(format!(
                    "summary level 1 marks word {j}, which has no members"
                ));
            }
        }
        for l in 2..lv.count {
            let (below, level) = (self.level(l - 1), self.level(l));
            for (j, &w) in below.iter().enumerate() {
                let marked = level[j / 64] & (1 << (j % 64)) != 0;
                if marked != (w != 0) {
                    return Err(format!(
                        "summary level {l} {} word {j} of the level below",
                        if marked { "marks the empty" } else { "misses" }
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Copies the non-zero words of `from` to the start of `to`, whose words are zero: a word
/// written costs a resident page, and most of a large bitmap is zero.
pub(super) fn copy_nonzero(from: &[u64], to: &mut [u64]) {
    for (t, &f) in to.iter_mut().zip(from) {
        if f != 0 {
            *t = f;
        }
    }
}

/// The indices of the set bits of `words`, in increasing order.
pub(super) fn bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(i * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed pseudo-random walk over growing capacities, through every summary level,
    /// checked against a `BTreeSet`; `keep` is the chance in 64 that a step inserts, and
    /// removals take a member, so a low `keep` holds the set at a member or two.
    fn walk_against_a_model(steps: usize, grow_every: usize, keep: u64, check: bool) {
        use std::collections::BTreeSet;
        let mut set = IndexSet::default();
        let mut model = BTreeSet::new();
        let mut capacity = 1;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for step in 0..steps {
            if step % grow_every == 0 {
                capacity *= 9;
                set.grow(capacity);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % capacity as u64) as usize;
            if (x >> 40) % 64 < keep {
                // Into an empty set, as a split lists a half, the insert needs no summary.
                let was_empty = model.is_empty();
                if model.insert(i) {
                    if was_empty {
                        set.insert_alone(i);
                    } else {
                        set.insert(i);
                    }
                }
            } else {
                // Half the removals take a member (the lowest or one above `i`), half `i`.
                let i = match x & 3 {
                    0 => model.first().copied().unwrap_or(i),
                    1 => model.range(i..).next().copied().unwrap_or(i),
                    _ => i,
                };
                assert_eq!(set.remove(i), model.remove(&i), "remove {i}");
            }
            assert_eq!(set.first(), model.first().copied());
            assert_eq!(set.is_empty(), model.is_empty());
            assert_eq!(set.len(), model.len());
            assert_eq!(set.contains(i), model.contains(&i));
            if check {
                set.check().unwrap();
            }
        }
        assert!(set.iter().eq(model.iter().copied()));
        set.check().unwrap();
    }

    #[test]
    fn index_sets_agree_with_a_btree_set() {
        // Large sets over capacities up to 9^10 (the words are never all touched).
        walk_against_a_model(20_000, 2_000, 32, false);
        // Small ones, a few members at most, checking the summary after every step.
        walk_against_a_model(20_000, 4_000, 20, true);
        walk_against_a_model(20_000, 4_000, 32, true);
    }
}
