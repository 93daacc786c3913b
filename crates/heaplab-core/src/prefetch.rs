//! A hint to the CPU that a cache line will be read soon.
//!
//! With a million live blocks, the simulator's time per event is mostly waiting for memory:
//! the live-table slot of a block freed at random is a cache miss. The events are known in
//! advance when a run replays a batch, so the slot of a block freed a few events ahead is
//! fetched while the events before it are carried out. A hint never changes a result; where
//! the target has no such instruction it does nothing.

/// Asks for the cache line holding `value` to be brought in.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_byte((value as *const T).cast::<u8>());
}

/// [`prefetch`] for every cache line of a value that may span several (a size-class span
/// record is three lines): a one-line hint for it left the reads of the other lines
/// waiting for memory.
#[inline(always)]
pub(crate) fn prefetch_whole<T>(value: &T) {
    let first = (value as *const T).cast::<u8>();
    let mut offset = 0;
    while offset < size_of::<T>() {
        prefetch_byte(first.wrapping_add(offset));
        offset += 64;
    }
    prefetch_byte(first.wrapping_add(size_of::<T>().saturating_sub(1)));
}

#[inline(always)]
fn prefetch_byte(byte: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has, and it never faults: it
    // only hints at an address, here one inside a live value.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(byte.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}
