//! Linux and macOS: anonymous mappings through rustix, residency through `mincore`. The
//! process's own memory figures, read from `/proc` (Linux only), are in `proc.rs`.

use std::ffi::c_void;

use heaplab_core::provider::{Addr, ProviderError};
use rustix::mm::{self, Advice, MapFlags, MprotectFlags, ProtFlags};

/// Whether this platform can run heaplab over real memory.
pub const SUPPORTED: bool = true;

/// The operating system's page size: the granule of `mprotect`, `madvise` and `mincore`.
pub fn page_size() -> u64 {
    rustix::param::page_size() as u64
}

fn platform(call: &str, addr: Addr, bytes: u64, e: rustix::io::Errno) -> ProviderError {
    if e == rustix::io::Errno::NOMEM {
        // mprotect and madvise also fail with ENOMEM when the process has too many
        // mappings (vm.max_map_count): say so, since it is not the machine running out.
        return ProviderError::Platform(format!(
            "{call}({addr:#x}, {bytes}): out of memory or too many mappings (vm.max_map_count)"
        ));
    }
    ProviderError::Platform(format!("{call}({addr:#x}, {bytes}): {e}"))
}

/// Reserves `bytes` of address space aligned to `align` (a power of two, at least a page),
/// inaccessible until committed. An aligned reservation over-reserves by `align` and unmaps
/// the head and the tail, so what remains is exactly `[addr, addr + bytes)`.
pub fn reserve(bytes: u64, align: u64) -> Result<Addr, ProviderError> {
    let page = page_size();
    let extra = if align > page { align } else { 0 };
    let total = bytes
        .checked_add(extra)
        .ok_or(ProviderError::OutOfMemory { bytes })?;
    // SAFETY: a fresh anonymous mapping at an address the kernel picks aliases nothing.
    let base = unsafe {
        mm::mmap_anonymous(
            std::ptr::null_mut(),
            total as usize,
            ProtFlags::empty(),
            MapFlags::PRIVATE | MapFlags::NORESERVE,
        )
    }
    .map_err(|e| match e {
        rustix::io::Errno::NOMEM => ProviderError::OutOfMemory { bytes },
        e => platform("mmap", 0, total, e),
    })? as Addr;
    let at = base.next_multiple_of(align.max(page));
    let head = at - base;
    let tail = total - head - bytes;
    // SAFETY: the head and the tail are parts of the mapping just made, outside the range
    // kept.
    unsafe {
        if head > 0 {
            mm::munmap(base as *mut c_void, head as usize)
                .map_err(|e| platform("munmap", base, head, e))?;
        }
        if tail > 0 {
            mm::munmap((at + bytes) as *mut c_void, tail as usize)
                .map_err(|e| platform("munmap", at + bytes, tail, e))?;
        }
    }
    // Transparent huge pages would make a whole 2 MiB resident on one write, which is not
    // the 4 KiB page the model counts; no huge pages for heaplab's mappings. (Linux only;
    // failure only means the kernel has no THP, so it is ignored.)
    #[cfg(target_os = "linux")]
    // SAFETY: the range is the reservation just made.
    let _ = unsafe { mm::madvise(at as *mut c_void, bytes as usize, Advice::LinuxNoHugepage) };
    Ok(at)
}

/// Reserves a window of `len` bytes of inaccessible address space whose start is `offset`
/// modulo `modulus` (a power of two), for a provider to place its reservations in.
/// `None` when the address space has no room that large.
pub fn reserve_window(len: u64, modulus: u64, offset: u64) -> Option<Addr> {
    let total = len.checked_add(modulus)?;
    // SAFETY: a fresh anonymous mapping at an address the kernel picks aliases nothing.
    let base = unsafe {
        mm::mmap_anonymous(
            std::ptr::null_mut(),
            usize::try_from(total).ok()?,
            ProtFlags::empty(),
            MapFlags::PRIVATE | MapFlags::NORESERVE,
        )
    }
    .ok()? as Addr;
    let mut at = (base & !(modulus - 1)) + offset;
    if at < base {
        at += modulus;
    }
    let (head, tail) = (at - base, base + total - at - len);
    // SAFETY: the head and the tail are parts of the mapping just made, outside the window.
    unsafe {
        if head > 0 {
            mm::munmap(base as *mut c_void, head as usize).ok()?;
        }
        if tail > 0 {
            mm::munmap((at + len) as *mut c_void, tail as usize).ok()?;
        }
    }
    Some(at)
}

/// Replaces a range of a window with a fresh inaccessible mapping (`mmap(MAP_FIXED,
/// PROT_NONE)`): as a reservation, it is a mapping of its own, marked no-huge-pages; as a
/// release, its memory goes back to the system as with `munmap`, while the address space
/// stays in the window so that nothing else is mapped there.
///
/// # Safety
/// The range lies inside a window made by [`reserve_window`] and holds nothing needed.
pub unsafe fn remap_inaccessible(at: Addr, bytes: u64) -> Result<(), ProviderError> {
    // SAFETY: the caller's promise: the range is ours to replace.
    unsafe {
        mm::mmap_anonymous(
            at as *mut c_void,
            bytes as usize,
            ProtFlags::empty(),
            MapFlags::PRIVATE | MapFlags::NORESERVE | MapFlags::FIXED,
        )
    }
    .map_err(|e| platform("mmap", at, bytes, e))?;
    #[cfg(target_os = "linux")]
    // SAFETY: the range just mapped; see `reserve`.
    let _ = unsafe { mm::madvise(at as *mut c_void, bytes as usize, Advice::LinuxNoHugepage) };
    Ok(())
}

/// Makes a reserved range readable and writable; untouched pages read as zero and take no
/// memory until written.
///
/// # Safety
/// The range lies inside one live reservation made by [`reserve`].
pub unsafe fn commit(addr: Addr, bytes: u64) -> Result<(), ProviderError> {
    // SAFETY: the caller's promise: the range is ours.
    unsafe {
        mm::mprotect(
            addr as *mut c_void,
            bytes as usize,
            MprotectFlags::READ | MprotectFlags::WRITE,
        )
    }
    .map_err(|e| platform("mprotect", addr, bytes, e))
}

/// Gives a committed range's memory back and makes it inaccessible again, so a policy that
/// writes a decommitted page crashes here as it would in a real program.
///
/// # Safety
/// The range lies inside one live reservation made by [`reserve`], and nothing that is
/// still needed lives there.
pub unsafe fn decommit(addr: Addr, bytes: u64) -> Result<(), ProviderError> {
    #[cfg(target_os = "linux")]
    let advice = Advice::LinuxDontNeed;
    // macOS's MADV_DONTNEED does not free; MADV_FREE does, lazily.
    #[cfg(not(target_os = "linux"))]
    let advice = Advice::DontNeed;
    // SAFETY: the caller's promise: the range is ours and holds nothing needed.
    unsafe {
        mm::madvise(addr as *mut c_void, bytes as usize, advice)
            .map_err(|e| platform("madvise", addr, bytes, e))?;
        mm::mprotect(addr as *mut c_void, bytes as usize, MprotectFlags::empty())
            .map_err(|e| platform("mprotect", addr, bytes, e))
    }
}

/// Makes every page of a committed range resident, as the kernel does when it backs a
/// transparent huge page: `MADV_POPULATE_WRITE` (Linux 5.14), else a zero written into
/// each page. The provider's own mappings are advised `MADV_NOHUGEPAGE`, so what becomes
/// resident is what the page map decided and not what the kernel's huge-page allocator
/// found at that moment.
///
/// # Safety
/// The range lies inside one live reservation made by [`reserve`], committed, and none
/// of its pages is resident (so each reads as zero, and writing a zero changes nothing).
pub unsafe fn populate(addr: Addr, bytes: u64) -> Result<(), ProviderError> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the caller's promise: the range is ours and committed.
        let done = unsafe {
            mm::madvise(
                addr as *mut c_void,
                bytes as usize,
                Advice::LinuxPopulateWrite,
            )
        };
        if done.is_ok() {
            return Ok(());
        }
    }
    let step = page_size() as usize;
    for offset in (0..bytes as usize).step_by(step) {
        // SAFETY: inside the committed range, in a page that holds only zeros.
        unsafe { std::ptr::write_volatile((addr as usize + offset) as *mut u8, 0) };
    }
    Ok(())
}

/// Unmaps a whole reservation.
///
/// # Safety
/// The range is exactly one live reservation made by [`reserve`], and nothing that is
/// still needed lives there.
pub unsafe fn release(addr: Addr, bytes: u64) -> Result<(), ProviderError> {
    // SAFETY: the caller's promise.
    unsafe { mm::munmap(addr as *mut c_void, bytes as usize) }
        .map_err(|e| platform("munmap", addr, bytes, e))
}

/// Fills `out` with one byte per page of the page-aligned range, bit 0 set where the page
/// is resident (`mincore`).
///
/// # Safety
/// The range lies inside live reservations made by [`reserve`] (mincore only reads the
/// page tables, but an unmapped range is an error).
pub unsafe fn residency(addr: Addr, bytes: u64, out: &mut Vec<u8>) -> Result<(), ProviderError> {
    let pages = bytes.div_ceil(page_size()) as usize;
    out.clear();
    out.resize(pages, 0);
    // SAFETY: `out` has one byte per page of the range, as mincore writes.
    let rc = unsafe {
        libc::mincore(
            addr as *mut c_void,
            bytes as usize,
            out.as_mut_ptr() as *mut _,
        )
    };
    if rc != 0 {
        let e = rustix::io::Errno::from_raw_os_error(
            std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
        );
        return Err(platform("mincore", addr, bytes, e));
    }
    Ok(())
}
