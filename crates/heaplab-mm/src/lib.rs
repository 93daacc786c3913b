//! Your own allocator in heaplab: a malloc-lab `mm.c` (or any allocator with its four
//! calls) compiled to a WebAssembly module, run behind the core's module family.
//!
//! [`AllocatorModule::new`] checks a module once against the interface (`mm_init`,
//! `mm_malloc`, `mm_free`, `mm_realloc`, the imports `memlib.h` and `heaplab.h` declare)
//! and [`AllocatorModule::register`] makes it available to every config that names its
//! SHA-256; each simulation then gets a fresh [`Allocator`], whose calls are checked as
//! mdriver checks them.
//!
//! A module runs in a [`runtime::Runtime`]: natively in wasmi, an interpreter
//! ([`native`]); in the page in the browser's own engine, which the page's bindings
//! supply. Either runs the module as [`meter`] rewrote it, so its loops spend a budget
//! the same way in both, and every check and page figure is the same code over either.

pub mod compile;
pub mod host;
mod instance;
pub mod meter;
mod module;
pub mod native;
pub mod runtime;
pub mod score;

pub use instance::Allocator;
pub use module::{AllocatorModule, ModuleError, MAX_INITIAL_MEMORY};
