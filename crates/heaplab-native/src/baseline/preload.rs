//! A preloaded allocator library, seen from inside the baseline's process: whether it is
//! the one serving `malloc`, its trim call and its version, each looked up by name among
//! the symbols the process has loaded (`dlsym(RTLD_DEFAULT, ...)`), where a library given
//! to `LD_PRELOAD` comes first.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;

use super::release::{Library, Release};
use super::vendor;

/// A symbol of the process by name, or null.
fn symbol(name: &CStr) -> *mut c_void {
    // SAFETY: a lookup by C string name in the global scope.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
}

/// The file of the loaded object that defines `addr`.
fn object_of(addr: *mut c_void) -> Option<String> {
    // SAFETY: dladdr fills `info` and only reads the address.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if addr.is_null() || unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: the loader's C string for a loaded object.
    Some(
        unsafe { CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Checks that `malloc` in this process is the library's: the dynamic loader ignores a
/// preload it cannot load (a missing file, not a shared library, another architecture),
/// with a warning only, and a library that defines no `malloc` leaves glibc's in place.
/// Either way a baseline would measure glibc under the library's name.
pub fn check(path: &Path) -> Result<(), String> {
    let want = std::fs::canonicalize(path)
        .map_err(|e| format!("{}: cannot read the library: {e}", path.display()))?;
    let owner = object_of(symbol(c"malloc"));
    let is_it = owner
        .as_deref()
        .and_then(|o| std::fs::canonicalize(o).ok())
        .is_some_and(|o| o == want);
    if is_it {
        return Ok(());
    }
    Err(format!(
        "{}: not an allocator library: once preloaded, malloc is still {}'s; a library \
         measured with preload: must define malloc, free, realloc and posix_memalign",
        path.display(),
        owner.as_deref().unwrap_or("the C library")
    ))
}

/// Gives free memory back with the library's own call, found by name: mimalloc's
/// `mi_collect(true)` (mimalloc.h), jemalloc's `arena.<all>.purge` mallctl (its manual),
/// gperftools tcmalloc's `MallocExtension_ReleaseFreeMemory()` (malloc_extension_c.h).
/// "none" when the library has none of them; glibc's `malloc_trim` is never called, as
/// glibc's heap is not the one measured.
pub fn trim() -> String {
    let mi_collect = symbol(c"mi_collect");
    if !mi_collect.is_null() {
        // SAFETY: mimalloc's `void mi_collect(bool force)`.
        let f: unsafe extern "C" fn(bool) = unsafe { std::mem::transmute(mi_collect) };
        // SAFETY: asks mimalloc to return the memory it holds free.
        unsafe { f(true) };
        return "mi_collect(true)".into();
    }
    let mallctl = symbol(c"mallctl");
    if !mallctl.is_null() {
        // SAFETY: jemalloc's `mallctl`, with the signature of `vendor::Mallctl`.
        let f: vendor::Mallctl = unsafe { std::mem::transmute(mallctl) };
        // SAFETY: jemalloc's own mallctl.
        unsafe { vendor::jemalloc_purge(f) };
        return "mallctl(\"arena.<all>.purge\")".into();
    }
    let release = symbol(c"MallocExtension_ReleaseFreeMemory");
    if !release.is_null() {
        // SAFETY: gperftools' `void MallocExtension_ReleaseFreeMemory(void)`.
        let f: unsafe extern "C" fn() = unsafe { std::mem::transmute(release) };
        // SAFETY: asks tcmalloc to return the memory it holds free.
        unsafe { f() };
        return "MallocExtension_ReleaseFreeMemory()".into();
    }
    "none".into()
}

/// The library's name and version as it reports them: mimalloc's `mi_version()`,
/// jemalloc's `version` mallctl, gperftools' `tc_version()` (tcmalloc.h); "version not
/// reported" otherwise; and the version's numbers where it gives them.
pub fn version() -> (String, Option<Release>) {
    let mi_version = symbol(c"mi_version");
    if !mi_version.is_null() {
        // SAFETY: mimalloc's `int mi_version(void)`.
        let f: unsafe extern "C" fn() -> c_int = unsafe { std::mem::transmute(mi_version) };
        // SAFETY: returns a constant.
        let release = Release::mimalloc(unsafe { f() });
        return (format!("mimalloc {release}"), Some(release));
    }
    let mallctl = symbol(c"mallctl");
    if !mallctl.is_null() {
        // SAFETY: jemalloc's `mallctl`.
        let f: vendor::Mallctl = unsafe { std::mem::transmute(mallctl) };
        // SAFETY: jemalloc's own mallctl.
        return match unsafe { vendor::jemalloc_version(f) } {
            Some(v) => (
                format!("jemalloc {v}"),
                Release::dotted(Library::Jemalloc, &v),
            ),
            None => ("jemalloc".into(), None),
        };
    }
    let tc_version = symbol(c"tc_version");
    if !tc_version.is_null() {
        type TcVersion =
            unsafe extern "C" fn(*mut c_int, *mut c_int, *mut *const c_char) -> *const c_char;
        // SAFETY: gperftools' `const char* tc_version(int*, int*, const char**)`.
        let f: TcVersion = unsafe { std::mem::transmute(tc_version) };
        let (mut major, mut minor, mut patch) = (0, 0, std::ptr::null());
        // SAFETY: writes the three out-parameters and returns a static string.
        let s = unsafe { f(&mut major, &mut minor, &mut patch) };
        let release = Release {
            library: Library::Tcmalloc,
            major: major.max(0) as u32,
            minor: minor.max(0) as u32,
            patch: 0,
        };
        if !s.is_null() {
            // SAFETY: a static C string.
            let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
            return (text, Some(release));
        }
        return (format!("tcmalloc {major}.{minor}"), Some(release));
    }
    ("version not reported".into(), None)
}
