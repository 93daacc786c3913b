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

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

mod addr_heap;
mod addr_map;
mod chunks;
mod fit_tree;
mod size_bins;
use chunks::{Chunk, ChunkTable, NIL};
use fit_tree::FitTree;
use size_bins::{SizeBins, Tie};

use super::{check_align, check_size, AllocError, Block, FamilySpec, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};
use crate::provider::{Addr, PageProvider};
use crate::small_map::ThreadMap;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "fit",
        kind: ParamKind::Choice(&["best", "bins", "first", "next"]),
        default: "best",
        unit: "",
        doc: "Which free chunk serves a request: the smallest that fits (lowest address \
              among equals); glibc-style bins, exact-size small bins and size-sorted large \
              bins that hand out the oldest of equal chunks first; the lowest-addressed \
              that fits; or the first that fits after the previous one (a roving pointer).",
        zero_means: "",
    },
    ParamSpec {
        name: "coalesce",
        kind: ParamKind::Bool,
        default: "true",
        unit: "",
        doc: "Merge a freed chunk with free neighbours and with the top of the heap.",
        zero_means: "",
    },
    ParamSpec {
        name: "header_size",
        kind: ParamKind::Bytes {
            min: 0,
            max: 64,
            pow2: false,
        },
        default: "8",
        unit: "bytes",
        doc: "In-band bytes before each payload (dlmalloc: 8 on 64-bit, as prev_size overlaps).",
        zero_means: "",
    },
    ParamSpec {
        name: "alignment",
        kind: ParamKind::Bytes {
            min: 8,
            max: 4096,
            pow2: true,
        },
        default: "16",
        unit: "bytes",
        doc: "Chunk granularity and payload alignment.",
        zero_means: "",
    },
    ParamSpec {
        name: "trim_threshold",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 40,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "When the committed free space at the top exceeds this, it is decommitted \
              (glibc M_TRIM_THRESHOLD).",
        zero_means: "",
    },
    ParamSpec {
        name: "top_pad",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 30,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "Extra bytes committed whenever the heap grows, and kept when it is trimmed \
              (glibc M_TOP_PAD).",
        zero_means: "",
    },
    ParamSpec {
        name: "mmap_threshold",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 40,
            pow2: false,
        },
        default: "128KiB",
        unit: "bytes",
        doc: "Requests of at least this size get their own mapping, returned on free; \
              0 turns this off (glibc M_MMAP_THRESHOLD).",
        zero_means: "off",
    },
    ParamSpec {
        name: "segment_size",
        kind: ParamKind::Bytes {
            min: 64 << 10,
            max: 1 << 40,
            pow2: false,
        },
        default: "64MiB",
        unit: "bytes",
        doc: "Address space reserved for the heap at a time; a full heap reserves another.",
        zero_means: "",
    },
    ParamSpec {
        name: "dynamic_mmap_threshold",
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Raise the mmap threshold to the size of each mapped block freed (up to 32 MiB) and \
              the trim threshold to twice that, as glibc does since 2.7.",
        zero_means: "",
    },
    ParamSpec {
        name: "release_free_pages",
        kind: ParamKind::Choice(&["never", "immediate", "delay"]),
        default: "never",
        unit: "",
        doc: "Whether whole pages inside free chunks go back to the OS (madvise-style): never \
              (dlmalloc, glibc without malloc_trim), at once, or after `release_delay` events if \
              the chunk is still free (jemalloc's decay, roughly).",
        zero_means: "",
    },
    ParamSpec {
        name: "release_delay",
        kind: ParamKind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        default: "10000",
        unit: "events",
        doc: "How long a free chunk keeps its pages under `release_free_pages = delay`.",
        zero_means: "",
    },
    ParamSpec {
        name: "tcache_count",
        kind: ParamKind::Int { min: 0, max: 65535 },
        default: "0",
        unit: "chunks",
        doc: "Freed small chunks each thread keeps per size, uncoalesced and still counted in \
              use, and hands out first to its next request of that size: glibc's tcache \
              (7 since 2.26). Such chunks sit in the heap like live blocks, so one near the \
              top keeps the heap from shrinking. 0 turns the cache off.",
        zero_means: "off",
    },
    ParamSpec {
        name: "tcache_max",
        kind: ParamKind::Bytes {
            min: 0,
            max: 1 << 20,
            pow2: false,
        },
        default: "1032",
        unit: "bytes",
        doc: "Largest request whose chunk goes to the thread cache (glibc: 1032 bytes, the \
              size of its 64th bin).",
        zero_means: "",
    },
    ParamSpec {
        name: "fastbin_max",
        kind: ParamKind::Bytes {
            min: 0,
            max: 160,
            pow2: false,
        },
        default: "0",
        unit: "bytes",
        doc: "Largest request whose freed chunk goes to a fast bin: kept in use, uncoalesced, \
              and handed out first to the next request of its size, until a request of 1 KiB \
              or more, or a free that leaves 64 KiB free in one piece, consolidates every \
              fast bin into the heap (glibc's fastbins, M_MXFAST = 128 on 64-bit). Memory \
              freed in small blocks alone never reaches the top, so the heap keeps its peak. \
              0 turns fast bins off.",
        zero_means: "off",
    },
];

/// glibc's FASTBIN_CONSOLIDATION_THRESHOLD: a free that leaves this much free in one piece
/// consolidates the fast bins first.
const FASTBIN_CONSOLIDATION_THRESHOLD: u64 = 64 << 10;

/// glibc's MIN_LARGE_SIZE on 64-bit: a request of a chunk this large consolidates the fast
/// bins before it searches.
const MIN_LARGE_CHUNK: u64 = 1024;

/// glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: the dynamic threshold stops here.
const MMAP_THRESHOLD_MAX: u64 = 32 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Release {
    Never,
    Immediate,
    Delay,
}

pub const FAMILY: FamilySpec = FamilySpec {
    id: "free-list",
    title: "Free list (dlmalloc, glibc)",
    description: "Boundary-tag chunks in one growing heap with first, best or next fit and \
                  coalescing; memory returns to the OS only from the top, and large \
                  requests are mapped on their own.",
    params: PARAMS,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fit {
    Best,
    Bins,
    First,
    Next,
}

#[derive(Clone, Copy, Debug)]
struct Segment {
    base: Addr,
    end: Addr,
    /// Where the first chunk starts: far enough into the segment that payloads align.
    first: Addr,
    /// The top chunk, from here to `end`, is not in the chunk table.
    top: Addr,
    /// Pages below this are committed; the break of a `brk` heap.
    committed_end: Addr,
    /// The record of the chunk just below the top, `NIL` if none.
    last: u32,
}

/// A dlmalloc/glibc-style heap.
#[derive(Debug)]
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
}

impl FreeList {
    pub fn new(params: &Params, page_size: u64) -> Result<FreeList, ParamError> {
        let fit = match params.str("fit") {
            "first" => Fit::First,
            "next" => Fit::Next,
            "bins" => Fit::Bins,
            _ => Fit::Best,
        };
        let header = params.u64("header_size");
        let align = params.u64("alignment");
        // A free chunk must hold its header and the two free-list links.
        let min_chunk = (header + 16).next_multiple_of(align);
        let tie = if fit == Fit::Bins {
            Tie::Age
        } else {
            Tie::Address
        };
        let mut heap = FreeList {
            fit,
            coalesce: params.bool("coalesce"),
            header,
            align,
            shift: align.trailing_zeros(),
            min_chunk,
            trim_threshold: params.u64("trim_threshold"),
            top_pad: params.u64("top_pad"),
            mmap_threshold: params.u64("mmap_threshold"),
            dynamic_mmap_threshold: params.bool("dynamic_mmap_threshold"),
            release: match params.str("release_free_pages") {
                "immediate" => Release::Immediate,
                "delay" => Release::Delay,
                _ => Release::Never,
            },
            release_delay: params.u64("release_delay"),
            purge_queue: VecDeque::new(),
            now: 0,
            segment_size: params.u64("segment_size").next_multiple_of(page_size),
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
            tcache_count: params.u64("tcache_count") as usize,
            tcache_max_chunk: 0,
            tcache: ThreadMap::default(),
            fast_max_chunk: 0,
            fastbins: Vec::new(),
            fast_chunks: 0,
        };
        if params.u64("fastbin_max") > 0 {
            heap.fast_max_chunk = heap.chunk_size(params.u64("fastbin_max"));
            heap.fastbins = vec![Vec::new(); heap.size_bin(heap.fast_max_chunk) + 1];
        }
        if heap.tcache_count > 0 {
            heap.tcache_max_chunk = heap.chunk_size(params.u64("tcache_max"));
        }
        Ok(heap)
    }

    /// A chunk size in alignment units: its thread-cache bin and fast bin.
    #[inline]
    fn size_bin(&self, csize: u64) -> usize {
        (csize >> self.shift) as usize
    }

    /// Takes a chunk of exactly `csize` bytes from `thread`'s cache, if it holds one.
    #[inline]
    fn tcache_take(&mut self, thread: u32, csize: u64) -> Option<u32> {
        if csize > self.tcache_max_chunk {
            return None;
        }
        let bin = self.size_bin(csize);
        self.tcache.get_mut(thread)?[bin].pop()
    }

    /// Takes a chunk of exactly `csize` bytes from the fast bins, if they hold one.
    #[inline]
    fn fast_take(&mut self, csize: u64) -> Option<u32> {
        if csize > self.fast_max_chunk {
            return None;
        }
        let bin = self.size_bin(csize);
        let c = self.fastbins[bin].pop()?;
        self.fast_chunks -= 1;
        Some(c)
    }

    /// Frees every chunk in the fast bins into the heap, coalescing it with its free
    /// neighbours and the top: glibc's `malloc_consolidate`. Most heaps have no fast
    /// bins, so the test is inline and the work out of line.
    #[inline]
    fn consolidate<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<(), AllocError> {
        if self.fast_chunks == 0 {
            return Ok(());
        }
        self.consolidate_bins(mem)
    }

    #[cold]
    fn consolidate_bins<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<(), AllocError> {
        if self.fast_chunks == 0 {
            return Ok(());
        }
        // Emptied first, so the frees below never consolidate again.
        let mut chunks: Vec<u32> = self.fastbins.iter_mut().flat_map(std::mem::take).collect();
        self.fast_chunks = 0;
        // Address order, as glibc's bins are walked: chunks in use are neither moved nor
        // merged, so their records still say where they are.
        chunks.sort_unstable_by_key(|&h| self.chunks[h].addr);
        for h in chunks {
            self.release_chunk(mem, h, true)?;
        }
        Ok(())
    }

    /// Puts a chunk the program freed into `thread`'s cache if its bin has room. The chunk
    /// stays in use as far as the heap is concerned: no coalescing, no trimming past it.
    #[inline]
    fn tcache_put(&mut self, thread: u32, h: u32, csize: u64) -> bool {
        if csize > self.tcache_max_chunk {
            return false;
        }
        let bins = self.size_bin(self.tcache_max_chunk) + 1;
        let bin = self.size_bin(csize);
        let bin = &mut self
            .tcache
            .get_or_insert_with(thread, || vec![Vec::new(); bins])[bin];
        if bin.len() >= self.tcache_count {
            return false;
        }
        bin.push(h);
        true
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

    /// Makes chunk `h` free: gives it the next stamp and puts it in the free structures.
    // Always inlined, as its callers (a free, a split) are short and hot.
    #[inline(always)]
    fn insert_free(&mut self, h: u32) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.chunks.set_stamp(h, stamp);
        let Chunk { addr, size, .. } = self.chunks[h];
        match self.fit {
            Fit::Best | Fit::Bins => {
                let chunks = &self.chunks;
                self.bins
                    .insert(h, addr, size, stamp, |h, s| chunks[h].stamp == s);
            }
            Fit::First | Fit::Next => self.by_addr.insert(addr, size),
        }
    }

    /// Takes free chunk `h` out of the free structures; it counts as in use until it is
    /// merged away or freed again.
    #[inline]
    fn remove_free(&mut self, h: u32) {
        let chunk = self.chunks[h];
        match self.fit {
            Fit::Best | Fit::Bins => self.bins.remove(chunk.addr, chunk.size, chunk.stamp),
            Fit::First | Fit::Next => {
                self.by_addr.remove(chunk.addr);
            }
        }
        self.chunks.set_stamp(h, 0);
    }

    #[inline]
    fn segment_of(&self, addr: Addr) -> usize {
        self.segments
            .iter()
            .position(|s| addr >= s.base && addr < s.end)
            .expect("every chunk lies in a segment")
    }

    /// Finds and unlinks a free chunk of at least `csize` bytes: its record.
    #[inline]
    fn take_fit(&mut self, csize: u64) -> Option<u32> {
        let h = match self.fit {
            // glibc's small bins hold one size each and large bins are sorted by size, so
            // both hand out the smallest chunk that fits; what sets bins apart from best
            // fit is which of several equal chunks goes first.
            Fit::Best | Fit::Bins => {
                let chunks = &self.chunks;
                self.bins.take(csize, |h, s| chunks[h].stamp == s)?.0
            }
            // The textbook policies walk an address-ordered list; the tree finds the same
            // chunk without the walk.
            Fit::First | Fit::Next => {
                let a = if self.fit == Fit::Next {
                    self.by_addr
                        .first_fit_from(self.rover, csize)
                        .or_else(|| self.by_addr.first_fit_from(0, csize))
                } else {
                    self.by_addr.first_fit_from(0, csize)
                }?;
                self.by_addr.remove(a);
                self.chunks.find(a).expect("a free chunk is in the table")
            }
        };
        self.chunks.set_stamp(h, 0);
        self.rover = self.chunks[h].addr;
        Some(h)
    }

    /// Allocates a chunk of `csize` bytes from the free structures or the top.
    #[inline]
    fn alloc_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<Addr, AllocError> {
        if let Some(h) = self.take_fit(csize) {
            let Chunk { addr: c, size, .. } = self.chunks[h];
            self.ready(mem, c, csize)?;
            if size - csize >= self.min_chunk {
                self.split(mem, h, csize)?;
            }
            self.live_chunks += 1;
            // The front of a free chunk stays resident (see `check_invariants`), and the
            // header lies inside it.
            mem.write_resident(c, self.header);
            return Ok(c);
        }
        self.alloc_from_top(mem, csize)
    }

    /// Cuts chunk `h` to `csize` bytes; the rest becomes a free chunk.
    #[inline]
    fn split<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        h: u32,
        csize: u64,
    ) -> Result<(), AllocError> {
        let Chunk { addr: c, size, .. } = self.chunks[h];
        let rest = c + csize;
        let rest_size = size - csize;
        self.ready(mem, rest, (self.header + 16).min(rest_size))?;
        let r = self.cut_tail(h, csize);
        self.insert_free(r);
        // The remainder's header and free-list links are written into the heap.
        mem.touch(rest, (self.header + 16).min(rest_size))?;
        Ok(())
    }

    /// Shrinks chunk `h` to `keep` bytes and makes the rest a chunk of its own, linked
    /// after it in address order (and its segment's last if `h` was); returns the new
    /// chunk, which the caller lists as free or releases.
    #[inline(always)]
    fn cut_tail(&mut self, h: u32, keep: u64) -> u32 {
        let Chunk {
            addr, size, next, ..
        } = self.chunks[h];
        self.chunks[h].size = keep;
        let r = self.chunks.add(Chunk {
            addr: addr + keep,
            size: size - keep,
            stamp: 0,
            prev: h,
            next,
        });
        self.chunks[h].next = r;
        if next != NIL {
            self.chunks[next].prev = r;
        } else {
            let seg = self.segment_of(addr);
            self.segments[seg].last = r;
        }
        r
    }

    /// Takes the free chunk `above`, the neighbour above chunk `cur` (at `start`), out of
    /// the bins and the records and links `cur` to what lies above it; returns the bytes
    /// `above` had, which the caller adds to `cur`'s size.
    #[inline(always)]
    fn absorb_next(&mut self, cur: u32, above: u32, start: Addr) -> u64 {
        let next = self.chunks[above];
        self.remove_free(above);
        self.chunks.drop_chunk(above);
        self.chunks[cur].next = next.next;
        if next.next != NIL {
            self.chunks[next.next].prev = cur;
        } else {
            let seg = self.segment_of(start);
            self.segments[seg].last = cur;
        }
        next.size
    }

    /// Makes `from..to` of segment `seg`'s top usable for a chunk that takes it: the part
    /// already committed is readied, and the rest is committed with `top_pad` to spare,
    /// as sbrk grows glibc's heap. The caller moves the segment's top. Inlined: a heap
    /// that frees into its top takes every allocation from there.
    #[inline(always)]
    fn extend_into_top<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        seg: usize,
        from: Addr,
        to: Addr,
    ) -> Result<(), AllocError> {
        let s = self.segments[seg];
        self.ready(mem, from, to.min(s.committed_end).saturating_sub(from))?;
        if to > s.committed_end {
            let want = (to + self.top_pad).next_multiple_of(self.page).min(s.end);
            mem.commit(s.committed_end, want - s.committed_end)?;
            self.segments[seg].committed_end = want;
        }
        Ok(())
    }

    fn alloc_from_top<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<Addr, AllocError> {
        // The newest segment first, then older ones with room left at their top.
        let n = self.segments.len();
        let fits = (0..n)
            .rev()
            .find(|&i| self.segments[i].top + csize <= self.segments[i].end);
        let i = match fits {
            Some(i) => i,
            None => self.new_segment(mem, csize)?,
        };
        let seg = self.segments[i];
        let c = seg.top;
        let new_top = c + csize;
        self.extend_into_top(mem, i, c, new_top)?;
        let h = self.chunks.add(Chunk {
            addr: c,
            size: csize,
            stamp: 0,
            prev: seg.last,
            next: NIL,
        });
        if seg.last != NIL {
            self.chunks[seg.last].next = h;
        }
        let s = &mut self.segments[i];
        s.last = h;
        s.top = new_top;
        let committed_end = s.committed_end;
        self.live_chunks += 1;
        mem.touch(c, self.header)?;
        // dlmalloc writes the new top's header right after the chunk.
        if self.header > 0 && new_top + self.header <= committed_end {
            mem.touch(new_top, self.header)?;
        }
        Ok(c)
    }

    fn new_segment<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<usize, AllocError> {
        let pad = (self.align - self.header % self.align) % self.align;
        let len = self
            .segment_size
            .max((pad + csize + self.min_chunk).next_multiple_of(self.page));
        let base = mem.reserve(len, self.page)?;
        self.segments.push(Segment {
            base,
            end: base + len,
            first: base + pad,
            top: base + pad,
            committed_end: base,
            last: NIL,
        });
        Ok(self.segments.len() - 1)
    }

    fn alloc_mapped<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let offset = self.header.max(1).next_multiple_of(align.max(self.align));
        let len = mem.round_up(offset + size);
        let base = mem.map(len, self.page.max(align))?;
        let payload = base + offset;
        if self.header > 0 {
            mem.touch(payload - self.header, self.header)?;
        }
        self.mapped.insert(payload, (base, len));
        Ok(payload)
    }

    /// An over-aligned request takes a chunk with room to slide the payload forward; the
    /// slack stays inside the chunk (dlmalloc would split it off, which we leave out).
    /// Rare, and out of line so that the common path has the only inlined copy of
    /// `alloc_chunk`.
    #[cold]
    #[inline(never)]
    fn alloc_over_aligned<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let c = self.alloc_chunk(mem, self.chunk_size(size + align))?;
        let payload = (c + self.header).next_multiple_of(align);
        if payload != c + self.header {
            self.shifted.insert(payload, c);
        }
        Ok(payload)
    }

    /// Frees chunk `h` (in use): merges it and gives the top back if it grew past the trim
    /// threshold. `header_written` says whether the chunk's header was written while it
    /// was in use: every chunk handed out has had it, a tail that `realloc` cuts off has not.
    // Always inlined: every free runs it, and a call's register saves and stack frame were
    // about a tenth of its instructions in the steady-state bench. The other callers
    // (consolidation, realloc) are rare and have copies of their own.
    #[inline(always)]
    fn release_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        h: u32,
        header_written: bool,
    ) -> Result<(), AllocError> {
        let chunk = self.chunks[h];
        self.live_chunks -= 1;
        if !self.coalesce {
            self.insert_free(h);
            mem.touch(chunk.addr, (self.header + 16).min(chunk.size))?;
            return Ok(());
        }
        let mut cur = h;
        let mut start = chunk.addr;
        let mut size = chunk.size;
        let below = chunk.prev;
        if below != NIL && self.chunks.is_free(below) {
            // The lower neighbour absorbs this chunk and takes its place between the
            // neighbours.
            self.remove_free(below);
            self.chunks.drop_chunk(h);
            self.chunks[below].next = chunk.next;
            if chunk.next != NIL {
                self.chunks[chunk.next].prev = below;
            }
            cur = below;
            start = self.chunks[below].addr;
            size += self.chunks[below].size;
        }
        let above = self.chunks[cur].next;
        if above == NIL {
            // The chunk borders the top: it becomes part of it.
            let seg = self.segment_of(start);
            debug_assert_eq!(start + size, self.segments[seg].top);
            let lower = self.chunks[cur].prev;
            self.chunks.drop_chunk(cur);
            if lower != NIL {
                self.chunks[lower].next = NIL;
            }
            let s = &mut self.segments[seg];
            s.top = start;
            s.last = lower;
            if self.header > 0 && start + self.header <= s.committed_end {
                mem.touch(start, self.header)?;
            }
            if s.committed_end - start >= FASTBIN_CONSOLIDATION_THRESHOLD {
                self.consolidate(mem)?;
            }
            return self.trim(mem, seg);
        }
        if self.chunks.is_free(above) {
            size += self.absorb_next(cur, above, start);
        }
        self.chunks[cur].size = size;
        self.insert_free(cur);
        // Header and links at the front, the boundary tag at the back. The front is
        // nearly always known resident, so the page map need not be asked: a free chunk's
        // is, and this one's if it absorbed the free chunk below; otherwise the first page
        // of a chunk whose header was written is, and the front mostly lies in that page
        // (see `check_invariants` for both). Most chunks are smaller than a page, and then
        // the tag lies in the front's page too.
        let front = (self.header + 16).min(size);
        let in_first_page = mem.same_page(start, start + front - 1);
        if cur != h || header_written && self.header > 0 && in_first_page {
            mem.write_resident(start, front);
        } else {
            mem.touch(start, front)?;
        }
        let tag = start + size - 8;
        if mem.same_page(tag, start) {
            mem.write_resident(tag, 8);
        } else {
            mem.touch(tag, 8)?;
        }
        if size >= FASTBIN_CONSOLIDATION_THRESHOLD {
            self.consolidate(mem)?;
        }
        match self.release {
            Release::Never => Ok(()),
            Release::Immediate => self.purge(mem, start, size),
            Release::Delay => {
                self.purge_queue
                    .push_back((self.now + self.release_delay, start));
                Ok(())
            }
        }
    }

    /// Gives committed memory above the top back once there is more than the threshold,
    /// keeping `top_pad`; drops a later segment that became empty.
    fn trim<P: PageProvider>(&mut self, mem: &mut Pages<P>, seg: usize) -> Result<(), AllocError> {
        let s = self.segments[seg];
        if seg > 0 && s.top == s.first {
            mem.release(s.base, s.end - s.base)?;
            self.segments.remove(seg);
            return Ok(());
        }
        if s.committed_end - s.top <= self.trim_threshold || !mem.caps().can_decommit {
            return Ok(());
        }
        let keep = (s.top + self.header + self.top_pad).next_multiple_of(self.page);
        if keep < s.committed_end {
            mem.decommit_committed(keep, s.committed_end - keep)?;
            self.segments[seg].committed_end = keep;
        }
        Ok(())
    }

    /// Commits whatever pages of a range were given back while it lay in a free chunk or
    /// in the top. Without page release nothing inside the heap is ever decommitted.
    #[inline]
    fn ready<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
        len: u64,
    ) -> Result<(), AllocError> {
        if self.release != Release::Never && len > 0 {
            mem.commit_missing(addr, len)?;
        }
        Ok(())
    }

    /// Gives back the whole pages inside a free chunk, keeping the pages that hold its
    /// header, links and boundary tag.
    fn purge<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        start: Addr,
        size: u64,
    ) -> Result<(), AllocError> {
        let lo = (start + self.header + 16).next_multiple_of(self.page);
        let hi = (start + size - 8) / self.page * self.page;
        if hi > lo {
            mem.decommit_committed(lo, hi - lo)?;
        }
        Ok(())
    }

    /// The record of a live payload's chunk.
    // Always inlined into the free, of which it is the first step.
    #[inline(always)]
    fn chunk_of(&self, payload: Addr) -> Result<u32, AllocError> {
        // Over-aligned blocks are rare, and an empty map needs no probe.
        let shifted = if self.shifted.is_empty() {
            None
        } else {
            self.shifted.get(&payload).copied()
        };
        let c = shifted.unwrap_or(payload.wrapping_sub(self.header));
        match self.chunks.find(c) {
            Some(h) if !self.chunks[h].is_free() => Ok(h),
            Some(_) => Err(AllocError::Invalid(format!("double free of {payload:#x}"))),
            None => Err(AllocError::Invalid(format!(
                "free of {payload:#x}, which this heap never handed out"
            ))),
        }
    }

    /// Gives back the pages of the chunks whose delayed purge is due by `now`.
    #[cold]
    #[inline(never)]
    fn purge_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, start)) = self.purge_queue.front() {
            if due > now {
                break;
            }
            self.purge_queue.pop_front();
            // The chunk may have been reused or merged since; purge what is free there now.
            if let Some(h) = self.chunks.find(start) {
                let c = self.chunks[h];
                if c.is_free() {
                    self.purge(mem, start, c.size)?;
                }
            }
        }
        Ok(())
    }
}

impl Policy for FreeList {
    #[inline]
    fn alloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_align(align)?;
        check_size(size)?;
        let csize = self.chunk_size(size);
        if self.mmap_threshold > 0 && csize >= self.mmap_threshold {
            return self.alloc_mapped(mem, size, align);
        }
        if align <= self.align {
            if let Some(h) = self
                .tcache_take(thread, csize)
                .or_else(|| self.fast_take(csize))
            {
                return Ok(self.chunks[h].addr + self.header);
            }
            if csize >= MIN_LARGE_CHUNK {
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
            mem.release(base, len)?;
            if self.dynamic_mmap_threshold && len > self.mmap_threshold && len <= MMAP_THRESHOLD_MAX
            {
                self.mmap_threshold = len;
                self.trim_threshold = 2 * len;
            }
            return Ok(());
        }
        let h = self.chunk_of(block.addr)?;
        let csize = self.chunks[h].size;
        let shifted = !self.shifted.is_empty() && self.shifted.remove(&block.addr).is_some();
        if !shifted {
            let cached = self.tcache_put(thread, h, csize);
            if cached || csize <= self.fast_max_chunk {
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

    fn realloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_size(new_size)?;
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
            if chunk.size - need >= self.min_chunk {
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
    fn tick<P: PageProvider>(&mut self, mem: &mut Pages<P>, now: u64) -> Result<(), AllocError> {
        self.now = now;
        // Most events find no purge due.
        match self.purge_queue.front() {
            Some(&(due, _)) if due <= now => self.purge_due(mem, now),
            _ => Ok(()),
        }
    }

    fn metadata_bytes(&self) -> u64 {
        // In-band headers of every chunk, plus the segment records dlmalloc keeps.
        self.header * (self.chunks.len() + self.mapped.len()) as u64
            + 48 * self.segments.len() as u64
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        self.chunks.check()?;
        let mut seen = 0usize;
        let mut free = 0usize;
        let mut live = 0u64;
        for (i, s) in self.segments.iter().enumerate() {
            if !(s.first <= s.top && s.top <= s.end && s.committed_end <= s.end) {
                return Err(format!(
                    "segment {i} has its top or break out of bounds: {s:?}"
                ));
            }
            if s.committed_end % self.page != 0 {
                return Err(format!("segment {i} break is not page-aligned"));
            }
            let mut a = s.first;
            let mut prev = NIL;
            let mut prev_free = false;
            while a < s.top {
                let h = self
                    .chunks
                    .find(a)
                    .ok_or_else(|| format!("no chunk at {a:#x} inside segment {i}"))?;
                let c = self.chunks[h];
                if c.prev != prev {
                    return Err(format!(
                        "chunk {a:#x} says its lower neighbour is record {}, not {prev}",
                        c.prev
                    ));
                }
                if prev != NIL && self.chunks[prev].next != h {
                    return Err(format!(
                        "the chunk below {a:#x} says its upper neighbour is record {}, not {h}",
                        self.chunks[prev].next
                    ));
                }
                if c.size < self.min_chunk || !c.size.is_multiple_of(self.align) {
                    return Err(format!("chunk {a:#x} has a bad size {}", c.size));
                }
                let needs_all = !c.is_free() || self.release == Release::Never;
                let ends_ok = mem.is_committed(a, (self.header + 16).min(c.size))
                    && mem.is_committed(a + c.size - 8, 8);
                if !ends_ok || (needs_all && !mem.is_committed(a, c.size)) {
                    return Err(format!("chunk {a:#x}+{} is not committed", c.size));
                }
                // An allocation writes the header of the free chunk it takes without
                // asking the page map: the pages of a free chunk's front are resident, as
                // its free touched them and a purge keeps them.
                let front = (self.header + 16).min(c.size);
                let front_resident = (a..a + front)
                    .step_by(mem.page_size() as usize)
                    .chain([a + front - 1])
                    .all(|p| mem.is_resident(p));
                if c.is_free() && !front_resident {
                    return Err(format!("free chunk {a:#x} has a front page not resident"));
                }
                // A free writes the front of a chunk in use without asking the page map
                // when it lies in the chunk's first page, which the header's write made
                // resident and which no purge or trim reaches while the chunk is in use.
                if !c.is_free() && self.header > 0 && !mem.is_resident(a) {
                    return Err(format!(
                        "chunk {a:#x} in use has its first page not resident"
                    ));
                }
                if c.is_free() {
                    free += 1;
                    if self.coalesce && prev_free {
                        return Err(format!(
                            "free chunk {a:#x} was not merged with the one below"
                        ));
                    }
                    let indexed = match self.fit {
                        // Checked below, from the bins' side.
                        Fit::Best | Fit::Bins => true,
                        Fit::First | Fit::Next => self.by_addr.contains(a, c.size),
                    };
                    if !indexed {
                        return Err(format!(
                            "free chunk {a:#x} is missing from the free structures"
                        ));
                    }
                } else {
                    live += 1;
                }
                prev_free = c.is_free();
                prev = h;
                a += c.size;
                seen += 1;
            }
            if a != s.top {
                return Err(format!("chunks of segment {i} overrun the top"));
            }
            if s.last != prev {
                return Err(format!(
                    "segment {i} thinks the chunk below the top is record {}, not {prev}",
                    s.last
                ));
            }
            if prev != NIL && self.chunks[prev].next != NIL {
                return Err(format!(
                    "the chunk below segment {i}'s top has an upper neighbour"
                ));
            }
        }
        if seen != self.chunks.len() {
            return Err(format!(
                "{} chunks in the table, {seen} in the segments",
                self.chunks.len()
            ));
        }
        let indexed = match self.fit {
            Fit::Best | Fit::Bins => {
                // Every chunk the bins name is a free chunk in the table (so in a segment,
                // as every chunk of the table was walked above), each named once: as many
                // as were walked means every free chunk is in them.
                self.bins
                    .check(|h| {
                        let c = self.chunks.holds(h).then(|| self.chunks[h])?;
                        c.is_free().then_some((c.addr, c.size, c.stamp))
                    })?
                    .len()
                    + self.by_addr.len()
            }
            Fit::First | Fit::Next => self.by_addr.len() + self.bins.len(),
        };
        if free != indexed {
            return Err(format!(
                "{free} free chunks, the free structures hold {indexed}"
            ));
        }
        if live != self.live_chunks {
            return Err(format!(
                "{live} chunks in use, counter says {}",
                self.live_chunks
            ));
        }
        for (&payload, &(base, len)) in &self.mapped {
            if !mem.is_committed(base, len) || payload < base || payload >= base + len {
                return Err(format!(
                    "mapped block {payload:#x} is not inside committed memory"
                ));
            }
        }
        let in_use_of = |h: u32, csize: u64| {
            self.chunks.holds(h) && !self.chunks[h].is_free() && self.chunks[h].size == csize
        };
        let mut cached = rustc_hash::FxHashSet::default();
        let mut fast = 0;
        for (bin, chunks) in self.fastbins.iter().enumerate() {
            let csize = (bin as u64) << self.shift;
            if !chunks.is_empty() && csize > self.fast_max_chunk {
                return Err(format!("fast bin {csize} is larger than the fast limit"));
            }
            for &h in chunks {
                fast += 1;
                if !in_use_of(h, csize) {
                    return Err(format!(
                        "fast chunk {h} is not an in-use chunk of {csize} bytes"
                    ));
                }
                if !cached.insert(h) {
                    return Err(format!("chunk {h} is in a fast bin twice"));
                }
            }
        }
        if fast != self.fast_chunks {
            return Err(format!(
                "{fast} chunks in fast bins, counter says {}",
                self.fast_chunks
            ));
        }
        for (thread, bins) in self.tcache.iter() {
            for (bin, chunks) in bins.iter().enumerate() {
                let csize = (bin as u64) << self.shift;
                if chunks.len() > self.tcache_count
                    || (!chunks.is_empty() && csize > self.tcache_max_chunk)
                {
                    return Err(format!(
                        "thread {thread}'s cache bin {csize} is over its limits"
                    ));
                }
                for &h in chunks {
                    if !in_use_of(h, csize) {
                        return Err(format!(
                            "cached chunk {h} is not an in-use chunk of {csize} bytes"
                        ));
                    }
                    if !cached.insert(h) {
                        return Err(format!("chunk {h} is cached twice"));
                    }
                }
            }
        }
        Ok(())
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
    let addr = policy.alloc(mem, new_size, align, block.arena, thread)?;
    // The copy reads the old block and writes the new one.
    mem.touch(addr, block.size.min(new_size))?;
    policy.free(mem, block, thread)?;
    Ok(addr)
}
