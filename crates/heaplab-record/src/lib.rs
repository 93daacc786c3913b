//! Records a program's heap events as a heaplab `.trace`, as the program runs.
//!
//! For a Rust program, wrap its global allocator and start recording:
//!
//! ```no_run
//! use std::alloc::System;
//! use heaplab_record::Recorder;
//!
//! #[global_allocator]
//! static ALLOC: Recorder<System> = Recorder::new(System);
//!
//! fn main() -> std::io::Result<()> {
//!     heaplab_record::start("prog.trace")?;
//!     let v: Vec<u64> = (0..1000).collect();
//!     drop(v);
//!     let counts = heaplab_record::finish()?;
//!     eprintln!("{counts}");
//!     Ok(())
//! }
//! ```
//!
//! Then `heaplab run -w prog.trace -p glibc-like` replays it. For any other program,
//! `heaplab record -o prog.trace -- prog args` loads `heaplab-preload`, which records
//! through the same [`hooks`].
//!
//! A program that has arenas of its own tells the recorder about them through
//! [`arenas`] (from C, `include/heaplab.h`), so the trace has their allocations and
//! resets rather than only the slabs they take from malloc.
//!
//! The recorder never calls the allocator it records: its address table and output
//! buffer are mapped from the kernel (`sys.rs`), its lock spins (`lock.rs`), its
//! per-thread state is `const` thread-locals (`thread.rs`), and the trace goes out with
//! raw `write(2)` a megabyte at a time, so a long run never holds its trace in memory.
//! Recording works on Linux; elsewhere [`start`] refuses.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::CString;
use std::io;
use std::path::Path;

pub mod arenas;
mod counts;
pub mod hooks;
mod lock;
mod log;
pub mod maps;
mod table;
mod thread;

#[cfg(target_os = "linux")]
#[path = "sys/linux.rs"]
pub mod sys;
#[cfg(not(target_os = "linux"))]
#[path = "sys/unsupported.rs"]
pub mod sys;

pub use counts::{Counts, TRAILER};
pub use log::{StartError, MARK_EVERY_NS};

/// A `GlobalAlloc` that passes every call to `A` and records it while a trace is open.
#[derive(Debug)]
pub struct Recorder<A> {
    inner: A,
}

impl<A> Recorder<A> {
    pub const fn new(inner: A) -> Recorder<A> {
        Recorder { inner }
    }
}

// SAFETY: every method forwards to `inner` with the caller's arguments unchanged and
// returns its result unchanged; the recording around it touches no memory of the block.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Recorder<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `inner.alloc`'s.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            hooks::alloc(p, layout.size(), layout.align(), 0);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            hooks::alloc(p, layout.size(), layout.align(), 0);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        hooks::free(ptr);
        // SAFETY: the caller's contract for `dealloc` is `inner.dealloc`'s.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let pending = hooks::realloc_begin(ptr);
        // SAFETY: the caller's contract for `realloc` is `inner.realloc`'s.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        // A failed `GlobalAlloc::realloc` leaves the block alone; it never frees.
        hooks::realloc_end(pending, p, new_size, false, 0);
        p
    }
}

/// Starts recording this process to `path` (created or truncated), with a header naming
/// the process and its command line. Fails if a trace is already open, the file cannot be
/// made, or the platform is not Linux.
pub fn start(path: impl AsRef<Path>) -> io::Result<()> {
    if cfg!(not(target_os = "linux")) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "heaplab-record records on Linux only",
        ));
    }
    // What `start` itself allocates (the path, the arguments) is not recorded, and is
    // freed before it returns.
    let _busy = thread::Busy::enter();
    let path = path.as_ref();
    let c_path = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path has a NUL byte"))?;
    let fd = sys::open(&c_path, sys::Create::Truncate)
        .map_err(|e| with_path(io::Error::from_raw_os_error(e), path))?;
    let pid = sys::pid().to_string();
    let args: Vec<String> = std::env::args().collect();
    let result = hooks::start_fd(fd, |h| {
        let mut parts: Vec<&[u8]> = vec![
            b"heaplab trace: recorded from Rust, pid ",
            pid.as_bytes(),
            b":",
        ];
        for a in &args {
            parts.push(b" ");
            parts.push(a.as_bytes());
        }
        h.comment(&parts);
    });
    result.map_err(|e| {
        sys::close(fd);
        match e {
            StartError::AlreadyRecording => {
                io::Error::other("heaplab-record: this process is already recording")
            }
            StartError::OutOfMemory => io::Error::new(
                io::ErrorKind::OutOfMemory,
                "heaplab-record: cannot map the trace buffer",
            ),
        }
    })
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Writes the events buffered so far to the trace file.
pub fn flush() {
    hooks::flush();
}

/// Ends the trace: writes the trailer (see [`Counts`]) and closes the file. Events after
/// this are not recorded.
pub fn finish() -> io::Result<Counts> {
    hooks::finish().ok_or_else(|| io::Error::other("heaplab-record: no trace is open"))
}

/// What the open trace has recorded so far.
pub fn counts() -> Counts {
    hooks::counts()
}
