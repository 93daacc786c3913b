//! The bootstrap arena: memory for the few allocations made before the real allocator is
//! known (`dlsym`'s own, while [`crate::real`] looks it up). A bump pointer over a static
//! buffer; its blocks are never reused, and frees of them are ignored. Each block has its
//! size in the word before it, for `realloc` and `malloc_usable_size`.

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// glibc's `dlsym` needs well under a kilobyte; this leaves room for other early callers.
const BYTES: usize = 256 * 1024;
const HEADER: usize = 16;

#[repr(C, align(4096))]
struct Arena(UnsafeCell<[u8; BYTES]>);
// SAFETY: blocks are handed out by an atomic bump, so no two callers get the same bytes.
unsafe impl Sync for Arena {}

static ARENA: Arena = Arena(UnsafeCell::new([0; BYTES]));
static TOP: AtomicUsize = AtomicUsize::new(0);

fn base() -> usize {
    ARENA.0.get() as usize
}

/// A block of `size` bytes aligned to `align` (a power of two), zeroed because the arena
/// starts zeroed and is never reused; null when the arena is used up.
pub fn alloc(size: usize, align: usize) -> *mut c_void {
    let align = align.max(HEADER);
    let mut top = TOP.load(Ordering::Relaxed);
    loop {
        let start = (base() + top + HEADER).next_multiple_of(align) - base();
        let Some(end) = start.checked_add(size).filter(|&e| e <= BYTES) else {
            crate::set_errno(libc::ENOMEM);
            return std::ptr::null_mut();
        };
        match TOP.compare_exchange_weak(top, end, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => {
                let p = (base() + start) as *mut u8;
                // SAFETY: `start - HEADER >= top` lies inside the arena and in the range
                // this call just claimed; the word is aligned (start is 16-aligned).
                unsafe { p.sub(size_of::<usize>()).cast::<usize>().write(size) };
                return p.cast();
            }
            Err(now) => top = now,
        }
    }
}

pub fn contains(p: *const c_void) -> bool {
    (base()..base() + BYTES).contains(&(p as usize))
}

/// The size `p` was allocated with.
///
/// # Safety
/// `p` must be a block from [`alloc`].
pub unsafe fn size(p: *const c_void) -> usize {
    // SAFETY: `alloc` wrote the size in the word before every block it returned.
    unsafe {
        p.cast::<u8>()
            .sub(size_of::<usize>())
            .cast::<usize>()
            .read()
    }
}
