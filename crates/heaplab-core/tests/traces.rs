//! Traces stream: a run over a trace far larger than anyone would hold in memory.

use std::io::{self, Read};

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

fn trace_config(name: &str) -> RunConfig {
    let mut config = RunConfig::new("", "size-class");
    config.workload = WorkloadConfig::trace(name);
    config
}

/// Ten million events in CI, a million otherwise: the importer and the simulator keep
/// only live blocks and a bounded memory of dead ones, whatever the length.
#[test]
fn a_long_lazy_trace_streams_through_a_run() {
    let events: u64 = if std::env::var_os("CI").is_some() {
        10_000_000
    } else {
        1_000_000
    };
    let out = run_trace(
        &trace_config("lazy.trace"),
        LazyTrace::new(events),
        &ImportOptions::default(),
    )
    .unwrap();
    let s = &out.report.summary;
    assert_eq!(s.events(), events);
    assert_eq!(s.allocs() + s.frees(), events);
    assert!(s.frees() > 0 && s.allocs() - s.frees() <= LIVE + 1);
    assert_eq!(out.trace.unwrap().lines, events);
}
