//! Tests of the buddy family's own mechanisms: index widths, orders and buddies, splits
//! and merges by hand, lazy commits and decommits, held pages, realloc in place, refused
//! commits, arenas reserved below others, headers, bad frees and random programs.

use super::params::PARAMS;
use super::*;
use crate::provider::{SimMode, SimProvider};
use serde_json::Value;

fn buddy(params: &[(&str, Value)], page: u64) -> Buddy {
    let given = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
    Buddy::new(&p, page).unwrap()
}

fn os(page: u64) -> Pages<SimProvider> {
    Pages::new(SimProvider::new(SimMode::Os, page))
}

fn block(addr: Addr, size: u64) -> Block {
    Block {
        addr,
        size,
        arena: None,
    }
}

fn free_list(b: &Buddy) -> Vec<(u64, u32)> {
    let base = *b.arenas.first().unwrap();
    let mut v: Vec<(u64, u32)> = b.free_blocks().map(|(a, k)| (a - base, k)).collect();
    v.sort_unstable();
    v
}

#[test]
fn block_indices_fit_the_target_or_the_arena_is_refused() {
    // wasm32: four arenas of 2^30 smallest blocks use every index bit, a fifth is one
    // too many; 64-bit targets never get there.
    assert!(indices_fit(4, 30, 32));
    assert!(!indices_fit(5, 30, 32));
    assert!(indices_fit(1 << 34, 30, 64));
}

#[test]
fn orders_and_buddies_follow_the_address_bits() {
    let b = buddy(&[("min_block", 16.into()), ("max_order", 10.into())], 4096);
    assert_eq!(b.arena_size, 16 << 10);
    assert_eq!(
        [1, 16, 17, 32, 33, 100, 16384].map(|n| b.order_for(b.need(n, 1))),
        [0, 0, 1, 1, 2, 3, 10]
    );
    // An alignment above the size asks for a block as large as the alignment.
    assert_eq!(b.order_for(b.need(8, 256)), 4);
    let base = 1 << 32;
    assert_eq!(b.buddy_of(base, 0), base + 16);
    assert_eq!(b.buddy_of(base + 16, 0), base);
    assert_eq!(b.buddy_of(base + 64, 2), base);
    assert_eq!(b.buddy_of(base + 192, 2), base + 128);
    assert_eq!(b.buddy_of(base + 8192, 9), base);
}

#[test]
fn split_on_alloc_and_merge_on_free_by_hand() {
    let mut mem = os(4096);
    let mut b = buddy(&[("min_block", 16.into()), ("max_order", 8.into())], 4096);
    // Arena of 4 KiB. A 16-byte request splits it down to order 0.
    let a = b.alloc(&mut mem, 10, 8, None, 0).unwrap();
    let base = *b.arenas.first().unwrap();
    assert_eq!(a, base);
    assert_eq!(
        free_list(&b),
        [
            (16, 0),
            (32, 1),
            (64, 2),
            (128, 3),
            (256, 4),
            (512, 5),
            (1024, 6),
            (2048, 7)
        ]
    );
    // A 40-byte request takes the order-2 block at 64; its buddy at 0 is split.
    let c = b.alloc(&mut mem, 40, 8, None, 0).unwrap();
    assert_eq!(c - base, 64);
    let d = b.alloc(&mut mem, 16, 8, None, 0).unwrap();
    assert_eq!(d - base, 16);
    b.check_invariants(&mem).unwrap();
    // Freeing 0 cannot merge (16 is live); freeing 16 merges 0+16 and 32 into order 2,
    // which cannot merge with the live 64.
    b.free(&mut mem, block(a, 10), 0).unwrap();
    assert!(free_list(&b).contains(&(0, 0)));
    b.free(&mut mem, block(d, 16), 0).unwrap();
    assert_eq!(
        free_list(&b),
        [(0, 2), (128, 3), (256, 4), (512, 5), (1024, 6), (2048, 7)]
    );
    b.check_invariants(&mem).unwrap();
    // Freeing the last block merges everything back into one arena-sized block.
    b.free(&mut mem, block(c, 40), 0).unwrap();
    assert_eq!(free_list(&b), [(0, 8)]);
    b.check_invariants(&mem).unwrap();
    assert!(b.free(&mut mem, block(c, 40), 0).is_err());
}

#[test]
fn pages_are_committed_lazily_and_decommitted_when_merged() {
    let mut mem = os(4096);
    let mut b = buddy(
        &[
            ("min_block", 64.into()),
            ("max_order", 12.into()),
            ("decommit_merged", true.into()),
        ],
        4096,
    );
    let small = b.alloc(&mut mem, 100, 16, None, 0).unwrap();
    assert_eq!(mem.stats().committed_pages.current, 1);
    let big = b.alloc(&mut mem, 20_000, 16, None, 0).unwrap();
    // 20 000 bytes take a 32 KiB block: its 8 pages are committed.
    assert_eq!(big % 32768, 0);
    assert_eq!(mem.stats().committed_pages.current, 9);
    b.check_invariants(&mem).unwrap();
    b.free(&mut mem, block(big, 20_000), 0).unwrap();
    assert_eq!(mem.stats().committed_pages.current, 1);
    b.check_invariants(&mem).unwrap();
    // The small block's page merges back into a free page-or-larger block and goes too.
    b.free(&mut mem, block(small, 100), 0).unwrap();
    assert_eq!(mem.stats().committed_pages.current, 0);
    b.check_invariants(&mem).unwrap();
    // Larger than the 256 KiB arena: a mapping of its own, released on free.
    let huge = b.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
    assert_eq!(b.mapped.len(), 1);
    b.free(&mut mem, block(huge, 300_000), 0).unwrap();
    assert!(b.mapped.is_empty());
    assert_eq!(mem.stats().committed_pages.current, 0);
}

#[test]
fn pages_recorded_held_are_committed_and_resident() {
    let mut mem = os(4096);
    let mut b = buddy(&[("min_block", 16.into()), ("max_order", 12.into())], 4096);
    let a = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
    let c = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
    // Freeing writes a link into a committed page, which is then resident; the two
    // blocks merge back into the arena's block, whose link goes in the same page.
    b.free(&mut mem, block(a, 16), 0).unwrap();
    b.free(&mut mem, block(c, 16), 0).unwrap();
    assert!(b.held.contains(b.start_index(a).unwrap()));
    b.check_invariants(&mem).unwrap();
    // A page decommitted behind the heap's back, with no live block in it, is caught by
    // the scan of the pages recorded held.
    mem.decommit(a & !4095, 4096).unwrap();
    let e = b.check_invariants(&mem).unwrap_err();
    assert!(e.contains("recorded held"), "{e}");
}

#[test]
fn realloc_stays_in_place_and_gives_back_what_it_no_longer_needs() {
    let mut mem = os(4096);
    let mut b = buddy(&[("max_order", 10.into())], 4096);
    let a = b.alloc(&mut mem, 1000, 16, None, 0).unwrap();
    assert_eq!(b.live_block(a).unwrap().order, 6);
    assert_eq!(b.realloc(&mut mem, block(a, 1000), 1024, 16, 0), Ok(a));
    assert_eq!(b.realloc(&mut mem, block(a, 1024), 100, 16, 0), Ok(a));
    assert_eq!(b.live_block(a).unwrap().order, 3);
    b.check_invariants(&mem).unwrap();
    // Growing past the block moves it.
    let moved = b.realloc(&mut mem, block(a, 100), 5000, 16, 0).unwrap();
    assert_ne!(moved, a);
    b.check_invariants(&mem).unwrap();
}

#[test]
fn a_refused_commit_leaves_the_free_lists_as_they_were() {
    let mut mem = os(4096);
    let mut b = buddy(&[], 4096);
    mem.provider_mut().fail_commit_at(1);
    assert!(matches!(
        b.alloc(&mut mem, 64, 16, None, 0),
        Err(AllocError::OutOfMemory(_))
    ));
    b.check_invariants(&mem).unwrap();
    assert_eq!(free_list(&b), [(0, 22)]);
    assert!(b.alloc(&mut mem, 64, 16, None, 0).is_ok());
    b.check_invariants(&mem).unwrap();
}

#[test]
fn an_arena_below_the_others_keeps_the_lowest_address_first() {
    let mut mem = os(4096);
    let mut b = buddy(&[("min_block", 16.into()), ("max_order", 8.into())], 4096);
    // A mapping of its own comes first and leaves a hole below the first arena.
    let huge = b.alloc(&mut mem, 3 * 4096, 16, None, 0).unwrap();
    let whole = b.alloc(&mut mem, 4096, 16, None, 0).unwrap();
    b.free(&mut mem, block(huge, 3 * 4096), 0).unwrap();
    // The next arena lands in the hole, below the first one.
    let next = b.alloc(&mut mem, 4096, 16, None, 0).unwrap();
    assert!(next < whole);
    b.check_invariants(&mem).unwrap();
    b.free(&mut mem, block(whole, 4096), 0).unwrap();
    b.check_invariants(&mem).unwrap();
    // The only free block is the first arena's, so a small request splits it.
    let small = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
    assert_eq!(small, whole);
    b.free(&mut mem, block(small, 16), 0).unwrap();
    b.free(&mut mem, block(next, 4096), 0).unwrap();
    b.check_invariants(&mem).unwrap();
    // Both arenas are free: the lower one, opened second, is taken first.
    assert_eq!(b.alloc(&mut mem, 16, 16, None, 0).unwrap(), next);
    b.check_invariants(&mem).unwrap();
}

#[test]
fn headers_shift_the_payload_and_arenas_too_large_are_refused() {
    let mut mem = os(4096);
    let mut b = buddy(&[("header_size", 8.into())], 4096);
    let a = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
    assert_eq!(a % 16, 0);
    // 16 bytes after a 16-byte-aligned header slot need a 32-byte block.
    assert_eq!(b.live_block(a).unwrap().order, 1);
    let given = [("min_block", 4096), ("max_order", 30)]
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .into_iter()
        .collect();
    let p = Params::resolve(PARAMS, &given, "policy.params").unwrap();
    let e = Buddy::new(&p, 4096).unwrap_err();
    assert_eq!(e.field, "policy.params.max_order");
}

#[test]
fn frees_of_addresses_that_are_not_live_payloads_are_refused() {
    for header in [0u64, 8] {
        let mut mem = os(4096);
        let mut b = buddy(
            &[
                ("min_block", 16.into()),
                ("max_order", 10.into()),
                ("header_size", header.into()),
            ],
            4096,
        );
        let a = b.alloc(&mut mem, 100, 16, None, 0).unwrap();
        let c = b.alloc(&mut mem, 16, 16, None, 0).unwrap();
        let base = *b.arenas.first().unwrap();
        // Inside a live block, past the payload, a free block's start, no arena at all.
        for addr in [a + 16, a + 1, c + 16, base + 4096, base - 4096, 0] {
            assert!(
                matches!(
                    b.free(&mut mem, block(addr, 1), 0),
                    Err(AllocError::Invalid(_))
                ),
                "header {header}: free of {:#x}",
                addr.wrapping_sub(base)
            );
            b.check_invariants(&mem).unwrap();
        }
        assert_eq!(b.live_blocks, 2);
        b.free(&mut mem, block(c, 16), 0).unwrap();
        assert!(b.free(&mut mem, block(c, 16), 0).is_err(), "a double free");
        b.free(&mut mem, block(a, 100), 0).unwrap();
        b.check_invariants(&mem).unwrap();
        assert_eq!(free_list(&b), [(0, 10)]);
    }
}

#[test]
fn random_programs_keep_the_structures_consistent_in_arenas_of_any_size() {
    // Arenas smaller than a word of the start bitmap, of one word, and of many; with
    // and without a header; checked after every operation against the blocks held.
    for (max_order, header) in [(2u32, 0u64), (3, 8), (6, 0), (9, 24), (12, 0)] {
        let mut mem = os(4096);
        let mut b = buddy(
            &[
                ("min_block", 16.into()),
                ("max_order", max_order.into()),
                ("header_size", header.into()),
            ],
            4096,
        );
        let mut held: Vec<(Addr, u64)> = Vec::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D ^ u64::from(max_order);
        for _ in 0..3_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let size = 1 + x % (16 << max_order.min(8));
            if held.is_empty() || x % 5 < 3 {
                let a = b.alloc(&mut mem, size, 16, None, 0).unwrap();
                held.push((a, size));
            } else {
                let (a, size) = held.swap_remove((x >> 20) as usize % held.len());
                if x.is_multiple_of(7) {
                    let moved = b.realloc(&mut mem, block(a, size), size / 2 + 1, 16, 0);
                    held.push((moved.unwrap(), size / 2 + 1));
                } else {
                    b.free(&mut mem, block(a, size), 0).unwrap();
                }
            }
            b.check_invariants(&mem).unwrap();
            let in_arenas = held.iter().filter(|h| !b.mapped.contains_key(&h.0));
            assert_eq!(b.live_blocks, in_arenas.count() as u64);
        }
        for (a, size) in held.drain(..) {
            b.free(&mut mem, block(a, size), 0).unwrap();
        }
        b.check_invariants(&mem).unwrap();
        assert!(free_list(&b).iter().all(|&(_, k)| k == max_order));
    }
}
