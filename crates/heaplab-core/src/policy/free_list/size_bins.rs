//! Free chunks by size, for best fit and glibc-style bins: the smallest chunk that fits,
//! and among chunks of that size the lowest-addressed (best fit) or the one freed first
//! (bins).
//!
//! Small sizes (below `SMALL_BINS` times the alignment) each have an exact-size bin, and a
//! bitmap of the non-empty bins finds the smallest that fits in a few word operations.
//! Within a bin, best fit keeps a min-heap on addresses and bins a queue in the order of
//! freeing. A chunk taken out of a bin other than by the bin itself (merged with a
//! neighbour that was freed) leaves its entry behind: each entry carries the chunk's stamp,
//! and an entry whose chunk no longer has that stamp is stale and skipped. A bin's count of
//! live entries keeps the bitmap exact, an emptied bin drops its stale entries at once, and
//! a bin with more stale entries than live ones is compacted, so the entries stay within
//! a small factor of the free chunks. Larger sizes, rarer and more varied, share one
//! `BTreeMap` keyed by size, tie-break and address, as all sizes once did.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashSet;

use super::addr_heap::{AddrHeap, Entry};
use crate::provider::Addr;

/// Exact-size bins: chunk sizes below this many alignment units.
const SMALL_BINS: usize = 512;
const WORDS: usize = SMALL_BINS / 64;

/// Which of several free chunks of one size goes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tie {
    /// The lowest address (best fit).
    Address,
    /// The oldest free (glibc's bins).
    Age,
}

#[derive(Clone, Debug, Default)]
struct Bin {
    /// Under `Tie::Address`: smallest address on top.
    heap: AddrHeap,
    /// Under `Tie::Age`: (stamp, chunk), oldest in front.
    queue: VecDeque<(u64, u32)>,
    /// Entries whose chunk still has their stamp.
    live: u32,
}

impl Bin {
    fn entries(&self) -> usize {
        self.heap.len() + self.queue.len()
    }

    fn clear(&mut self) {
        self.heap.clear();
        self.queue.clear();
    }

    /// Drops the stale entries, keeping the order: done when they outnumber the live ones,
    /// which is rare.
    #[cold]
    #[inline(never)]
    fn compact(&mut self, live: impl Fn(u32, u64) -> bool) {
        self.heap.retain(|e| live(e.chunk, e.stamp));
        self.queue.retain(|&(s, h)| live(h, s));
    }
}

/// The free chunks of a best-fit or bins heap.
#[derive(Clone, Debug)]
pub(super) struct SizeBins {
    tie: Tie,
    /// log2 of the alignment: a chunk's size in units, its small bin.
    shift: u32,
    small: Vec<Bin>,
    /// Bit `i` of word `w`: small bin `64 w + i` holds a live entry.
    words: [u64; WORDS],
    /// Bit `w`: word `w` is not zero.
    summary: u64,
    /// Chunks too large for a small bin, by (size, tie-break, address): the tie-break is 0
    /// under `Tie::Address` and the stamp under `Tie::Age`.
    large: BTreeMap<(u64, u64, Addr), u32>,
    len: usize,
}

impl SizeBins {
    pub(super) fn new(tie: Tie, align: u64) -> SizeBins {
        SizeBins {
            tie,
            shift: align.trailing_zeros(),
            small: (0..SMALL_BINS).map(|_| Bin::default()).collect(),
            words: [0; WORDS],
            summary: 0,
            large: BTreeMap::new(),
            len: 0,
        }
    }

    /// How many free chunks are held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn small_bin(&self, size: u64) -> Option<usize> {
        let i = (size >> self.shift) as usize;
        (i < SMALL_BINS).then_some(i)
    }

    fn large_key(&self, addr: Addr, size: u64, stamp: u64) -> (u64, u64, Addr) {
        match self.tie {
            Tie::Address => (size, 0, addr),
            Tie::Age => (size, stamp, addr),
        }
    }

    /// Adds free chunk `h` at `addr` of `size` bytes whose record now carries `stamp`
    /// (larger than every stamp before it). `live(h, stamp)` says whether an entry is live.
    // Always inlined: every free runs it, and its common path is a few instructions.
    #[inline(always)]
    pub(super) fn insert(
        &mut self,
        h: u32,
        addr: Addr,
        size: u64,
        stamp: u64,
        live: impl Fn(u32, u64) -> bool,
    ) {
        self.len += 1;
        let Some(i) = self.small_bin(size) else {
            self.large.insert(self.large_key(addr, size, stamp), h);
            return;
        };
        let tie = self.tie;
        let bin = &mut self.small[i];
        if bin.entries() >= 2 * bin.live as usize + 16 {
            bin.compact(live);
        }
        match tie {
            Tie::Address => bin.heap.push(Entry {
                addr,
                stamp,
                chunk: h,
            }),
            Tie::Age => bin.queue.push_back((stamp, h)),
        }
        bin.live += 1;
        if bin.live == 1 {
            self.words[i / 64] |= 1 << (i % 64);
            self.summary |= 1 << (i / 64);
        }
    }

    /// Removes the free chunk at `addr` of `size` bytes with `stamp`; the caller clears
    /// the chunk's stamp, which turns a small bin's entry stale.
    #[inline]
    pub(super) fn remove(&mut self, addr: Addr, size: u64, stamp: u64) {
        self.len -= 1;
        match self.small_bin(size) {
            Some(i) => self.unlive(i),
            None => {
                self.large.remove(&self.large_key(addr, size, stamp));
            }
        }
    }

    /// One live entry of small bin `i` is gone.
    #[inline]
    fn unlive(&mut self, i: usize) {
        let bin = &mut self.small[i];
        bin.live -= 1;
        if bin.live == 0 {
            bin.clear();
            self.words[i / 64] &= !(1 << (i % 64));
            if self.words[i / 64] == 0 {
                self.summary &= !(1 << (i / 64));
            }
        }
    }

    /// The smallest non-empty small bin from `i` on.
    #[inline]
    fn first_bin_from(&self, i: usize) -> Option<usize> {
        let w = i / 64;
        let here = self.words[w] & (u64::MAX << (i % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        // There are fewer than 64 words, so the shift stays below 64.
        let above = self.summary & (u64::MAX << (w + 1));
        if above == 0 {
            return None;
        }
        let w = above.trailing_zeros() as usize;
        Some(w * 64 + self.words[w].trailing_zeros() as usize)
    }

    /// Takes the chunk that serves a request of `csize` bytes (a multiple of the
    /// alignment): the smallest that fits, the lowest-addressed or oldest of equals. Returns
    /// its record and size; the caller clears its stamp.
    #[inline]
    pub(super) fn take(
        &mut self,
        csize: u64,
        live: impl Fn(u32, u64) -> bool,
    ) -> Option<(u32, u64)> {
        let from = self.small_bin(csize);
        if let Some(i) = from.and_then(|i| self.first_bin_from(i)) {
            let bin = &mut self.small[i];
            let h = loop {
                // A bin with a live entry holds it, so the loop ends before the bin does.
                let (s, h) = match self.tie {
                    Tie::Address => bin.heap.pop().map(|e| (e.stamp, e.chunk)),
                    Tie::Age => bin.queue.pop_front(),
                }
                .expect("a bin with a live entry");
                if live(h, s) {
                    break h;
                }
            };
            self.len -= 1;
            self.unlive(i);
            return Some((h, (i as u64) << self.shift));
        }
        // Every large chunk fits a small request; a large request starts at its size.
        let start = if from.is_some() { 0 } else { csize };
        let (&key, &h) = self.large.range((start, 0, 0)..).next()?;
        self.large.remove(&key);
        self.len -= 1;
        Some((h, key.0))
    }

    /// Checks the bins against the chunk records: `chunk(h)` is the free chunk `h` as
    /// (address, size, stamp), or `None` if `h` is not a free chunk. Every live entry must
    /// name a distinct free chunk of its bin's size, the live counts and bitmaps must agree
    /// with the entries, and the total with `len`. Returns the chunks named.
    pub(super) fn check(
        &self,
        chunk: impl Fn(u32) -> Option<(Addr, u64, u64)>,
    ) -> Result<FxHashSet<u32>, String> {
        let mut named = FxHashSet::default();
        for (i, bin) in self.small.iter().enumerate() {
            let entries: Vec<(u64, u32)> = match self.tie {
                Tie::Address => bin.heap.iter().map(|e| (e.stamp, e.chunk)).collect(),
                Tie::Age => bin.queue.iter().copied().collect(),
            };
            if self.tie == Tie::Address && !bin.queue.is_empty()
                || self.tie == Tie::Age && bin.heap.len() > 0
            {
                return Err(format!("small bin {i} holds entries of the other order"));
            }
            let mut live = 0;
            let mut last_stamp = 0;
            for (s, h) in entries {
                if self.tie == Tie::Age {
                    if s <= last_stamp {
                        return Err(format!("small bin {i} is out of freeing order"));
                    }
                    last_stamp = s;
                }
                let Some((addr, size, stamp)) = chunk(h) else {
                    continue;
                };
                if stamp != s {
                    continue;
                }
                if size != (i as u64) << self.shift {
                    return Err(format!(
                        "free chunk {addr:#x} of {size} bytes is in small bin {i}"
                    ));
                }
                if !named.insert(h) {
                    return Err(format!("free chunk {addr:#x} is in small bin {i} twice"));
                }
                live += 1;
            }
            if live != bin.live {
                return Err(format!(
                    "small bin {i} counts {} live entries, holds {live}",
                    bin.live
                ));
            }
            let bit = self.words[i / 64] >> (i % 64) & 1 == 1;
            if bit != (live > 0) {
                return Err(format!("small bin {i}'s bit says the wrong thing"));
            }
        }
        for (w, &word) in self.words.iter().enumerate() {
            if (self.summary >> w & 1 == 1) != (word != 0) {
                return Err(format!("bitmap summary is wrong for word {w}"));
            }
        }
        for (&(size, tie, addr), &h) in &self.large {
            match chunk(h) {
                Some((a, s, stamp))
                    if a == addr
                        && s == size
                        && self.small_bin(s).is_none()
                        && tie == self.large_key(a, s, stamp).1 =>
                {
                    if !named.insert(h) {
                        return Err(format!("free chunk {addr:#x} is indexed twice"));
                    }
                }
                _ => {
                    return Err(format!(
                        "large entry ({size}, {tie}, {addr:#x}) names no such free chunk"
                    ))
                }
            }
        }
        if named.len() != self.len {
            return Err(format!(
                "the size bins count {} chunks, hold {}",
                self.len,
                named.len()
            ));
        }
        Ok(named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Drives the bins like the heap does (stamps in a side table, cleared when a chunk
    /// leaves) and compares every answer with one ordered set of (size, tie, address).
    fn agrees_with_an_ordered_set(tie: Tie, ops: Vec<(u8, u64, u64)>) -> Result<(), TestCaseError> {
        let align = 16;
        let mut bins = SizeBins::new(tie, align);
        let mut model: BTreeSet<(u64, u64, Addr)> = BTreeSet::new();
        // Chunk `h` lives at address `h * 1 MiB`; `stamps[h]` is 0 unless it is free.
        let mut stamps = vec![0u64; 256];
        let mut sizes = vec![0u64; 256];
        let mut next_stamp = 0;
        let key = |size: u64, stamp: u64, addr: Addr| match tie {
            Tie::Address => (size, 0, addr),
            Tie::Age => (size, stamp, addr),
        };
        for (op, a, b) in ops {
            let h = (a % 256) as u32;
            let addr = u64::from(h) << 20;
            // Frees and merges outnumber takes, so stale entries pile up and bins compact.
            match op % 8 {
                0..=3 if stamps[h as usize] == 0 => {
                    // A few small sizes mostly, so bins fill and go stale, some past the
                    // last small bin.
                    let size = if b < 500 {
                        16 * (2 + b % 3)
                    } else {
                        16 * (SMALL_BINS as u64 - 50 + b % 100)
                    };
                    next_stamp += 1;
                    stamps[h as usize] = next_stamp;
                    sizes[h as usize] = size;
                    let s = &stamps;
                    bins.insert(h, addr, size, next_stamp, |h, st| s[h as usize] == st);
                    model.insert(key(size, next_stamp, addr));
                }
                4..=6 if stamps[h as usize] != 0 => {
                    let (size, stamp) = (sizes[h as usize], stamps[h as usize]);
                    bins.remove(addr, size, stamp);
                    stamps[h as usize] = 0;
                    model.remove(&key(size, stamp, addr));
                }
                _ => {
                    let csize = if b < 500 {
                        16 * (2 + b % 8)
                    } else {
                        16 * (SMALL_BINS as u64 - 60 + b % 120)
                    };
                    let want = model.range((csize, 0, 0)..).next().copied();
                    let s = &stamps;
                    let got = bins.take(csize, |h, st| s[h as usize] == st);
                    prop_assert_eq!(
                        got.map(|(h, size)| (size, u64::from(h) << 20)),
                        want.map(|k| (k.0, k.2))
                    );
                    if let Some(k) = want {
                        model.remove(&k);
                        stamps[(k.2 >> 20) as usize] = 0;
                    }
                }
            }
            prop_assert_eq!(bins.len(), model.len());
            let named = bins
                .check(|h| {
                    let st = stamps[h as usize];
                    (st != 0).then(|| (u64::from(h) << 20, sizes[h as usize], st))
                })
                .map_err(TestCaseError::fail)?;
            prop_assert_eq!(named.len(), model.len());
        }
        Ok(())
    }

    proptest! {
        // Long runs (so that bins go stale and compact) rather than many short ones.
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn best_fit_bins_agree_with_an_ordered_set(ops in prop::collection::vec((any::<u8>(), any::<u64>(), 0u64..600), 1..1500)) {
            agrees_with_an_ordered_set(Tie::Address, ops)?;
        }

        #[test]
        fn age_ordered_bins_agree_with_an_ordered_set(ops in prop::collection::vec((any::<u8>(), any::<u64>(), 0u64..600), 1..1500)) {
            agrees_with_an_ordered_set(Tie::Age, ops)?;
        }
    }
}
