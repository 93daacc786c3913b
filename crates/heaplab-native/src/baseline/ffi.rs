//! The allocators' entry points, one `match` each. Every function has the contract of C's
//! `malloc` family: a pointer passed back must have come from the same allocator and still
//! be live.
//!
//! glibc's own calls (`malloc_trim`, `gnu_get_libc_version`) are made only for
//! [`RealAllocator::System`]: with another allocator preloaded, glibc's malloc is not the
//! one in use, and asking it to trim would act on a heap that is not being measured.

use std::ffi::c_void;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
use std::ffi::CStr;

use super::preload;
use super::release::{Library, Release};
use super::vendor::{jemalloc_purge, jemalloc_version};
use super::RealAllocator;

/// Which functions a replay calls: the C names (glibc's, or those of a preloaded library,
/// which interposes them), or heaplab's linked mimalloc or jemalloc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Libc,
    Mimalloc,
    Jemalloc,
}

impl Entry {
    pub fn of(a: &RealAllocator) -> Entry {
        match a {
            RealAllocator::System | RealAllocator::Preload(_) => Entry::Libc,
            RealAllocator::Mimalloc => Entry::Mimalloc,
            RealAllocator::Jemalloc => Entry::Jemalloc,
        }
    }
}

/// glibc's malloc already aligns to 16 on 64-bit targets (its `MALLOC_ALIGNMENT`, twice
/// `SIZE_SZ`), and so do the allocators that replace it; larger alignments need the
/// aligned entry points.
const MALLOC_ALIGN: u64 = 16;

/// Allocates as a C program does: `malloc` when the default alignment will do, and
/// `posix_memalign` (or the linked allocator's aligned entry) for more. The linked
/// allocators are called through the same C entry points, never through their extended
/// ones: jemalloc's `mallocx` with an alignment flag takes its aligned path, which for a
/// large size (16 KiB and up) goes around the thread cache (`arena_palloc` in arena.c
/// calls `large_malloc`) while `free` still fills the cache's large bins (up to 20 blocks
/// of each class up to 32 KiB), so freed blocks piled up there that a C program's
/// `malloc` would have reused: 2.4 MiB more on GCC's trace than under `malloc`.
pub fn alloc(a: Entry, size: u64, align: u64) -> *mut u8 {
    let size = size as usize;
    let plain = align <= MALLOC_ALIGN;
    // SAFETY: plain allocation calls; a null result is handled by the caller.
    unsafe {
        match a {
            Entry::Libc if plain => libc::malloc(size).cast(),
            Entry::Libc => aligned(size, align, |p, al, n| libc::posix_memalign(p, al, n)),
            Entry::Mimalloc if plain => libmimalloc_sys::mi_malloc(size).cast(),
            Entry::Mimalloc => libmimalloc_sys::mi_malloc_aligned(size, align as usize).cast(),
            Entry::Jemalloc if plain => tikv_jemalloc_sys::malloc(size).cast(),
            Entry::Jemalloc => aligned(size, align, |p, al, n| {
                tikv_jemalloc_sys::posix_memalign(p, al, n)
            }),
        }
    }
}

/// A `posix_memalign` call, its null result on failure.
fn aligned(
    size: usize,
    align: u64,
    call: impl FnOnce(*mut *mut c_void, usize, usize) -> i32,
) -> *mut u8 {
    let mut p: *mut c_void = std::ptr::null_mut();
    if call(&mut p, align as usize, size) != 0 {
        return std::ptr::null_mut();
    }
    p.cast()
}

/// # Safety
/// `p` came from `alloc` or `realloc` of the same allocator and is live.
pub unsafe fn free(a: Entry, p: *mut u8) {
    // SAFETY: the caller's promise.
    unsafe {
        match a {
            Entry::Libc => libc::free(p.cast()),
            Entry::Mimalloc => libmimalloc_sys::mi_free(p.cast()),
            Entry::Jemalloc => tikv_jemalloc_sys::free(p.cast()),
        }
    }
}

/// Resizes a block to `size` at the default alignment (a trace's realloc carries no
/// alignment, as C's does not). A realloc to zero bytes asks for one: glibc's
/// `realloc(p, 0)` frees the block and returns null, which the simulator does not do.
///
/// # Safety
/// As for [`free`].
pub unsafe fn realloc(a: Entry, p: *mut u8, size: u64) -> *mut u8 {
    let size = (size as usize).max(1);
    // SAFETY: the caller's promise.
    unsafe {
        match a {
            Entry::Libc => libc::realloc(p.cast(), size).cast(),
            Entry::Mimalloc => libmimalloc_sys::mi_realloc(p.cast(), size).cast(),
            Entry::Jemalloc => tikv_jemalloc_sys::realloc(p.cast(), size).cast(),
        }
    }
}

/// Gives free memory back to the operating system where the allocator can, and says which
/// call did it ("none" when the allocator has none heaplab knows).
pub fn trim(a: &RealAllocator) -> String {
    // SAFETY: each call only asks the allocator to return memory it holds free.
    unsafe {
        match a {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            RealAllocator::System => {
                libc::malloc_trim(0);
                "malloc_trim(0)".into()
            }
            #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
            RealAllocator::System => "none".into(),
            RealAllocator::Mimalloc => {
                libmimalloc_sys::mi_collect(true);
                "mi_collect(true)".into()
            }
            RealAllocator::Jemalloc => {
                jemalloc_purge(tikv_jemalloc_sys::mallctl);
                "mallctl(\"arena.<all>.purge\")".into()
            }
            RealAllocator::Preload(_) => preload::trim(),
        }
    }
}

/// The allocator's name and version, read from the allocator itself where it says, and
/// the version's numbers where it gives them.
pub fn version(a: &RealAllocator) -> (String, Option<Release>) {
    match a {
        RealAllocator::System => glibc_version(),
        RealAllocator::Mimalloc => {
            // SAFETY: mi_version only returns a constant.
            let release = Release::mimalloc(unsafe { libmimalloc_sys::mi_version() });
            (format!("mimalloc {release} (linked)"), Some(release))
        }
        // SAFETY: the linked jemalloc's own mallctl.
        RealAllocator::Jemalloc => match unsafe { jemalloc_version(tikv_jemalloc_sys::mallctl) } {
            Some(v) => (
                format!("jemalloc {v} (linked)"),
                Release::dotted(Library::Jemalloc, &v),
            ),
            None => ("jemalloc (linked)".into(), None),
        },
        RealAllocator::Preload(_) => preload::version(),
    }
}

fn glibc_version() -> (String, Option<Release>) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: glibc returns a static C string.
        let v = unsafe { CStr::from_ptr(libc::gnu_get_libc_version()) }.to_string_lossy();
        (format!("glibc {v}"), Release::dotted(Library::Glibc, &v))
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    ("the C library's malloc".to_string(), None)
}
