//! The page map's storage: one state byte per page, in chunks created on first use.
//!
//! The directory only holds chunks for pages that were ever committed, so the simulator's
//! own memory grows with the memory it models, not with the address space. Nearly every
//! lookup lands in the same chunk as the one before (a chunk covers 16 MiB of 4 KiB pages),
//! so the last chunk found is remembered and the hash map is asked only when that misses.

use std::cell::Cell;

use rustc_hash::FxHashMap;

pub(crate) const CHUNK_SHIFT: u32 = 12;
pub(crate) const CHUNK_PAGES: usize = 1 << CHUNK_SHIFT;

type Chunk = Box<[u8; CHUNK_PAGES]>;

#[derive(Debug)]
pub(crate) struct PageDir {
    /// Chunk number to its place in `chunks`. Chunks are never dropped, so places stay valid.
    index: FxHashMap<u64, u32>,
    chunks: Vec<Chunk>,
    /// The chunk number and place of the last lookup that found a chunk; `NO_KEY` before
    /// the first. A plain pair rather than an `Option`: one compare on the hot path.
    last: Cell<(u64, u32)>,
}

/// No chunk has this number: page numbers are addresses shifted right by at least 12 bits.
const NO_KEY: u64 = u64::MAX;

impl Default for PageDir {
    fn default() -> PageDir {
        PageDir {
            index: FxHashMap::default(),
            chunks: Vec::new(),
            last: Cell::new((NO_KEY, 0)),
        }
    }
}

impl PageDir {
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let (k, at) = self.last.get();
        if k == key {
            return Some(at as usize);
        }
        self.find_slow(key)
    }

    #[cold]
    #[inline(never)]
    fn find_slow(&self, key: u64) -> Option<usize> {
        let at = *self.index.get(&key)?;
        self.last.set((key, at));
        Some(at as usize)
    }

    /// The state of `page`; zero for a page never seen.
    #[inline]
    pub(crate) fn get(&self, page: u64) -> u8 {
        self.find(page >> CHUNK_SHIFT)
            .map_or(0, |at| self.chunks[at][page as usize & (CHUNK_PAGES - 1)])
    }

    /// The state of `page` for changing, if its chunk exists.
    /// Starts bringing the state of `page` into the cache. The remembered chunk is neither
    /// used nor changed, so a hint for a page ahead does not disturb the lookups between.
    #[inline]
    pub(crate) fn prefetch(&self, page: u64) {
        if let Some(&at) = self.index.get(&(page >> CHUNK_SHIFT)) {
            crate::prefetch::prefetch(&self.chunks[at as usize][page as usize & (CHUNK_PAGES - 1)]);
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, page: u64) -> Option<&mut u8> {
        let at = self.find(page >> CHUNK_SHIFT)?;
        Some(&mut self.chunks[at][page as usize & (CHUNK_PAGES - 1)])
    }

    /// The state of `page` for changing, creating its chunk if needed.
    #[inline]
    pub(crate) fn entry(&mut self, page: u64) -> &mut u8 {
        let key = page >> CHUNK_SHIFT;
        let at = match self.find(key) {
            Some(at) => at,
            None => self.create(key),
        };
        &mut self.chunks[at][page as usize & (CHUNK_PAGES - 1)]
    }

    #[cold]
    fn create(&mut self, key: u64) -> usize {
        let at = self.chunks.len();
        self.chunks.push(Box::new([0; CHUNK_PAGES]));
        self.index.insert(key, at as u32);
        self.last.set((key, at as u32));
        at
    }

    /// Every chunk's states, in no particular order.
    pub(crate) fn chunks(&self) -> impl Iterator<Item = &[u8; CHUNK_PAGES]> {
        self.chunks.iter().map(|c| &**c)
    }
}
