//! Every platform but Linux: the recorder compiles, and refuses to start politely.
//! `map` always fails, so no table or buffer is ever made and [`crate::start`] says why.

use std::ffi::CStr;

pub type Fd = i32;

pub fn map(_bytes: usize) -> *mut u8 {
    std::ptr::null_mut()
}

/// # Safety
/// Never called: `map` never succeeds.
pub unsafe fn unmap(_ptr: *mut u8, _bytes: usize) {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    Truncate,
    New,
}

/// Always `ENOSYS`: recording needs Linux.
pub fn open(_path: &CStr, _create: Create) -> Result<Fd, i32> {
    Err(38)
}

/// Always `ENOSYS`: recording needs Linux.
pub fn open_read(_path: &CStr) -> Result<Fd, i32> {
    Err(38)
}

pub fn read(_fd: Fd, _buf: &mut [u8]) -> Option<usize> {
    None
}

pub fn write_all(_fd: Fd, _bytes: &[u8]) -> bool {
    false
}

pub fn close(_fd: Fd) {}

pub fn pid() -> u32 {
    std::process::id()
}

pub fn parent_pid() -> u32 {
    0
}

pub fn tid() -> u32 {
    0
}

pub fn yield_now() {
    std::thread::yield_now()
}

/// Never read: recording never starts.
pub fn monotonic_ns() -> u64 {
    0
}
