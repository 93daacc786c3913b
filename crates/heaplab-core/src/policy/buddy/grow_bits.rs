//! A bitmap that grows as bits are set: the start bitmap (`starts.rs`) and the record of
//! pages known held (`held_pages.rs`) are each one.
//!
//! Bits past its end read as clear, so it needs memory only up to the highest bit ever
//! set: blocks are handed out lowest first, and a bitmap as large as the arenas cost
//! zeroing it on every new heap. It grows at least twofold, into words that come zeroed
//! from the allocator, copying only the old words that are not zero, so the pages of a
//! large bitmap are touched only as bits in them are set.

use super::index_set::{bits, copy_nonzero};

#[derive(Clone, Debug, Default)]
pub(super) struct GrowBits {
    words: Vec<u64>,
}

impl GrowBits {
    #[inline(always)]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.word(i) & (1 << (i % 64)) != 0
    }

    /// The word holding bit `i`; zero past the end.
    #[inline(always)]
    pub(super) fn word(&self, i: usize) -> u64 {
        self.words.get(i / 64).copied().unwrap_or(0)
    }

    /// Sets bit `i`, growing to hold it.
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize) {
        match self.words.get_mut(i / 64) {
            Some(word) => *word |= 1 << (i % 64),
            None => self.grow_to_set(i),
        }
    }

    /// Sets the bits of `mask` in the word holding bit `i`, which must be within the
    /// bitmap (a bit of that word is set already).
    #[inline(always)]
    pub(super) fn set_in_word(&mut self, i: usize, mask: u64) {
        self.words[i / 64] |= mask;
    }

    /// Clears bit `i`, which must be within the bitmap.
    #[inline(always)]
    pub(super) fn clear(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// Clears every bit, keeping the capacity.
    #[cold]
    pub(super) fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Asks for the cache line holding bit `i`, if there is one.
    #[inline(always)]
    pub(super) fn prefetch(&self, i: usize) {
        if let Some(w) = self.words.get(i / 64) {
            crate::prefetch::prefetch(w);
        }
    }

    /// Raises the capacity to at least `bits`; the new bits are clear.
    #[cold]
    pub(super) fn grow(&mut self, bits: usize) {
        let len = bits.div_ceil(64);
        if len > self.words.len() {
            let mut words = vec![0u64; len];
            copy_nonzero(&self.words, &mut words);
            self.words = words;
        }
    }

    /// [`GrowBits::set`] past the end: grows to hold `i`, at least doubling, and sets it.
    #[cold]
    #[inline(never)]
    fn grow_to_set(&mut self, i: usize) {
        self.grow((i + 1).max(self.words.len() * 128).max(4096));
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Every set bit, lowest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        bits(&self.words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_past_the_end_read_clear_and_setting_one_grows_the_map() {
        let mut b = GrowBits::default();
        assert!(!b.contains(1 << 20));
        assert_eq!(b.word(1 << 20), 0);
        b.set(1 << 20);
        b.set(3);
        assert!(b.contains(1 << 20) && b.contains(3) && !b.contains(4));
        b.set_in_word(3, 0b1_0000);
        b.clear(3);
        assert_eq!(b.iter().collect::<Vec<_>>(), [4, 1 << 20]);
        b.clear_all();
        assert_eq!(b.iter().count(), 0);
    }
}
