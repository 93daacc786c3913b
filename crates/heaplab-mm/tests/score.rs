//! `mm check`'s figures against numbers worked out by hand.

mod common;

use std::path::PathBuf;

use heaplab_mm::compile::EXAMPLES;
use heaplab_mm::score::{score, CheckOptions, Input};

fn trace(name: &str, text: &str) -> Input {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mm-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    Input::Trace(path)
}

/// Each trace takes 2 ms, whatever it does.
fn two_ms(f: &mut dyn FnMut()) -> f64 {
    f();
    0.002
}

#[test]
fn util_and_the_performance_index_are_mdrivers() {
    let (_, naive) = EXAMPLES.iter().find(|(n, _)| *n == "naive").unwrap();
    let m = common::module("naive-score", naive, &[]);
    // naive takes an 8-byte header plus the size rounded up to 8 from mem_sbrk for every
    // allocation, and never gives anything back.
    // Trace a: heap 8+104 + 8+200 + 8+56 = 384 bytes; live 100, 300, 200, 250: peak 300.
    let a = trace("a.rep", "3\n4\na 0 100\na 1 200\nf 0\na 2 50\n");
    // Trace b: heap 8+8, then realloc's new block 8+16: 40 bytes; live 8, 16, 0: peak 16.
    let b = trace("b.rep", "1\n3\na 0 8\nr 0 16\nf 0\n");
    let s = score(&m, &[a, b], &CheckOptions::default(), &two_ms);
    assert!(s.traces.iter().all(|t| t.valid), "{:?}", s.traces);
    let (ta, tb) = (&s.traces[0], &s.traces[1]);
    assert_eq!((ta.peak_live_bytes, ta.heap_bytes, ta.ops), (300, 384, 4));
    assert_eq!((tb.peak_live_bytes, tb.heap_bytes, tb.ops), (16, 40, 3));
    assert!((ta.util - 300.0 / 384.0).abs() < 1e-12);
    assert!((tb.util - 0.4).abs() < 1e-12);
    assert!((ta.kops - 2.0).abs() < 1e-9, "4 ops in 2 ms is 2 Kops/s");
    // The index: 0.60 of the mean util, 0.40 of the throughput (7 ops in 4 ms, 1,750
    // ops/s) over the reference 600,000 ops/s.
    let mean_util = (300.0 / 384.0 + 0.4) / 2.0;
    assert!((s.util - mean_util).abs() < 1e-12);
    let p = s.perf_index.expect("every trace is valid");
    assert!((p.util_points - 60.0 * mean_util).abs() < 1e-9);
    assert!((p.throughput_points - 40.0 * 1750.0 / 600e3).abs() < 1e-9);
    assert!((p.total - p.util_points - p.throughput_points).abs() < 1e-9);
    // Past the reference, throughput earns its 40 points and no more.
    let fast = CheckOptions {
        reference_ops_per_sec: 1000.0,
        ..CheckOptions::default()
    };
    let a = trace("a.rep", "3\n4\na 0 100\na 1 200\nf 0\na 2 50\n");
    let p = score(&m, &[a], &fast, &two_ms).perf_index.unwrap();
    assert!((p.throughput_points - 40.0).abs() < 1e-9);
}

#[test]
fn an_invalid_trace_leaves_no_index_and_says_why() {
    let bugs = include_str!("c/bugs.c");
    let m = common::module("bug-score", bugs, &["-DBUG_MISALIGNED=1"]);
    let a = trace("c.rep", "2\n2\na 0 8\na 1 8\n");
    let s = score(&m, &[a], &CheckOptions::default(), &two_ms);
    assert!(!s.traces[0].valid);
    assert!(s.perf_index.is_none());
    let e = s.traces[0].error.as_deref().unwrap();
    assert!(e.contains("event 2: mm_malloc(8) returned"), "{e}");
}
