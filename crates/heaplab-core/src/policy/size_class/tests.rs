//! Tests of the size-class family's own mechanisms: exact division by reciprocals, class
//! spacing, remote frees, thread caches, commit units, the large free list, per-thread
//! segments, shared pages, the span cache, delays counted in time, checked on the slow
//! path, or run out along jemalloc's decay curve, and resident runs split only for the
//! requests they fit.

use super::params::PARAMS;
use super::spans::Span;
use super::*;
use crate::clock::Now;

#[test]
fn index_of_divides_exactly() {
    let mut blocks: Vec<u64> = class_sizes(8, 4, 1 << 20, false);
    blocks.extend([8, 24, 4096, 3 << 12, (1 << 29) + 4096, 1 << 30]);
    for &block in &blocks {
        let span = Span {
            block,
            recip: Span::recip_of(block),
            ..Span::empty()
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for k in 0..2000u64 {
            // Offsets near multiples of the block, and spread up to a 1 GiB segment.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = if k % 2 == 0 {
                ((x % (1 << 30)) / block * block)
                    .wrapping_add(k % 3)
                    .wrapping_sub(1)
            } else {
                x % (1 << 30)
            } % (1 << 30);
            let (i, at_start) = span.index_of(n);
            assert_eq!(u64::from(i), n / block, "{n} / {block}");
            assert_eq!(at_start, n % block == 0, "{n} % {block}");
        }
    }
}

#[test]
fn class_sizes_follow_the_spacing() {
    let c = class_sizes(16, 4, 1024, false);
    assert_eq!(&c[..8], &[16, 32, 48, 64, 80, 96, 112, 128]);
    assert_eq!(&c[8..12], &[160, 192, 224, 256]);
    assert_eq!(*c.last().unwrap(), 1024);
    let pow2 = class_sizes(8, 1, 4096, false);
    assert_eq!(&pow2[8..], &[128, 256, 512, 1024, 2048, 4096]);
    // jemalloc's and mimalloc's smallest classes: one word, then the 16-byte spacing.
    let tiny = class_sizes(16, 4, 1024, true);
    assert_eq!(&tiny[..6], &[8, 16, 32, 48, 64, 80]);
    assert_eq!(
        class_sizes(8, 4, 1024, true),
        class_sizes(8, 4, 1024, false)
    );
}

/// Under `tiny_class`, a request of at most 8 bytes takes an 8-byte block and a request of
/// 9 takes 16; without it, both take 16.
#[test]
fn a_tiny_request_takes_the_tiny_class() {
    for (tiny, sizes) in [("true", [8, 8, 16, 32]), ("false", [16, 16, 16, 32])] {
        let (p, _) = policy(&[("tiny_class", tiny)]);
        let got: Vec<u64> = [1, 8, 9, 17]
            .iter()
            .map(|&n| p.classes()[p.class_of(n) as usize])
            .collect();
        assert_eq!(got, sizes, "tiny_class = {tiny}");
    }
}

use crate::provider::{SimMode, SimProvider};

fn policy(given: &[(&str, &str)]) -> (SizeClass, Pages<SimProvider>) {
    let given = given
        .iter()
        .map(|&(k, v)| (k.to_string(), serde_json::Value::from(v)))
        .collect();
    let params = Params::resolve(PARAMS, &given, "policy.params").unwrap();
    let mem = Pages::new(SimProvider::new(SimMode::Os, 4096));
    (SizeClass::new(&params, 4096).unwrap(), mem)
}

fn block(addr: Addr, size: u64) -> Block {
    Block {
        addr,
        size,
        arena: None,
    }
}

#[test]
fn a_block_freed_by_another_thread_waits_for_its_owner() {
    let (mut p, mut mem) = policy(&[]);
    let a: Vec<Addr> = (0..3)
        .map(|_| p.alloc(&mut mem, 64, 16, None, 1).unwrap())
        .collect();
    // Thread 2 frees thread 1's block: it goes on the span's remote list, still in use
    // as far as the span knows.
    p.free(&mut mem, block(a[0], 64), 2).unwrap();
    p.check_invariants(&mem).unwrap();
    let owner = p.span_of(a[0]).unwrap();
    assert_eq!(p.spans[owner as usize].used, 3);
    assert_eq!(p.spans[owner as usize].remote, vec![0]);
    // Thread 2 allocates from a span of its own heap.
    let b = p.alloc(&mut mem, 64, 16, None, 2).unwrap();
    assert_ne!(p.span_of(b), Some(owner));
    // The owner collects the remote free on its next allocation in the class and hands
    // the block out again.
    assert_eq!(p.alloc(&mut mem, 64, 16, None, 1).unwrap(), a[0]);
    assert!(p.spans[owner as usize].remote.is_empty());
    p.check_invariants(&mem).unwrap();
    // A free of a remotely freed block, before collection, is caught.
    p.free(&mut mem, block(a[1], 64), 3).unwrap();
    assert!(p.free(&mut mem, block(a[1], 64), 1).is_err());

    // With one shared heap the same free is an ordinary one.
    let (mut p, mut mem) = policy(&[("heaps", "shared")]);
    let a = p.alloc(&mut mem, 64, 16, None, 1).unwrap();
    p.alloc(&mut mem, 64, 16, None, 1).unwrap();
    p.free(&mut mem, block(a, 64), 2).unwrap();
    assert_eq!(p.alloc(&mut mem, 64, 16, None, 2).unwrap(), a);
    p.check_invariants(&mem).unwrap();
}

#[test]
fn thread_caches_keep_spans_from_emptying() {
    let (mut p, mut mem) = policy(&[("thread_cache", "1KiB"), ("empty_pages", "decommit")]);
    // Two spans of 8 KiB blocks (8 to a 64 KiB page), then the first one freed: the
    // cache is too small for them, so the span empties and is decommitted.
    let a: Vec<Addr> = (0..9)
        .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
        .collect();
    for &x in &a[..8] {
        p.free(&mut mem, block(x, 8192), 0).unwrap();
    }
    assert_eq!(mem.stats().decommit_ops, 1);
    // 64-byte blocks fit: the cache holds 16 of them and their span cannot retire.
    let b: Vec<Addr> = (0..2048)
        .map(|_| p.alloc(&mut mem, 64, 16, None, 0).unwrap())
        .collect();
    for &x in &b[..16] {
        p.free(&mut mem, block(x, 64), 0).unwrap();
    }
    assert_eq!(p.tcaches[&0].bytes, 1024);
    p.check_invariants(&mem).unwrap();
    // The cache hands its newest block out first.
    assert_eq!(p.alloc(&mut mem, 64, 16, None, 0).unwrap(), b[15]);
    p.check_invariants(&mem).unwrap();
}

/// Commit and decommit calls for 17 blocks of 8 KiB (three one-page spans, the last
/// with one block) of which the first 16 are freed, in a 1 MiB segment.
fn ops_for(given: &[(&str, &str)]) -> (u64, u64) {
    let mut all = vec![("segment_size", "1MiB"), ("empty_pages", "decommit")];
    all.extend_from_slice(given);
    let (mut p, mut mem) = policy(&all);
    let a: Vec<Addr> = (0..17)
        .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
        .collect();
    for &x in &a[..16] {
        p.free(&mut mem, block(x, 8192), 0).unwrap();
        p.check_invariants(&mem).unwrap();
    }
    (mem.stats().commit_ops, mem.stats().decommit_ops)
}

#[test]
fn memory_is_committed_and_decommitted_in_whole_units() {
    // A page at a time (mimalloc): a commit per span, a decommit per emptied span.
    assert_eq!(ops_for(&[]), (3, 2));
    // Two pages at a time: the second span lies in the first unit, which goes back
    // only when both of its spans are empty.
    assert_eq!(ops_for(&[("commit_granularity", "128KiB")]), (2, 1));
    // Decommit only whole 256 KiB units: the third span is still live in the first.
    assert_eq!(ops_for(&[("decommit_granularity", "256KiB")]), (3, 0));
    // The whole segment at once (snmalloc): one commit, nothing given back.
    assert_eq!(ops_for(&[("commit_granularity", "1MiB")]), (1, 0));
    // Committed whole, given back a page at a time (mimalloc 3's arenas on Linux).
    let whole_then_pages = [
        ("commit_granularity", "1MiB"),
        ("decommit_granularity", "64KiB"),
    ];
    assert_eq!(ops_for(&whole_then_pages), (1, 2));
    let e = policy_error(&[("commit_granularity", "32KiB")]);
    assert!(e.contains("power of two from 65536"), "{e}");
}

fn policy_error(given: &[(&str, &str)]) -> String {
    let given = given
        .iter()
        .map(|&(k, v)| (k.to_string(), serde_json::Value::from(v)))
        .collect();
    let params = Params::resolve(PARAMS, &given, "policy.params").unwrap();
    SizeClass::new(&params, 4096).unwrap_err().to_string()
}

#[test]
fn freed_large_mappings_wait_on_a_free_list_and_are_reused() {
    let (mut p, mut mem) = policy(&[("large_free", "delay"), ("decommit_delay", "100")]);
    let a = p.alloc(&mut mem, 1 << 20, 16, None, 0).unwrap();
    p.free(&mut mem, block(a, 1 << 20), 0).unwrap();
    p.check_invariants(&mem).unwrap();
    // Kept committed: nothing released, and a request of up to the same size reuses it
    // without a page operation.
    assert_eq!(mem.stats().release_ops, 0);
    let ops = mem.stats().page_ops();
    let b = p.alloc(&mut mem, 700_000, 16, None, 0).unwrap();
    assert_eq!((b, mem.stats().page_ops()), (a, ops));
    // A request less than half its size does not take it.
    p.free(&mut mem, block(b, 700_000), 0).unwrap();
    let c = p.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
    assert_ne!(c, a);
    p.check_invariants(&mem).unwrap();
    // Once the delay has passed, the kept mapping goes back to the OS: freed while event
    // 1 was served, it is due 100 events later, at event 101.
    p.tick(&mut mem, Now::event(50)).unwrap();
    assert_eq!(mem.stats().release_ops, 0);
    p.tick(&mut mem, Now::event(100)).unwrap();
    assert_eq!(mem.stats().release_ops, 0);
    p.tick(&mut mem, Now::event(101)).unwrap();
    assert_eq!(mem.stats().release_ops, 1);
    assert!(!mem.is_committed(a, 1));
    p.check_invariants(&mem).unwrap();
}

#[test]
fn per_thread_heaps_cut_spans_from_segments_of_their_own() {
    let (mut p, mut mem) = policy(&[("heaps", "per-thread")]);
    let a = p.alloc(&mut mem, 100, 16, None, 0).unwrap();
    let b = p.alloc(&mut mem, 100, 16, None, 1).unwrap();
    let seg = |addr: Addr| addr >> p.seg_shift;
    assert_ne!(seg(a), seg(b));
    // A cross-thread free goes back to the owner's segment, not the freeing thread's.
    p.free(&mut mem, block(a, 100), 1).unwrap();
    p.check_invariants(&mem).unwrap();
}

#[test]
fn shared_pages_serve_large_blocks_and_empty_segments_go_back() {
    let (mut p, mut mem) = policy(&[("share_small_large", "true")]);
    let small = p.alloc(&mut mem, 100, 16, None, 0).unwrap();
    let large = p.alloc(&mut mem, 300_000, 16, None, 0).unwrap();
    // Both in the same segment; a request above half a segment is mapped on its own.
    assert_eq!(small >> 22, large >> 22);
    let huge = p.alloc(&mut mem, 3 << 20, 16, None, 0).unwrap();
    assert!(p.large.contains_key(&huge));
    p.check_invariants(&mem).unwrap();
    let reserved = mem.stats().reserve_ops;
    p.free(&mut mem, block(large, 300_000), 1).unwrap();
    p.free(&mut mem, block(huge, 3 << 20), 0).unwrap();
    p.check_invariants(&mem).unwrap();
    // The segment still holds the small span, which stays (the only one of its class).
    assert_eq!(mem.stats().release_ops, 1);
    assert_eq!(p.alloc(&mut mem, 300_000, 16, None, 0).unwrap(), large);
    assert_eq!(mem.stats().reserve_ops, reserved);
}

#[test]
fn the_span_cache_keeps_empty_spans_up_to_its_size() {
    let (mut p, mut mem) = policy(&[("empty_pages", "cache"), ("cache_size", "128KiB")]);
    // Four spans of 8 KiB blocks, three emptied: two stay cached, the oldest goes.
    let a: Vec<Addr> = (0..25)
        .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
        .collect();
    for &x in &a[..24] {
        p.free(&mut mem, block(x, 8192), 0).unwrap();
    }
    p.check_invariants(&mem).unwrap();
    assert_eq!(p.heaps[0].cached_spans, 2);
    assert_eq!(mem.stats().decommit_ops, 1);
    assert!(!mem.is_committed(a[0], 1));
    // A new span of one page comes from the cache, committed already.
    let commits = mem.stats().commit_ops;
    for _ in 0..8 {
        p.alloc(&mut mem, 8192, 16, None, 0).unwrap();
    }
    p.alloc(&mut mem, 4096, 16, None, 0).unwrap();
    assert_eq!(mem.stats().commit_ops, commits);
    p.check_invariants(&mem).unwrap();
}

/// Under `free_lists = sharded`, as in mimalloc, a block freed by its own thread waits on
/// its span's `local_free` list: the next allocation takes a block already on `free` (the
/// rest of the first 4 KiB threaded onto it), and the freed block comes back only once
/// `free` has run out. With one list it comes straight back.
#[test]
fn sharded_free_lists_hand_a_freed_block_out_only_after_the_free_list() {
    for (lists, straight_back) in [("one", true), ("sharded", false)] {
        let (mut p, mut mem) = policy(&[("free_lists", lists)]);
        let a: Vec<u64> = (0..3)
            .map(|_| p.alloc(&mut mem, 64, 16, None, 1).unwrap())
            .collect();
        p.free(&mut mem, block(a[1], 64), 1).unwrap();
        let next = p.alloc(&mut mem, 64, 16, None, 1).unwrap();
        assert_eq!(next == a[1], straight_back, "{lists}");
        p.check_invariants(&mem).unwrap();
        if lists == "sharded" {
            // 4 KiB of 64-byte blocks is 64: three handed out before the free and one
            // after leaves 60 on `free`, then `local_free` is swapped in.
            let rest: Vec<u64> = (0..60)
                .map(|_| p.alloc(&mut mem, 64, 16, None, 1).unwrap())
                .collect();
            assert!(!rest.contains(&a[1]));
            assert_eq!(p.alloc(&mut mem, 64, 16, None, 1).unwrap(), a[1]);
            p.check_invariants(&mem).unwrap();
        }
    }
}

/// Fills `spans + 1` spans of 8 KiB blocks (eight to a 64 KiB span) and empties the first
/// `spans`, ticking after every call from event 1 on a clock of 1 µs an event when
/// `timed`. Returns the last event.
fn empty_spans(p: &mut SizeClass, mem: &mut Pages<SimProvider>, spans: usize, timed: bool) -> u64 {
    let mut event = 0;
    let mut tick = |p: &mut SizeClass, mem: &mut Pages<SimProvider>| {
        event += 1;
        let ns = timed.then_some(event * 1000);
        p.tick(mem, Now { event, ns }).unwrap();
        event
    };
    let blocks: Vec<Addr> = (0..8 * spans + 1)
        .map(|_| {
            let a = p.alloc(mem, 8192, 16, None, 0).unwrap();
            tick(p, mem);
            a
        })
        .collect();
    let mut last = 0;
    for &a in &blocks[..8 * spans] {
        p.free(mem, block(a, 8192), 0).unwrap();
        last = tick(p, mem);
    }
    last
}

/// With a clock, `decommit_ms` counts: 5 ms is 5,000 events at 1 µs each, where the
/// event count alone would wait a million.
#[test]
fn a_delay_in_milliseconds_counts_the_clock() {
    let knobs = [("decommit_delay", "1000000"), ("decommit_ms", "5")];
    let (mut p, mut mem) = policy(&knobs);
    let last = empty_spans(&mut p, &mut mem, 4, true);
    let committed = mem.stats().committed_pages.current;
    // The spans emptied every 8 events up to event `last`, and each is due 5 ms (and a
    // nanosecond) after it emptied: none before the first is due, all once the last is.
    // (A span emptied by the call of event `e` counts from the tick before it, `e - 1`.)
    let first = last - 24 - 1;
    p.tick(
        &mut mem,
        Now {
            event: last + 1,
            ns: Some(first * 1000 + 5_000_000),
        },
    )
    .unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed);
    p.tick(
        &mut mem,
        Now {
            event: last + 2,
            ns: Some(last * 1000 + 5_000_001),
        },
    )
    .unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed - 4 * 16);
    p.check_invariants(&mem).unwrap();

    // Without a clock the same knobs wait for the event count.
    let (mut p, mut mem) = policy(&knobs);
    let last = empty_spans(&mut p, &mut mem, 4, false);
    let committed = mem.stats().committed_pages.current;
    p.tick(&mut mem, Now::event(last + 500_000)).unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed);
}

/// Under `purge_on = slow-path` a due decommit waits for a call that takes a span or gives
/// one back, as mimalloc's does; any call does under `every-call`.
#[test]
fn a_slow_path_purge_waits_for_a_slow_call() {
    let (mut p, mut mem) = policy(&[("decommit_delay", "100"), ("purge_on", "slow-path")]);
    let last = empty_spans(&mut p, &mut mem, 3, false);
    let committed = mem.stats().committed_pages.current;
    // Long past due, but fast-path calls only: an allocation from the span that is left.
    p.alloc(&mut mem, 8192, 16, None, 0).unwrap();
    p.tick(&mut mem, Now::event(last + 1000)).unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed);
    // A block of a class with no span takes one from its segment: a slow-path call.
    p.alloc(&mut mem, 100, 16, None, 0).unwrap();
    p.tick(&mut mem, Now::event(last + 1001)).unwrap();
    assert!(mem.stats().committed_pages.current < committed);
    p.check_invariants(&mem).unwrap();

    let (mut p, mut mem) = policy(&[("decommit_delay", "100")]);
    let last = empty_spans(&mut p, &mut mem, 3, false);
    let committed = mem.stats().committed_pages.current;
    p.tick(&mut mem, Now::event(last + 1000)).unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed - 3 * 16);
}

/// Under `decay = smootherstep` spans emptied together go back gradually: none before the
/// first epoch ends, about half at half the delay (the curve is 1/2 there), and all once
/// the delay is up, the oldest first.
#[test]
fn smootherstep_decay_returns_pages_along_the_curve() {
    let (mut p, mut mem) = policy(&[("decommit_delay", "2000"), ("decay", "smootherstep")]);
    let last = empty_spans(&mut p, &mut mem, 20, false);
    let committed = mem.stats().committed_pages.current;
    let at = |p: &mut SizeClass, mem: &mut Pages<SimProvider>, event: u64| {
        p.tick(mem, Now::event(event)).unwrap();
        (committed - mem.stats().committed_pages.current) / 16
    };
    // 20 spans emptied over 160 events; epochs are 10 events long.
    assert_eq!(at(&mut p, &mut mem, last + 1), 0);
    let mut returned = Vec::new();
    for event in (last + 100..=last + 2100).step_by(100) {
        returned.push(at(&mut p, &mut mem, event));
    }
    // Never back down, and along 20 × smootherstep(age / 2000) for ages of 100 to 2,100
    // events (the spans' ages differ by up to 160 events, within a span or two).
    assert!(returned.windows(2).all(|w| w[0] <= w[1]), "{returned:?}");
    assert!(returned[0] <= 1, "{returned:?}");
    assert!(
        (9..=12).contains(&returned[9]),
        "half the delay: {returned:?}"
    );
    assert_eq!(*returned.last().unwrap(), 20, "{returned:?}");
    p.check_invariants(&mem).unwrap();
}

/// Under `purge_extend_ms`, as in mimalloc 2.0, a segment has one expiry: spans emptied
/// faster than one per extension keep pushing it back, so nothing is decommitted while
/// they go on, and once it passes every waiting span goes together.
#[test]
fn a_segment_expiry_is_pushed_back_while_spans_keep_emptying() {
    let knobs = [("decommit_ms", "5"), ("purge_extend_ms", "1")];
    let (mut p, mut mem) = policy(&knobs);
    // Eight spans emptied 8 µs apart (1 µs an event): each pushes the expiry 1 ms back.
    let last = empty_spans(&mut p, &mut mem, 8, true);
    let committed = mem.stats().committed_pages.current;
    let expire = p.segments[0].as_ref().unwrap().expire;
    let first = (last - 56 - 1) * 1000;
    assert_eq!(expire, first + 5_000_000 + 7 * 1_000_000);
    // Past each span's own 5 ms, but not the segment's expiry: nothing goes.
    p.tick(
        &mut mem,
        Now {
            event: last + 1,
            ns: Some(last * 1000 + 6_000_000),
        },
    )
    .unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed);
    // Past the expiry: all eight together.
    let ops = mem.stats().decommit_ops;
    p.tick(
        &mut mem,
        Now {
            event: last + 2,
            ns: Some(expire),
        },
    )
    .unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed - 8 * 16);
    assert!(mem.stats().decommit_ops > ops);
    assert_eq!(p.segments[0].as_ref().unwrap().expire, 0);
    p.check_invariants(&mem).unwrap();
}

/// Under `purge_extend_ms`, a span cut over slots waiting in its segment's mask sets the
/// expiry `decommit_ms` from then, even nearer than it was (mimalloc 2.0's
/// `mi_segment_commitx`); an expiry that passes with nothing left in the mask stays, run
/// out, and a span emptied a millisecond or more after it is decommitted at once, with no
/// slow-path call (`mi_segment_perhaps_decommit`).
#[test]
fn a_segment_expiry_restarts_at_a_reuse_and_runs_out_at_a_late_free() {
    let (mut p, mut mem) = policy(&[("decommit_ms", "5"), ("purge_extend_ms", "1")]);
    let mut event = 0;
    let mut at = |p: &mut SizeClass, mem: &mut Pages<SimProvider>, ns: u64| {
        event += 1;
        p.tick(
            mem,
            Now {
                event,
                ns: Some(ns),
            },
        )
        .unwrap();
    };
    let expire = |p: &SizeClass| p.segments[0].as_ref().unwrap().expire;
    // Span A full of 8 KiB blocks, and one block in span B.
    at(&mut p, &mut mem, 1_000);
    let a: Vec<Addr> = (0..8)
        .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
        .collect();
    let b = p.alloc(&mut mem, 8192, 16, None, 0).unwrap();
    // A empties at 1 ms: its slots wait, the expiry 5 ms on.
    at(&mut p, &mut mem, 1_000_000);
    for &x in &a {
        p.free(&mut mem, block(x, 8192), 0).unwrap();
    }
    assert_eq!(expire(&p), 6_000_000);
    // At 2 ms B fills, and the next block needs a span: cut over A's slots, it sets the
    // expiry 5 ms from now, and the mask is empty again.
    at(&mut p, &mut mem, 2_000_000);
    let c: Vec<Addr> = (0..8)
        .map(|_| p.alloc(&mut mem, 8192, 16, None, 0).unwrap())
        .collect();
    assert_eq!(expire(&p), 7_000_000);
    p.free(&mut mem, block(b, 8192), 0).unwrap();
    p.check_invariants(&mem).unwrap();
    // Past the expiry on a slow path, nothing waits: it stays as it was.
    at(&mut p, &mut mem, 7_500_000);
    assert_eq!(expire(&p), 7_000_000);
    p.check_invariants(&mem).unwrap();
    let committed = mem.stats().committed_pages.current;
    // At 9 ms B empties (seven of the eight went there), more than 1 ms after the
    // expiry passed: its 16 pages go at once, before any tick.
    at(&mut p, &mut mem, 9_000_000);
    for &x in &c[..6] {
        p.free(&mut mem, block(x, 8192), 0).unwrap();
    }
    assert_eq!(mem.stats().committed_pages.current, committed);
    p.free(&mut mem, block(c[6], 8192), 0).unwrap();
    assert_eq!(mem.stats().committed_pages.current, committed - 16);
    assert_eq!(expire(&p), 0);
    p.check_invariants(&mem).unwrap();
}

/// mimalloc 2's refill links at least four never-used blocks (`MI_MIN_EXTEND`), writing a
/// word at the start of each: the first 8 KiB request makes four pages resident, 8 KiB
/// apart, and the next three take no new page. mimalloc 3's links one (`min_extend = 1`).
#[test]
fn a_refill_links_four_blocks_and_writes_a_word_in_each() {
    let (mut p, mut mem) = policy(&[("free_lists", "sharded")]);
    let first = p.alloc(&mut mem, 8192, 16, None, 1).unwrap();
    assert_eq!(mem.stats().resident_pages.current, 4);
    for k in 1..4u64 {
        assert_eq!(
            p.alloc(&mut mem, 8192, 16, None, 1).unwrap(),
            first + k * 8192
        );
        assert_eq!(mem.stats().resident_pages.current, 4);
    }
    assert!((0..8)
        .map(|page| mem.is_resident(first + page * 4096))
        .eq([true, false].repeat(4)));
    p.check_invariants(&mem).unwrap();

    // mimalloc 3 links one at a time: each request writes only its own block's page.
    let (mut p, mut mem) = policy(&[("free_lists", "sharded"), ("min_extend", "1")]);
    let first = p.alloc(&mut mem, 8192, 16, None, 1).unwrap();
    assert_eq!(mem.stats().resident_pages.current, 1);
    assert_eq!(p.alloc(&mut mem, 8192, 16, None, 1).unwrap(), first + 8192);
    assert_eq!(mem.stats().resident_pages.current, 2);
    p.check_invariants(&mem).unwrap();
}

/// mimalloc 3 on Linux: the arena's metadata opens the first segment and no span is cut
/// from it; segments committed whole and advised for huge pages come 2 MiB at a time.
#[test]
fn the_arena_metadata_and_huge_pages_come_before_the_first_block() {
    let given = [
        ("page_size", "64KiB"),
        ("commit_granularity", "4MiB"),
        ("decommit_granularity", "64KiB"),
        ("arena_metadata", "2112KiB"),
        ("huge_pages", "true"),
    ];
    let (mut p, mut mem) = policy(&given);
    let first = p.alloc(&mut mem, 64, 16, None, 1).unwrap();
    // The block's page is slot 33, the first past the metadata's 2 MiB + 64 KiB.
    assert_eq!(first % (4 << 20), 33 << 16);
    // The metadata's first page was written: its whole granule is resident.
    assert_eq!(mem.stats().resident_pages.current, 512);
    // The program writes its block: the block's granule comes whole too.
    mem.touch(first, 64).unwrap();
    assert_eq!(mem.stats().resident_pages.current, 2 * 512);
    assert_eq!(mem.stats().committed_pages.current, 1024);
    assert_eq!(mem.stats().commit_ops, 1);
    p.check_invariants(&mem).unwrap();
    // Without the advice only the pages written are resident.
    let (mut p, mut mem) = policy(&given[..4]);
    let first = p.alloc(&mut mem, 64, 16, None, 1).unwrap();
    mem.touch(first, 64).unwrap();
    assert_eq!(mem.stats().resident_pages.current, 2);
    // Metadata that would fill the segment is refused with the knob named.
    let e = policy_error(&[("arena_metadata", "4MiB")]);
    assert!(e.contains("arena_metadata") && e.contains("no room"), "{e}");
}

/// `page_min_blocks` sets how many blocks a small or medium page must hold: mimalloc 3's
/// six put a 12 KiB block in a medium page and a 96 KiB one in a span of eight, where
/// mimalloc 2's four keep them in a one-page span and a medium page.
#[test]
fn page_min_blocks_moves_classes_between_page_kinds() {
    for (min, kinds) in [("4", [1, 1, 8, 8]), ("6", [1, 8, 8, 12])] {
        let (p, _) = policy(&[
            ("page_size", "64KiB"),
            ("medium_page_size", "512KiB"),
            ("large_threshold", "128KiB"),
            ("page_min_blocks", min),
        ]);
        let got: Vec<u32> = [10 << 10, 12 << 10, 80 << 10, 96 << 10]
            .iter()
            .map(|&b| p.span_slots(b))
            .collect();
        assert_eq!(got, kinds, "page_min_blocks = {min}");
    }
}

/// `large_page_size` gives the classes above the medium pages that fit eight times in it a
/// span of its size, as mimalloc 3's 4 MiB large pages hold blocks up to 512 KiB; without
/// it they get spans of eight blocks. It needs the medium pages, and a power of two above
/// them.
#[test]
fn large_pages_hold_the_classes_above_the_medium_pages() {
    let kinds = |large: &str| {
        let (p, _) = policy(&[
            ("page_size", "64KiB"),
            ("segment_size", "32MiB"),
            ("medium_page_size", "512KiB"),
            ("page_min_blocks", "6"),
            ("large_page_size", large),
            ("large_threshold", "1MiB"),
        ]);
        [80 << 10, 96 << 10, 512 << 10, 640 << 10].map(|b| p.span_slots(b))
    };
    // 80 KiB fits six times in a medium page; 96 and 512 KiB go in a 64-slot large page,
    // 640 KiB does not fit eight times in one.
    assert_eq!(kinds("4MiB"), [8, 64, 64, 80]);
    assert_eq!(kinds("0"), [8, 12, 64, 80]);
    for (given, says) in [
        (vec![("large_page_size", "4MiB")], "with medium_page_size"),
        (
            vec![("medium_page_size", "512KiB"), ("large_page_size", "3MiB")],
            "power of two",
        ),
        (
            vec![
                ("medium_page_size", "512KiB"),
                ("large_page_size", "512KiB"),
            ],
            "above",
        ),
    ] {
        let e = policy_error(&given);
        assert!(e.contains("large_page_size") && e.contains(says), "{e}");
    }
}

/// Under `medium_pages_aligned` a medium page starts at a multiple of its eight slots and
/// one-page spans fill the slots below it; without it the medium page takes the first
/// eight free slots.
#[test]
fn aligned_medium_pages_leave_the_slots_below_to_small_pages() {
    let first_slots = |aligned: &str| {
        let (mut p, mut mem) = policy(&[
            ("page_size", "64KiB"),
            ("medium_page_size", "512KiB"),
            ("medium_pages_aligned", aligned),
        ]);
        let slot = |a: Addr| (a % (4 << 20)) >> 16;
        // Three classes of small blocks take slots 0-2, then a medium block, then three
        // more small classes.
        let mut got = Vec::new();
        for size in [16, 32, 48, 20 << 10, 64, 80, 96] {
            got.push(slot(p.alloc(&mut mem, size, 16, None, 1).unwrap()));
        }
        p.check_invariants(&mem).unwrap();
        got
    };
    assert_eq!(first_slots("true"), [0, 1, 2, 8, 3, 4, 5]);
    assert_eq!(first_slots("false"), [0, 1, 2, 3, 11, 12, 13]);
}

/// Under `retire_cycles`, an emptied span that is its class's only one is given back
/// after that many collections (each new span taken from a segment runs one), a quarter of
/// them above the one-page spans; with 0 it stays.
#[test]
fn a_retired_span_goes_back_after_its_collections() {
    let after = |cycles: &str, size: u64, new_spans: u64| {
        let (mut p, mut mem) = policy(&[
            ("page_size", "64KiB"),
            ("medium_page_size", "512KiB"),
            ("empty_pages", "decommit"),
            ("retire_cycles", cycles),
        ]);
        let a = p.alloc(&mut mem, size, 16, None, 1).unwrap();
        mem.touch(a, size).unwrap();
        p.free(&mut mem, block(a, size), 1).unwrap();
        let kept = mem.stats().decommit_ops;
        // Blocks of other classes, each in a span of its own: each new span is a
        // collection.
        let others: Vec<u64> = (p.classes.iter().copied())
            .filter(|&c| c > 1024 && c != size)
            .collect();
        assert!(others.len() >= new_spans as usize, "{others:?}");
        for &size in &others[..new_spans as usize] {
            p.alloc(&mut mem, size, 16, None, 1).unwrap();
        }
        p.check_invariants(&mem).unwrap();
        (kept, mem.stats().decommit_ops)
    };
    // A small span waits out 16 collections: given back (decommitted) at the 16th.
    assert_eq!(after("16", 64, 15), (0, 0));
    assert_eq!(after("16", 64, 16), (0, 1));
    // A medium span waits a quarter of them.
    assert_eq!(after("16", 20 << 10, 3), (0, 0));
    assert_eq!(after("16", 20 << 10, 4), (0, 1));
    // With 0 the class's last span stays however many spans follow.
    assert_eq!(after("0", 64, 20), (0, 0));
}

/// Under `dirty_max_fit`, as in jemalloc: a freed run whose pages are still resident is
/// split only for a request at least 1/fit of its length, a freed slab stays a run of its
/// own until purged, and a freed large block joins the freed runs beside it.
#[test]
fn resident_runs_are_split_only_for_requests_they_fit() {
    let given = |fit| {
        [
            ("page_size", "4KiB"),
            ("segment_size", "1MiB"),
            ("heaps", "shared"),
            ("share_small_large", "true"),
            ("large_threshold", "16KiB"),
            ("empty_pages", "delay"),
            ("decommit_delay", "1000000"),
            ("dirty_max_fit", fit),
        ]
    };
    let slot = |base: Addr, i: u64| base + (i << 12);
    for fit in ["0", "4"] {
        let (mut p, mut mem) = policy(&given(fit));
        // A 64 KiB block in slots 0-15, a span of 64-byte blocks in slot 16, and the
        // large block freed: sixteen resident slots in one run.
        let base = p.alloc(&mut mem, 64 << 10, 16, None, 0).unwrap();
        assert_eq!(p.alloc(&mut mem, 64, 16, None, 0).unwrap(), slot(base, 16));
        p.free(&mut mem, block(base, 64 << 10), 0).unwrap();
        // A one-slot span is four times too small to split the run under a fit of 4 and
        // takes a fresh slot; without a fit it takes the run's first.
        let other = p.alloc(&mut mem, 128, 16, None, 0).unwrap();
        let want = if fit == "0" { base } else { slot(base, 17) };
        assert_eq!(other, want, "dirty_max_fit = {fit}");
        p.check_invariants(&mem).unwrap();
    }
    let (mut p, mut mem) = policy(&given("4"));
    // A five-slot (20 KiB) block is large enough to split the sixteen-slot run, and what
    // is left, slots 5-15, is a run of its own, still too long for a one-slot span.
    let base = p.alloc(&mut mem, 64 << 10, 16, None, 0).unwrap();
    p.alloc(&mut mem, 64, 16, None, 0).unwrap();
    p.free(&mut mem, block(base, 64 << 10), 0).unwrap();
    assert_eq!(p.alloc(&mut mem, 20 << 10, 16, None, 0).unwrap(), base);
    assert_eq!(p.alloc(&mut mem, 256, 16, None, 0).unwrap(), slot(base, 17));
    p.check_invariants(&mem).unwrap();

    // Two one-slot spans of 512-byte blocks (slots 0 and 1), a 20 KiB block (slots 2-6)
    // and a third span (slot 7); the first two emptied stay two runs of one slot.
    let (mut p, mut mem) = policy(&given("4"));
    let a: Vec<Addr> = (0..16)
        .map(|_| p.alloc(&mut mem, 512, 16, None, 0).unwrap())
        .collect();
    let base = a[0];
    let large = p.alloc(&mut mem, 20 << 10, 16, None, 0).unwrap();
    assert_eq!(large, slot(base, 2));
    assert_eq!(p.alloc(&mut mem, 512, 16, None, 0).unwrap(), slot(base, 7));
    for &x in &a {
        p.free(&mut mem, block(x, 512), 0).unwrap();
    }
    // A two-slot span of 1 KiB blocks fits neither and takes fresh slots.
    assert_eq!(p.alloc(&mut mem, 1024, 16, None, 0).unwrap(), slot(base, 8));
    // The large block freed joins the run before it: slots 1-6 serve a six-slot block.
    p.free(&mut mem, block(large, 20 << 10), 0).unwrap();
    assert_eq!(
        p.alloc(&mut mem, 24 << 10, 16, None, 0).unwrap(),
        slot(base, 1)
    );
    p.check_invariants(&mem).unwrap();
}

/// `page_size = 0` takes the provider's page, as jemalloc's page is the system's.
#[test]
fn a_zero_page_size_is_the_os_page() {
    let given = [("page_size".to_string(), serde_json::Value::from(0))]
        .into_iter()
        .collect();
    let params = Params::resolve(PARAMS, &given, "policy.params").unwrap();
    for os_page in [4096, 16384, 65536] {
        let p = SizeClass::new(&params, os_page).unwrap();
        assert_eq!(p.page_size(), os_page);
    }
    // Any other page is still a power of two of at least 4 KiB.
    for (page, why) in [
        (6144, "not a power of two"),
        (1024, "outside the allowed range"),
    ] {
        let given = [("page_size".to_string(), serde_json::Value::from(page))]
            .into_iter()
            .collect();
        let e = Params::resolve(PARAMS, &given, "policy.params").unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
    }
}

/// A generic allocation from a retired span stops its wait, so that it waits its whole
/// count again once it empties (mimalloc 3's `mi_find_free_page` sets `retire_expire` to
/// 0, and `mi_free_block_local` retires a page afresh only then).
#[test]
fn a_retired_span_used_again_waits_afresh() {
    let (mut p, mut mem) = policy(&[
        ("page_size", "64KiB"),
        ("medium_page_size", "512KiB"),
        ("empty_pages", "decommit"),
        ("retire_cycles", "16"),
    ]);
    let others: Vec<u64> = (p.classes.iter().copied())
        .filter(|&c| c > 1024 && c != 2048)
        .take(26)
        .collect();
    assert_eq!(others.len(), 26, "{others:?}");
    let mut others = others.into_iter();
    // Each new span of another class is a collection.
    let mut collect = |p: &mut SizeClass, mem: &mut Pages<SimProvider>, n: usize| {
        for size in others.by_ref().take(n) {
            p.alloc(mem, size, 16, None, 1).unwrap();
        }
    };
    // 2 KiB blocks are above mimalloc's 1 KiB fast path: every one is a generic allocation.
    let a = p.alloc(&mut mem, 2048, 16, None, 1).unwrap();
    p.free(&mut mem, block(a, 2048), 1).unwrap();
    collect(&mut p, &mut mem, 10);
    let b = p.alloc(&mut mem, 2048, 16, None, 1).unwrap();
    p.free(&mut mem, block(b, 2048), 1).unwrap();
    // Ten more would have been its 20th: it waits 16 from its second emptying.
    collect(&mut p, &mut mem, 10);
    assert_eq!(mem.stats().decommit_ops, 0);
    collect(&mut p, &mut mem, 6);
    assert_eq!(mem.stats().decommit_ops, 1);
    p.check_invariants(&mem).unwrap();
}

/// The spans of mimalloc 2.0's queues (`page_queues = mimalloc2`), each of one 64 KiB
/// page: 8 KiB blocks, eight to a page.
fn mimalloc2_policy(queues: &str) -> (SizeClass, Pages<SimProvider>) {
    policy(&[
        ("page_size", "64KiB"),
        ("medium_page_size", "512KiB"),
        ("page_queues", queues),
    ])
}

/// Under mimalloc 2.0's queues a page that was full and has room again goes behind the
/// page being allocated from, where `newest` makes it the next; and a block freed to the
/// head page after it filled, before an allocation passed it, is used from there again.
#[test]
fn mimalloc2_queues_put_a_page_with_room_again_behind_the_others() {
    for (queues, from_first) in [("newest", true), ("mimalloc2", false)] {
        let (mut p, mut mem) = mimalloc2_policy(queues);
        let first: Vec<Addr> = (0..8)
            .map(|_| p.alloc(&mut mem, 8192, 16, None, 1).unwrap())
            .collect();
        let second = p.alloc(&mut mem, 8192, 16, None, 1).unwrap();
        p.free(&mut mem, block(first[3], 8192), 1).unwrap();
        let next = p.alloc(&mut mem, 8192, 16, None, 1).unwrap();
        assert_eq!(next == first[3], from_first, "{queues}");
        p.check_invariants(&mem).unwrap();
        if queues == "mimalloc2" {
            // The second page fills up and stays at the head until an allocation passes
            // it: a block freed to it now is the next handed out.
            for _ in 0..6 {
                p.alloc(&mut mem, 8192, 16, None, 1).unwrap();
            }
            p.check_invariants(&mem).unwrap();
            p.free(&mut mem, block(second, 8192), 1).unwrap();
            assert_eq!(p.alloc(&mut mem, 8192, 16, None, 1).unwrap(), second);
            p.check_invariants(&mem).unwrap();
        }
    }
}

/// Under mimalloc 2.0's queues a new page is cut from the free run freed last among those
/// in the smallest bin that holds it, where `newest` takes the lowest.
#[test]
fn mimalloc2_cuts_a_page_from_the_last_freed_run_in_the_smallest_bin() {
    for (queues, slot) in [("newest", 1), ("mimalloc2", 3)] {
        let (mut p, mut mem) = mimalloc2_policy(queues);
        let blocks: Vec<Addr> = (0..48)
            .map(|_| p.alloc(&mut mem, 8192, 16, None, 1).unwrap())
            .collect();
        let base = blocks[0];
        // The pages in slots 1 and then 3 empty and go back to the segment.
        for page in [1, 3] {
            for &a in &blocks[page * 8..page * 8 + 8] {
                p.free(&mut mem, block(a, 8192), 1).unwrap();
            }
        }
        p.check_invariants(&mem).unwrap();
        let other = p.alloc(&mut mem, 4096, 16, None, 1).unwrap();
        assert_eq!((other - base) >> 16, slot, "{queues}");
        p.check_invariants(&mem).unwrap();
    }
}

/// `page_offset` leaves its bytes unused before the first block of each span of blocks
/// up to 1 KiB, so a 64 KiB page holds 1,018 blocks of 64 bytes instead of 1,024; larger
/// blocks start at the page. An offset of half a page or more is refused, by name.
#[test]
fn a_page_offset_starts_small_blocks_past_it() {
    let (mut p, mut mem) = policy(&[("page_size", "64KiB"), ("page_offset", "384")]);
    let blocks: Vec<Addr> = (0..1019)
        .map(|_| p.alloc(&mut mem, 64, 16, None, 1).unwrap())
        .collect();
    let page = blocks[0] & !0xffff;
    assert_eq!(blocks[0] - page, 384);
    assert_eq!(blocks[1017], page + 384 + 1017 * 64);
    assert_eq!(blocks[1018] & !0xffff, page + 0x10000);
    // A free of an address inside the offset is refused, not taken for a block.
    assert!(p.free(&mut mem, block(page + 64, 64), 1).is_err());
    let big = p.alloc(&mut mem, 2048, 16, None, 1).unwrap();
    assert_eq!(big & 0xffff, 0);
    p.check_invariants(&mem).unwrap();
    let refused = policy_error(&[("page_size", "4KiB"), ("page_offset", "2048")]);
    assert!(refused.contains("page_offset"), "{refused}");
}

/// Under mimalloc 2.0's queues a retired page waits 1 + 8 collections as a small page and
/// 1 + 2 as a medium one (`retire_cycles` 9), and one that empties again after it was used
/// from the fast path starts its count again, where mimalloc 3 keeps it running.
#[test]
fn mimalloc2_retires_a_page_for_nine_collections_and_restarts_its_count() {
    let run = |size: u64, before: usize, used_again: bool, after: usize| {
        let (mut p, mut mem) = policy(&[
            ("page_size", "64KiB"),
            ("medium_page_size", "512KiB"),
            ("empty_pages", "decommit"),
            ("retire_cycles", "9"),
            ("page_queues", "mimalloc2"),
        ]);
        let others: Vec<u64> = (p.classes.iter().copied())
            .filter(|&c| c > 1024 && c != size)
            .take(before + after)
            .collect();
        assert_eq!(others.len(), before + after, "{others:?}");
        let mut others = others.into_iter();
        let a = p.alloc(&mut mem, size, 16, None, 1).unwrap();
        mem.touch(a, size).unwrap();
        p.free(&mut mem, block(a, size), 1).unwrap();
        for size in others.by_ref().take(before) {
            p.alloc(&mut mem, size, 16, None, 1).unwrap();
        }
        if used_again {
            let b = p.alloc(&mut mem, size, 16, None, 1).unwrap();
            p.free(&mut mem, block(b, size), 1).unwrap();
        }
        for size in others {
            p.alloc(&mut mem, size, 16, None, 1).unwrap();
        }
        p.check_invariants(&mem).unwrap();
        mem.stats().decommit_ops
    };
    assert_eq!(run(64, 8, false, 0), 0);
    assert_eq!(run(64, 9, false, 0), 1);
    assert_eq!(run(20 << 10, 2, false, 0), 0);
    assert_eq!(run(20 << 10, 3, false, 0), 1);
    // Emptied again after 5: 9 more from then, not the 4 left.
    assert_eq!(run(64, 5, true, 8), 0);
    assert_eq!(run(64, 5, true, 9), 1);
}
