//! The process's own memory figures, from `/proc/self` (Linux only; `None` elsewhere).
//!
//! A baseline samples these in the middle of a replay through a real allocator, so every
//! read here is a raw `open` and `read` into a buffer on the stack: no call allocates. A
//! small allocation there, even one freed at once, could sit at the top of the heap being
//! measured and keep the allocator from giving memory back, which would change the figure
//! it was taken to read.
//!
//! The fields and files are those of the kernel's `Documentation/filesystems/proc.rst`:
//! `statm` gives sizes in pages, `resident` then `shared` (the file-backed and shmem pages);
//! `status` gives `VmHWM` ("peak resident set size, high water mark"), `RssFile` and
//! `RssShmem` in kB; writing `5` to `clear_refs` resets the high water mark to the current
//! resident set.

use std::ffi::CStr;

/// The process's resident set in bytes, from `/proc/self/statm` (its second field, in
/// pages).
pub fn rss_bytes() -> Option<u64> {
    statm().map(|(resident, _)| resident)
}

/// The process's anonymous resident memory in bytes: the resident set less its file-backed
/// and shared pages (`statm`'s second field less its third). A heap is anonymous memory;
/// the file-backed part moves whenever the process runs code it had not run before (the
/// kernel maps text in 64 KiB batches), which would blur a heap's figures by that much.
pub fn anon_rss_bytes() -> Option<u64> {
    statm().map(|(resident, shared)| resident.saturating_sub(shared))
}

/// Resets the kernel's high water mark of the resident set to the current resident set,
/// so that [`peak_anon_rss_bytes`] covers what happens from now on. False where it cannot
/// (no `/proc`, or a kernel without the `clear_refs` value 5).
pub fn reset_peak_rss() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a C string path and a two-byte buffer on the stack; the descriptor is
        // closed on every path.
        unsafe {
            let fd = libc::open(
                c"/proc/self/clear_refs".as_ptr(),
                libc::O_WRONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return false;
            }
            let n = libc::write(fd, b"5\n".as_ptr().cast(), 2);
            libc::close(fd);
            n == 2
        }
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The most anonymous resident memory the process can have held since the last
/// [`reset_peak_rss`], in bytes: the kernel's high water mark (`VmHWM`) less the
/// file-backed and shmem pages resident now (`RssFile` + `RssShmem`).
///
/// The high water mark is of the whole resident set, file-backed pages included, and the
/// kernel keeps no separate mark for anonymous memory. Subtracting the file-backed pages of
/// now rather than of the moment of the peak is fair for a replay: its file-backed pages
/// only grow (code run for the first time), so those of now are at least those at the peak,
/// and the figure is at most the anonymous memory really held then, never more.
pub fn peak_anon_rss_bytes() -> Option<u64> {
    let mut buf = [0u8; 4096];
    let text = read(c"/proc/self/status", &mut buf)?;
    let (mut hwm, mut file, mut shmem) = (None, None, None);
    for line in text.lines() {
        let kb = |name: &str| -> Option<u64> {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        };
        hwm = hwm.or_else(|| kb("VmHWM"));
        file = file.or_else(|| kb("RssFile"));
        shmem = shmem.or_else(|| kb("RssShmem"));
    }
    Some(hwm?.saturating_sub(file? + shmem?) << 10)
}

/// `/proc/self/statm`'s resident and shared sizes in bytes.
fn statm() -> Option<(u64, u64)> {
    let mut buf = [0u8; 128];
    let text = read(c"/proc/self/statm", &mut buf)?;
    let mut fields = text.split_whitespace().skip(1);
    let resident: u64 = fields.next()?.parse().ok()?;
    let shared: u64 = fields.next()?.parse().ok()?;
    let page = super::page_size();
    Some((resident * page, shared * page))
}

/// Reads a whole `/proc` file into `buf` with raw calls, and returns it as text; `None`
/// when it cannot be opened or read, is not text, or does not fit.
fn read<'a>(path: &CStr, buf: &'a mut [u8]) -> Option<&'a str> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `path` is a C string; each read writes into the unwritten tail of `buf`,
        // within its length; the descriptor is closed on every path.
        let len = unsafe {
            let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return None;
            }
            let mut len = 0;
            let ok = loop {
                if len == buf.len() {
                    // A file that fills the buffer may have been cut short.
                    break false;
                }
                let n = libc::read(fd, buf[len..].as_mut_ptr().cast(), buf.len() - len);
                match n {
                    0 => break true,
                    n if n > 0 => len += n as usize,
                    _ => break false,
                }
            };
            libc::close(fd);
            if !ok {
                return None;
            }
            len
        };
        std::str::from_utf8(&buf[..len]).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (path, buf);
        None
    }
}
