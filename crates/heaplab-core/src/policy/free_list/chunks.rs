//! The heap's chunk headers, kept out of band: a slab of records that name their
//! neighbours by index, and one hash map from a chunk's address to its record
//! ([`AddrMap`]).
//!
//! The map is asked once per free (the program names a payload, not a record), once per
//! allocation under first and next fit (whose tree holds addresses), and written when a
//! chunk is created or merged away; everything else (both neighbours when a chunk is
//! freed, the remainder after a split, best fit's entries) follows indices, which are
//! array loads instead of hash probes.

use std::ops::{Index, IndexMut};

use super::addr_map::AddrMap;
use crate::provider::Addr;

/// No chunk: the lower neighbour of a segment's first chunk, the upper one of the chunk
/// just below the top.
pub(super) const NIL: u32 = u32::MAX;

/// One chunk's header. `prev` and `next` are the records of the chunks just below and just
/// above it: the boundary tags that make coalescing O(1). Aligned to its 32 bytes so that a
/// record never straddles two cache lines: a free reads its own record, and a neighbour's
/// only when the bitmap of free records says it merges with it; with a heap of 100,000
/// blocks each line is a cache miss.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub(super) struct Chunk {
    pub addr: Addr,
    pub size: u64,
    /// 0 while the chunk is in use (or held by a thread cache or fast bin); while it is
    /// free, the stamp of its entry in the free structures, unique over the heap's life, so
    /// an entry left behind by a chunk that has since been taken or merged is told apart.
    /// Written only through [`ChunkTable::set_stamp`], which keeps the free bitmap with it.
    pub stamp: u64,
    pub prev: u32,
    pub next: u32,
}

impl Chunk {
    #[inline]
    pub(super) fn is_free(&self) -> bool {
        self.stamp != 0
    }
}

/// The chunk records and the address map.
#[derive(Clone, Debug, Default)]
pub(super) struct ChunkTable {
    slots: Vec<Chunk>,
    /// Records of chunks merged away, reused before the slab grows.
    spare: Vec<u32>,
    by_addr: AddrMap,
    /// Bit `h`: record `h` is a free chunk. A free asks whether its neighbours are free,
    /// and usually they are not: the bitmap (an eighth of a megabyte for a million
    /// records, which stays in cache) answers without reading the neighbours' records,
    /// each a cache miss in a large heap.
    free_bits: Vec<u64>,
}

impl ChunkTable {
    /// How many chunks the heap holds.
    pub(super) fn len(&self) -> usize {
        self.by_addr.len()
    }

    /// The record of the chunk that starts at `addr`.
    #[inline]
    pub(super) fn find(&self, addr: Addr) -> Option<u32> {
        self.by_addr.get(addr)
    }

    /// Asks for the map's slot for `addr`, the first line a free of that chunk reads.
    #[inline(always)]
    pub(super) fn prefetch_slot(&self, addr: Addr) {
        self.by_addr.prefetch(addr);
    }

    /// Asks for the record of the chunk at `addr`, which a free reads next. The map's slot
    /// is read here: cheap once [`ChunkTable::prefetch_slot`] has brought it in.
    #[inline(always)]
    pub(super) fn prefetch_record(&self, addr: Addr) {
        if let Some(h) = self.find(addr) {
            crate::prefetch::prefetch(&self.slots[h as usize]);
        }
    }

    /// Whether record `h` is a free chunk: `self[h].is_free()` without reading the record.
    #[inline]
    pub(super) fn is_free(&self, h: u32) -> bool {
        self.free_bits[h as usize / 64] >> (h % 64) & 1 != 0
    }

    /// Sets chunk `h`'s stamp: non-zero makes it free, zero in use.
    #[inline]
    pub(super) fn set_stamp(&mut self, h: u32, stamp: u64) {
        self.slots[h as usize].stamp = stamp;
        let word = &mut self.free_bits[h as usize / 64];
        if stamp != 0 {
            *word |= 1 << (h % 64);
        } else {
            *word &= !(1 << (h % 64));
        }
    }

    /// Adds a chunk in use (its address not yet in the table) and returns its record.
    #[inline]
    pub(super) fn add(&mut self, chunk: Chunk) -> u32 {
        debug_assert_eq!(chunk.stamp, 0, "a chunk is added in use, then freed");
        let h = match self.spare.pop() {
            Some(h) => {
                self.slots[h as usize] = chunk;
                h
            }
            None => {
                let h = u32::try_from(self.slots.len()).expect("fewer than 2^32 chunks");
                assert!(h != NIL, "fewer than 2^32 - 1 chunks");
                self.slots.push(chunk);
                if h % 64 == 0 {
                    self.free_bits.push(0);
                }
                h
            }
        };
        self.by_addr.insert(chunk.addr, h);
        h
    }

    /// Drops a chunk that has been merged into a neighbour or the top. Its record is
    /// reused; its stamp is cleared so that no entry left in a free structure matches it.
    #[inline]
    pub(super) fn drop_chunk(&mut self, h: u32) {
        self.by_addr.remove(self.slots[h as usize].addr);
        self.set_stamp(h, 0);
        self.spare.push(h);
    }

    /// Whether `h` names a chunk in the table (for the invariant checks).
    pub(super) fn holds(&self, h: u32) -> bool {
        (h as usize) < self.slots.len() && self.find(self.slots[h as usize].addr) == Some(h)
    }

    /// Checks that the map and the slab agree: every mapped address names a record of
    /// that address, and every other record is spare.
    pub(super) fn check(&self) -> Result<(), String> {
        for (h, c) in self.slots.iter().enumerate() {
            if self.is_free(h as u32) != c.is_free() {
                return Err(format!("the free bitmap is wrong about record {h}"));
            }
        }
        for (addr, h) in self.by_addr.iter() {
            if self.slots.get(h as usize).map(|c| c.addr) != Some(addr) {
                return Err(format!(
                    "chunk {addr:#x} maps to record {h} of another chunk"
                ));
            }
        }
        if self.by_addr.len() + self.spare.len() != self.slots.len() {
            return Err(format!(
                "{} chunks and {} spare records, {} records in all",
                self.by_addr.len(),
                self.spare.len(),
                self.slots.len()
            ));
        }
        Ok(())
    }
}

impl Index<u32> for ChunkTable {
    type Output = Chunk;

    #[inline]
    fn index(&self, h: u32) -> &Chunk {
        &self.slots[h as usize]
    }
}

impl IndexMut<u32> for ChunkTable {
    #[inline]
    fn index_mut(&mut self, h: u32) -> &mut Chunk {
        &mut self.slots[h as usize]
    }
}
