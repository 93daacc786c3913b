//! Page statistics: one struct, one field list, counted at the provider call sites.

use serde::Serialize;

/// A value that goes up and down, with the highest value it ever had.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Gauge {
    pub current: u64,
    pub peak: u64,
}

impl Gauge {
    #[inline]
    pub fn add(&mut self, n: u64) {
        self.current += n;
        if self.current > self.peak {
            self.peak = self.current;
        }
    }

    #[inline]
    pub fn sub(&mut self, n: u64) {
        debug_assert!(self.current >= n, "gauge would go negative");
        self.current -= n;
    }
}

/// What the page provider was asked to do, and what memory that left the program with.
///
/// Gauges count pages except `reserved`, which counts bytes because reservations need not
/// be page multiples in a policy's eyes. Counters only ever grow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PageStats {
    /// Address space held, in bytes.
    pub reserved_bytes: Gauge,
    /// Pages made usable and not given back.
    pub committed_pages: Gauge,
    /// Committed pages written since their last commit: what the OS has to back with RAM.
    pub resident_pages: Gauge,
    /// Distinct pages that were ever resident.
    pub touched_pages: u64,
    pub reserve_ops: u64,
    pub release_ops: u64,
    /// Commit calls, and the pages named by them.
    pub commit_ops: u64,
    pub committed_pages_total: u64,
    /// Decommit calls, and the pages named by them.
    pub decommit_ops: u64,
    pub decommitted_pages_total: u64,
}

impl PageStats {
    /// Operations that cost a system call: the figure scenario S3 compares.
    pub fn page_ops(&self) -> u64 {
        self.reserve_ops + self.release_ops + self.commit_ops + self.decommit_ops
    }
}
