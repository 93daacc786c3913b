//! The one list of a run's figures. Each entry names the figure (its `--json` field and
//! the method of [`Summary`] that gives it), its label, group, unit, which way is better,
//! a sentence on what it counts, and how it is worked out from the books a run ends with.
//! Tables read the list in this order, and `--json` writes the figures in it.

use super::summary::Summary;
use super::{Better, Group, Metric, Unit};

/// Makes, from one list, `Summary`'s method for each figure and [`METRICS`].
macro_rules! figures {
    ($($key:ident: $ty:ty = |$s:ident| $value:expr,
        $label:literal, $group:ident, $unit:ident, $better:ident, $doc:literal;)*) => {
        impl Summary {
            $(
                #[doc = $doc]
                pub fn $key(&self) -> $ty {
                    let $s = self;
                    $value
                }
            )*
        }

        /// Every figure of a run, in reading order.
        pub static METRICS: &[Metric] = &[$(Metric {
            key: stringify!($key),
            label: $label,
            group: Group::$group,
            unit: Unit::$unit,
            better: Better::$better,
            doc: $doc,
            read: |s| s.$key().into(),
        }),*];
    };
}

figures! {
    events: u64 = |s| s.program.events,
        "Events", Workload, Count, Neither,
        "Events replayed: allocations, frees, reallocations, phases and arena calls.";
    allocs: u64 = |s| s.program.allocs,
        "Allocations", Workload, Count, Neither,
        "Allocations the program made.";
    frees: u64 = |s| s.program.frees,
        "Frees", Workload, Count, Neither,
        "Frees the program made.";
    reallocs: u64 = |s| s.program.reallocs,
        "Reallocations", Workload, Count, Neither,
        "Reallocations the program made.";
    peak_live_bytes: u64 = |s| s.program.live_bytes.peak,
        "Peak live", Memory, Bytes, Neither,
        "Most bytes the program held in live blocks at once.";
    end_live_bytes: u64 = |s| s.program.live_bytes.current,
        "Live at end", Memory, Bytes, Neither,
        "Bytes the program still held at the end.";
    peak_resident_bytes: u64 = |s| s.pages.resident_pages.peak * s.page_size,
        "Peak resident", Memory, Bytes, Smaller,
        "Most memory in pages the program or the allocator had written (RSS).";
    end_resident_bytes: u64 = |s| s.pages.resident_pages.current * s.page_size,
        "Resident at end", Memory, Bytes, Smaller,
        "Resident memory at the end: what the allocator did not give back.";
    peak_committed_bytes: u64 = |s| s.pages.committed_pages.peak * s.page_size,
        "Peak committed", Memory, Bytes, Smaller,
        "Most memory committed at once (backed by the OS, written or not).";
    end_committed_bytes: u64 = |s| s.pages.committed_pages.current * s.page_size,
        "Committed at end", Memory, Bytes, Smaller,
        "Memory still committed at the end.";
    peak_reserved_bytes: u64 = |s| s.pages.reserved_bytes.peak,
        "Peak reserved", Memory, Bytes, Smaller,
        "Most address space reserved at once.";
    end_reserved_bytes: u64 = |s| s.pages.reserved_bytes.current,
        "Reserved at end", Memory, Bytes, Smaller,
        "Address space still reserved at the end.";
    touched_bytes: u64 = |s| s.pages.touched_pages * s.page_size,
        "Touched", Memory, Bytes, Smaller,
        "Distinct memory ever written: pages the OS had to back at some point.";
    metadata_bytes: u64 = |s| s.allocator_metadata_bytes,
        "Allocator metadata", Memory, Bytes, Smaller,
        "The allocator's own bookkeeping at the end, kept out of band.";
    // malloc-lab's utilization; 0 for a run that never made a page resident.
    utilization: f64 = |s| {
        let peak_resident = s.peak_resident_bytes();
        if peak_resident == 0 {
            0.0
        } else {
            s.program.live_bytes.peak as f64 / peak_resident as f64
        }
    },
        "Utilization", Memory, Fraction, Larger,
        "Peak live bytes over peak resident bytes (malloc-lab's utilization).";
    reserve_ops: u64 = |s| s.pages.reserve_ops,
        "Reserve", PageCalls, Count, Smaller,
        "Calls that reserved address space (mmap).";
    commit_ops: u64 = |s| s.pages.commit_ops,
        "Commit", PageCalls, Count, Smaller,
        "Calls that committed pages.";
    decommit_ops: u64 = |s| s.pages.decommit_ops,
        "Decommit", PageCalls, Count, Smaller,
        "Calls that gave pages back while keeping the addresses (madvise).";
    release_ops: u64 = |s| s.pages.release_ops,
        "Release", PageCalls, Count, Smaller,
        "Calls that released address space (munmap).";
    page_ops: u64 = |s| s.pages.page_ops(),
        "All page calls", PageCalls, Count, Smaller,
        "All four kinds of provider call: the OS page operations of LLVM review D71786.";
    committed_pages_total: u64 = |s| s.pages.committed_pages_total,
        "Pages committed", PageCalls, Count, Smaller,
        "Pages committed over the run, counted at each commit.";
    decommitted_pages_total: u64 = |s| s.pages.decommitted_pages_total,
        "Pages decommitted", PageCalls, Count, Smaller,
        "Pages decommitted over the run, counted at each decommit.";
}
