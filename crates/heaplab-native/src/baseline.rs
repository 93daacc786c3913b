//! `heaplab baseline`: the same events through a real allocator — glibc's malloc, mimalloc
//! or jemalloc — called directly (none of them is this process's global allocator), every
//! byte of each block written as `--touch all` writes it.
//!
//! RSS figures are of the heap: the process's anonymous resident memory minus what it was
//! just before the first event, which holds the decoded events and everything heaplab
//! itself uses. File-backed pages (the program's code) are left out of both.
//! Run this in a process of its own (the CLI re-executes itself) so that figure is clean.

use std::fmt;
use std::time::Instant;

use heaplab_core::event::{ArenaId, BlockId, Event};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::os;
use crate::pattern;

/// A real allocator heaplab can replay events through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RealAllocator {
    /// glibc's malloc, free, realloc and posix_memalign; trimmed with `malloc_trim(0)`.
    System,
    /// mimalloc (`mi_malloc_aligned`, `mi_realloc`, `mi_free`); trimmed with
    /// `mi_collect(true)`.
    Mimalloc,
    /// jemalloc, prefixed so it does not replace malloc (`mallocx`, `rallocx`,
    /// `sdallocx`); trimmed with `arena.<all>.purge`.
    Jemalloc,
}

impl RealAllocator {
    pub const ALL: [RealAllocator; 3] = [
        RealAllocator::System,
        RealAllocator::Mimalloc,
        RealAllocator::Jemalloc,
    ];

    pub fn id(self) -> &'static str {
        match self {
            RealAllocator::System => "system",
            RealAllocator::Mimalloc => "mimalloc",
            RealAllocator::Jemalloc => "jemalloc",
        }
    }

    /// An allocator by id; the error lists the valid ones.
    pub fn parse(id: &str) -> Result<RealAllocator, String> {
        RealAllocator::ALL
            .into_iter()
            .find(|a| a.id() == id)
            .ok_or_else(|| {
                let ids: Vec<&str> = RealAllocator::ALL.iter().map(|a| a.id()).collect();
                format!(
                    "unknown allocator {id:?}; valid ones are: {}",
                    ids.join(", ")
                )
            })
    }

    /// What the allocator's trim call is, for reports.
    pub fn trim_call(self) -> &'static str {
        match self {
            RealAllocator::System => "malloc_trim(0)",
            RealAllocator::Mimalloc => "mi_collect(true)",
            RealAllocator::Jemalloc => "mallctl(\"arena.<all>.purge\")",
        }
    }
}

impl fmt::Display for RealAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(any(target_os = "linux", target_os = "macos"))]
mod ffi {
    //! The three allocators' entry points, one `match` each. Every function has the
    //! contract of C's `malloc` family: a pointer passed back must have come from the same
    //! allocator and still be live.

    use std::ffi::c_void;

    use super::RealAllocator;

    /// glibc's malloc already aligns to 16 on 64-bit targets; larger alignments need the
    /// aligned entry points.
    const MALLOC_ALIGN: u64 = 16;

    pub fn alloc(a: RealAllocator, size: u64, align: u64) -> *mut u8 {
        let size = size as usize;
        // SAFETY: plain allocation calls; a null result is handled by the caller.
        unsafe {
            match a {
                RealAllocator::System if align <= MALLOC_ALIGN => libc::malloc(size).cast(),
                RealAllocator::System => {
                    let mut p: *mut c_void = std::ptr::null_mut();
                    if libc::posix_memalign(&mut p, align as usize, size) != 0 {
                        return std::ptr::null_mut();
                    }
                    p.cast()
                }
                RealAllocator::Mimalloc => {
                    libmimalloc_sys::mi_malloc_aligned(size, align as usize).cast()
                }
                RealAllocator::Jemalloc => tikv_jemalloc_sys::mallocx(
                    size.max(1),
                    tikv_jemalloc_sys::MALLOCX_ALIGN(align as usize),
                )
                .cast(),
            }
        }
    }

    /// # Safety
    /// `p` came from `alloc` or `realloc` of the same allocator with this size and
    /// alignment and is live.
    pub unsafe fn free(a: RealAllocator, p: *mut u8, size: u64, align: u64) {
        // SAFETY: the caller's promise.
        unsafe {
            match a {
                RealAllocator::System => libc::free(p.cast()),
                RealAllocator::Mimalloc => libmimalloc_sys::mi_free(p.cast()),
                RealAllocator::Jemalloc => tikv_jemalloc_sys::sdallocx(
                    p.cast(),
                    (size as usize).max(1),
                    tikv_jemalloc_sys::MALLOCX_ALIGN(align as usize),
                ),
            }
        }
    }

    /// Resizes a block to `size` at the default alignment (a trace's realloc carries no
    /// alignment, as C's does not). A realloc to zero bytes asks for one: glibc's
    /// `realloc(p, 0)` frees the block and returns null, which the simulator does not do.
    ///
    /// # Safety
    /// As for [`free`].
    pub unsafe fn realloc(a: RealAllocator, p: *mut u8, size: u64) -> *mut u8 {
        let size = (size as usize).max(1);
        // SAFETY: the caller's promise.
        unsafe {
            match a {
                RealAllocator::System => libc::realloc(p.cast(), size).cast(),
                RealAllocator::Mimalloc => libmimalloc_sys::mi_realloc(p.cast(), size).cast(),
                RealAllocator::Jemalloc => tikv_jemalloc_sys::rallocx(
                    p.cast(),
                    size,
                    tikv_jemalloc_sys::MALLOCX_ALIGN(MALLOC_ALIGN as usize),
                )
                .cast(),
            }
        }
    }

    /// Gives free memory back to the operating system where the allocator can.
    pub fn trim(a: RealAllocator) {
        // SAFETY: each call only asks the allocator to return memory it holds free.
        unsafe {
            match a {
                #[cfg(target_os = "linux")]
                RealAllocator::System => {
                    libc::malloc_trim(0);
                }
                #[cfg(not(target_os = "linux"))]
                RealAllocator::System => {}
                RealAllocator::Mimalloc => libmimalloc_sys::mi_collect(true),
                RealAllocator::Jemalloc => {
                    // MALLCTL_ARENAS_ALL is 4096: every arena at once.
                    let name = c"arena.4096.purge";
                    tikv_jemalloc_sys::mallctl(
                        name.as_ptr(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        0,
                    );
                }
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod ffi {
    //! No allocators linked: `run` refuses before any of these is called.
    use super::RealAllocator;

    pub fn alloc(_: RealAllocator, _: u64, _: u64) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub unsafe fn free(_: RealAllocator, _: *mut u8, _: u64, _: u64) {}
    pub unsafe fn realloc(_: RealAllocator, _: *mut u8, _: u64) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub fn trim(_: RealAllocator) {}
}

/// What a baseline measured. RSS figures are of the heap: the process's anonymous resident
/// memory minus `rss_before_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineReport {
    pub allocator: RealAllocator,
    pub events: u64,
    /// Median over the timed runs of wall time per event.
    pub ns_per_event: f64,
    pub ns_per_event_runs: Vec<f64>,
    /// Most heap RSS at a sample (about every 1% of the events, and after the last).
    pub peak_rss_bytes: u64,
    /// Heap RSS after the last event, with the workload's still-live blocks live.
    pub end_rss_bytes: u64,
    /// The same after the allocator was asked to give free memory back (`trim_call`).
    pub end_rss_after_trim_bytes: u64,
    pub trim_call: String,
    /// The process's anonymous resident memory just before the first event: the decoded
    /// events and heaplab itself, subtracted from every figure above.
    pub rss_before_bytes: u64,
}

/// A live block of the replay.
#[derive(Clone, Copy)]
struct Live {
    ptr: *mut u8,
    size: u64,
    align: u64,
    arena: Option<ArenaId>,
}

/// The replay state: the live blocks by id and the arenas' members, as the simulator keeps
/// them, so the same events mean the same frees.
struct Heap {
    alloc: RealAllocator,
    live: FxHashMap<BlockId, Live>,
    arenas: FxHashMap<ArenaId, Vec<BlockId>>,
}

impl Heap {
    /// A heap whose id table already has room for `capacity` blocks, so the table never
    /// grows during a run, and whose every slot has been written once, so its memory is
    /// resident before the RSS baseline is taken: the heap RSS is the allocator's, and
    /// the table does not interleave with the blocks in glibc's heap (heaplab's own).
    fn new(alloc: RealAllocator, capacity: usize) -> Heap {
        let mut live = FxHashMap::default();
        live.reserve(capacity);
        let dummy = Live {
            ptr: std::ptr::null_mut(),
            size: 0,
            align: 1,
            arena: None,
        };
        for id in 0..capacity as u64 {
            live.insert(id, dummy);
        }
        // Clearing keeps the allocation; no dummy is ever freed.
        live.clear();
        Heap {
            alloc,
            live,
            arenas: FxHashMap::default(),
        }
    }

    fn apply(&mut self, event: &Event) -> Result<(), String> {
        match *event {
            Event::Alloc {
                id,
                size,
                align,
                arena,
                ..
            } => {
                if self.live.contains_key(&id) {
                    return Err(format!("alloc of block id {id}, which is already live"));
                }
                if let Some(a) = arena {
                    self.arenas
                        .get_mut(&a)
                        .ok_or_else(|| format!("alloc in arena {a}, which was not created"))?
                        .push(id);
                }
                let align = align.max(1);
                let ptr = ffi::alloc(self.alloc, size, align);
                if ptr.is_null() {
                    return Err(format!(
                        "{}: out of memory allocating {size} bytes",
                        self.alloc
                    ));
                }
                // SAFETY: a fresh block of `size` bytes.
                unsafe { pattern::fill(ptr as u64, size) };
                self.live.insert(
                    id,
                    Live {
                        ptr,
                        size,
                        align,
                        arena,
                    },
                );
            }
            Event::Free { id, .. } => {
                let b = self
                    .live
                    .remove(&id)
                    .ok_or_else(|| format!("free of block id {id}, which is not live"))?;
                self.release(b)?;
            }
            Event::Realloc { id, size, .. } => {
                let b = self
                    .live
                    .get_mut(&id)
                    .ok_or_else(|| format!("realloc of block id {id}, which is not live"))?;
                check(self.alloc, b)?;
                // SAFETY: a live block of this allocator.
                let ptr = unsafe { ffi::realloc(self.alloc, b.ptr, size) };
                if ptr.is_null() {
                    return Err(format!(
                        "{}: out of memory reallocating to {size} bytes",
                        self.alloc
                    ));
                }
                // SAFETY: the block now has `size` bytes.
                unsafe { pattern::fill(ptr as u64, size) };
                b.ptr = ptr;
                b.size = size;
                b.align = heaplab_core::event::DEFAULT_ALIGN;
            }
            Event::Phase(_) => {}
            Event::ArenaCreate(a) => {
                if self.arenas.insert(a, Vec::new()).is_some() {
                    return Err(format!("arena {a} already exists"));
                }
            }
            Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                let ids = self
                    .arenas
                    .remove(&a)
                    .ok_or_else(|| format!("reset or drop of arena {a}, which does not exist"))?;
                for id in ids {
                    // Ids freed or reused since are skipped, as in the simulator.
                    if self.live.get(&id).is_some_and(|b| b.arena == Some(a)) {
                        let b = self.live.remove(&id).expect("checked above");
                        self.release(b)?;
                    }
                }
                if matches!(event, Event::ArenaReset(_)) {
                    self.arenas.insert(a, Vec::new());
                }
            }
        }
        Ok(())
    }

    fn release(&mut self, b: Live) -> Result<(), String> {
        check(self.alloc, &b)?;
        // SAFETY: a live block of this allocator with this size and alignment.
        unsafe { ffi::free(self.alloc, b.ptr, b.size, b.align) };
        Ok(())
    }

    /// Frees every block still live, so the next run starts from an empty heap; the id
    /// table keeps its capacity.
    fn clear(&mut self) {
        for (_, b) in self.live.drain() {
            // SAFETY: as in `release`.
            unsafe { ffi::free(self.alloc, b.ptr, b.size, b.align) };
        }
        self.arenas.clear();
    }
}

/// Reads a block back before it dies or moves, as `--real` does, so both do the same work
/// per byte (and a broken replay is caught).
fn check(alloc: RealAllocator, b: &Live) -> Result<(), String> {
    // SAFETY: a live block of `size` bytes that this replay wrote.
    if unsafe { pattern::holds(b.ptr as u64, b.size) } {
        Ok(())
    } else {
        Err(format!("{alloc}: the block at {:p} was overwritten", b.ptr))
    }
}

/// The most blocks live at once, by the same rules as the replay (arena resets and drops
/// kill their blocks); bad events are left for the replay to report.
fn peak_live_blocks(events: &[Event]) -> usize {
    let mut live: FxHashMap<BlockId, Option<ArenaId>> = FxHashMap::default();
    let mut arenas: FxHashMap<ArenaId, Vec<BlockId>> = FxHashMap::default();
    let mut peak = 0;
    for e in events {
        match *e {
            Event::Alloc { id, arena, .. } => {
                live.insert(id, arena);
                if let Some(ids) = arena.and_then(|a| arenas.get_mut(&a)) {
                    ids.push(id);
                }
                peak = peak.max(live.len());
            }
            Event::Free { id, .. } => {
                live.remove(&id);
            }
            Event::ArenaCreate(a) => {
                arenas.insert(a, Vec::new());
            }
            Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                for id in arenas.remove(&a).unwrap_or_default() {
                    if live.get(&id) == Some(&Some(a)) {
                        live.remove(&id);
                    }
                }
                if matches!(e, Event::ArenaReset(_)) {
                    arenas.insert(a, Vec::new());
                }
            }
            Event::Realloc { .. } | Event::Phase(_) => {}
        }
    }
    peak
}

/// Replays `events` through `alloc` once with RSS sampling, then `repeat` times timed.
/// Each run starts after the previous run's blocks were freed and the allocator trimmed.
/// Call it in a process of its own for clean RSS figures.
pub fn run(
    alloc: RealAllocator,
    events: &[Event],
    repeat: usize,
) -> Result<BaselineReport, String> {
    if !os::SUPPORTED {
        return Err("real allocators need Linux or macOS".into());
    }
    // Anonymous memory only: a heap is anonymous, and the file-backed part of the resident
    // set grows whenever the child runs code it had not run before.
    let rss = || os::anon_rss_bytes().unwrap_or(0);
    let mut heap = Heap::new(alloc, peak_live_blocks(events));
    let every = (events.len() / 100).max(1);
    // Decoding left free chunks in glibc's heap that are still resident. A replay through
    // glibc would reuse them without a page fault and look smaller than it is, so they go
    // back to the OS before the starting point is taken.
    ffi::trim(RealAllocator::System);
    let rss_before = rss();
    let mut peak = rss_before;
    let numbered = |i: usize, e: String| format!("event {}: {e}", i + 1);
    for (i, e) in events.iter().enumerate() {
        heap.apply(e).map_err(|m| numbered(i, m))?;
        if (i + 1).is_multiple_of(every) {
            peak = peak.max(rss());
        }
    }
    let end = rss();
    peak = peak.max(end);
    ffi::trim(alloc);
    let end_trimmed = rss();
    heap.clear();
    ffi::trim(alloc);
    let mut runs = Vec::new();
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        for (i, e) in events.iter().enumerate() {
            heap.apply(e).map_err(|m| numbered(i, m))?;
        }
        let ns = start.elapsed().as_nanos() as f64 / events.len().max(1) as f64;
        runs.push(ns);
        heap.clear();
        ffi::trim(alloc);
    }
    Ok(BaselineReport {
        allocator: alloc,
        events: events.len() as u64,
        ns_per_event: crate::median(&runs),
        ns_per_event_runs: runs,
        peak_rss_bytes: peak.saturating_sub(rss_before),
        end_rss_bytes: end.saturating_sub(rss_before),
        end_rss_after_trim_bytes: end_trimmed.saturating_sub(rss_before),
        trim_call: alloc.trim_call().into(),
        rss_before_bytes: rss_before,
    })
}

/// Times one replay of `events` through `alloc`, then frees what is left and trims
/// (untimed): one benchmark iteration.
pub fn time_once(alloc: RealAllocator, events: &[Event]) -> Result<std::time::Duration, String> {
    let mut heap = Heap::new(alloc, peak_live_blocks(events));
    let start = Instant::now();
    for (i, e) in events.iter().enumerate() {
        heap.apply(e).map_err(|m| format!("event {}: {m}", i + 1))?;
    }
    let elapsed = start.elapsed();
    heap.clear();
    ffi::trim(alloc);
    Ok(elapsed)
}
