//! Where blocks begin: one bit per smallest block of every arena, set where a block (live
//! or free) starts. Blocks tile their arena, so a block ends where the next one starts, and
//! its order is the distance to the next set bit. This is the whole record of the live
//! blocks: a live block is a start that is not on its order's free list.
//!
//! It replaces a hash map from payload to (block, order), which cost a hash insert on every
//! allocation and a removal on every free, each a cache miss once the heap holds a million
//! blocks. The bitmap costs one bit per smallest block (512 KiB for a 64 MiB arena of
//! 16-byte blocks), a split sets the bit of the upper half, a merge clears it. With a
//! header, `buddy.rs` keeps a set of payloads besides (where a payload lies in its block
//! depends on the alignment asked for), and pays that insert and removal again.

use super::grow_bits::GrowBits;

/// `HALVES[n]` has bit `2^j` set for each `j` below `n`: the starts of the upper halves
/// split off a block at bit 0 down to order 0, as far as they fit in a word.
const HALVES: [u64; 7] = {
    let mut halves = [0u64; 7];
    let mut n = 1;
    while n < 7 {
        halves[n] = halves[n - 1] | 1 << (1 << (n - 1));
        n += 1;
    }
    halves
};

/// Bit `i` (an arena's position above the smallest block's number in it, as the indices of
/// order 0) is set when a block starts at smallest block `i`.
#[derive(Clone, Debug)]
pub(super) struct Starts {
    bits: GrowBits,
    /// Smallest blocks per arena, as a power of two (the heap's `max_order`).
    arena_shift: u32,
}

impl Starts {
    pub(super) fn new(arena_shift: u32) -> Starts {
        Starts {
            bits: GrowBits::default(),
            arena_shift,
        }
    }

    /// Raises the capacity to at least `bits`; the new bits are clear.
    #[cfg(test)]
    pub(super) fn grow(&mut self, bits: usize) {
        self.bits.grow(bits);
    }

    /// Clears every bit, keeping the capacity.
    pub(super) fn clear_all(&mut self) {
        self.bits.clear_all();
    }

    #[inline]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.bits.contains(i)
    }

    /// Asks for the cache line holding bit `i`, if there is one.
    #[inline(always)]
    pub(super) fn prefetch(&self, i: usize) {
        self.bits.prefetch(i);
    }

    /// Marks a start at `i`, growing the bitmap to hold it.
    #[inline]
    pub(super) fn set(&mut self, i: usize) {
        self.bits.set(i);
    }

    /// Marks the starts of the upper halves split off the block of order `from` at `i`, down
    /// to order `k`: `i + 2^j` for each `j` from `k` up to `from`. The block starts at `i`,
    /// so its word is there; the halves of fewer than 64 smallest blocks lie in that word
    /// and are set with one mask rather than one bit at a time.
    #[inline(always)]
    pub(super) fn set_halves(&mut self, i: usize, k: u32, from: u32) {
        let in_word = from.min(6);
        if k < in_word {
            // `i` is aligned to `2^from`, so `i % 64 + 2^j` stays below 64.
            let mask = (HALVES[in_word as usize] & !HALVES[k as usize]) << (i % 64);
            self.bits.set_in_word(i, mask);
        }
        for j in k.max(6)..from {
            self.set(i + (1 << j));
        }
    }

    #[inline]
    pub(super) fn clear(&mut self, i: usize) {
        self.bits.clear(i);
    }

    /// The order of the block starting at `i`, which must be a start: the distance to the
    /// next start or to the arena's end, whichever is nearer.
    #[inline]
    pub(super) fn order_at(&self, i: usize) -> u32 {
        self.order_in(i, self.bits.word(i))
    }

    /// The order of the block starting at `i`, if a block starts there.
    #[inline]
    pub(super) fn order_if_start(&self, i: usize) -> Option<u32> {
        let word = self.bits.word(i);
        (word & (1 << (i % 64)) != 0).then(|| self.order_in(i, word))
    }

    /// [`Starts::order_at`] with the word that holds `i` read.
    #[inline]
    fn order_in(&self, i: usize, word: u64) -> u32 {
        let arena = 1usize << self.arena_shift;
        let to_end = arena - (i & (arena - 1));
        let bit = i % 64;
        // The starts after `i` in its word; shifted in two steps so that bit 63 shifts out.
        let above = word >> bit >> 1;
        let distance = if above != 0 {
            // Blocks of up to 64 smallest blocks, nearly every one, end in their word.
            above.trailing_zeros() as usize + 1
        } else if bit != 0 || to_end <= 64 {
            // Not at a word's start, the block is smaller than a word and lies inside it; an
            // arena of fewer than 64 smallest blocks lies inside a word too.
            (64 - bit).min(to_end)
        } else {
            self.distance_beyond_word(i, to_end)
        };
        debug_assert!(distance.is_power_of_two(), "block at {i} spans {distance}");
        distance.trailing_zeros()
    }

    /// [`Starts::order_at`] for a block of a word or more: the block's end is a multiple of
    /// its size, so only the positions `i + 2^j` can be it, one word read each.
    #[cold]
    #[inline(never)]
    fn distance_beyond_word(&self, i: usize, to_end: usize) -> usize {
        let mut span = 64;
        while span < to_end && !self.contains(i + span) {
            span *= 2;
        }
        span.min(to_end)
    }

    /// The start of the block that holds smallest block `i`: the nearest start at or below
    /// it. Used when a header puts the payload past the block's first byte.
    pub(super) fn start_of(&self, i: usize) -> usize {
        let bit = i % 64;
        // A large block may reach past the bitmap's end: the bits there are clear.
        let below = self.bits.word(i) << (63 - bit);
        if below != 0 {
            return i - below.leading_zeros() as usize;
        }
        // The block began in an earlier word, so it is larger than a word and its start is
        // `i` rounded down to its size: the first of those roundings that is a start (an
        // arena's first block always starts at its base, a multiple of the arena's size).
        let mut j = 7;
        loop {
            let candidate = i & !((1usize << j) - 1);
            if self.contains(candidate) || j >= self.arena_shift {
                return candidate;
            }
            j += 1;
        }
    }

    /// Every start, lowest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bitmap holding blocks of the given orders laid end to end from 0.
    fn tiled(arena_shift: u32, arenas: usize, orders: &[u32]) -> (Starts, Vec<usize>) {
        let mut s = Starts::new(arena_shift);
        s.grow(arenas << arena_shift);
        let mut at = 0;
        let mut starts = Vec::new();
        for &k in orders {
            assert_eq!(at % (1 << k), 0, "blocks are aligned to their size");
            s.set(at);
            starts.push(at);
            at += 1 << k;
        }
        assert_eq!(at, arenas << arena_shift, "blocks tile the arenas");
        (s, starts)
    }

    #[test]
    fn orders_come_from_the_distance_to_the_next_start() {
        // Two arenas of 2^10: small blocks, blocks of a word and more, one arena-sized.
        let orders = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        let (s, starts) = tiled(10, 2, &orders);
        for (&at, &k) in starts.iter().zip(&orders) {
            assert_eq!(s.order_at(at), k, "block at {at}");
            for inside in at..at + (1 << k) {
                assert_eq!(s.start_of(inside), at, "smallest block {inside}");
            }
        }
        assert!(s.iter().eq(starts.iter().copied()));
    }

    #[test]
    fn halves_set_at_once_are_those_set_one_at_a_time() {
        for from in 0..=9u32 {
            for k in 0..=from {
                // A block of order `from` at a multiple of its size, in an arena of 2^12.
                let i = 3 << from;
                let mut at_once = Starts::new(12);
                at_once.grow(1 << 12);
                at_once.set(i);
                let mut one_by_one = at_once.clone();
                at_once.set_halves(i, k, from);
                for j in k..from {
                    one_by_one.set(i + (1 << j));
                }
                assert!(
                    at_once.iter().eq(one_by_one.iter()),
                    "split from order {from} down to {k}"
                );
            }
        }
    }

    #[test]
    fn arenas_smaller_than_a_word_end_at_their_own_end() {
        // Three arenas of 8 smallest blocks share one word; the last has no arena above.
        let orders = [3, 1, 0, 0, 2, 2, 1, 1];
        let (s, starts) = tiled(3, 3, &orders);
        for (&at, &k) in starts.iter().zip(&orders) {
            assert_eq!(s.order_at(at), k, "block at {at}");
            for inside in at..at + (1 << k) {
                assert_eq!(s.start_of(inside), at);
            }
        }
    }
}
