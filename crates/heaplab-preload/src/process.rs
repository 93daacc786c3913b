//! The process's side: where its trace goes, starting it from a constructor, ending it
//! at exit, and giving a forked child a trace of its own.
//!
//! `HEAPLAB_TRACE=/dir/prog.trace` names the trace. The recorded command — the first
//! process to load the library — writes that file, and marks itself in the environment
//! its children inherit (`HEAPLAB_TRACE_ROOT=<pid>`); every other process (a forked
//! child, or a program the command runs) writes `/dir/prog.<pid>.trace`.
//! `HEAPLAB_CALLERS=1` (`heaplab record --callers`) adds each allocation's call site to
//! its line, and the executable mappings at the end (see `heaplab_record::maps`).
//!
//! The constructor's own `setenv` and `pthread_atfork` allocate a few hundred bytes of
//! the program's heap, after the trace has started: they are recorded like the
//! program's own blocks, since they are as real.
//!
//! A process that replaces itself with `exec` leaves the trace of its last image (the new
//! image truncates the file); one killed by a signal leaves whatever was written out.

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use heaplab_record::hooks::{self, Header};
use heaplab_record::sys::{self, Create, Fd};

const PATH_MAX: usize = 4096;
/// Set by the recorded command for every process it starts.
const ROOT: &[u8] = b"HEAPLAB_TRACE_ROOT";

/// `HEAPLAB_TRACE`, kept for forked children: written once in the constructor, before
/// any fork can happen.
struct Base(UnsafeCell<[u8; PATH_MAX]>);
// SAFETY: written only by `init`, which runs once before the program's code (and so
// before any thread or fork), and read-only afterwards.
unsafe impl Sync for Base {}
static BASE: Base = Base(UnsafeCell::new([0; PATH_MAX]));
static BASE_LEN: AtomicUsize = AtomicUsize::new(0);

/// The command line glibc passes to constructors, for trace headers.
static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*const c_char> = AtomicPtr::new(std::ptr::null_mut());

// glibc calls `.init_array` entries with (argc, argv, envp) once the library and the C
// library it depends on are set up, before the program's own constructors and `main`.
#[used]
#[link_section = ".init_array"]
static INIT: extern "C" fn(c_int, *const *const c_char, *const *const c_char) = init;

#[used]
#[link_section = ".fini_array"]
static FINI: extern "C" fn() = fini;

extern "C" fn init(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    // Look the allocator up now, so `dlsym`'s allocations are not in the trace.
    crate::real::fns();
    ARGC.store(argc.max(0) as usize, Ordering::Relaxed);
    ARGV.store(argv.cast_mut(), Ordering::Relaxed);
    // SAFETY: glibc passes the process's environment, a null-terminated array of
    // NUL-terminated strings.
    let Some(base) = (unsafe { env(envp, b"HEAPLAB_TRACE") }) else {
        return;
    };
    if base.is_empty() || base.len() >= PATH_MAX {
        return;
    }
    // SAFETY: the only write to BASE, before anything reads it (see `Base`).
    unsafe { (&mut *BASE.0.get())[..base.len()].copy_from_slice(base) };
    BASE_LEN.store(base.len(), Ordering::Release);
    // SAFETY: as above.
    let root =
        unsafe { env(envp, ROOT) }.and_then(|v| std::str::from_utf8(v).ok()?.parse::<u32>().ok());
    // The command itself, or its image after an `exec` (same pid).
    let is_command = root.is_none_or(|r| r == sys::pid());
    let Some(fd) = open_trace(is_command) else {
        return;
    };
    // SAFETY: as above.
    if unsafe { env(envp, b"HEAPLAB_CALLERS") } == Some(b"1") {
        hooks::set_callers(true);
    }
    if hooks::start_fd(fd, |h| header(h, None)).is_err() {
        sys::close(fd);
        return;
    }
    if root.is_none() {
        let mut digits = itoa::Buffer::new();
        let pid = digits.format(sys::pid()).as_bytes();
        let mut value = [0u8; 11];
        value[..pid.len()].copy_from_slice(pid);
        if let Ok(value) = CStr::from_bytes_with_nul(&value[..=pid.len()]) {
            // SAFETY: both strings are NUL-terminated; constructors run before the
            // program's threads, so nothing reads the environment meanwhile.
            unsafe { libc::setenv(c"HEAPLAB_TRACE_ROOT".as_ptr(), value.as_ptr(), 1) };
        }
    }
    // SAFETY: the three handlers are plain functions that stay loaded for the life of
    // the process (an LD_PRELOAD library is never unloaded).
    unsafe { libc::pthread_atfork(Some(fork_prepare), Some(fork_parent), Some(fork_child)) };
}

extern "C" fn fini() {
    hooks::finish();
}

/// `exit` runs `fini`; `_exit` (a forked child's usual way out) does not, so the hook
/// calls this first.
pub fn before_exit() {
    hooks::finish();
}

extern "C" fn fork_prepare() {
    hooks::fork_prepare();
}

extern "C" fn fork_parent() {
    hooks::fork_parent();
}

extern "C" fn fork_child() {
    hooks::fork_child(
        || {
            let mut buf = [0u8; PATH_MAX + 32];
            let path = pid_path(&mut buf, base(), sys::pid())?;
            sys::open(path, Create::Truncate).ok()
        },
        |h| header(h, Some(sys::parent_pid())),
    );
}

fn base() -> &'static [u8] {
    let len = BASE_LEN.load(Ordering::Acquire);
    // SAFETY: BASE's first `len` bytes were written before BASE_LEN was stored (Release)
    // and are never written again.
    unsafe { &(&*BASE.0.get())[..len] }
}

/// Opens this process's trace file: the base name for the recorded command, the pid name
/// for any other process.
fn open_trace(is_command: bool) -> Option<Fd> {
    let mut buf = [0u8; PATH_MAX + 32];
    let base = base();
    let path = if is_command {
        buf[..base.len()].copy_from_slice(base);
        CStr::from_bytes_with_nul(&buf[..=base.len()]).ok()?
    } else {
        pid_path(&mut buf, base, sys::pid())?
    };
    match sys::open(path, Create::Truncate) {
        Ok(fd) => Some(fd),
        Err(e) => report_open_error(path, e),
    }
}

fn report_open_error(path: &CStr, errno: i32) -> Option<Fd> {
    sys::write_all(2, b"heaplab-preload: cannot create ");
    sys::write_all(2, path.to_bytes());
    // SAFETY: strerror returns a NUL-terminated static string for any errno.
    let msg = unsafe { CStr::from_ptr(libc::strerror(errno)) };
    sys::write_all(2, b": ");
    sys::write_all(2, msg.to_bytes());
    sys::write_all(2, b"; not recording\n");
    None
}

/// `/dir/prog.<pid>.trace` for `/dir/prog.trace` (`/dir/prog.<pid>.trace` for
/// `/dir/prog` too), NUL-terminated in `buf`.
fn pid_path<'a>(buf: &'a mut [u8], base: &[u8], pid: u32) -> Option<&'a CStr> {
    let stem = base.strip_suffix(b".trace").unwrap_or(base);
    let mut digits = itoa::Buffer::new();
    let parts: [&[u8]; 5] = [stem, b".", digits.format(pid).as_bytes(), b".trace", b"\0"];
    let mut len = 0;
    for p in parts {
        buf.get_mut(len..len + p.len())?.copy_from_slice(p);
        len += p.len();
    }
    CStr::from_bytes_with_nul(&buf[..len]).ok()
}

/// The header: who recorded this, which process, forked from whom, running what.
fn header(h: &mut Header<'_>, forked_from: Option<u32>) {
    let (mut pid, mut ppid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let pid = pid.format(sys::pid()).as_bytes();
    match forked_from {
        None => h.comment(&[b"heaplab trace: recorded by heaplab-preload, pid ", pid]),
        Some(p) => {
            let p = ppid.format(p).as_bytes();
            h.comment(&[
                b"heaplab trace: recorded by heaplab-preload, pid ",
                pid,
                b", forked from pid ",
                p,
            ]);
            h.comment(&[b"the blocks live at the fork come first, as allocations, then `p fork`"]);
        }
    }
    let argc = ARGC.load(Ordering::Relaxed);
    let argv = ARGV.load(Ordering::Relaxed);
    if argv.is_null() {
        return;
    }
    let mut parts: [&[u8]; 64] = [b""; 64];
    parts[0] = b"command:";
    let mut n = 1;
    for i in 0..argc.min(parts.len() / 2 - 1) {
        // SAFETY: glibc's argv holds `argc` NUL-terminated strings, which live as long as
        // the process (a forked child has its own copy).
        let arg = unsafe { *argv.add(i) };
        if arg.is_null() {
            break;
        }
        parts[n] = b" ";
        // SAFETY: as above.
        parts[n + 1] = unsafe { CStr::from_ptr(arg) }.to_bytes();
        n += 2;
    }
    h.comment(&parts[..n]);
}

/// The value of `name` in `envp`: the array glibc hands constructors, read without
/// allocating.
///
/// # Safety
/// `envp` must be null or a null-terminated array of NUL-terminated strings.
unsafe fn env(envp: *const *const c_char, name: &[u8]) -> Option<&'static [u8]> {
    if envp.is_null() {
        return None;
    }
    let mut i = 0;
    loop {
        // SAFETY: the caller's promise; we stop at the null entry.
        let entry = unsafe { *envp.add(i) };
        if entry.is_null() {
            return None;
        }
        // SAFETY: as above; the environment lives as long as the process.
        let bytes = unsafe { CStr::from_ptr(entry) }.to_bytes();
        if let Some(value) = bytes.strip_prefix(name).and_then(|r| r.strip_prefix(b"=")) {
            return Some(value);
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_write_pid_named_traces_beside_the_command() {
        let mut buf = [0u8; 64];
        let p = pid_path(&mut buf, b"/tmp/prog.trace", 4321).unwrap();
        assert_eq!(p.to_bytes(), b"/tmp/prog.4321.trace");
        let p = pid_path(&mut buf, b"out", 7).unwrap();
        assert_eq!(p.to_bytes(), b"out.7.trace");
        let mut small = [0u8; 8];
        assert!(pid_path(&mut small, b"/tmp/prog.trace", 1).is_none());
    }
}
