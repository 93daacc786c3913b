//! A program's own arenas, annotated by the program: the recorder sees only the malloc
//! family, so an arena that carves its blocks out of big malloc'd slabs (LLVM's
//! `BumpPtrAllocator` in a JIT) shows up as a few slab mallocs, and its allocations and
//! resets are invisible. The program tells the recorder about them through these calls,
//! and the trace gets the lines the built-in workloads use:
//!
//! | call                         | trace line                          |
//! |------------------------------|-------------------------------------|
//! | [`create`]`(n)`              | `arena <n>`                         |
//! | [`alloc`]`(n, size, align)`  | `a <id> <size> [align] arena=<n>`   |
//! | [`reset`]`(n)`, [`drop`]`(n)`| `reset <n>`, `drop <n>`             |
//! | [`slab_begin`]`(n)` … [`slab_end`]`()` | the thread's mallocs in between as `a … slab=<n>` |
//! | [`phase`]`(name)`            | `p <name>`                          |
//!
//! A replay leaves the slab lines out and lets each policy back the arena's blocks in its
//! own way, so the memory is not counted twice (see the trace format in the README).
//!
//! C and C++ programs reach these through `include/heaplab.h`, whose hooks are weak
//! symbols defined here with C names (`heaplab_hook_*`): a program built with the header
//! and run without the recorder finds them null and does nothing, and under
//! `heaplab record` the preload library, which links this crate, defines them. A Rust
//! program that records itself with [`crate::Recorder`] calls the Rust functions.
//!
//! Every call costs one load of a flag when nothing is being recorded.

use std::ffi::{c_char, c_uint, CStr};

use crate::hooks;
use crate::thread;

/// Records the creation of arena `arena` (`arena <n>`).
pub fn create(arena: u32) {
    hooks::arena_op(b"arena", arena);
}

/// Records an allocation of `size` bytes aligned to `align` (a power of two; others are
/// rounded up to one) in arena `arena`.
pub fn alloc(arena: u32, size: usize, align: usize) {
    hooks::arena_alloc(arena, size, align);
}

/// Records the reset of arena `arena`: every block in it dies, the arena stays.
pub fn reset(arena: u32) {
    hooks::arena_op(b"reset", arena);
}

/// Records the drop of arena `arena`: every block in it dies and the arena is gone.
pub fn drop(arena: u32) {
    hooks::arena_op(b"drop", arena);
}

/// Marks this thread's allocations from now until [`slab_end`] as slabs of arena
/// `arena`: memory the arena takes from malloc to carve its blocks out of.
pub fn slab_begin(arena: u32) {
    thread::set_slab(Some(arena));
}

/// Ends [`slab_begin`]: this thread's allocations are the program's own again.
pub fn slab_end() {
    thread::set_slab(None);
}

/// Records the start of a phase of the program (`p <name>`).
pub fn phase(name: &str) {
    hooks::phase(name.as_bytes());
}

/// `heaplab_arena_create` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_arena_create(arena: c_uint) {
    create(arena);
}

/// `heaplab_arena_alloc` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_arena_alloc(arena: c_uint, size: usize, align: usize) {
    alloc(arena, size, align);
}

/// `heaplab_arena_reset` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_arena_reset(arena: c_uint) {
    reset(arena);
}

/// `heaplab_arena_drop` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_arena_drop(arena: c_uint) {
    drop(arena);
}

/// `heaplab_slab_begin` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_slab_begin(arena: c_uint) {
    slab_begin(arena);
}

/// `heaplab_slab_end` in `heaplab.h`.
#[no_mangle]
pub extern "C" fn heaplab_hook_slab_end() {
    slab_end();
}

/// `heaplab_phase` in `heaplab.h`: `name` is a NUL-terminated string, or null for an
/// unnamed phase.
///
/// # Safety
/// `name` is null or points to a NUL-terminated string that stays valid for the call.
#[no_mangle]
pub unsafe extern "C" fn heaplab_hook_phase(name: *const c_char) {
    if name.is_null() {
        hooks::phase(b"");
    } else {
        // SAFETY: the caller passes a NUL-terminated string, valid for the call.
        hooks::phase(unsafe { CStr::from_ptr(name) }.to_bytes());
    }
}
