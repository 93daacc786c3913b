//! The rule behind each decision of the buddy, bump and pool families, as `heaplab
//! explain` words it: one test per "why", each on a small trace written here, each
//! asserting the whole line of the event.

mod common;

use common::heaplab;

/// The line `heaplab explain` prints for event `n` (from one) of `trace` under `policy`,
/// with any further flags.
fn line(name: &str, trace: &str, policy: &str, more: &[&str], n: usize) -> String {
    let dir = std::env::temp_dir().join(format!("heaplab-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.trace"));
    std::fs::write(&path, trace).unwrap();
    let mut args = vec!["explain", "-w", path.to_str().unwrap(), "-p", policy];
    args.extend_from_slice(more);
    let out = heaplab(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .nth(n - 1)
        .unwrap_or_else(|| panic!("no event {n} in:\n{text}"))
        .to_string()
}

// Buddy. Arenas of 64 KiB (16 B << 12) keep the lines short: two 5,000 B requests take
// the two 8 KiB blocks of order 9 at the arena's start, so freeing the first merges with
// nothing.
const BUDDY: &str = "buddy:max_order=12";
const TWO_BLOCKS: &str = "a 1 5000\na 2 5000\nf 1\nf 2\n";

#[test]
fn buddy_says_a_freed_block_keeps_its_pages_while_decommit_merged_is_off() {
    assert_eq!(
        line("kept", TWO_BLOCKS, BUDDY, &[], 3),
        "event 3: f id 1: the free 8 KiB block at 0x100000000 keeps its pages committed: \
         decommit_merged is off, so freed memory stays until it is reused; page 0 stays \
         resident: nothing lives there, the policy keeps it; page 1 stays resident: nothing \
         lives there, the policy keeps it"
    );
}

#[test]
fn buddy_says_decommit_merged_gives_a_free_block_of_pages_back() {
    assert_eq!(
        line(
            "decommit",
            TWO_BLOCKS,
            "buddy:max_order=12,decommit_merged=true",
            &[],
            3
        ),
        "event 3: f id 1: decommit_merged: the free 8 KiB block at 0x100000000 spans whole \
         pages: its 8 KiB of committed pages are decommitted; decommit 8,192 B at 0x100000000 \
         (decommit_merged: a free block of a page or more)"
    );
}

#[test]
fn buddy_says_a_free_block_under_a_page_is_not_decommitted() {
    assert_eq!(
        line(
            "small",
            "a 1 48\na 2 48\nf 1\n",
            "buddy:max_order=12,decommit_merged=true",
            &[],
            3
        ),
        "event 3: f id 1: no decommit: the free 64 B block at 0x100000000 is smaller than a \
         page (4 KiB); decommit_merged gives back free blocks of a page or more; page 0 stays \
         resident: id 2 (48 B, allocated at event 2) still lives there"
    );
}

#[test]
fn buddy_says_when_memory_cannot_be_decommitted() {
    assert_eq!(
        line(
            "linear",
            TWO_BLOCKS,
            "buddy:max_order=12,decommit_merged=true",
            &["--provider", "wasm-linear"],
            3
        ),
        "event 3: f id 1: no decommit: decommit_merged is on, but this memory cannot be \
         decommitted, so the free 8 KiB block at 0x100000000 keeps its pages; page 0 stays \
         resident: nothing lives there, the policy keeps it; page 1 stays resident: nothing \
         lives there, the policy keeps it"
    );
}

#[test]
fn buddy_says_an_arena_merged_whole_stays_reserved() {
    // The second 8 KiB block merges with the first, and so on up to the whole arena;
    // with decommit_merged its pages go, the arena stays.
    assert_eq!(
        line(
            "whole",
            TWO_BLOCKS,
            "buddy:max_order=12,decommit_merged=true",
            &[],
            4
        ),
        "event 4: f id 2: merged with the buddy free block into 16,384 B at 0x100000000; \
         merged with the buddy free block into 32,768 B at 0x100000000; merged with the buddy \
         free block into 65,536 B at 0x100000000; decommit_merged: the free 64 KiB block at \
         0x100000000 spans whole pages: its 8 KiB of committed pages are decommitted; the \
         arena at 0x100000000 is one free block of 64 KiB again (max_order 12): it stays \
         reserved for later requests, as a buddy heap keeps its zone; decommit 8,192 B at \
         0x100002000 (decommit_merged: a free block of a page or more)"
    );
}

#[test]
fn buddy_says_why_a_new_arena_opens() {
    // Two 20,000 B requests take both 32 KiB halves of the first arena.
    assert_eq!(
        line("arena", "a 1 20000\na 2 20000\na 3 20000\n", BUDDY, &[], 3),
        "event 3: a 20,000 B (id 3): no free block of order 11 or above: a new arena of 64 KiB \
         (min_block 16 B << max_order 12), reserved whole and committed as its blocks are \
         used; reserve 65,536 B at 0x100010000; new arena of 65,536 B at 0x100010000; no free \
         block in order 11; halve the 65,536 B block at 0x100010000 1 time: 65,536 → 32,768 + \
         32,768; 32,768 B to id 3, the upper half of each halving stays free; commit 32,768 B \
         at 0x100010000 (first use); placed at 0x100010000"
    );
}

#[test]
fn buddy_says_why_a_block_is_mapped_on_its_own_and_released() {
    let trace = "a 1 100000\nf 1\n";
    assert_eq!(
        line("mapped", trace, BUDDY, &[], 1),
        "event 1: a 100,000 B (id 1): mapped on its own: 100,000 B with its header and \
         alignment is more than an arena of 64 KiB (min_block 16 B << max_order 12); reserve \
         102,400 B at 0x100000000; commit 102,400 B at 0x100000000; placed at 0x100000000"
    );
    assert_eq!(
        line("mapped", trace, BUDDY, &[], 2),
        "event 2: f id 1: release 102,400 B at 0x100000000 (a block mapped on its own goes \
         back when freed)"
    );
}

// Bump, with slabs from pages so that each slab is one reserve and one commit: 3,000 B
// requests fill a 4 KiB slab with 1,096 B left.
const THREE: &str = "a 1 3000\na 2 3000\na 3 3000\n";

#[test]
fn bump_says_why_a_slab_doubles() {
    assert_eq!(
        line("double", THREE, "bump:growth_every=2,backing=pages", &[], 3),
        "event 3: a 3,000 B (id 3): the unscoped arena's current slab has 1,096 B left, \
         3,000 B asked: slab 3 is 8 KiB (slab_size 4 KiB doubled once: it doubles every \
         growth_every 2 slabs), from the OS (backing = pages); reserve 8,192 B at 0x100002000; \
         commit 8,192 B at 0x100002000; new slab of 8,192 B at 0x100002000; placed at \
         0x100002000"
    );
}

#[test]
fn bump_says_fixed_slabs_do_not_grow() {
    assert_eq!(
        line("fixed", THREE, "bump:growth=fixed,backing=pages", &[], 3),
        "event 3: a 3,000 B (id 3): the unscoped arena's current slab has 1,096 B left, \
         3,000 B asked: slab 3 is 4 KiB (slab_size 4 KiB, growth = fixed), from the OS \
         (backing = pages); reserve 4,096 B at 0x100002000; commit 4,096 B at 0x100002000; new \
         slab of 4,096 B at 0x100002000; placed at 0x100002000"
    );
}

#[test]
fn bump_says_a_slab_stretches_to_a_request_under_custom_threshold() {
    assert_eq!(
        line(
            "stretch",
            "a 1 10000\n",
            "bump:custom_threshold=64K,backing=pages",
            &[],
            1
        ),
        "event 1: a 10,000 B (id 1): the unscoped arena has no slab yet: slab 1 is 4 KiB \
         (slab_size 4 KiB not doubled yet: it doubles every growth_every 128 slabs), stretched \
         to the request's 10,015 B with alignment padding, from the OS (backing = pages); \
         reserve 12,288 B at 0x100000000; commit 12,288 B at 0x100000000; new slab of 12,288 B \
         at 0x100000000; placed at 0x100000000"
    );
}

#[test]
fn bump_says_a_large_request_gets_a_slab_of_its_own_from_the_heap() {
    assert_eq!(
        line("custom", "a 1 100\na 2 9000\n", "bump", &[], 2),
        "event 2: a 9,000 B (id 2): a slab of its own: 9,000 B with alignment padding is \
         9,015 B > custom_threshold 4 KiB, from the general heap (backing = heap); no free \
         block in bin 108; split the 135,144 B top: 9,024 B to id 2, 126,120 B \
         stays top; new slab of 9,015 B at 0x100001020; placed at 0x100001020"
    );
}

// An arena of three slabs and one of its own, reset and dropped.
const ARENA: &str = "arena 1\na 1 3000 arena=1\na 2 3000 arena=1\na 3 3000 arena=1\n\
                     a 4 9000 arena=1\nf 2\nreset 1\na 5 100 arena=1\ndrop 1\narena 2\ndrop 2\n";

#[test]
fn bump_says_a_single_free_waits_for_its_arena() {
    assert_eq!(
        line("free", ARENA, "bump:backing=pages", &[], 6),
        "event 6: f id 2: a bump arena frees no single block: its 3,000 B come back when arena \
         1 is reset or dropped; page 1 stays resident: nothing lives there, the policy keeps it"
    );
    // Outside any arena, nothing ever resets it.
    assert_eq!(
        line("unscoped", "a 1 100\nf 1\n", "bump", &[], 2),
        "event 2: f id 1: a bump arena frees no single block, and the unscoped arena is never \
         reset (unscoped = arena): its 100 B stay for the whole run; page 0 stays resident: \
         nothing lives there, the policy keeps it"
    );
}

#[test]
fn bump_says_a_reset_keeps_the_first_slab_and_gives_back_the_rest() {
    assert_eq!(
        line("reset", ARENA, "bump:backing=pages", &[], 7),
        "event 7: reset arena 1: reset of arena 1 keeps its first slab (4 KiB) for reuse, as \
         LLVM's Reset does; it gives back 2 slabs (8 KiB) and 1 slab of its own (12,288 B) to \
         the OS (backing = pages); release 4,096 B at 0x100001000 (the arena's slab goes back); \
         release 4,096 B at 0x100002000 (the arena's slab goes back); release 12,288 B at \
         0x100003000 (the arena's slab goes back)"
    );
    // From the heap, the slabs go back to it and its own rules follow.
    assert!(line("reset-heap", ARENA, "bump", &[], 7).starts_with(
        "event 7: reset arena 1: reset of arena 1 keeps its first slab (4 KiB) for reuse, as \
         LLVM's Reset does; it gives back 2 slabs (8 KiB) and 1 slab of its own (9,015 B) to \
         the general heap (backing = heap), whose own rules decide whether their pages go \
         back; kept in the free chunks;"
    ));
}

#[test]
fn bump_says_a_drop_gives_back_every_slab() {
    assert_eq!(
        line("drop", ARENA, "bump:backing=pages", &[], 9),
        "event 9: drop arena 1: drop of arena 1 gives back 1 slab (4 KiB) to the OS (backing = \
         pages); release 4,096 B at 0x100000000 (the arena's slab goes back)"
    );
    assert_eq!(
        line("drop-empty", ARENA, "bump:backing=pages", &[], 11),
        "event 11: drop arena 2: drop of arena 2 has nothing to give back"
    );
}

// Pool: chunks of two 32 B blocks.
const POOL: &str = "pool:blocks_per_chunk=2";
const BLOCKS: &str = "a 1 32\na 2 32\na 3 32\na 4 40\na 5 8 32\nf 1\nf 3\n";

#[test]
fn pool_says_why_a_chunk_is_added() {
    assert_eq!(
        line("chunk", BLOCKS, POOL, &[], 3),
        "event 3: a 32 B (id 3): the pool's one chunk has no free block: a new chunk of \
         blocks_per_chunk 2 × block_size 32 B = 64 B from the general heap; no free block in \
         the free chunks by size; split the 135,080 B top: 80 B to id 3, 135,000 B stays top; \
         new chunk of 64 B at 0x100000060; placed at 0x100000060"
    );
}

#[test]
fn pool_says_why_a_request_goes_to_the_heap() {
    assert_eq!(
        line("big", BLOCKS, POOL, &[], 4),
        "event 4: a 40 B (id 4): 40 B is more than block_size 32 B: to the general heap; no \
         free block in the free chunks by size; split the 135,000 B top: 48 B to id 4, \
         134,952 B stays top; placed at 0x1000000b0"
    );
    assert_eq!(
        line("aligned", BLOCKS, POOL, &[], 5),
        "event 5: a 8 B (id 5): alignment 32 is more than the blocks' 16 (block_size 32 B): \
         to the general heap; no free block in the free chunks by size; split the 134,952 B \
         top: 48 B to id 5, 134,904 B stays top; placed at 0x1000000e0"
    );
}

#[test]
fn pool_says_a_chunk_with_blocks_in_use_stays() {
    assert_eq!(
        line("stays", BLOCKS, POOL, &[], 6),
        "event 6: f id 1: kept on the free list of its chunk at 0x100000010, which stays with \
         1 of its 2 blocks in use; page 0 stays resident: id 2 (32 B, allocated at event 2) \
         still lives there"
    );
}

#[test]
fn pool_says_an_empty_chunk_goes_back_or_stays_by_free_empty_chunks() {
    assert_eq!(
        line("empty", BLOCKS, POOL, &[], 7),
        "event 7: f id 3: the chunk at 0x100000060 has no block in use: given back to the \
         general heap (free_empty_chunks = true); kept in the free chunks; page 0 stays \
         resident: id 2 (32 B, allocated at event 2) still lives there"
    );
    assert_eq!(
        line(
            "kept-empty",
            BLOCKS,
            "pool:blocks_per_chunk=2,free_empty_chunks=false",
            &[],
            7
        ),
        "event 7: f id 3: the chunk at 0x100000060 has no block in use but stays in the pool \
         for later requests (free_empty_chunks = false); page 0 stays resident: id 2 (32 B, \
         allocated at event 2) still lives there"
    );
}
