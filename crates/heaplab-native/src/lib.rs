//! heaplab over real memory and real allocators: the one platform crate.
//!
//! - [`MmapProvider`] is the core's `PageProvider` over `mmap`/`mprotect`/`madvise`/`munmap`,
//!   writing a checkable pattern into every block and sampling residency with `mincore`.
//! - [`replay`] runs decoded events through a policy over real memory (`heaplab run
//!   --real`), times them and checks the model's residency against the kernel's.
//! - [`baseline`] runs the same events through glibc's malloc, mimalloc, jemalloc or a
//!   preloaded allocator library
//!   (`heaplab baseline`).
//!
//! - [`marks`] keeps a real run's wall clock as time marks, for a model to run on.
//! - [`own_heap`] keeps heaplab's own memory out of the heap a baseline measures.
//!
//! The platform is chosen in one place, [`os`]: Linux and macOS map real memory; elsewhere
//! everything compiles and refuses with a message.

pub mod baseline;
mod error;
pub mod marks;
pub mod os;
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub mod own_heap;
pub mod pattern;
pub mod provider;
pub mod replay;

pub use baseline::{BaselineReport, RealAllocator};
pub use provider::MmapProvider;
pub use replay::{decode, decode_with, replay, RealFigures, RealOptions, RealReport, ReplayError};

/// The median of timings: the middle one, or the mean of the middle two.
pub fn median(runs: &[f64]) -> f64 {
    let mut v = runs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
