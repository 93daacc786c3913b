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
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has, and it never faults: it
    // only hints at an address, here that of a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
