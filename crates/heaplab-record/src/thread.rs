//! Per-thread state the recorder needs inside `malloc`: a reentrancy flag, the small
//! thread number that `thread=<n>` lines carry, and the arena whose slab the thread is
//! allocating, if any (`slab=<n>`).
//!
//! Both are `const`-initialised `thread_local!`s of `Cell`s, which need no destructor: std
//! then makes them plain `#[thread_local]` statics, with no lazy registration and so no
//! allocation on first use. (The library is loaded with `LD_PRELOAD`, so its TLS is in the
//! static TLS block and `__tls_get_addr` does not allocate either; a `dlopen`ed copy could
//! not promise that.)

use std::cell::Cell;

thread_local! {
    static BUSY: Cell<bool> = const { Cell::new(false) };
    /// The thread's number in the low 32 bits and the numbering generation it belongs to
    /// in the high 32; generation 0 is never current, so 0 means "not numbered yet".
    static NUMBER: Cell<u64> = const { Cell::new(0) };
    /// One more than the arena whose slab this thread's allocations are (see
    /// `crate::arenas`), 0 when they are the program's own.
    static SLAB: Cell<u64> = const { Cell::new(0) };
}

/// Marks the thread's allocations from now on as slabs of `arena`, or as the program's
/// own again (`None`).
pub fn set_slab(arena: Option<u32>) {
    SLAB.set(arena.map_or(0, |a| u64::from(a) + 1));
}

/// The arena whose slab the thread's allocations are, if any.
#[inline]
pub fn slab() -> Option<u32> {
    SLAB.get().checked_sub(1).map(|a| a as u32)
}

/// Marks the thread as inside the recorder for as long as it lives. Allocations the
/// recorder itself causes (or any made while a fork is under way) pass straight through
/// unrecorded instead of recursing into the lock this thread already holds.
#[derive(Debug)]
pub struct Busy(());

impl Busy {
    /// `None` when the thread is already inside the recorder.
    #[inline]
    pub fn enter() -> Option<Busy> {
        if BUSY.replace(true) {
            None
        } else {
            Some(Busy(()))
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.set(false);
    }
}

/// Sets the flag without a guard, for fork handlers that set it in one callback and clear
/// it in another.
pub fn set_busy(busy: bool) {
    BUSY.set(busy);
}

/// The calling thread's number in numbering `generation`, or `None` if it has none yet.
#[inline]
pub fn number(generation: u32) -> Option<u32> {
    let v = NUMBER.get();
    ((v >> 32) as u32 == generation).then_some(v as u32)
}

pub fn set_number(generation: u32, n: u32) {
    NUMBER.set((u64::from(generation) << 32) | u64::from(n));
}
