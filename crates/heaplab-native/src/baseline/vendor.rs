//! Calls that mean the same in heaplab's linked mimalloc and jemalloc as in a preloaded
//! copy: jemalloc's `mallctl` commands. How mimalloc's version number is made is in
//! [`Release::mimalloc`](super::release::Release::mimalloc).

use std::ffi::{c_char, c_void, CStr};

/// jemalloc's `mallctl` signature, for the linked copy and a preloaded one alike.
pub type Mallctl =
    unsafe extern "C" fn(*const c_char, *mut c_void, *mut usize, *mut c_void, usize) -> i32;

/// Purges every arena's unused dirty pages: jemalloc's `arena.<i>.purge` (its manual's
/// MALLCTL NAMESPACE), with `MALLCTL_ARENAS_ALL` for `<i>`, which `jemalloc_macros.h`
/// defines as 4096 and shows in this very call.
///
/// # Safety
/// `mallctl` is jemalloc's.
pub unsafe fn jemalloc_purge(mallctl: Mallctl) {
    // SAFETY: the caller's promise; a command without old or new value.
    unsafe {
        mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        );
    }
}

/// jemalloc's version string (its manual: `version`, a read-only `const char *`, "the
/// jemalloc version string", such as "5.3.0-0-g54eaed1d..."), cut at the first dash.
///
/// # Safety
/// `mallctl` is jemalloc's.
pub unsafe fn jemalloc_version(mallctl: Mallctl) -> Option<String> {
    let mut p: *const c_char = std::ptr::null();
    let mut len = std::mem::size_of::<*const c_char>();
    // SAFETY: `version` is a read-only `const char *`, written into `p`.
    let rc = unsafe {
        mallctl(
            c"version".as_ptr(),
            (&mut p as *mut *const c_char).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || p.is_null() {
        return None;
    }
    // SAFETY: jemalloc's version is a static C string.
    let v = unsafe { CStr::from_ptr(p) }.to_string_lossy();
    Some(v.split('-').next().unwrap_or(&v).to_string())
}
