//! A Rust program that records its own allocations through `Recorder<System>`, checks
//! the counts of a known pattern exactly, then replays its trace through the simulator
//! and checks the replay sees what the recorder saw.
//!
//! `harness = false`: this `main` is the whole program, so no test-harness thread
//! allocates behind its back.

use std::alloc::System;
use std::io::BufReader;
use std::path::Path;

use heaplab_core::config::RunConfig;
use heaplab_core::run::{run_with, RunError};
use heaplab_core::trace;
use heaplab_record::{Counts, Recorder};

#[global_allocator]
static ALLOC: Recorder<System> = Recorder::new(System);

fn delta(after: Counts, before: Counts) -> (u64, u64, u64) {
    (
        after.allocs - before.allocs,
        after.frees - before.frees,
        after.reallocs - before.reallocs,
    )
}

fn main() {
    if cfg!(not(target_os = "linux")) {
        assert!(heaplab_record::start("x.trace").is_err());
        eprintln!("SKIPPED recording this test's own allocations: the recorder is Linux-only");
        return;
    }
    let dir = std::env::temp_dir().join(format!("heaplab-record-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("self.trace");
    heaplab_record::start(&path).unwrap();
    assert!(
        heaplab_record::start(&path).is_err(),
        "a second start while recording is refused"
    );

    // 100 boxes and the vector that holds them (built at its exact size).
    let before = heaplab_record::counts();
    let boxes: Vec<Box<[u8; 100]>> = (0..100).map(|_| Box::new([7u8; 100])).collect();
    let held = heaplab_record::counts();
    assert_eq!(delta(held, before), (101, 0, 0));
    assert_eq!(held.live_bytes - before.live_bytes, 100 * 100 + 100 * 8);
    drop(boxes);
    let after = heaplab_record::counts();
    assert_eq!(delta(after, held), (0, 101, 0));
    assert_eq!(after.live_bytes, before.live_bytes);

    // A vector grown by pushing: capacity 4, then doubled eight times to 1024.
    let before = heaplab_record::counts();
    let mut v = Vec::new();
    for i in 0..1000u64 {
        v.push(i);
    }
    assert_eq!(v.capacity(), 1024);
    drop(v);
    assert_eq!(delta(heaplab_record::counts(), before), (1, 1, 8));

    // Four threads, each with its own allocations.
    let handles: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let v: Vec<Box<u64>> = (0..1000).map(|i| Box::new(i * t)).collect();
                v.iter().map(|b| **b).sum::<u64>()
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }

    let counts = heaplab_record::finish().unwrap();
    assert!(heaplab_record::finish().is_err(), "the trace is closed");
    assert!(counts.threads >= 5, "main and four threads: {counts:?}");

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# heaplab trace: recorded from Rust, pid "));
    let last = text.lines().last().unwrap();
    assert_eq!(Counts::parse_trailer(last), Some(counts), "{last}");
    for t in 1..=4 {
        let tag = format!(" thread={t}\n");
        assert!(text.contains(&tag), "no line of thread {t}");
    }
    // Boxes of bytes ask for alignment 1, which the trace keeps.
    assert!(text.contains(" 100 1\n"), "an `a <id> 100 1` line");

    replay_matches(&path, counts);
    std::fs::remove_dir_all(&dir).unwrap();
    println!("recorded: {counts}: replay agrees");
}

/// Replays the trace through glibc-like and compares its event counts and live bytes.
fn replay_matches(path: &Path, counts: Counts) {
    let name = path.display().to_string();
    let mut config = RunConfig::new("trace", "glibc-like");
    config.workload.path = Some(name.clone());
    let file = std::fs::File::open(path).unwrap();
    let out = run_with(&config, |sink| {
        trace::read(BufReader::new(file), &name, sink)
            .map(|_| ())
            .map_err(|e| RunError::Event(e.to_string()))
    })
    .unwrap_or_else(|e| panic!("replay of {name}: {e}"));
    let s = &out.report.summary;
    assert_eq!(
        (
            s.allocs(),
            s.frees(),
            s.reallocs(),
            s.peak_live_bytes(),
            s.end_live_bytes()
        ),
        (
            counts.allocs,
            counts.frees,
            counts.reallocs,
            counts.peak_live_bytes,
            counts.live_bytes
        )
    );
}
