//! `libheaplab_preload.so`: records a program's heap as a heaplab `.trace`.
//!
//! ```sh
//! HEAPLAB_TRACE=/tmp/prog.trace LD_PRELOAD=target/debug/libheaplab_preload.so prog args
//! ```
//!
//! (`heaplab record -o prog.trace -- prog args` does this for you.) The library defines
//! the malloc family — `malloc`, `calloc`, `realloc`, `reallocarray`, `free`,
//! `posix_memalign`, `aligned_alloc`, `memalign`, `valloc`, `pvalloc`,
//! `malloc_usable_size` — forwards each call to the real one (`real.rs`), and records it
//! through `heaplab_record::hooks`, which writes the trace without ever calling the
//! allocator it records. `process.rs` decides where the trace goes, starts it in a
//! constructor, ends it at exit (and in `_exit`, which skips destructors), and gives
//! each forked child its own file.
//!
//! Panics: none of this code panics by design, and since Rust 1.81 a panic that reaches
//! an `extern "C"` function aborts the process instead of unwinding into C.

#![cfg(target_os = "linux")]

use std::ffi::{c_int, c_void};

use heaplab_record::hooks;

mod boot;
mod process;
mod real;
mod site;

/// What `malloc` promises on 64-bit glibc, and the trace's default.
const MALLOC_ALIGN: usize = 16;

fn set_errno(e: c_int) {
    // SAFETY: __errno_location returns this thread's errno, always valid to write.
    unsafe { *libc::__errno_location() = e };
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions and does not allocate.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// Records a successful allocation from call site `site` (0: unknown) and returns it.
#[inline]
fn allocated(p: *mut c_void, size: usize, align: usize, site: usize) -> *mut c_void {
    if !p.is_null() {
        hooks::alloc(p.cast(), size, align, site);
    }
    p
}

/// `malloc` from call site `site`: what the exported `malloc` jumps to (see `site.rs`).
///
/// # Safety
/// The C `malloc` contract.
pub(crate) unsafe extern "C" fn malloc_from(size: usize, site: usize) -> *mut c_void {
    let Some(f) = real::fns() else {
        return boot::alloc(size, MALLOC_ALIGN);
    };
    // SAFETY: forwarding the caller's call to the real malloc.
    allocated(unsafe { (f.malloc)(size) }, size, MALLOC_ALIGN, site)
}

/// `calloc` from call site `site`.
///
/// # Safety
/// The C `calloc` contract.
pub(crate) unsafe extern "C" fn calloc_from(n: usize, size: usize, site: usize) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        set_errno(libc::ENOMEM);
        return std::ptr::null_mut();
    };
    let Some(f) = real::fns() else {
        return boot::alloc(total, MALLOC_ALIGN);
    };
    // SAFETY: forwarding the caller's call to the real calloc.
    allocated(unsafe { (f.calloc)(n, size) }, total, MALLOC_ALIGN, site)
}

/// `realloc` from call site `site`.
///
/// # Safety
/// The C `realloc` contract.
pub(crate) unsafe extern "C" fn realloc_from(
    p: *mut c_void,
    size: usize,
    site: usize,
) -> *mut c_void {
    if p.is_null() {
        // SAFETY: realloc(NULL, n) is malloc(n).
        return unsafe { malloc_from(size, site) };
    }
    if boot::contains(p) {
        // A bootstrap block moves to the real heap (or a new bootstrap block); the old
        // one is simply left behind.
        // SAFETY: malloc's contract holds; `p` is a bootstrap block of `boot::size(p)`
        // bytes and `q` has room for `size`; they cannot overlap.
        unsafe {
            let q = malloc_from(size, site);
            if !q.is_null() {
                let n = boot::size(p).min(size);
                std::ptr::copy_nonoverlapping(p.cast::<u8>(), q.cast::<u8>(), n);
            }
            return q;
        }
    }
    let Some(f) = real::fns() else {
        // Only bootstrap blocks exist before the real allocator is known.
        set_errno(libc::ENOMEM);
        return std::ptr::null_mut();
    };
    let pending = hooks::realloc_begin(p.cast());
    // SAFETY: forwarding the caller's call to the real realloc.
    let q = unsafe { (f.realloc)(p, size) };
    // glibc's realloc(p, 0) frees p and returns null.
    hooks::realloc_end(pending, q.cast(), size, size == 0, site);
    q
}

/// # Safety
/// The C `reallocarray` contract.
#[no_mangle]
pub unsafe extern "C" fn reallocarray(p: *mut c_void, n: usize, size: usize) -> *mut c_void {
    match n.checked_mul(size) {
        // SAFETY: the caller's contract is realloc's once the size is known not to
        // overflow.
        Some(total) => unsafe { realloc_from(p, total, 0) },
        None => {
            set_errno(libc::ENOMEM);
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// The C `free` contract.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if p.is_null() || boot::contains(p) {
        return;
    }
    let Some(f) = real::fns() else {
        return;
    };
    // Recorded before the memory goes back: see `heaplab_record::hooks`.
    hooks::free(p.cast());
    // SAFETY: forwarding the caller's call to the real free.
    unsafe { (f.free)(p) }
}

/// # Safety
/// The C `posix_memalign` contract.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int {
    let Some(f) = real::fns() else {
        // A power of two is a multiple of the pointer size when it is at least that size.
        if !align.is_power_of_two() || align < size_of::<usize>() {
            return libc::EINVAL;
        }
        let p = boot::alloc(size, align);
        if p.is_null() {
            return libc::ENOMEM;
        }
        // SAFETY: the caller passes a valid `out`.
        unsafe { *out = p };
        return 0;
    };
    // SAFETY: forwarding the caller's call to the real posix_memalign.
    let r = unsafe { (f.posix_memalign)(out, align, size) };
    if r == 0 {
        // SAFETY: on success the real function stored the block in `*out`.
        allocated(unsafe { *out }, size, align, 0);
    }
    r
}

/// The aligned allocators that return their block: `aligned_alloc`, `memalign`.
///
/// # Safety
/// `real` is the real function of that contract.
unsafe fn aligned(
    real: impl FnOnce(&real::Fns) -> Option<real::Memalign>,
    align: usize,
    size: usize,
) -> *mut c_void {
    let Some(f) = real::fns() else {
        return boot::alloc(size, align.max(1).next_power_of_two());
    };
    let Some(real) = real(f) else {
        set_errno(libc::ENOMEM);
        return std::ptr::null_mut();
    };
    // SAFETY: forwarding the caller's call to the real function.
    allocated(unsafe { real(align, size) }, size, align, 0)
}

/// # Safety
/// The C `aligned_alloc` contract.
#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    // SAFETY: the real aligned_alloc for aligned_alloc's caller.
    unsafe { aligned(|f| f.aligned_alloc, align, size) }
}

/// # Safety
/// The C `memalign` contract.
#[no_mangle]
pub unsafe extern "C" fn memalign(align: usize, size: usize) -> *mut c_void {
    // SAFETY: the real memalign for memalign's caller.
    unsafe { aligned(|f| f.memalign, align, size) }
}

/// # Safety
/// The C `valloc` contract.
#[no_mangle]
pub unsafe extern "C" fn valloc(size: usize) -> *mut c_void {
    let page = page_size();
    match real::fns() {
        None => boot::alloc(size, page),
        // SAFETY: forwarding the caller's call to the real valloc.
        Some(f) => match f.valloc {
            Some(v) => allocated(unsafe { v(size) }, size, page, 0),
            None => std::ptr::null_mut(),
        },
    }
}

/// # Safety
/// The C `pvalloc` contract: `size` rounded up to whole pages, page-aligned.
#[no_mangle]
pub unsafe extern "C" fn pvalloc(size: usize) -> *mut c_void {
    let page = page_size();
    let Some(rounded) = size.max(1).checked_next_multiple_of(page) else {
        set_errno(libc::ENOMEM);
        return std::ptr::null_mut();
    };
    match real::fns() {
        None => boot::alloc(rounded, page),
        // SAFETY: forwarding the caller's call to the real pvalloc.
        Some(f) => match f.pvalloc {
            Some(v) => allocated(unsafe { v(size) }, rounded, page, 0),
            None => std::ptr::null_mut(),
        },
    }
}

/// Bootstrap blocks are not the real allocator's to measure.
///
/// # Safety
/// The glibc `malloc_usable_size` contract.
#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    if p.is_null() {
        return 0;
    }
    if boot::contains(p) {
        // SAFETY: `p` is a bootstrap block.
        return unsafe { boot::size(p) };
    }
    match real::fns().and_then(|f| f.malloc_usable_size) {
        // SAFETY: forwarding the caller's call to the real function.
        Some(u) => unsafe { u(p) },
        None => 0,
    }
}

/// `_exit` skips destructors, so the trace is finished here first.
///
/// # Safety
/// The C `_exit` contract.
#[no_mangle]
pub unsafe extern "C" fn _exit(code: c_int) -> ! {
    process::before_exit();
    match real::fns().and_then(|f| f.exit) {
        // SAFETY: forwarding the caller's call to the real _exit.
        Some(exit) => unsafe { exit(code) },
        // SAFETY: exit_group ends the process at once, as _exit does.
        None => unsafe {
            libc::syscall(libc::SYS_exit_group, code);
            libc::abort()
        },
    }
}

/// # Safety
/// The C `_Exit` contract (the same as `_exit`).
#[no_mangle]
pub unsafe extern "C" fn _Exit(code: c_int) -> ! {
    // SAFETY: `_Exit` is `_exit`.
    unsafe { _exit(code) }
}
