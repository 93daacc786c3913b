//! `heaplab baseline`: the same events through a real allocator — glibc's malloc, mimalloc
//! or jemalloc called directly (none of them is this process's global allocator), or any
//! allocator library preloaded into the process — every byte of each block written as
//! `--touch all` writes it.
//!
//! RSS figures are of the heap: the process's anonymous resident memory minus what it was
//! just before the first event, which holds the decoded events and everything heaplab
//! itself uses. File-backed pages (the program's code) are left out of both.
//! Run this in a process of its own, once per run (the CLI re-executes itself), so that
//! each figure is clean and each run starts from a fresh allocator.

mod allocator;
#[cfg(any(target_os = "linux", target_os = "macos"))]
mod ffi;
#[cfg(any(target_os = "linux", target_os = "macos"))]
mod heap;
#[cfg(any(target_os = "linux", target_os = "macos"))]
mod preload;
mod release;
mod report;
#[cfg(any(target_os = "linux", target_os = "macos"))]
mod vendor;

use std::time::Instant;

use heaplab_core::event::Event;

use crate::os;

pub use allocator::RealAllocator;
pub use release::{Library, Release};
pub use report::{BaselineReport, RunFigures, Spread, SPREAD_FLAG, SPREAD_SLACK_BYTES};

/// Replays `events` through `alloc` once, sampling RSS, and reports the run's pace and
/// memory. Call it in a process of its own, once, for clean RSS figures; a preloaded
/// allocator must be this process's `malloc` (`LD_PRELOAD`), which is checked first.
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub fn run(alloc: &RealAllocator, events: &[Event]) -> Result<BaselineReport, String> {
    use crate::marks::Stopwatch;
    use heap::{peak_live_blocks, Heap};

    if let Some(path) = alloc.preload_path() {
        preload::check(path)?;
    }
    // Anonymous memory only: a heap is anonymous, and the file-backed part of the resident
    // set grows whenever the child runs code it had not run before. heaplab's own heap,
    // where the process has one, is anonymous too and is left out.
    let own = crate::own_heap::resident_bytes;
    let rss = || os::anon_rss_bytes().unwrap_or(0).saturating_sub(own());
    let mut heap = Heap::new(alloc, peak_live_blocks(events));
    let (version, release) = ffi::version(alloc);
    let every = (events.len() / 100).max(1);
    if *alloc == RealAllocator::System {
        // Decoding left free chunks in glibc's heap that are still resident. A replay
        // through glibc would reuse them without a page fault and look smaller than it is,
        // so they go back to the OS before the starting point is taken. Only for glibc:
        // under any other allocator glibc's heap is not the one measured.
        ffi::trim(alloc);
    }
    let hwm = os::reset_peak_rss();
    let rss_before = rss();
    let mut peak = rss_before;
    let numbered = |i: usize, e: String| format!("event {}: {e}", i + 1);
    // The clock is read as the replay goes, so that a model can run on the time this
    // allocator saw pass (`heaplab fidelity`); room for the marks was made before.
    let mut watch = Stopwatch::start(events.len());
    for (i, e) in events.iter().enumerate() {
        watch.before(i as u64);
        heap.apply(e).map_err(|m| numbered(i, m))?;
        if (i + 1).is_multiple_of(every) {
            peak = peak.max(rss());
        }
    }
    let ns_per_event = watch.elapsed().as_nanos() as f64 / events.len().max(1) as f64;
    let end = rss();
    let sampled = peak.max(end);
    // heaplab's own heap only grows, so leaving out what it holds now leaves out at least
    // what it held at the peak.
    let high_water = if hwm {
        os::peak_anon_rss_bytes().map(|p| p.saturating_sub(own()))
    } else {
        None
    };
    let peak = sampled.max(high_water.unwrap_or(0));
    let trim_call = ffi::trim(alloc);
    let end_trimmed = rss();
    heap.clear();
    let heap_of = |rss: u64| rss.saturating_sub(rss_before);
    Ok(BaselineReport::single(
        alloc.clone(),
        version,
        release,
        events.len() as u64,
        trim_call,
        RunFigures {
            pid: std::process::id(),
            ns_per_event,
            peak_rss_bytes: heap_of(peak),
            peak_sampled_rss_bytes: heap_of(sampled),
            peak_from_high_water_mark: high_water.is_some(),
            end_rss_bytes: heap_of(end),
            end_rss_after_trim_bytes: heap_of(end_trimmed),
            rss_before_bytes: rss_before,
            own_heap_bytes: own(),
            time_marks: watch.into_marks(),
        },
    ))
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn run(_: &RealAllocator, _: &[Event]) -> Result<BaselineReport, String> {
    Err("real allocators need Linux or macOS".into())
}

/// Times one replay of `events` through `alloc`, then frees what is left and trims
/// (untimed): one benchmark iteration.
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub fn time_once(alloc: &RealAllocator, events: &[Event]) -> Result<std::time::Duration, String> {
    let mut heap = heap::Heap::new(alloc, heap::peak_live_blocks(events));
    let start = Instant::now();
    for (i, e) in events.iter().enumerate() {
        heap.apply(e).map_err(|m| format!("event {}: {m}", i + 1))?;
    }
    let elapsed = start.elapsed();
    heap.clear();
    ffi::trim(alloc);
    Ok(elapsed)
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn time_once(_: &RealAllocator, _: &[Event]) -> Result<std::time::Duration, String> {
    Err("real allocators need Linux or macOS".into())
}
