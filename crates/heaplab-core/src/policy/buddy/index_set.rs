//! A set of block indices, lowest first: the free blocks of one order.

/// A set of indices `0..capacity`, lowest first: a bitmap with summary levels above it.
/// Bit `i` of level `l + 1` says whether word `i` of level `l` has any bit set, and the top
/// level is one word, so the lowest member is found by reading one word per level, and an
/// insert or removal touches more than one level only when a word turns empty or non-empty.
#[derive(Clone, Debug)]
pub(super) struct IndexSet {
    /// `levels[0]` holds the members; each level above has a bit per word of the one below.
    levels: Vec<Vec<u64>>,
}

impl Default for IndexSet {
    fn default() -> IndexSet {
        IndexSet {
            levels: vec![vec![0]],
        }
    }
}

impl IndexSet {
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.levels.last().expect("a top level")[0] == 0
    }

    #[inline]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.levels[0]
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// The lowest member.
    #[inline]
    pub(super) fn first(&self) -> Option<usize> {
        let top = self.levels.len() - 1;
        let word = self.levels[top][0];
        if word == 0 {
            return None;
        }
        let mut i = word.trailing_zeros() as usize;
        for level in self.levels[..top].iter().rev() {
            i = i * 64 + level[i].trailing_zeros() as usize;
        }
        Some(i)
    }

    /// Adds `i`, which must be below the capacity.
    #[inline]
    pub(super) fn insert(&mut self, mut i: usize) {
        for level in &mut self.levels {
            let word = &mut level[i / 64];
            let was = *word;
            *word |= 1 << (i % 64);
            if was != 0 {
                // The levels above already know this word has members.
                break;
            }
            i /= 64;
        }
    }

    /// Removes `i`, and says whether it was a member.
    #[inline]
    pub(super) fn remove(&mut self, i: usize) -> bool {
        let Some(word) = self.levels[0].get_mut(i / 64) else {
            return false;
        };
        let bit = 1 << (i % 64);
        if *word & bit == 0 {
            return false;
        }
        *word &= !bit;
        if *word != 0 {
            return true;
        }
        let mut i = i / 64;
        for level in &mut self.levels[1..] {
            let word = &mut level[i / 64];
            *word &= !(1 << (i % 64));
            if *word != 0 {
                break;
            }
            i /= 64;
        }
        true
    }

    /// Raises the capacity to at least `bits`; the new indices are not members. New words
    /// come zeroed from the allocator and only the old non-zero ones are copied, so the
    /// pages of a large bitmap are not touched until blocks in them are freed.
    #[cold]
    pub(super) fn grow(&mut self, bits: usize) {
        let mut len = bits.div_ceil(64).max(1);
        let mut l = 0;
        loop {
            if l < self.levels.len() {
                if self.levels[l].len() < len {
                    let mut words = vec![0u64; len];
                    for (i, &w) in self.levels[l].iter().enumerate() {
                        if w != 0 {
                            words[i] = w;
                        }
                    }
                    self.levels[l] = words;
                }
            } else {
                // A new top level: its bits come from the level below.
                let mut words = vec![0u64; len];
                for (i, &w) in self.levels[l - 1].iter().enumerate() {
                    if w != 0 {
                        words[i / 64] |= 1 << (i % 64);
                    }
                }
                self.levels.push(words);
            }
            if len == 1 {
                break;
            }
            len = len.div_ceil(64);
            l += 1;
        }
    }

    /// The members in increasing order, skipping empty words through the level above.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let leaves = &self.levels[0];
        let words: Box<dyn Iterator<Item = usize> + '_> = match self.levels.get(1) {
            Some(above) => Box::new(bits(above)),
            None => Box::new(0..leaves.len()),
        };
        words.flat_map(move |w| bits(&leaves[w..=w]).map(move |b| w * 64 + b))
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

    #[test]
    fn index_sets_agree_with_a_btree_set() {
        use std::collections::BTreeSet;
        let mut set = IndexSet::default();
        let mut model = BTreeSet::new();
        let mut capacity = 1;
        // A fixed pseudo-random walk over growing capacities, through every summary level.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for step in 0..20_000 {
            if step % 2_000 == 0 {
                capacity *= 9;
                set.grow(capacity);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % capacity as u64) as usize;
            if x & (1 << 40) != 0 {
                set.insert(i);
                model.insert(i);
            } else {
                assert_eq!(set.remove(i), model.remove(&i));
            }
            assert_eq!(set.first(), model.first().copied());
            assert_eq!(set.is_empty(), model.is_empty());
            assert_eq!(set.contains(i), model.contains(&i));
        }
        assert!(set.iter().eq(model.iter().copied()));
    }
}
