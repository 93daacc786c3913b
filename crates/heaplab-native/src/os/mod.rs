//! The platform, chosen in one place: real mappings on Linux and macOS, and a fallback that
//! compiles everywhere else and refuses politely.
//!
//! Every function here takes and returns plain integer addresses, the way the core's
//! [`heaplab_core::provider::PageProvider`] does; the unsafe ones say what they assume.

#[cfg(any(target_os = "linux", target_os = "macos"))]
mod unix;
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub use unix::*;

#[cfg(any(target_os = "linux", target_os = "macos"))]
mod proc;
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub use proc::*;

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod unsupported;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub use unsupported::*;
