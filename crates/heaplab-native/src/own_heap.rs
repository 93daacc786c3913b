//! heaplab's own heap in a baseline's process: a global allocator that, once [`enter`]ed,
//! serves every allocation of heaplab itself (the decoded events, the id table, buffers)
//! from a private anonymous mapping, out of the heap being measured.
//!
//! Without it, heaplab's memory lives in glibc's heap, or in a preloaded allocator's: its
//! free chunks are reused by the replay, and its blocks sit between the replay's, so the
//! measured figures are partly heaplab's. The mapping's resident pages are counted here
//! ([`resident_bytes`]) and left out of the baseline's figures.
//!
//! The mapping is carved up by `talc`, a general-purpose allocator over a span of memory
//! the caller provides; the span grows a megabyte at a time inside a reservation of address
//! space, so [`resident_bytes`] need only look at what was handed to it. Before [`enter`],
//! and in every other process, allocations go to the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use talc::base::binning::Binning;
use talc::base::Talc;
use talc::lock_api::{GuardSend, RawMutex};
use talc::source::Source;
use talc::sync::TalcLock;

/// Address space reserved for heaplab's own heap: more than any trace decodes to. Only the
/// pages written become memory.
const RESERVE: usize = 64 << 30;

/// How much the span handed to talc grows at a time.
const GROW: usize = 1 << 20;

/// Where the reservation starts (0 before [`enter`]), and where the span given to talc
/// ends so far (0 before its first claim).
static BASE: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

/// True once [`enter`] has made the private heap the one new allocations come from.
static PRIVATE: AtomicBool = AtomicBool::new(false);

/// The environment variable that makes a process's first allocation [`enter`] the private
/// heap: the parent sets it for its baseline child, so that even what Rust's runtime
/// allocates before `main` stays out of the heap being measured.
pub const ENTER_AT_START: &str = "HEAPLAB_OWN_HEAP";

/// True once the first allocation has looked for [`ENTER_AT_START`].
static LOOKED: AtomicBool = AtomicBool::new(false);

/// At the process's first allocation, [`enter`] if [`ENTER_AT_START`] is set. Reading the
/// environment with libc's `getenv` allocates nothing; a failure to map leaves the
/// system allocator in place, and the later [`enter`] reports it.
#[cold]
fn enter_if_asked() {
    if LOOKED.swap(true, Ordering::AcqRel) {
        return;
    }
    let name = c"HEAPLAB_OWN_HEAP";
    debug_assert_eq!(name.to_bytes(), ENTER_AT_START.as_bytes());
    // SAFETY: a NUL-terminated name; the result is only compared with null.
    if !unsafe { libc::getenv(name.as_ptr()) }.is_null() {
        let _ = enter();
    }
}

static TALC: TalcLock<SpinLock, Grow, talc::DefaultBinning> = TalcLock::new(Grow);

/// The global allocator of a binary that measures baselines (`#[global_allocator]`).
#[derive(Debug)]
pub struct OwnHeap;

/// Makes the private heap the one every later allocation of this process comes from.
/// Blocks allocated before stay where they are and are freed there. Idempotent.
pub fn enter() -> Result<(), String> {
    if PRIVATE.load(Ordering::Acquire) {
        return Ok(());
    }
    // SAFETY: a fresh anonymous mapping at an address the kernel picks aliases nothing.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            RESERVE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(format!(
            "cannot map heaplab's own heap ({} GiB of address space): {}",
            RESERVE >> 30,
            std::io::Error::last_os_error()
        ));
    }
    BASE.store(base as usize, Ordering::Release);
    PRIVATE.store(true, Ordering::Release);
    Ok(())
}

/// Whether `p` is in the private heap.
fn private(p: *mut u8) -> bool {
    let base = BASE.load(Ordering::Acquire);
    base != 0 && (p as usize).wrapping_sub(base) < RESERVE
}

/// The bytes of the private heap that are resident, by `mincore` over the span handed to
/// talc so far, read a stack buffer at a time so that the count allocates nothing.
pub fn resident_bytes() -> u64 {
    let (base, end) = (BASE.load(Ordering::Acquire), END.load(Ordering::Acquire));
    if base == 0 || end <= base {
        return 0;
    }
    let page = crate::os::page_size() as usize;
    let mut buf = [0u8; 4096];
    let mut resident = 0u64;
    let mut at = base;
    while at < end {
        let len = (end - at).min(buf.len() * page);
        // SAFETY: the range lies inside the live reservation; `buf` has one byte for each
        // of its pages.
        let rc = unsafe { libc::mincore(at as *mut c_void, len, buf.as_mut_ptr().cast()) };
        if rc != 0 {
            return 0;
        }
        let pages = len.div_ceil(page);
        resident += buf[..pages].iter().filter(|b| *b & 1 == 1).count() as u64;
        at += len;
    }
    resident * page as u64
}

/// talc's source of memory: the reservation, handed over a megabyte (or one large block)
/// at a time.
#[derive(Debug)]
struct Grow;

// SAFETY: `acquire` only claims or extends over the reservation, which nothing else uses,
// and never calls another allocator.
unsafe impl Source for Grow {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        let base = BASE.load(Ordering::Acquire);
        if base == 0 {
            return Err(());
        }
        let limit = base + RESERVE;
        let end = END.load(Ordering::Acquire);
        // Room for the block, its alignment and talc's tags, rounded up to whole steps.
        let want = (layout.size() + layout.align() + 4096).next_multiple_of(GROW);
        let start = if end == 0 { base } else { end };
        let new_end = start.checked_add(want).filter(|&e| e <= limit).ok_or(())?;
        let got = if end == 0 {
            // SAFETY: the range is the start of the reservation, readable and writable,
            // and used by nothing else.
            unsafe { talc.claim(base as *mut u8, new_end - base) }.ok_or(())?
        } else {
            // SAFETY: `end` is the end of the heap talc returned last; the range above it
            // is the reservation's, unused.
            unsafe { talc.extend(NonNull::new(end as *mut u8).ok_or(())?, new_end as *mut u8) }
        };
        END.store(got.as_ptr() as usize, Ordering::Release);
        Ok(())
    }
}

/// A spin lock for talc: a baseline's process runs one thread, so the lock is never
/// contended there, and it needs nothing from the allocator it guards.
struct SpinLock(AtomicBool);

// SAFETY: `lock` returns only once it has swapped false for true, and `unlock` stores
// false: one holder at a time.
unsafe impl RawMutex for SpinLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: SpinLock = SpinLock(AtomicBool::new(false));
    type GuardMarker = GuardSend;

    fn lock(&self) {
        while !self.try_lock() {
            std::hint::spin_loop();
        }
    }

    fn try_lock(&self) -> bool {
        self.0
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    unsafe fn unlock(&self) {
        self.0.store(false, Ordering::Release);
    }
}

// SAFETY: each block is freed or resized by the allocator it came from: the private heap
// for addresses in its reservation, the system allocator for every other.
unsafe impl GlobalAlloc for OwnHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !LOOKED.load(Ordering::Relaxed) {
            enter_if_asked();
        }
        // SAFETY: the caller's layout, passed on.
        unsafe {
            if PRIVATE.load(Ordering::Relaxed) {
                TALC.alloc(layout)
            } else {
                System.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !LOOKED.load(Ordering::Relaxed) {
            enter_if_asked();
        }
        // SAFETY: as for `alloc`.
        unsafe {
            if PRIVATE.load(Ordering::Relaxed) {
                TALC.alloc_zeroed(layout)
            } else {
                System.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the block came from the allocator its address names.
        unsafe {
            if private(ptr) {
                TALC.dealloc(ptr, layout)
            } else {
                System.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; a block from the system allocator met after `enter`
        // moves into the private heap, copied and freed where it was.
        unsafe {
            if private(ptr) {
                TALC.realloc(ptr, layout, new_size)
            } else if PRIVATE.load(Ordering::Relaxed) {
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let new = TALC.alloc(new_layout);
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    System.dealloc(ptr, layout);
                }
                new
            } else {
                System.realloc(ptr, layout, new_size)
            }
        }
    }
}
