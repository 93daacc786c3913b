//! Your own allocator in heaplab: a malloc-lab `mm.c` (or any allocator with its four
//! calls) compiled to a WebAssembly module, run behind the core's module family.
//!
//! [`AllocatorModule::new`] checks a module once against the interface (`mm_init`,
//! `mm_malloc`, `mm_free`, `mm_realloc`, the imports `memlib.h` and `heaplab.h` declare)
//! and [`AllocatorModule::register`] makes it available to every config that names its
//! SHA-256; each simulation then gets a fresh [`Allocator`], whose calls are checked as
//! mdriver checks them.
//!
//! Modules run in wasmi, an interpreter: the same code runs natively and inside the
//! page's own WebAssembly, where a module cannot call back into the page in the middle of
//! a call, and its fuel bounds every call the same way in both places.

pub mod compile;
mod host;
mod instance;
mod module;
pub mod score;

pub use instance::Allocator;
pub use module::{AllocatorModule, ModuleError, MAX_INITIAL_MEMORY};
