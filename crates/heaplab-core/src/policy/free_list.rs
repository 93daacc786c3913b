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

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::FxHashMap;

mod fit_tree;
use fit_tree::FitTree;

use super::{check_align, check_size, AllocError, Block, FamilySpec, Policy};
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamKind, ParamSpec, Params};
use crate::provider::{Addr, PageProvider};

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
    },
    ParamSpec {
        name: "coalesce",
        kind: ParamKind::Bool,
        default: "true",
        unit: "",
        doc: "Merge a freed chunk with free neighbours and with the top of the heap.",
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
    },
    ParamSpec {
        name: "dynamic_mmap_threshold",
        kind: ParamKind::Bool,
        default: "false",
        unit: "",
        doc: "Raise the mmap threshold to the size of each mapped block freed (up to 32 MiB) and \
              the trim threshold to twice that, as glibc does since 2.7.",
    },
    ParamSpec {
        name: "release_free_pages",
        kind: ParamKind::Choice(&["never", "immediate", "delay"]),
        default: "never",
        unit: "",
        doc: "Whether whole pages inside free chunks go back to the OS (madvise-style): never \
              (dlmalloc, glibc without malloc_trim), at once, or after `release_delay` events if \
              the chunk is still free (jemalloc's decay, roughly).",
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

/// A chunk header, kept out of band. `prev` is the chunk just below (0 for a segment's
/// first chunk): the boundary tag that makes coalescing with the lower neighbour O(1).
#[derive(Clone, Copy, Debug)]
struct Chunk {
    size: u64,
    prev: Addr,
    free: bool,
}

#[derive(Clone, Copy, Debug)]
struct Segment {
    base: Addr,
    end: Addr,
    /// Where the first chunk starts: far enough into the segment that payloads align.
    first: Addr,
    /// The top chunk, from here to `end`, is not in the chunk map.
    top: Addr,
    /// Pages below this are committed; the break of a `brk` heap.
    committed_end: Addr,
    /// The chunk just below the top, 0 if none.
    last: Addr,
}

/// A dlmalloc/glibc-style heap.
#[derive(Debug)]
pub struct FreeList {
    fit: Fit,
    coalesce: bool,
    header: u64,
    align: u64,
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
    chunks: FxHashMap<Addr, Chunk>,
    /// Free chunks by size, then a tie-break (0 for best fit, so address order; the
    /// order of freeing for bins), then address.
    by_size: BTreeSet<(u64, u64, Addr)>,
    /// Under bins: each free chunk's tie-break, and the next one to hand out.
    bin_order: FxHashMap<Addr, u64>,
    next_order: u64,
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
    /// Each thread's cache: chunk addresses per exact chunk size, newest last.
    tcache: FxHashMap<u32, FxHashMap<u64, Vec<Addr>>>,
    /// Largest chunk size the fast bins take; 0 when they are off.
    fast_max_chunk: u64,
    /// Fast bins: chunk addresses per exact chunk size, newest last. One set for the heap,
    /// shared by every thread, as one glibc arena's.
    fastbins: FxHashMap<u64, Vec<Addr>>,
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
        let mut heap = FreeList {
            fit,
            coalesce: params.bool("coalesce"),
            header,
            align,
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
            chunks: FxHashMap::default(),
            by_size: BTreeSet::new(),
            bin_order: FxHashMap::default(),
            next_order: 0,
            by_addr: FitTree::new(),
            rover: 0,
            segments: Vec::new(),
            mapped: FxHashMap::default(),
            shifted: FxHashMap::default(),
            live_chunks: 0,
            tcache_count: params.u64("tcache_count") as usize,
            tcache_max_chunk: 0,
            tcache: FxHashMap::default(),
            fast_max_chunk: 0,
            fastbins: FxHashMap::default(),
            fast_chunks: 0,
        };
        if params.u64("fastbin_max") > 0 {
            heap.fast_max_chunk = heap.chunk_size(params.u64("fastbin_max"));
        }
        if heap.tcache_count > 0 {
            heap.tcache_max_chunk = heap.chunk_size(params.u64("tcache_max"));
        }
        Ok(heap)
    }

    /// Takes a chunk of exactly `csize` bytes from `thread`'s cache, if it holds one.
    #[inline]
    fn tcache_take(&mut self, thread: u32, csize: u64) -> Option<Addr> {
        if csize > self.tcache_max_chunk {
            return None;
        }
        self.tcache.get_mut(&thread)?.get_mut(&csize)?.pop()
    }

    /// Takes a chunk of exactly `csize` bytes from the fast bins, if they hold one.
    #[inline]
    fn fast_take(&mut self, csize: u64) -> Option<Addr> {
        if csize > self.fast_max_chunk {
            return None;
        }
        let c = self.fastbins.get_mut(&csize)?.pop()?;
        self.fast_chunks -= 1;
        Some(c)
    }

    /// Frees every chunk in the fast bins into the heap, coalescing it with its free
    /// neighbours and the top: glibc's `malloc_consolidate`.
    #[cold]
    fn consolidate<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<(), AllocError> {
        if self.fast_chunks == 0 {
            return Ok(());
        }
        // Emptied first, so the frees below never consolidate again.
        let mut chunks: Vec<Addr> = std::mem::take(&mut self.fastbins)
            .into_values()
            .flatten()
            .collect();
        self.fast_chunks = 0;
        // Address order, so the result does not depend on the hash map's order.
        chunks.sort_unstable();
        for c in chunks {
            self.release_chunk(mem, c)?;
        }
        Ok(())
    }

    /// Puts a chunk the program freed into `thread`'s cache if its bin has room. The chunk
    /// stays in use as far as the heap is concerned: no coalescing, no trimming past it.
    fn tcache_put(&mut self, thread: u32, c: Addr, csize: u64) -> bool {
        if csize > self.tcache_max_chunk {
            return false;
        }
        let bin = self
            .tcache
            .entry(thread)
            .or_default()
            .entry(csize)
            .or_default();
        if bin.len() >= self.tcache_count {
            return false;
        }
        bin.push(c);
        true
    }

    /// The default configuration (dlmalloc/glibc-like), used as a parent heap by other
    /// families.
    pub fn with_defaults(page_size: u64) -> FreeList {
        let params = Params::resolve(PARAMS, &Default::default(), "free-list")
            .expect("free-list defaults are valid");
        FreeList::new(&params, page_size).expect("free-list defaults build")
    }

    fn chunk_size(&self, size: u64) -> u64 {
        (size + self.header)
            .next_multiple_of(self.align)
            .max(self.min_chunk)
    }

    fn insert_free(&mut self, addr: Addr, size: u64) {
        match self.fit {
            Fit::Best => {
                self.by_size.insert((size, 0, addr));
            }
            Fit::Bins => {
                self.next_order += 1;
                self.bin_order.insert(addr, self.next_order);
                self.by_size.insert((size, self.next_order, addr));
            }
            Fit::First | Fit::Next => self.by_addr.insert(addr, size),
        }
    }

    fn remove_free(&mut self, addr: Addr, size: u64) {
        match self.fit {
            Fit::Best => {
                self.by_size.remove(&(size, 0, addr));
            }
            Fit::Bins => {
                let order = self.bin_order.remove(&addr).unwrap_or_default();
                self.by_size.remove(&(size, order, addr));
            }
            Fit::First | Fit::Next => {
                self.by_addr.remove(addr);
            }
        }
    }

    fn segment_of(&self, addr: Addr) -> usize {
        self.segments
            .iter()
            .position(|s| addr >= s.base && addr < s.end)
            .expect("every chunk lies in a segment")
    }

    /// Finds and unlinks a free chunk of at least `csize` bytes: its address and size.
    fn take_fit(&mut self, csize: u64) -> Option<(Addr, u64)> {
        let (found, size) = match self.fit {
            // glibc's small bins hold one size each and large bins are sorted by size, so
            // both hand out the smallest chunk that fits; what sets bins apart from best
            // fit is which of several equal chunks goes first. The key holds the size, so
            // the chunk map is not asked.
            Fit::Best | Fit::Bins => self
                .by_size
                .range((csize, 0, 0)..)
                .next()
                .map(|&(size, _, a)| (a, size)),
            // The textbook policies walk an address-ordered list; the tree finds the same
            // chunk without the walk.
            Fit::First => self
                .by_addr
                .first_fit_from(0, csize)
                .map(|a| (a, self.chunks[&a].size)),
            Fit::Next => self
                .by_addr
                .first_fit_from(self.rover, csize)
                .or_else(|| self.by_addr.first_fit_from(0, csize))
                .map(|a| (a, self.chunks[&a].size)),
        }?;
        self.remove_free(found, size);
        self.rover = found;
        Some((found, size))
    }

    /// Allocates a chunk of `csize` bytes from the free structures or the top.
    fn alloc_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<Addr, AllocError> {
        if let Some((c, size)) = self.take_fit(csize) {
            self.ready(mem, c, csize)?;
            if size - csize >= self.min_chunk {
                self.split(mem, c, size, csize)?;
            }
            self.chunks.get_mut(&c).expect("fit is a chunk").free = false;
            self.live_chunks += 1;
            mem.touch(c, self.header)?;
            return Ok(c);
        }
        self.alloc_from_top(mem, csize)
    }

    /// Cuts chunk `c` of `size` bytes to `csize` bytes; the rest becomes a free chunk.
    fn split<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        c: Addr,
        size: u64,
        csize: u64,
    ) -> Result<(), AllocError> {
        let rest = c + csize;
        let rest_size = size - csize;
        self.ready(mem, rest, (self.header + 16).min(rest_size))?;
        self.chunks.get_mut(&c).expect("chunk").size = csize;
        self.chunks.insert(
            rest,
            Chunk {
                size: rest_size,
                prev: c,
                free: true,
            },
        );
        if let Some(next) = self.chunks.get_mut(&(rest + rest_size)) {
            next.prev = rest;
        }
        let seg = self.segment_of(c);
        if self.segments[seg].last == c {
            self.segments[seg].last = rest;
        }
        self.insert_free(rest, rest_size);
        // The remainder's header and free-list links are written into the heap.
        mem.touch(rest, (self.header + 16).min(rest_size))?;
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
        self.ready(mem, c, new_top.min(seg.committed_end).saturating_sub(c))?;
        if new_top > seg.committed_end {
            let want = (new_top + self.top_pad)
                .next_multiple_of(self.page)
                .min(seg.end);
            mem.commit(seg.committed_end, want - seg.committed_end)?;
            self.segments[i].committed_end = want;
        }
        self.chunks.insert(
            c,
            Chunk {
                size: csize,
                prev: seg.last,
                free: false,
            },
        );
        let s = &mut self.segments[i];
        s.last = c;
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
            last: 0,
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

    /// Frees chunk `c` (allocated, in the map): merges it and gives the top back if it grew
    /// past the trim threshold.
    fn release_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        c: Addr,
    ) -> Result<(), AllocError> {
        let chunk = self.chunks[&c];
        self.live_chunks -= 1;
        if !self.coalesce {
            self.chunks.get_mut(&c).expect("chunk").free = true;
            self.insert_free(c, chunk.size);
            mem.touch(c, (self.header + 16).min(chunk.size))?;
            return Ok(());
        }
        let seg = self.segment_of(c);
        let mut start = c;
        let mut size = chunk.size;
        let mut prev = chunk.prev;
        // One probe of the lower neighbour's tag answers both whether it is free and its size.
        let below = if prev != 0 {
            self.chunks.get(&prev).copied()
        } else {
            None
        };
        if let Some(p) = below.filter(|p| p.free) {
            self.remove_free(prev, p.size);
            self.chunks.remove(&c);
            start = prev;
            size += p.size;
            prev = p.prev;
        }
        let end = start + size;
        if end == self.segments[seg].top {
            // The chunk borders the top: it becomes part of it.
            self.chunks.remove(&start);
            let s = &mut self.segments[seg];
            s.top = start;
            s.last = prev;
            if self.header > 0 && start + self.header <= s.committed_end {
                mem.touch(start, self.header)?;
            }
            if s.committed_end - start >= FASTBIN_CONSOLIDATION_THRESHOLD {
                self.consolidate(mem)?;
            }
            return self.trim(mem, seg);
        }
        let next = self.chunks[&end];
        if next.free {
            self.remove_free(end, next.size);
            self.chunks.remove(&end);
            size += next.size;
        }
        self.chunks.insert(
            start,
            Chunk {
                size,
                prev,
                free: true,
            },
        );
        if let Some(after) = self.chunks.get_mut(&(start + size)) {
            after.prev = start;
        }
        let s = &mut self.segments[seg];
        if start + size == s.top {
            s.last = start;
        }
        self.insert_free(start, size);
        // Header and links at the front, the boundary tag at the back.
        mem.touch(start, (self.header + 16).min(size))?;
        mem.touch(start + size - 8, 8)?;
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

    /// The chunk of a live payload, and its size.
    fn chunk_of(&self, payload: Addr) -> Result<(Addr, u64), AllocError> {
        // Over-aligned blocks are rare, and an empty map needs no probe.
        let shifted = if self.shifted.is_empty() {
            None
        } else {
            self.shifted.get(&payload).copied()
        };
        let c = shifted.unwrap_or(payload.wrapping_sub(self.header));
        match self.chunks.get(&c) {
            Some(ch) if !ch.free => Ok((c, ch.size)),
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
            if let Some(c) = self.chunks.get(&start).copied() {
                if c.free {
                    self.purge(mem, start, c.size)?;
                }
            }
        }
        Ok(())
    }
}

impl Policy for FreeList {
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
            if let Some(c) = self
                .tcache_take(thread, csize)
                .or_else(|| self.fast_take(csize))
            {
                return Ok(c + self.header);
            }
            if csize >= MIN_LARGE_CHUNK {
                self.consolidate(mem)?;
            }
            return Ok(self.alloc_chunk(mem, csize)? + self.header);
        }
        // An over-aligned request takes a chunk with room to slide the payload forward; the
        // slack stays inside the chunk (dlmalloc would split it off, which we leave out).
        let c = self.alloc_chunk(mem, self.chunk_size(size + align))?;
        let payload = (c + self.header).next_multiple_of(align);
        if payload != c + self.header {
            self.shifted.insert(payload, c);
        }
        Ok(payload)
    }

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
        let (c, csize) = self.chunk_of(block.addr)?;
        let shifted = !self.shifted.is_empty() && self.shifted.remove(&block.addr).is_some();
        if !shifted {
            let cached = self.tcache_put(thread, c, csize);
            if cached || csize <= self.fast_max_chunk {
                if !cached {
                    self.fastbins.entry(csize).or_default().push(c);
                    self.fast_chunks += 1;
                }
                // glibc writes the bin's link into the chunk.
                mem.touch(block.addr, 16.min(csize - self.header))?;
                return Ok(());
            }
        }
        self.release_chunk(mem, c)
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
        let (c, _) = self.chunk_of(block.addr)?;
        let chunk = self.chunks[&c];
        if need <= chunk.size {
            if chunk.size - need >= self.min_chunk {
                // Shrink in place: the tail becomes a chunk of its own and is freed.
                let rest = c + need;
                self.chunks.get_mut(&c).expect("chunk").size = need;
                self.chunks.insert(
                    rest,
                    Chunk {
                        size: chunk.size - need,
                        prev: c,
                        free: false,
                    },
                );
                if let Some(after) = self.chunks.get_mut(&(c + chunk.size)) {
                    after.prev = rest;
                }
                let seg = self.segment_of(c);
                if self.segments[seg].last == c {
                    self.segments[seg].last = rest;
                }
                self.live_chunks += 1;
                self.release_chunk(mem, rest)?;
            }
            return Ok(block.addr);
        }
        let seg = self.segment_of(c);
        let end = c + chunk.size;
        let s = self.segments[seg];
        if end == s.top && c + need <= s.end {
            // Grow into the top chunk.
            let new_top = c + need;
            self.ready(mem, end, new_top.min(s.committed_end).saturating_sub(end))?;
            if new_top > s.committed_end {
                let want = (new_top + self.top_pad)
                    .next_multiple_of(self.page)
                    .min(s.end);
                mem.commit(s.committed_end, want - s.committed_end)?;
                self.segments[seg].committed_end = want;
            }
            self.chunks.get_mut(&c).expect("chunk").size = need;
            self.segments[seg].top = new_top;
            return Ok(block.addr);
        }
        if let Some(next) = self.chunks.get(&end).copied() {
            if next.free && chunk.size + next.size >= need {
                // Absorb the free neighbour, then give back what is left over.
                self.ready(mem, end, need - chunk.size)?;
                self.remove_free(end, next.size);
                self.chunks.remove(&end);
                let merged = chunk.size + next.size;
                self.chunks.get_mut(&c).expect("chunk").size = merged;
                if let Some(after) = self.chunks.get_mut(&(c + merged)) {
                    after.prev = c;
                }
                if self.segments[seg].last == end {
                    self.segments[seg].last = c;
                }
                if merged - need >= self.min_chunk {
                    self.split(mem, c, merged, need)?;
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
            let mut prev = 0;
            let mut prev_free = false;
            while a < s.top {
                let c = self
                    .chunks
                    .get(&a)
                    .ok_or_else(|| format!("no chunk at {a:#x} inside segment {i}"))?;
                if c.prev != prev {
                    return Err(format!(
                        "chunk {a:#x} says its lower neighbour is {:#x}, not {prev:#x}",
                        c.prev
                    ));
                }
                if c.size < self.min_chunk || c.size % self.align != 0 {
                    return Err(format!("chunk {a:#x} has a bad size {}", c.size));
                }
                let needs_all = !c.free || self.release == Release::Never;
                let ends_ok = mem.is_committed(a, (self.header + 16).min(c.size))
                    && mem.is_committed(a + c.size - 8, 8);
                if !ends_ok || (needs_all && !mem.is_committed(a, c.size)) {
                    return Err(format!("chunk {a:#x}+{} is not committed", c.size));
                }
                if c.free {
                    free += 1;
                    if self.coalesce && prev_free {
                        return Err(format!(
                            "free chunks at {prev:#x} and {a:#x} were not merged"
                        ));
                    }
                    let indexed = match self.fit {
                        Fit::Best => self.by_size.contains(&(c.size, 0, a)),
                        Fit::Bins => self
                            .bin_order
                            .get(&a)
                            .is_some_and(|&o| self.by_size.contains(&(c.size, o, a))),
                        _ => self.by_addr.contains(a, c.size),
                    };
                    if !indexed {
                        return Err(format!(
                            "free chunk {a:#x} is missing from the free structures"
                        ));
                    }
                } else {
                    live += 1;
                }
                prev_free = c.free;
                prev = a;
                a += c.size;
                seen += 1;
            }
            if a != s.top {
                return Err(format!("chunks of segment {i} overrun the top"));
            }
            if s.last != prev {
                return Err(format!(
                    "segment {i} thinks the chunk below the top is {:#x}, not {prev:#x}",
                    s.last
                ));
            }
        }
        if seen != self.chunks.len() {
            return Err(format!(
                "{} chunks in the map, {seen} in the segments",
                self.chunks.len()
            ));
        }
        let indexed = self.by_addr.len() + self.by_size.len();
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
        let mut cached = rustc_hash::FxHashSet::default();
        let mut fast = 0;
        for (&csize, bin) in &self.fastbins {
            if csize > self.fast_max_chunk {
                return Err(format!("fast bin {csize} is larger than the fast limit"));
            }
            for &c in bin {
                fast += 1;
                match self.chunks.get(&c) {
                    Some(ch) if !ch.free && ch.size == csize => {}
                    _ => {
                        return Err(format!(
                            "fast chunk {c:#x} is not an in-use chunk of {csize} bytes"
                        ))
                    }
                }
                if !cached.insert(c) {
                    return Err(format!("chunk {c:#x} is in a fast bin twice"));
                }
            }
        }
        if fast != self.fast_chunks {
            return Err(format!(
                "{fast} chunks in fast bins, counter says {}",
                self.fast_chunks
            ));
        }
        for (thread, bins) in &self.tcache {
            for (&csize, bin) in bins {
                if bin.len() > self.tcache_count || csize > self.tcache_max_chunk {
                    return Err(format!(
                        "thread {thread}'s cache bin {csize} is over its limits"
                    ));
                }
                for &c in bin {
                    match self.chunks.get(&c) {
                        Some(ch) if !ch.free && ch.size == csize => {}
                        _ => {
                            return Err(format!(
                                "cached chunk {c:#x} is not an in-use chunk of {csize} bytes"
                            ))
                        }
                    }
                    if !cached.insert(c) {
                        return Err(format!("chunk {c:#x} is cached twice"));
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
