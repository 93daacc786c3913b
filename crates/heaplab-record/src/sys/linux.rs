//! The system calls the recorder makes, on Linux: anonymous mappings for its own memory
//! (never the allocator it records), raw `open`/`write`/`close` for the trace, and the
//! process and thread ids.
//!
//! None of these allocate, which is the point: they are safe to call from inside
//! `malloc`.

use std::ffi::CStr;

pub use libc::c_int as Fd;

/// Maps `bytes` of zeroed, private, read-write memory; null when the kernel refuses.
pub fn map(bytes: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches
    // no existing memory; the result is checked against MAP_FAILED.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// Gives back a mapping made by [`map`].
///
/// # Safety
/// `ptr` and `bytes` must be exactly a live mapping from [`map`], and nothing may use it
/// afterwards.
pub unsafe fn unmap(ptr: *mut u8, bytes: usize) {
    // SAFETY: the caller hands over a whole mapping of ours that nothing uses any more.
    unsafe { libc::munmap(ptr.cast(), bytes) };
}

/// How `open` treats an existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    /// Create or truncate.
    Truncate,
    /// Create; fail with `EEXIST` when the file is there.
    New,
}

/// Opens `path` for writing; `Err(errno)` on failure.
pub fn open(path: &CStr, create: Create) -> Result<Fd, i32> {
    let how = match create {
        Create::Truncate => libc::O_TRUNC,
        Create::New => libc::O_EXCL,
    };
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC | how;
    // SAFETY: `path` is a valid NUL-terminated string for the duration of the call.
    let fd = unsafe { libc::open(path.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 {
        Err(errno())
    } else {
        Ok(fd)
    }
}

/// Opens `path` for reading; `Err(errno)` on failure.
pub fn open_read(path: &CStr) -> Result<Fd, i32> {
    // SAFETY: `path` is a valid NUL-terminated string for the duration of the call.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        Err(errno())
    } else {
        Ok(fd)
    }
}

/// Reads up to `buf.len()` bytes, retrying on `EINTR`: how many were read (0 at the
/// end), or `None` on any other error.
pub fn read(fd: Fd, buf: &mut [u8]) -> Option<usize> {
    loop {
        // SAFETY: `buf` is valid for writes of its length; `fd` is a plain descriptor.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Some(n as usize);
        }
        if errno() != libc::EINTR {
            return None;
        }
    }
}

/// Writes all of `bytes`, retrying on `EINTR` and short writes; false on any other error.
pub fn write_all(fd: Fd, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for reads of its length; `fd` is a plain descriptor.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

pub fn close(fd: Fd) {
    // SAFETY: closing a descriptor this crate opened and no longer uses.
    unsafe { libc::close(fd) };
}

pub fn pid() -> u32 {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() as u32 }
}

pub fn parent_pid() -> u32 {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() as u32 }
}

/// The kernel's id of the calling thread: equal to [`pid`] on the main thread.
pub fn tid() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

/// The monotonic clock, in nanoseconds: through the vDSO, a read of shared memory rather
/// than a system call, about 20 ns.
pub fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64).wrapping_mul(1_000_000_000) + t.tv_nsec as u64
}

pub fn yield_now() {
    // SAFETY: sched_yield has no preconditions.
    unsafe { libc::sched_yield() };
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
