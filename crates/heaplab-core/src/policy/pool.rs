//! The pool family: a fixed-size block allocator over a general heap, as Pike's block
//! allocator serves string headers and short strings (scenario S5).
//!
//! Requests of at most `block_size` bytes are served from chunks of `blocks_per_chunk`
//! blocks, each chunk one allocation from the parent heap (a default free-list heap, the
//! `malloc` below Pike). Every chunk keeps its own LIFO free list, as Pike keeps one per
//! page: a freed block is pushed with a link written into it, and allocation pops the most
//! recently freed block, or carves the next never-used one. Allocation uses the
//! lowest-addressed chunk with a free block, so chunks at higher addresses drain and, with
//! `free_empty_chunks`, go back to the heap. Every other request falls through to the heap.
//!
//! [`Pool::counters`] reports the figures Pike's `Debug.memory_usage` shows: heap
//! allocations and bytes (`num_malloc`, `malloc_bytes`), blocks in use and the bytes of free
//! blocks the chunks hold (`free_block_bytes`).

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::free_list::{default_realloc, FreeList};
use super::{AllocError, Block, FamilySpec, Policy};
use crate::decision::Decision;
use crate::event::ArenaId;
use crate::format::{format_count, format_exact_bytes};
use crate::pages::Pages;
use crate::params::{knobs, ParamError, ParamKind, Params};
use crate::provider::{Addr, PageProvider};

knobs! {
    /// The pool family's knobs, read once when the pool is set up.
    struct Knobs, names KnobNames, specs PARAMS;

    block_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 8,
            max: 64 << 10,
            pow2: false,
        },
        default: "32",
        unit: "bytes",
        doc: "Size of every block; requests up to this size are served from the pool if their \
              alignment is at most the block's (its largest power-of-two divisor, up to 16). \
              Pike's block allocator serves string headers and short strings from 32-byte \
              blocks on 64-bit builds.",
        zero_means: "",
    },
    blocks_per_chunk: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 65536 },
        default: "128",
        unit: "blocks",
        doc: "Blocks in each chunk the pool takes from the heap. Pike's block allocator takes \
              pages of many blocks from malloc; 128 blocks of 32 bytes fill a 4 KiB page.",
        zero_means: "",
    },
    free_empty_chunks: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "true",
        unit: "",
        doc: "Give a chunk back to the heap as soon as all its blocks are free, as Pike frees \
              an empty page; off, chunks stay in the pool for later requests.",
        zero_means: "",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "pool",
    title: "Fixed-size block pool (Pike block allocator)",
    description: "Blocks of one size carved from chunks that come from a general heap, each \
                  chunk with a LIFO free list; other sizes go to the heap. Counts what Pike's \
                  Debug.memory_usage shows: num_malloc, malloc_bytes, free_block_bytes.",
    params: PARAMS,
};

/// Chunks larger than this are refused.
const MAX_CHUNK: u64 = 1 << 30;

/// Alignment of the chunks the parent heap hands out (its default `alignment`).
const HEAP_ALIGN: u64 = 16;

/// Bytes of bookkeeping per chunk: Pike's page header (first free block, blocks in use).
const CHUNK_META: u64 = 16;

/// Bytes a free-list link takes in a free block.
const LINK: u64 = 8;

/// Pike-style counters, as `Debug.memory_usage` reports them. All are current values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PoolCounters {
    /// Allocations the pool holds from the parent heap: chunks and requests that fell
    /// through.
    pub num_malloc: u64,
    /// Bytes requested by those allocations.
    pub malloc_bytes: u64,
    /// Chunks held, each `blocks_per_chunk` blocks.
    pub num_chunks: u64,
    /// Blocks in use.
    pub num_blocks: u64,
    /// Bytes of the blocks in use (`num_blocks * block_size`).
    pub block_bytes: u64,
    /// Bytes of the free blocks in the chunks, freed or never used.
    pub free_block_bytes: u64,
}

#[derive(Clone, Debug, Default)]
struct Chunk {
    /// Blocks in use.
    used: u64,
    /// Blocks handed out at least once; the ones above are carved on demand.
    carved: u64,
    /// Freed blocks, most recent last.
    free: Vec<Addr>,
}

/// A pool of fixed-size blocks over a general heap.
#[derive(Clone, Debug)]
pub struct Pool {
    block_size: u64,
    block_align: u64,
    per_chunk: u64,
    chunk_bytes: u64,
    free_empty: bool,
    heap: FreeList,
    chunks: BTreeMap<Addr, Chunk>,
    /// Chunks with a free block.
    partial: BTreeSet<Addr>,
    /// Requests that fell through to the heap: payload to size.
    big: FxHashMap<Addr, u64>,
    counters: PoolCounters,
}

impl Pool {
    pub fn new(params: &Params, page_size: u64) -> Result<Pool, ParamError> {
        let knobs = Knobs::read(params);
        let block_size = knobs.block_size;
        let per_chunk = knobs.blocks_per_chunk;
        let chunk_bytes = block_size * per_chunk;
        if chunk_bytes > MAX_CHUNK {
            return Err(ParamError {
                field: format!("policy.params.{}", Knobs::NAMES.blocks_per_chunk),
                message: format!(
                    "{per_chunk} blocks of {block_size} bytes make chunks of {chunk_bytes} \
                     bytes; at most 1 GiB is allowed"
                ),
            });
        }
        Ok(Pool {
            block_size,
            block_align: (1 << block_size.trailing_zeros()).min(HEAP_ALIGN),
            per_chunk,
            chunk_bytes,
            free_empty: knobs.free_empty_chunks,
            heap: FreeList::with_defaults(page_size),
            chunks: BTreeMap::new(),
            partial: BTreeSet::new(),
            big: FxHashMap::default(),
            counters: PoolCounters::default(),
        })
    }

    /// What the pool holds now, in the form Pike's `Debug.memory_usage` reports.
    pub fn counters(&self) -> PoolCounters {
        self.counters
    }

    #[inline]
    fn fits(&self, size: u64, align: u64) -> bool {
        size <= self.block_size && align <= self.block_align
    }

    /// The chunk holding `addr` if it is one of the pool's blocks.
    fn chunk_of(&self, addr: Addr) -> Option<Addr> {
        let (&start, _) = self.chunks.range(..=addr).next_back()?;
        let offset = addr - start;
        (offset < self.chunk_bytes && offset.is_multiple_of(self.block_size)).then_some(start)
    }

    #[cold]
    #[inline(never)]
    fn new_chunk<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<Addr, AllocError> {
        let (per_chunk, block_size, chunks) = (self.per_chunk, self.block_size, self.chunks.len());
        mem.note(|| Decision::Rule {
            rule: "chunk",
            text: format!(
                "{}: a new chunk of blocks_per_chunk {} × block_size {} = {} from the general \
                 heap",
                if chunks == 0 {
                    "the pool has no chunk yet".to_string()
                } else if chunks == 1 {
                    "the pool's one chunk has no free block".to_string()
                } else {
                    format!("none of the pool's {chunks} chunks has a free block")
                },
                format_count(i128::from(per_chunk)),
                format_exact_bytes(block_size),
                format_exact_bytes(per_chunk * block_size)
            ),
        });
        let start = self
            .heap
            .alloc(mem, self.chunk_bytes, self.block_align, None, 0)?;
        let bytes = self.chunk_bytes;
        mem.note(|| crate::decision::Decision::NewRegion {
            what: "chunk",
            addr: start,
            bytes,
        });
        self.chunks.insert(start, Chunk::default());
        self.partial.insert(start);
        let c = &mut self.counters;
        c.num_malloc += 1;
        c.malloc_bytes += self.chunk_bytes;
        c.num_chunks += 1;
        c.free_block_bytes += self.chunk_bytes;
        Ok(start)
    }

    fn alloc_block<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<Addr, AllocError> {
        let start = match self.partial.first() {
            Some(&s) => s,
            None => self.new_chunk(mem)?,
        };
        let chunk = self.chunks.get_mut(&start).expect("partial chunks exist");
        let addr = match chunk.free.pop() {
            Some(a) => {
                mem.note(|| crate::decision::Decision::CacheHit {
                    cache: "pool free list",
                    addr: a,
                });
                a
            }
            None => {
                let a = start + chunk.carved * self.block_size;
                chunk.carved += 1;
                a
            }
        };
        chunk.used += 1;
        if chunk.used == self.per_chunk {
            self.partial.remove(&start);
        }
        let c = &mut self.counters;
        c.num_blocks += 1;
        c.block_bytes += self.block_size;
        c.free_block_bytes -= self.block_size;
        Ok(addr)
    }

    fn free_block<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        start: Addr,
        addr: Addr,
    ) -> Result<(), AllocError> {
        let block_size = self.block_size;
        let chunk = self.chunks.get_mut(&start).expect("chunk_of found it");
        // A block above the carved ones was never handed out; a chunk with none in use
        // cannot be freeing one.
        if addr >= start + chunk.carved * block_size || chunk.used == 0 {
            return Err(AllocError::Invalid(format!(
                "free of {addr:#x}, which this pool never handed out or already freed"
            )));
        }
        chunk.used -= 1;
        chunk.free.push(addr);
        let empty = chunk.used == 0;
        self.partial.insert(start);
        let c = &mut self.counters;
        c.num_blocks -= 1;
        c.block_bytes -= block_size;
        c.free_block_bytes += block_size;
        // The link to the previous free block is written into the freed block.
        mem.touch(addr, LINK.min(block_size))?;
        // Pike's `ba_free` (src/block_allocator.c) frees an empty page only when it is the
        // last one (`ba_free_empty_pages` frees the empty pages at the end) and clears an
        // empty page below it for reuse; here `free_empty_chunks` decides for every chunk:
        // given back as soon as it empties, or kept.
        let (used, per_chunk, free_empty) = (chunk.used, self.per_chunk, self.free_empty);
        mem.note(|| Decision::Rule {
            rule: "chunk",
            text: if !empty {
                format!(
                    "kept on the free list of its chunk at {start:#x}, which stays with {} of \
                     its {} blocks in use",
                    format_count(i128::from(used)),
                    format_count(i128::from(per_chunk))
                )
            } else if free_empty {
                format!(
                    "the chunk at {start:#x} has no block in use: given back to the general \
                     heap (free_empty_chunks = true)"
                )
            } else {
                format!(
                    "the chunk at {start:#x} has no block in use but stays in the pool for \
                     later requests (free_empty_chunks = false)"
                )
            },
        });
        if empty && self.free_empty {
            self.heap.free(
                mem,
                Block {
                    addr: start,
                    size: self.chunk_bytes,
                    arena: None,
                },
                0,
            )?;
            self.chunks.remove(&start);
            self.partial.remove(&start);
            let c = &mut self.counters;
            c.num_malloc -= 1;
            c.malloc_bytes -= self.chunk_bytes;
            c.num_chunks -= 1;
            c.free_block_bytes -= self.chunk_bytes;
        }
        Ok(())
    }
}

impl Policy for Pool {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        if self.fits(size, align) {
            return self.alloc_block(mem);
        }
        let (block_size, block_align) = (self.block_size, self.block_align);
        mem.note(|| Decision::Rule {
            rule: "pool",
            text: if size > block_size {
                format!(
                    "{} is more than block_size {}: to the general heap",
                    format_exact_bytes(size),
                    format_exact_bytes(block_size)
                )
            } else {
                format!(
                    "alignment {align} is more than the blocks' {block_align} (block_size {}): \
                     to the general heap",
                    format_exact_bytes(block_size)
                )
            },
        });
        let addr = self.heap.alloc_checked(mem, size, align, None, thread)?;
        self.big.insert(addr, size);
        self.counters.num_malloc += 1;
        self.counters.malloc_bytes += size;
        Ok(addr)
    }

    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError> {
        if let Some(start) = self.chunk_of(block.addr) {
            return self.free_block(mem, start, block.addr);
        }
        let size = self.big.get(&block.addr).copied().ok_or_else(|| {
            AllocError::Invalid(format!(
                "free of {:#x}, which this pool never handed out",
                block.addr
            ))
        })?;
        self.heap.free(mem, Block { size, ..block }, thread)?;
        self.big.remove(&block.addr);
        self.counters.num_malloc -= 1;
        self.counters.malloc_bytes -= size;
        Ok(())
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        if self.chunk_of(block.addr).is_some() {
            // A block that still fits stays; anything else moves to the heap.
            if self.fits(new_size, align) && block.addr.is_multiple_of(align) {
                return Ok(block.addr);
            }
            return default_realloc(self, mem, block, new_size, align, thread);
        }
        let Some(&size) = self.big.get(&block.addr) else {
            return Err(AllocError::Invalid(format!(
                "realloc of {:#x}, which this pool never handed out",
                block.addr
            )));
        };
        // A heap block stays in the heap, where it may resize in place.
        let addr =
            self.heap
                .realloc_checked(mem, Block { size, ..block }, new_size, align, thread)?;
        self.big.remove(&block.addr);
        self.big.insert(addr, new_size);
        self.counters.malloc_bytes = self.counters.malloc_bytes - size + new_size;
        Ok(addr)
    }

    /// Pike's accounting: objects that went to malloc on their own, the malloc'd memory
    /// holding the block allocator's chunks, and the blocks in and out of use.
    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        let c = self.counters;
        let chunk_bytes = c.num_chunks * self.chunk_bytes;
        vec![
            ("num_malloc", c.num_malloc - c.num_chunks),
            ("malloc_bytes", c.malloc_bytes - chunk_bytes),
            ("malloc_block_bytes", chunk_bytes),
            ("num_blocks", c.num_blocks),
            ("block_bytes", c.block_bytes),
            ("free_block_bytes", c.free_block_bytes),
        ]
    }

    fn block_layout(&self, addr: Addr, size: u64) -> Option<crate::policy::BlockLayout> {
        // A pool block fills a slot of the block size, with no header; a request that
        // fell through is laid out as the heap below laid it out.
        if self.chunk_of(addr).is_some() {
            return (size <= self.block_size).then_some(crate::policy::BlockLayout {
                header: 0,
                slot: self.block_size,
            });
        }
        if self.big.contains_key(&addr) {
            return self.heap.block_layout(addr, size);
        }
        None
    }

    fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        // The heap below (its free chunks, bins, top), then in each chunk the blocks on
        // the pool's free list and those never handed out.
        self.heap.pieces(out);
        for (&start, chunk) in &self.chunks {
            // The free list is a stack: the block freed last goes out first.
            for (i, &addr) in chunk.free.iter().enumerate() {
                let order = (chunk.free.len() - 1 - i) as u64;
                out.push(crate::policy::FreePiece {
                    addr,
                    size: self.block_size,
                    structure: "pool free list".into(),
                    list: crate::policy::ListPlace::new(format!("pool chunk {start:#x}"), order),
                });
            }
            if chunk.carved < self.per_chunk {
                out.push(crate::policy::FreePiece {
                    addr: start + chunk.carved * self.block_size,
                    size: (self.per_chunk - chunk.carved) * self.block_size,
                    structure: "pool chunk, never used".into(),
                    list: None,
                });
            }
        }
        true
    }

    fn regions(&self, out: &mut Vec<crate::policy::Region>) {
        for (&start, chunk) in &self.chunks {
            out.push(crate::policy::Region {
                addr: start,
                size: self.chunk_bytes,
                label: format!(
                    "pool chunk: {} of {} blocks in use",
                    chunk.used, self.per_chunk
                ),
            });
        }
    }

    fn metadata_bytes(&self) -> u64 {
        CHUNK_META * self.chunks.len() as u64 + self.heap.metadata_bytes()
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        let mut counted = PoolCounters::default();
        let mut prev_end = 0;
        for (&start, chunk) in &self.chunks {
            if start < prev_end {
                return Err(format!("chunk {start:#x} overlaps the chunk below it"));
            }
            prev_end = start + self.chunk_bytes;
            if !mem.is_committed(start, self.chunk_bytes) {
                return Err(format!("chunk {start:#x} is not committed"));
            }
            let never_used = self.per_chunk.saturating_sub(chunk.carved);
            if chunk.carved > self.per_chunk
                || chunk.used + chunk.free.len() as u64 + never_used != self.per_chunk
            {
                return Err(format!(
                    "chunk {start:#x}: {} in use + {} freed + {never_used} never used is not \
                     {} blocks",
                    chunk.used,
                    chunk.free.len(),
                    self.per_chunk
                ));
            }
            let mut free = chunk.free.clone();
            free.sort_unstable();
            for w in free.windows(2) {
                if w[0] == w[1] {
                    return Err(format!("block {:#x} is on a free list twice", w[0]));
                }
            }
            for &a in &free {
                let inside = a >= start && a < start + chunk.carved * self.block_size;
                if !inside || (a - start) % self.block_size != 0 {
                    return Err(format!(
                        "free block {a:#x} is not a used block of chunk {start:#x}"
                    ));
                }
            }
            if (chunk.used < self.per_chunk) != self.partial.contains(&start) {
                return Err(format!(
                    "chunk {start:#x} with {} of {} blocks in use is misfiled",
                    chunk.used, self.per_chunk
                ));
            }
            if chunk.used == 0 && self.free_empty {
                return Err(format!("empty chunk {start:#x} was not given back"));
            }
            counted.num_chunks += 1;
            counted.num_blocks += chunk.used;
            counted.free_block_bytes += (self.per_chunk - chunk.used) * self.block_size;
        }
        if self.partial.len() > self.chunks.len()
            || self.partial.iter().any(|s| !self.chunks.contains_key(s))
        {
            return Err("the partial-chunk set names a chunk the pool does not hold".into());
        }
        counted.num_malloc = counted.num_chunks + self.big.len() as u64;
        counted.malloc_bytes =
            counted.num_chunks * self.chunk_bytes + self.big.values().sum::<u64>();
        counted.block_bytes = counted.num_blocks * self.block_size;
        if counted != self.counters {
            return Err(format!(
                "counters say {:?}, the chunks say {counted:?}",
                self.counters
            ));
        }
        self.heap.check_invariants(mem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{SimMode, SimProvider};
    use serde_json::Value;

    fn pool(params: &[(&str, Value)]) -> Pool {
        let given = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        Pool::new(&p, 4096).unwrap()
    }

    fn os() -> Pages<SimProvider> {
        Pages::new(SimProvider::new(SimMode::Os, 4096))
    }

    fn block(addr: Addr, size: u64) -> Block {
        Block {
            addr,
            size,
            arena: None,
        }
    }

    #[test]
    fn counters_follow_a_small_sequence_by_hand() {
        let mut mem = os();
        let mut p = pool(&[("block_size", 32.into()), ("blocks_per_chunk", 4.into())]);
        let a = p.alloc(&mut mem, 20, 16, None, 0).unwrap();
        let b = p.alloc(&mut mem, 32, 16, None, 0).unwrap();
        let c = p.alloc(&mut mem, 1, 8, None, 0).unwrap();
        assert_eq!((b - a, c - b), (32, 32));
        assert_eq!(
            p.counters(),
            PoolCounters {
                num_malloc: 1,
                malloc_bytes: 128,
                num_chunks: 1,
                num_blocks: 3,
                block_bytes: 96,
                free_block_bytes: 32,
            }
        );
        // 33 bytes do not fit a block: the heap serves them.
        let big = p.alloc(&mut mem, 33, 16, None, 0).unwrap();
        assert_eq!(p.counters().num_malloc, 2);
        assert_eq!(p.counters().malloc_bytes, 161);
        // Four more blocks: the first chunk fills, a second one opens.
        let d = p.alloc(&mut mem, 8, 16, None, 0).unwrap();
        let e = p.alloc(&mut mem, 8, 16, None, 0).unwrap();
        assert_eq!(d, c + 32);
        assert_eq!(p.chunks.len(), 2);
        p.check_invariants(&mem).unwrap();
        // LIFO: the block freed last is handed out first.
        p.free(&mut mem, block(b, 32), 0).unwrap();
        p.free(&mut mem, block(a, 20), 0).unwrap();
        assert_eq!(p.alloc(&mut mem, 4, 16, None, 0).unwrap(), a);
        assert_eq!(p.counters().free_block_bytes, 32 + 96);
        // The second chunk empties and goes back to the heap.
        p.free(&mut mem, block(e, 8), 0).unwrap();
        assert_eq!(
            p.counters(),
            PoolCounters {
                num_malloc: 2,
                malloc_bytes: 128 + 33,
                num_chunks: 1,
                num_blocks: 3,
                block_bytes: 96,
                free_block_bytes: 32,
            }
        );
        p.free(&mut mem, block(big, 33), 0).unwrap();
        for (x, size) in [(a, 4), (c, 1), (d, 8)] {
            p.free(&mut mem, block(x, size), 0).unwrap();
            p.check_invariants(&mem).unwrap();
        }
        assert_eq!(p.counters(), PoolCounters::default());
        assert!(p.free(&mut mem, block(a, 4), 0).is_err());
    }

    #[test]
    fn empty_chunks_can_be_kept_and_reused() {
        let mut mem = os();
        let mut p = pool(&[
            ("block_size", 48.into()),
            ("blocks_per_chunk", 2.into()),
            ("free_empty_chunks", false.into()),
        ]);
        let a = p.alloc(&mut mem, 40, 16, None, 0).unwrap();
        p.free(&mut mem, block(a, 40), 0).unwrap();
        assert_eq!(p.counters().num_chunks, 1);
        assert_eq!(p.counters().free_block_bytes, 96);
        p.check_invariants(&mem).unwrap();
        assert_eq!(p.alloc(&mut mem, 40, 16, None, 0).unwrap(), a);
        // 48-byte blocks are 16-byte aligned at most: a 32-aligned request goes to the heap.
        let b = p.alloc(&mut mem, 8, 32, None, 0).unwrap();
        assert!(p.big.contains_key(&b));
        p.check_invariants(&mem).unwrap();
    }

    #[test]
    fn realloc_stays_in_its_block_or_moves_between_pool_and_heap() {
        let mut mem = os();
        let mut p = pool(&[]);
        let a = p.alloc(&mut mem, 10, 16, None, 0).unwrap();
        assert_eq!(p.realloc(&mut mem, block(a, 10), 32, 16, 0), Ok(a));
        let b = p.realloc(&mut mem, block(a, 32), 100, 16, 0).unwrap();
        assert!(p.big.contains_key(&b));
        assert_eq!(p.counters().num_blocks, 0);
        assert_eq!(p.counters().malloc_bytes, 100);
        let c = p.realloc(&mut mem, block(b, 100), 5000, 16, 0).unwrap();
        assert_eq!(p.counters().malloc_bytes, 5000);
        p.check_invariants(&mem).unwrap();
        p.free(&mut mem, block(c, 5000), 0).unwrap();
        assert_eq!(p.counters(), PoolCounters::default());
    }

    #[test]
    fn chunks_too_large_are_refused_naming_the_field() {
        let given = [("block_size", 65536), ("blocks_per_chunk", 65536)]
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .into_iter()
            .collect();
        let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
        let e = Pool::new(&p, 4096).unwrap_err();
        assert_eq!(e.field, "policy.params.blocks_per_chunk");
    }
}
