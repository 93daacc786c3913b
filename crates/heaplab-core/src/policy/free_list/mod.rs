//! The free-list family: boundary-tag chunks carved from a contiguous heap, as in dlmalloc
//! and glibc's ptmalloc.
//!
//! The heap is a reserved segment whose committed part grows from the bottom like `brk`.
//! Every chunk has an in-band header (`header_size` bytes before the payload); freed chunks
//! go to the free structures and, with coalescing, merge with free neighbours and with the
//! top chunk. Memory goes back to the provider only from the top (`trim_threshold`,
//! `top_pad`), which is why a long-lived block near the top pins everything below it: the
//! glibc behaviour of scenarios S1 and S4. Requests of at least `mmap_threshold` bytes get
//! their own mapping, as glibc's `mmap()`ed chunks do.

mod addr_heap;
mod addr_map;
mod caches;
mod chunks;
mod coalesce;
mod fit;
mod fit_tree;
mod invariants;
mod params;
mod pieces;
mod purge;
mod segments;
mod size_bins;

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::format::{format_bytes, format_exact_bytes};

use self::chunks::{ChunkTable, NIL};
use self::fit_tree::FitTree;
use self::params::{Fit, Knobs, Release, PARAMS};
use self::segments::Segment;
use self::size_bins::{SizeBins, Tie};
use super::{AllocError, Block, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, Params};
use crate::provider::{Addr, PageProvider};
use crate::small_map::ThreadMap;

pub use self::params::FAMILY;

/// glibc's FASTBIN_CONSOLIDATION_THRESHOLD: a free that leaves this much free in one piece
/// consolidates the fast bins first.
const FASTBIN_CONSOLIDATION_THRESHOLD: u64 = 64 << 10;

/// glibc's MIN_LARGE_SIZE on 64-bit: a request of a chunk this large consolidates the fast
/// bins before it searches.
const MIN_LARGE_CHUNK: u64 = 1024;

/// glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: the dynamic threshold stops here.
const MMAP_THRESHOLD_MAX: u64 = 32 << 20;

/// A dlmalloc/glibc-style heap.
#[derive(Clone, Debug)]
pub struct FreeList {
    fit: Fit,
    coalesce: bool,
    header: u64,
    align: u64,
    /// log2 of `align`: a chunk size in alignment units indexes the per-size bins.
    shift: u32,
    min_chunk: u64,
    trim_threshold: u64,
    top_pad: u64,
    mmap_threshold: u64,
    dynamic_mmap_threshold: bool,
    release: Release,
    release_delay: u64,
    /// Free chunks waiting for their inner pages to be given back: (due event, chunk).
    purge_queue: VecDeque<(u64, Addr)>,
    now: u64,
    segment_size: u64,
    page: u64,
    chunks: ChunkTable,
    /// Free chunks by size, for best fit and bins.
    bins: SizeBins,
    /// The stamp of the chunk freed last: stamps order the frees, which is the tie-break
    /// of bins, and tell a free structure's live entries from stale ones.
    stamp: u64,
    /// Free chunks by address with subtree maxima, for first and next fit. Only the
    /// structure the fit policy searches is kept.
    by_addr: FitTree,
    rover: Addr,
    segments: Vec<Segment>,
    /// Directly mapped blocks: payload to (mapping start, length).
    mapped: FxHashMap<Addr, (Addr, u64)>,
    /// Over-aligned blocks whose payload is not right after their header: payload to chunk.
    shifted: FxHashMap<Addr, Addr>,
    live_chunks: u64,
    tcache_count: usize,
    /// Largest chunk size the thread caches take; 0 when they are off.
    tcache_max_chunk: u64,
    /// Each thread's cache: chunk records per chunk size in alignment units, newest last.
    tcache: ThreadMap<Vec<Vec<u32>>>,
    /// Largest chunk size the fast bins take; 0 when they are off.
    fast_max_chunk: u64,
    /// Fast bins: chunk records per chunk size in alignment units, newest last. One set for
    /// the heap, shared by every thread, as one glibc arena's.
    fastbins: Vec<Vec<u32>>,
    fast_chunks: usize,
    /// The last move of the dynamic thresholds, so that a trim declined later can say
    /// where its threshold came from.
    raised: Option<Raised>,
}

/// A move of glibc's dynamic mmap and trim thresholds: at which event, from what trim
/// threshold, and the length of the freed mapping that moved them.
#[derive(Clone, Copy, Debug)]
struct Raised {
    event: u64,
    from_trim: u64,
    len: u64,
}

impl FreeList {
    pub fn new(params: &Params, page_size: u64) -> Result<FreeList, ParamError> {
        let knobs = Knobs::read(params);
        let fit = knobs.fit;
        let header = knobs.header_size;
        let align = knobs.alignment;
        // A free chunk must hold its header and the two free-list links.
        let min_chunk = (header + 16).next_multiple_of(align);
        let tie = if fit == Fit::Bins {
            Tie::Age
        } else {
            Tie::Address
        };
        let mut heap = FreeList {
            fit,
            coalesce: knobs.coalesce,
            header,
            align,
            shift: align.trailing_zeros(),
            min_chunk,
            trim_threshold: knobs.trim_threshold,
            top_pad: knobs.top_pad,
            mmap_threshold: knobs.mmap_threshold,
            dynamic_mmap_threshold: knobs.dynamic_mmap_threshold,
            release: knobs.release_free_pages,
            release_delay: knobs.release_delay,
            purge_queue: VecDeque::new(),
            now: 0,
            raised: None,
            segment_size: knobs.segment_size.next_multiple_of(page_size),
            page: page_size,
            chunks: ChunkTable::default(),
            bins: SizeBins::new(tie, align),
            stamp: 0,
            by_addr: FitTree::new(),
            rover: 0,
            segments: Vec::new(),
            mapped: FxHashMap::default(),
            shifted: FxHashMap::default(),
            live_chunks: 0,
            tcache_count: knobs.tcache_count as usize,
            tcache_max_chunk: 0,
            tcache: ThreadMap::default(),
            fast_max_chunk: 0,
            fastbins: Vec::new(),
            fast_chunks: 0,
        };
        if knobs.fastbin_max > 0 {
            heap.fast_max_chunk = heap.chunk_size(knobs.fastbin_max);
            heap.fastbins = vec![Vec::new(); heap.size_bin(heap.fast_max_chunk) + 1];
        }
        if heap.tcache_count > 0 {
            heap.tcache_max_chunk = heap.chunk_size(knobs.tcache_max);
        }
        Ok(heap)
    }

    /// The default configuration (dlmalloc/glibc-like), used as a parent heap by other
    /// families.
    pub fn with_defaults(page_size: u64) -> FreeList {
        let params = Params::resolve(PARAMS, &Default::default(), "free-list")
            .expect("free-list defaults are valid");
        FreeList::new(&params, page_size).expect("free-list defaults build")
    }

    #[inline]
    fn chunk_size(&self, size: u64) -> u64 {
        // The alignment is a power of two, so rounding up is a mask, not a division.
        ((size + self.header + self.align - 1) & !(self.align - 1)).max(self.min_chunk)
    }
}

impl Policy for FreeList {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        let csize = self.chunk_size(size);
        if self.mmap_threshold > 0 && csize >= self.mmap_threshold {
            let threshold = self.mmap_threshold;
            mem.note(|| crate::decision::Decision::Rule {
                rule: "mmap threshold",
                text: format!(
                    "mapped on its own: a {} chunk is at or above mmap_threshold {}",
                    format_bytes(csize),
                    format_bytes(threshold)
                ),
            });
            mem.note(|| crate::decision::Decision::Reason {
                why: "at or above the mmap threshold",
            });
            return self.alloc_mapped(mem, size, align);
        }
        if align <= self.align {
            let cached = self
                .tcache_take(thread, csize)
                .map(|h| (h, "tcache"))
                .or_else(|| self.fast_take(csize).map(|h| (h, "fast bin")));
            if let Some((h, cache)) = cached {
                let addr = self.chunks[h].addr;
                mem.note(|| crate::decision::Decision::CacheHit { cache, addr });
                return Ok(addr + self.header);
            }
            if csize >= MIN_LARGE_CHUNK && self.fast_chunks > 0 {
                // glibc's _int_malloc consolidates the fast bins before it serves a
                // request outside the small-bin range (`malloc_consolidate`).
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "consolidate",
                    text: format!(
                        "fast bins consolidated: a {} request is a large-bin size (chunks of {} and more)",
                        format_exact_bytes(size),
                        format_exact_bytes(MIN_LARGE_CHUNK)
                    ),
                });
                self.consolidate(mem)?;
            }
            return Ok(self.alloc_chunk(mem, csize)? + self.header);
        }
        self.alloc_over_aligned(mem, size, align)
    }

    #[inline]
    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError> {
        // Most heaps hold no block mapped on its own, and an empty map needs no probe.
        let mapped = if self.mapped.is_empty() {
            None
        } else {
            self.mapped.remove(&block.addr)
        };
        if let Some((base, len)) = mapped {
            mem.note(|| crate::decision::Decision::Reason {
                why: "a block mapped on its own goes back whole",
            });
            mem.release(base, len)?;
            if self.dynamic_mmap_threshold && len > self.mmap_threshold && len <= MMAP_THRESHOLD_MAX
            {
                let (mmap_from, trim_from) = (self.mmap_threshold, self.trim_threshold);
                self.mmap_threshold = len;
                self.trim_threshold = 2 * len;
                // The event being served is the one after the last tick.
                self.raised = Some(Raised {
                    event: self.now + 1,
                    from_trim: trim_from,
                    len,
                });
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "dynamic threshold",
                    text: format!(
                        "dynamic threshold moved: a mapped chunk of {} was freed, so mmap_threshold {} → {} and trim_threshold {} → {}",
                        format_exact_bytes(len),
                        format_bytes(mmap_from),
                        format_bytes(len),
                        format_bytes(trim_from),
                        format_bytes(2 * len)
                    ),
                });
            }
            return Ok(());
        }
        let h = self.chunk_of(block.addr)?;
        let csize = self.chunks[h].size;
        let shifted = !self.shifted.is_empty() && self.shifted.remove(&block.addr).is_some();
        if !shifted {
            let cached = self.tcache_put(thread, h, csize);
            if cached || csize <= self.fast_max_chunk {
                let addr = block.addr - self.header;
                let cache = if cached { "tcache" } else { "fast bin" };
                mem.note(|| crate::decision::Decision::Cached { cache, addr });
                if !cached {
                    let bin = self.size_bin(csize);
                    self.fastbins[bin].push(h);
                    self.fast_chunks += 1;
                }
                // glibc writes the bin's link into the chunk.
                mem.touch(block.addr, 16.min(csize - self.header))?;
                return Ok(());
            }
        }
        self.release_chunk(mem, h, true)
    }

    const HINTS_FREE: bool = true;

    /// Two steps, so that neither waits: the address map's slot for the chunk at the first
    /// hint, and at the second, when that slot has arrived, the chunk's record. The free
    /// then finds both in the cache. (Fetching the state of the chunk's page too, where
    /// the free writes its links, made no difference that could be measured.)
    #[inline(always)]
    fn prefetch_free<P: PageProvider>(&self, _mem: &Pages<P>, block: &Block, stage: u32) {
        let c = block.addr.wrapping_sub(self.header);
        if stage == 0 {
            self.chunks.prefetch_slot(c);
        } else {
            self.chunks.prefetch_record(c);
        }
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        let need = self.chunk_size(new_size);
        if !block.addr.is_multiple_of(align) {
            return default_realloc(self, mem, block, new_size, align, thread);
        }
        let in_heap =
            !self.mapped.contains_key(&block.addr) && !self.shifted.contains_key(&block.addr);
        let stays_in_heap = self.mmap_threshold == 0 || need < self.mmap_threshold;
        if !(in_heap && stays_in_heap) {
            return default_realloc(self, mem, block, new_size, align, thread);
        }
        let h = self.chunk_of(block.addr)?;
        let chunk = self.chunks[h];
        let c = chunk.addr;
        if need <= chunk.size {
            let tail = chunk.size - need;
            let min_chunk = self.min_chunk;
            mem.note(|| crate::decision::Decision::Rule {
                rule: "realloc",
                text: if tail >= min_chunk {
                    format!(
                        "realloc shrank in place: the {} chunk keeps {} and frees its {} tail",
                        format_exact_bytes(chunk.size),
                        format_exact_bytes(need),
                        format_exact_bytes(tail)
                    )
                } else {
                    format!(
                        "realloc stayed in place: the {} chunk already holds {} (a tail under {} is not split off)",
                        format_exact_bytes(chunk.size),
                        format_exact_bytes(need),
                        format_exact_bytes(min_chunk)
                    )
                },
            });
            if tail >= min_chunk {
                // Shrink in place: the tail becomes a chunk of its own and is freed.
                let r = self.cut_tail(h, need);
                self.live_chunks += 1;
                self.release_chunk(mem, r, false)?;
            }
            return Ok(block.addr);
        }
        let seg = self.segment_of(c);
        let end = c + chunk.size;
        let s = self.segments[seg];
        if end == s.top && c + need <= s.end {
            // Grow into the top chunk.
            mem.note(|| crate::decision::Decision::Rule {
                rule: "realloc",
                text: format!(
                    "realloc grew in place into the top chunk: {} → {}",
                    format_exact_bytes(chunk.size),
                    format_exact_bytes(need)
                ),
            });
            let new_top = c + need;
            self.extend_into_top(mem, seg, end, new_top)?;
            self.chunks[h].size = need;
            self.segments[seg].top = new_top;
            return Ok(block.addr);
        }
        if chunk.next != NIL {
            let above = chunk.next;
            let next = self.chunks[above];
            if next.is_free() && chunk.size + next.size >= need {
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "realloc",
                    text: format!(
                        "realloc grew in place into the free chunk above: {} → {}",
                        format_exact_bytes(chunk.size),
                        format_exact_bytes(need)
                    ),
                });
                // Absorb the free neighbour, then give back what is left over.
                self.ready(mem, end, need - chunk.size)?;
                self.chunks[h].size = chunk.size + self.absorb_next(h, above, c);
                if chunk.size + next.size - need >= self.min_chunk {
                    self.split(mem, h, need)?;
                }
                return Ok(block.addr);
            }
        }
        default_realloc(self, mem, block, new_size, align, thread)
    }

    #[inline]
    fn tick<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: crate::clock::Now,
    ) -> Result<(), AllocError> {
        // glibc counts no time: its trims follow frees, and its delays here are events.
        let now = now.event;
        self.now = now;
        // Most events find no purge due.
        match self.purge_queue.front() {
            Some(&(due, _)) if due <= now => self.purge_due(mem, now),
            _ => Ok(()),
        }
    }

    fn block_layout(&self, addr: Addr, size: u64) -> Option<crate::policy::BlockLayout> {
        self.layout(addr, size)
    }

    fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        self.pieces(out);
        true
    }

    fn reserves_at_once(&self) -> Option<(&'static str, u64)> {
        Some((Knobs::NAMES.segment_size, self.segment_size))
    }

    fn metadata_bytes(&self) -> u64 {
        // In-band headers of every chunk, plus the segment records dlmalloc keeps.
        self.header * (self.chunks.len() + self.mapped.len()) as u64
            + 48 * self.segments.len() as u64
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        self.check_structures(mem)
    }
}

/// Allocate, copy, free: what `realloc` does when it cannot resize in place.
pub(crate) fn default_realloc<T: Policy, P: PageProvider>(
    policy: &mut T,
    mem: &mut Pages<P>,
    block: Block,
    new_size: u64,
    align: u64,
    thread: u32,
) -> Result<Addr, AllocError> {
    mem.note(|| crate::decision::Decision::Rule {
        rule: "realloc",
        text: format!(
            "realloc moved: {} could not be resized in place to {}, so allocate, copy, free",
            format_exact_bytes(block.size),
            format_exact_bytes(new_size)
        ),
    });
    let addr = policy.alloc_checked(mem, new_size, align, block.arena, thread)?;
    // The copy reads the old block and writes the new one.
    mem.touch(addr, block.size.min(new_size))?;
    policy.free(mem, block, thread)?;
    Ok(addr)
}
