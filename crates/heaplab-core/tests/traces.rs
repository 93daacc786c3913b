//! Traces stream: a run over a trace far larger than anyone would hold in memory.
//!
//! This file holds one test, so that the allocator below counts that test's heap alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::run::run_trace;
use heaplab_core::trace::ImportOptions;

/// A `.trace` produced line by line as it is read, never whole: block `k` is allocated
/// at step `k` and freed `LIVE` steps later, with sizes from a small LCG. Ids are
/// never reused, the hardest case for the importer's memory of dead blocks.
struct LazyTrace {
    events: u64,
    emitted: u64,
    step: u64,
    lcg: u64,
    line: Vec<u8>,
    at: usize,
}

const LIVE: u64 = 1000;

impl LazyTrace {
    fn new(events: u64) -> LazyTrace {
        LazyTrace {
            events,
            emitted: 0,
            step: 0,
            lcg: 1,
            line: Vec::new(),
            at: 0,
        }
    }

    /// The next line into `self.line`; false at the end.
    fn refill(&mut self) -> bool {
        use std::io::Write;
        self.line.clear();
        self.at = 0;
        if self.emitted == self.events {
            return false;
        }
        let k = self.step;
        // The free of block k - LIVE follows the allocation of block k.
        if self.emitted % 2 == 1 && k > LIVE {
            writeln!(self.line, "f {}", k - 1 - LIVE).unwrap();
        } else {
            self.lcg = self
                .lcg
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let size = 16 + (self.lcg >> 33) % 1009;
            writeln!(self.line, "a {k} {size}").unwrap();
            self.step += 1;
        }
        self.emitted += 1;
        true
    }
}

impl Read for LazyTrace {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.at == self.line.len() && !self.refill() {
                break;
            }
            let take = (self.line.len() - self.at).min(buf.len() - n);
            buf[n..n + take].copy_from_slice(&self.line[self.at..self.at + take]);
            self.at += take;
            n += take;
        }
        Ok(n)
    }
}

/// The system allocator, counting the bytes it holds and their high-water mark, so the
/// test measures the heap the run takes rather than trusting it is small.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn trace_config(name: &str) -> RunConfig {
    let mut config = RunConfig::new("", "size-class");
    config.workload = WorkloadConfig::trace(name);
    config
}

/// Eight million events (about 80 MB of text, 300 MiB as decoded events): the importer
/// and the simulator keep only live blocks and a bounded memory of dead ones, so the run's
/// heap stays under 64 MiB. A reader that held the text or the events would pass that
/// bound, in every run. The bound is the checker's memory of the latest half million
/// deaths with its window's growth: the heap peaked at 27 MiB at two million events and
/// at 50 MiB at both four and eight million.
#[test]
fn a_long_lazy_trace_streams_through_a_run() {
    let events: u64 = 8_000_000;
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = run_trace(
        &trace_config("lazy.trace"),
        LazyTrace::new(events),
        &ImportOptions::default(),
    )
    .unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    eprintln!(
        "{events} events: the run's heap peaked at {} KiB",
        peak >> 10
    );
    assert!(peak < 64 << 20, "the run's heap peaked at {peak} bytes");
    let s = &out.report.summary;
    assert_eq!(s.events(), events);
    assert_eq!(s.allocs() + s.frees(), events);
    assert!(s.frees() > 0 && s.allocs() - s.frees() <= LIVE + 1);
    assert_eq!(out.trace.unwrap().lines, events);
}
