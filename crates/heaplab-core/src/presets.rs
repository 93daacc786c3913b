//! Presets: named parameter sets that model real allocators and textbook policies.
//!
//! A preset is only a family and parameter values; everything it does comes from the
//! family's code. Each one says what it models, where its values come from and what it
//! leaves out, so nobody mistakes a model for the allocator itself. Users override any
//! value (`--policy glibc-like --set trim_threshold=1MiB`).

use serde::Serialize;

use crate::policy::Family;

/// A named configuration of one family.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PresetSpec {
    pub id: &'static str,
    pub family: Family,
    pub title: &'static str,
    /// What the preset models, in a paragraph.
    pub description: &'static str,
    /// Parameter values, written as a user would type them; the rest are the family's
    /// defaults.
    #[serde(serialize_with = "pairs_as_map")]
    pub params: &'static [(&'static str, &'static str)],
    /// What the real allocator does that the model does not.
    pub leaves_out: &'static str,
    /// Whether its figures have been checked against the allocator it models.
    pub calibration: Calibration,
}

/// What a preset's figures have been checked against. A model of a real allocator whose
/// memory at end has not been checked against that allocator, run on the same events and
/// the same clock, says so wherever its figures are shown: a delta against it is the
/// model's, not the allocator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Calibration {
    /// Checked against the real allocator on the same events and clock: which, where and
    /// how close (the same bounds and workloads as glibc-like's, unless it says otherwise).
    Checked(&'static str),
    /// Models this real allocator, but its figures have not been checked against it.
    Unchecked(&'static str),
    /// A textbook policy: no real allocator to check it against.
    Textbook,
}

/// The one line a table of runs prints when any of `ids` (preset ids, in column order;
/// other names are passed over) is an unchecked model of a real allocator, naming them.
pub fn uncalibrated_note<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut presets: Vec<(&str, &str)> = Vec::new();
    for p in ids.into_iter().filter_map(preset) {
        if let Calibration::Unchecked(real) = p.calibration {
            if !presets.iter().any(|(id, _)| *id == p.id) {
                presets.push((p.id, real));
            }
        }
    }
    if presets.is_empty() {
        return None;
    }
    let names: Vec<&str> = presets.iter().map(|(p, _)| *p).collect();
    let reals: Vec<&str> = presets.iter().map(|(_, r)| *r).collect();
    let (them, model) = if names.len() == 1 {
        ("it", "models")
    } else {
        ("them", "model")
    };
    Some(format!(
        "Uncalibrated: {} {model} {}, but {} memory at end has not been checked against {them} \
         on the same events and clock; read a delta as the model's, not the allocator's.",
        and_list(&names),
        and_list(&reals),
        if names.len() == 1 { "its" } else { "their" },
    ))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn pairs_as_map<S: serde::Serializer>(
    pairs: &&'static [(&'static str, &'static str)],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs.iter() {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// Every preset.
pub static PRESETS: &[PresetSpec] = &[
    PresetSpec {
        id: "glibc-like",
        family: Family::FreeList,
        title: "glibc malloc (ptmalloc2), main arena",
        description: "glibc's bins (the smallest free chunk that fits, the oldest of equal \
                      ones first) over boundary-tag chunks in a brk heap that only shrinks from \
                      the top, 128 KiB trim threshold and top pad, and requests from 128 KiB up \
                      mapped on their own with glibc's dynamic mmap threshold. Freed memory below \
                      a live block stays resident until malloc_trim, which is why a glibc program \
                      keeps its peak (scenarios S1 and S4).",
        params: &[
            ("fit", "bins"),
            ("coalesce", "true"),
            ("header_size", "8"),
            ("alignment", "16"),
            ("trim_threshold", "128KiB"),
            ("top_pad", "128KiB"),
            ("mmap_threshold", "128KiB"),
            ("dynamic_mmap_threshold", "true"),
            ("release_free_pages", "never"),
            ("tcache_count", "7"),
            ("tcache_max", "1032"),
            ("fastbin_max", "128"),
        ],
        leaves_out: "the unsorted bin's recency order and a large bin's habit of handing out \
                     the second of equal chunks; per-thread arenas and their heaps; \
                     malloc_trim's release of pages inside free chunks.",
        calibration: Calibration::Checked("glibc 2.36's malloc, by `heaplab fidelity` on the single-threaded MallocBench ports and the recorded traces: within 15% on peak and 25% at end"),
    },
    PresetSpec {
        id: "dlmalloc-like",
        family: Family::FreeList,
        title: "dlmalloc 2.8",
        description: "Doug Lea's allocator: exact small bins and best-fit tree bins (best fit \
                      here), 2 MiB trim threshold, no top pad, requests from 256 KiB up mapped \
                      on their own.",
        params: &[
            ("fit", "best"),
            ("coalesce", "true"),
            ("header_size", "8"),
            ("alignment", "16"),
            ("trim_threshold", "2MiB"),
            ("top_pad", "0"),
            ("mmap_threshold", "256KiB"),
            ("dynamic_mmap_threshold", "false"),
        ],
        leaves_out: "the designated victim (dv) chunk that serves runs of small requests; \
                     segment granularity of 64 KiB for system allocation.",
        calibration: Calibration::Unchecked("dlmalloc"),
    },
    PresetSpec {
        id: "first-fit",
        family: Family::FreeList,
        title: "Address-ordered first fit (textbook)",
        description: "The lowest-addressed free chunk that fits, with coalescing; no mapped \
                      large blocks. Johnstone and Wilson found it among the least fragmenting \
                      policies on real programs.",
        params: &[("fit", "first"), ("mmap_threshold", "0")],
        leaves_out: "nothing the textbook policy has; the list walk is modelled, not its cost.",
        calibration: Calibration::Textbook,
    },
    PresetSpec {
        id: "best-fit",
        family: Family::FreeList,
        title: "Best fit (textbook)",
        description: "The smallest free chunk that fits, ties broken by address, with \
                      coalescing; no mapped large blocks.",
        params: &[("fit", "best"), ("mmap_threshold", "0")],
        leaves_out: "nothing the textbook policy has.",
        calibration: Calibration::Textbook,
    },
    PresetSpec {
        id: "next-fit",
        family: Family::FreeList,
        title: "Next fit (textbook)",
        description: "First fit that starts where the last search ended (a roving pointer), \
                      with coalescing; known to scatter blocks and fragment more than first fit.",
        params: &[("fit", "next"), ("mmap_threshold", "0")],
        leaves_out: "nothing the textbook policy has.",
        calibration: Calibration::Textbook,
    },
    PresetSpec {
        id: "llvm-bump",
        family: Family::Bump,
        title: "LLVM BumpPtrAllocator",
        description: "4 KiB slabs from malloc, doubling every 128 slabs; allocations larger than \
                      the slab size get a custom-sized slab. Reset keeps the first slab.",
        params: &[
            ("slab_size", "4KiB"),
            ("growth", "double"),
            ("growth_every", "128"),
            ("custom_threshold", "4KiB"),
            ("backing", "heap"),
        ],
        leaves_out: "red zones and the allocator's own small-vector growth.",
        calibration: Calibration::Unchecked("LLVM's BumpPtrAllocator"),
    },
    PresetSpec {
        id: "segregated-storage",
        family: Family::SizeClass,
        title: "Simple segregated storage (textbook)",
        description: "Power-of-two size classes, each in its own pages, and memory never \
                      returned: the policy Johnstone and Wilson found to fragment badly \
                      because of rounding and of pages held by one class.",
        params: &[
            ("granularity", "8"),
            ("classes_per_doubling", "1"),
            ("page_size", "64KiB"),
            ("empty_pages", "keep"),
        ],
        leaves_out: "nothing the textbook policy has.",
        calibration: Calibration::Textbook,
    },
    PresetSpec {
        id: "mimalloc-like",
        family: Family::SizeClass,
        title: "mimalloc 3 (Linux)",
        description: "Per-thread heaps: blocks up to 10 KiB in 64 KiB pages, up to 80 KiB in \
                      512 KiB pages, up to 512 KiB in 4 MiB pages, larger ones alone, all cut \
                      from 32 MiB chunks of the arena; an 8-byte class, then about four \
                      classes per doubling. As on Linux, memory is committed whole and uses \
                      huge pages, the first chunk opening with the arena's metadata; a \
                      class's last page is kept for 16 collections once empty (4 above 10 KiB), and pages \
                      are purged one by one after mimalloc 3's 1 s delay, on the slow path. \
                      S3 sets it as on Windows: many small page calls, little memory held.",
        params: &[
            ("granularity", "16"),
            ("tiny_class", "true"),
            ("classes_per_doubling", "4"),
            ("page_size", "64KiB"),
            ("segment_size", "32MiB"),
            ("medium_page_size", "512KiB"),
            ("medium_pages_aligned", "true"),
            ("large_page_size", "4MiB"),
            ("page_min_blocks", "6"),
            ("large_threshold", "512KiB"),
            ("retire_cycles", "16"),
            ("min_extend", "1"),
            ("empty_pages", "delay"),
            ("decommit_delay", "1000"),
            ("decommit_ms", "1000"),
            ("purge_on", "slow-path"),
            ("commit_granularity", "4MiB"),
            ("decommit_granularity", "64KiB"),
            ("huge_pages", "true"),
            ("arena_metadata", "2112KiB"),
            ("heaps", "per-thread"),
            ("free_lists", "sharded"),
            ("thread_cache", "0"),
            ("share_small_large", "true"),
        ],
        leaves_out: "1 GiB arenas whose later 32 MiB chunks each keep one kind of page, \
                     the page info before a page's first block, page reset, abandoned \
                     pages, khugepaged, the collection every 10,000 generic allocations, \
                     and the order of a class's pages (a page that was full goes behind the \
                     others, and the fullest of four is picked). \
                     Purges run over the whole heap, not per arena. Without a clock its \
                     delay is 1,000 events.",
        calibration: Calibration::Checked(
            "mimalloc 3.3 as linked (THP `madvise`), as glibc-like: `heaplab fidelity`",
        ),
    },
    PresetSpec {
        id: "mimalloc2-like",
        family: Family::SizeClass,
        title: "mimalloc 2.0 (Debian's libmimalloc2.0)",
        description: "mimalloc-like without mimalloc 3's huge pages and arena, with 2.0's \
                      medium pages for blocks above 16 KiB, its page and span queues, and \
                      its delay: a segment's freed pages are decommitted together once its \
                      expiry passes, 25 ms after the first, 1 ms later for each page freed \
                      before then, and 25 ms after a page is committed in the same 1 MiB as \
                      a waiting one; checked when a page is taken from the segment, or \
                      freed there 1 ms or more after the expiry passed, so a program that \
                      stops calling keeps its freed pages.",
        // mimalloc-like's layout is the family's defaults; only what differs from them
        // is listed, so the two presets say their layout once. mimalloc-like's whole
        // segment commit, huge pages, arena metadata and page kinds are mimalloc 3's.
        params: &[
            ("tiny_class", "true"),
            ("segment_size", "32MiB"),
            ("medium_page_size", "512KiB"),
            ("empty_pages", "delay"),
            ("decommit_delay", "1000"),
            ("decommit_ms", "25"),
            ("purge_extend_ms", "1"),
            ("purge_on", "slow-path"),
            ("free_lists", "sharded"),
            ("retire_cycles", "9"),
            ("page_queues", "mimalloc2"),
            ("page_offset", "384"),
            ("commit_granularity", "1MiB"),
            ("decommit_granularity", "64KiB"),
        ],
        leaves_out: "The segment cache that holds a wholly free segment for another 500 ms; \
                     each segment's first 64 KiB, its own info; segments committed whole \
                     at first, where here a page commits its 1 MiB; and what mimalloc-like \
                     leaves out. Without a clock its delay is 1,000 events.",
        calibration: Calibration::Checked(
            "mimalloc 2.0 (Debian's libmimalloc2.0), as glibc-like: `heaplab fidelity`",
        ),
    },
    PresetSpec {
        id: "rpmalloc-like",
        family: Family::SizeClass,
        title: "rpmalloc",
        description: "Per-thread heaps of 64 KiB spans, mapped and committed in batches of 256 \
                      KiB, with empty spans kept in per-heap caches up to a segment, a thread \
                      cache of freed blocks, and freed large spans cached for reuse. Between mimalloc and snmalloc on page operations \
                      and commit in scenario S3.",
        params: &[
            ("granularity", "16"),
            ("classes_per_doubling", "4"),
            ("page_size", "64KiB"),
            ("segment_size", "4MiB"),
            ("large_threshold", "128KiB"),
            ("empty_pages", "cache"),
            ("cache_size", "0"),
            ("commit_granularity", "256KiB"),
            ("decommit_granularity", "1MiB"),
            ("heaps", "per-thread"),
            ("thread_cache", "64KiB"),
            ("share_small_large", "false"),
            ("large_free", "delay"),
        ],
        leaves_out: "the global span cache shared between threads, medium size classes of 512 \
                     bytes granularity, and large spans of several 64 KiB pages as one class.",
        calibration: Calibration::Unchecked("rpmalloc"),
    },
    PresetSpec {
        id: "snmalloc-like",
        family: Family::SizeClass,
        title: "snmalloc",
        description: "Per-thread allocators, each cutting its slabs from 16 MiB superslabs of \
                      its own that are committed 4 MiB at a time and given back only in whole \
                      4 MiB units after a long delay; freed large chunks are kept for reuse; \
                      cross-thread frees go back to their owner. The fewest page operations and \
                      the most commit in scenario S3.",
        params: &[
            ("granularity", "16"),
            ("classes_per_doubling", "4"),
            ("page_size", "64KiB"),
            ("segment_size", "16MiB"),
            ("large_threshold", "128KiB"),
            ("empty_pages", "delay"),
            ("decommit_delay", "100000"),
            ("commit_granularity", "4MiB"),
            ("decommit_granularity", "4MiB"),
            ("heaps", "per-thread"),
            ("thread_cache", "0"),
            ("share_small_large", "false"),
            ("large_free", "delay"),
        ],
        leaves_out: "its buddy-allocated backend ranges, slabs of varied sizes per class, and \
                     the remote-free batching.",
        calibration: Calibration::Unchecked("snmalloc"),
    },
    PresetSpec {
        id: "bmalloc-like",
        family: Family::SizeClass,
        title: "bmalloc (WebKit), small and large objects sharing memory",
        description: "Small objects in 16 KiB pages and large ones up to half a 1 MiB chunk \
                      carved from the same chunks, so pages freed by either go back to one pool \
                      and a chunk whose pages are all free is returned at once; the scavenger \
                      decommits empty pages after a delay. Turn `share_small_large` off for the \
                      design before the change of scenario S2.",
        params: &[
            ("granularity", "16"),
            ("classes_per_doubling", "4"),
            ("page_size", "16KiB"),
            ("segment_size", "1MiB"),
            ("large_threshold", "64KiB"),
            ("empty_pages", "delay"),
            ("decommit_delay", "10000"),
            ("heaps", "shared"),
            ("share_small_large", "true"),
            ("large_free", "delay"),
        ],
        leaves_out: "per-thread caches (bmalloc's Cache), the large-object free list's \
                     splitting by exact size, and the physical page map. The scavenger is a \
                     delay counted in events, and memory at end is read as the last free \
                     returns. MallocBench waits for resident memory to settle; waiting here \
                     would let the scavenger return the separate pools too, so scenario S2's \
                     finding rests on reading memory before the scavenger's delay is up.",
        calibration: Calibration::Unchecked("bmalloc"),
    },
    PresetSpec {
        id: "jemalloc-like",
        family: Family::SizeClass,
        title: "jemalloc 5.3",
        description: "Size classes four per doubling from 16 bytes, small slabs and large \
                      extents from one pool of the system's pages, a thread cache, and freed \
                      pages returned gradually (dirty-page decay): over 10 s along a smooth \
                      curve, so that half a span's pages are back after 5 s and all after 10 s. \
                      Until then a freed slab stays an extent of its own, freed large extents \
                      merge, and an extent is split only for a request at least 1/64 of its \
                      size, so small slabs often take fresh pages while freed ones wait.",
        params: &[
            ("granularity", "16"),
            ("tiny_class", "true"),
            ("classes_per_doubling", "4"),
            ("page_size", "0"),
            ("segment_size", "2MiB"),
            ("large_threshold", "16KiB"),
            ("empty_pages", "delay"),
            // jemalloc 5.3's `dirty_decay_ms` is 10 s and its `muzzy_decay_ms` 0
            // (arena_types.h, DIRTY_DECAY_MS_DEFAULT and MUZZY_DECAY_MS_DEFAULT), in the
            // 5.3.1 heaplab links and in Debian's libjemalloc2 (5.3.0) alike, as their
            // `stats_print` says: a page that decays is purged at once (MADV_DONTNEED), not
            // left lazily freed in between, so it leaves the resident set when it decays.
            ("decommit_delay", "10000"),
            ("decommit_ms", "10000"),
            ("decay", "smootherstep"),
            ("heaps", "shared"),
            ("thread_cache", "32KiB"),
            ("share_small_large", "true"),
            ("large_free", "delay"),
            ("dirty_max_fit", "64"),
        ],
        leaves_out: "multiple arenas; jemalloc's slab sizes (the least common multiple \
                     of block and page, where here a slab holds at least eight blocks); the \
                     page a large extent carries for cache-oblivious placement; extents \
                     reaching across the model's 2 MiB segments; the coalescing of freed \
                     slabs as they are purged; the \
                     random jitter of each epoch's end, and that jemalloc advances its \
                     epochs only on about one in 1,000 of its slow-path calls (tcache fills \
                     and flushes) where this model looks at every call. Without a clock its \
                     decay takes 10,000 events.",
        calibration: Calibration::Checked("jemalloc 5.3 as linked, as glibc-like: `heaplab fidelity`"),
    },
    PresetSpec {
        id: "buddy",
        family: Family::Buddy,
        title: "Binary buddy system (textbook)",
        description: "Power-of-two blocks split on demand and merged with their buddy on free, \
                      from 16 bytes up to 64 MiB arenas. Rounding to powers of two wastes up to \
                      half of each block; Johnstone and Wilson found it among the worst \
                      fragmenters on real programs.",
        params: &[
            ("min_block", "16"),
            ("max_order", "22"),
            ("header_size", "0"),
        ],
        leaves_out: "the per-block tag bits a real buddy system keeps in a header or bitmap.",
        calibration: Calibration::Textbook,
    },
    PresetSpec {
        id: "pike-block",
        family: Family::Pool,
        title: "Pike's block allocator for short strings",
        description: "Fixed 64-byte blocks in chunks of 64 (one 4 KiB page), for string headers \
                      with short contents right after them; longer requests go to malloc. Pike's \
                      string_alloc branch, scenario S5.",
        params: &[
            ("block_size", "64"),
            ("blocks_per_chunk", "64"),
            ("free_empty_chunks", "true"),
        ],
        leaves_out: "Pike's separate header and content allocations for long strings, and \
                     strings kept in the data section.",
        calibration: Calibration::Textbook,
    },
];

/// Looks a preset up by id.
pub fn preset(id: &str) -> Option<&'static PresetSpec> {
    PRESETS.iter().find(|p| p.id == id)
}

/// Where each preset's values come from, by preset id: kept apart from [`PRESETS`] so
/// that what lists presets for the page (titles, descriptions, values and what each leaves
/// out) does not carry the citations, which `heaplab policies --json` adds.
pub const SOURCES: &[(&str, &str)] = &[
    (
        "glibc-like",
        "mallopt(3): M_TRIM_THRESHOLD, M_TOP_PAD and M_MMAP_THRESHOLD default to \
         128*1024, the dynamic threshold rises to DEFAULT_MMAP_THRESHOLD_MAX (32 MiB on \
         64-bit); malloc.c: SIZE_SZ 8, MALLOC_ALIGNMENT 16, MINSIZE 32, \
         TCACHE_FILL_COUNT 7, tcache up to 1032-byte chunks, DEFAULT_MXFAST 128.",
    ),
    (
        "dlmalloc-like",
        "malloc.c 2.8.6: DEFAULT_TRIM_THRESHOLD 2 MB, DEFAULT_MMAP_THRESHOLD 256 KB, \
         DEFAULT_GRANULARITY 64 KB.",
    ),
    (
        "first-fit",
        "Johnstone & Wilson, The Memory Fragmentation Problem: Solved? (ISMM 1998).",
    ),
    (
        "best-fit",
        "Knuth, TAOCP vol. 1, 2.5; Shore 1975 on first fit versus best fit.",
    ),
    (
        "next-fit",
        "Knuth, TAOCP vol. 1, 2.5, exercise 6; Johnstone & Wilson 1998.",
    ),
    (
        "llvm-bump",
        "llvm/Support/Allocator.h: SlabSize 4096, SizeThreshold = SlabSize, \
         GrowthDelay 128, computeSlabSize.",
    ),
    (
        "segregated-storage",
        "Wilson, Johnstone, Neely & Boles, Dynamic Storage Allocation: A Survey and \
         Critical Review (1995), section 3.6.",
    ),
    (
        "mimalloc-like",
        "mimalloc 3.3 (the version libmimalloc-sys 0.1.49 builds): purge_delay 1000 \
         ms (options.c), scheduled per arena and carried out by \
         `_mi_arenas_collect` when a page is freed or abandoned (arena.c, page.c); \
         MI_SMALL_MAX_OBJ_SIZE, MI_MEDIUM_MAX_OBJ_SIZE, MI_LARGE_PAGE_SIZE and \
         MI_LARGE_MAX_OBJ_SIZE (types.h), pages and singletons cut from the \
         arena's 32 MiB chunks (arena.c `_mi_arenas_page_alloc`), a medium page at \
         a whole byte of the chunk's bitmap (bitmap.c); 33 slices of \
         arena info (arena.c `mi_arena_info_slices_needed`); retired pages, \
         MI_RETIRE_CYCLES 16 (page.c `_mi_page_retire`); bins of one word, \
         then double words (page-queue.c `mi_bin`); sharded free lists (page.c); \
         arenas committed where the system overcommits (arena_eager_commit 2) \
         and advised `MADV_HUGEPAGE` (allow_thp); LLVM review D71786 for Windows.",
    ),
    (
        "mimalloc2-like",
        "mimalloc 2.0.9 (Debian 12's libmimalloc2.0): decommit_delay 25 ms \
         and large_os_pages 0, so no `MADV_HUGEPAGE` (options.c); 32 MiB segments \
         (MI_SEGMENT_SHIFT, 9 + the 64 KiB slice's 16), MI_SMALL_OBJ_SIZE_MAX 16 KiB (a quarter of a 64 KiB page) and \
         MI_MEDIUM_PAGE_SIZE 512 KiB (mimalloc-types.h), chosen by block size in \
         segment.c `mi_segment_page_alloc`; the delay is checked when a span of pages is freed to its \
         segment (segment.c `mi_segment_perhaps_decommit` from \
         `mi_segment_span_free`) and when a page is allocated from one \
         (`mi_segments_page_alloc`), never on the malloc and free fast paths; one \
         expiry per segment, pushed back by decommit_extend_delay (1 ms) at each \
         further span freed before it runs out; MI_RETIRE_CYCLES 8, a page retired for \
         1 + 8 collections (1 + 2 for medium blocks, none above) made only before a \
         fresh page (page.c `_mi_page_retire`, `mi_page_queue_find_free_ex`); page \
         and span queue order (page-queue.c, segment.c `mi_span_queue_push`); \
         start_offset 384 B (segment.c); MI_MINIMAL_COMMIT_SIZE 1 MiB.",
    ),
    (
        "rpmalloc-like",
        "rpmalloc.c: SPAN_DEFAULT_SIZE 64 KiB, SMALL_GRANULARITY 16, span_map_count \
         batches, thread span caches; LLVM review D71786 for the measured ordering.",
    ),
    (
        "snmalloc-like",
        "snmalloc 1: size classes with two mantissa bits (four per doubling), 16 MiB \
         superslabs of 64 KiB slabs, message-passing remote frees; LLVM review D71786 \
         and rpmalloc's issue thread on peak commit for its large, rare commits. The \
         4 MiB commit unit is not snmalloc's own constant: the thread reports that \
         snmalloc commits much larger ranges than the others, not their size, and \
         4 MiB reproduces its ordering.",
    ),
    (
        "bmalloc-like",
        "bmalloc: chunkSize 1 MiB, smallPageSize 16 KiB, the scavenger's delayed \
         decommit; WebKit bug 172880 for the sharing change.",
    ),
    (
        "jemalloc-like",
        "jemalloc 5.3 (Debian 12's libjemalloc2 5.3.0; tikv-jemalloc-sys 0.7 \
         bundles 5.3.1): LG_QUANTUM 4 after an 8-byte tiny class (SC_LG_TINY_MIN 3), four \
         size classes per doubling, \
         SC_LARGE_MINCLASS 16 KiB, tcache; DIRTY_DECAY_MS_DEFAULT 10 s and \
         MUZZY_DECAY_MS_DEFAULT 0 (arena_types.h), so decayed pages are purged \
         outright; the decay's 200 epochs and smoother-step curve (smoothstep.h, \
         decay.c `decay_backlog_npages_limit`).",
    ),
    (
        "buddy",
        "Knowlton 1965; Knuth, TAOCP vol. 1, 2.5; Johnstone & Wilson 1998.",
    ),
    (
        "pike-block",
        "Pike mailing list, August 2014 (the string_alloc branch): short strings (up \
         to the length of the header) in the block allocator, other content in malloc; \
         a 32-byte header plus up to 31 characters and the terminator fills 64 bytes.",
    ),
];

/// Where preset `id`'s values come from ("" for an id that is not a preset's).
pub fn sources(id: &str) -> &'static str {
    SOURCES
        .iter()
        .find(|(p, _)| *p == id)
        .map_or("", |(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;

    /// Every preset cites its sources, once, and nothing else is cited.
    #[test]
    fn every_preset_has_its_sources_and_only_presets_do() {
        assert_eq!(SOURCES.len(), PRESETS.len());
        for p in PRESETS {
            assert!(sources(p.id).len() > 20, "{}: {:?}", p.id, sources(p.id));
            assert_eq!(
                SOURCES.iter().filter(|(id, _)| *id == p.id).count(),
                1,
                "{}",
                p.id
            );
        }
        assert_eq!(sources("no-such-preset"), "");
    }

    #[test]
    fn an_unchecked_model_is_named_once_and_a_checked_one_not_at_all() {
        let checked = [
            "glibc-like",
            "mimalloc-like",
            "mimalloc2-like",
            "jemalloc-like",
        ];
        assert_eq!(uncalibrated_note(checked), None);
        assert_eq!(uncalibrated_note(["glibc-like", "best-fit", "buddy"]), None);
        assert_eq!(
            uncalibrated_note(["glibc-like", "rpmalloc-like", "size-class"]).unwrap(),
            "Uncalibrated: rpmalloc-like models rpmalloc, but its memory at end has not been \
             checked against it on the same events and clock; read a delta as the model's, \
             not the allocator's."
        );
        let both = uncalibrated_note(["rpmalloc-like", "snmalloc-like", "rpmalloc-like"]);
        assert!(both.unwrap().starts_with(
            "Uncalibrated: rpmalloc-like and snmalloc-like model rpmalloc and snmalloc, \
                 but their memory at end has not been checked against them"
        ));
    }

    #[test]
    fn every_preset_resolves_with_its_own_values() {
        for p in PRESETS {
            let mut c = RunConfig::new("churn", "");
            c.policy.preset = Some(p.id.into());
            c.policy.family = String::new();
            let r = c.resolve().unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!(r.policy.family, p.family.id());
            assert!(
                !p.description.is_empty() && !sources(p.id).is_empty() && !p.leaves_out.is_empty()
            );
            let family = p.family.spec();
            for (k, v) in p.params {
                let spec = family.params.iter().find(|s| s.name == *k).unwrap();
                let want = serde_json::to_value(spec.parse_text(v).unwrap()).unwrap();
                assert_eq!(r.policy.params[*k], want, "{} {k}", p.id);
            }
        }
    }
}
