//! Teaching mode: a run watched event by event. [`watch::Watch`] is the provider that
//! keeps the policies' [`heaplab_core::decision::Decision`]s; [`session::Session`] steps a run
//! over it and explains each event ([`explain::line`]); [`heap_map`] draws the heap at an
//! event and [`blame`] splits its resident bytes into live, pinned and kept;
//! [`block_map`] cuts pages into blocks, free pieces and overhead, and [`teach`] holds a
//! short run for stepping back and forth, as the page does.

pub mod blame;
pub mod block_map;
pub mod explain;
pub mod find;
pub mod heap_map;
pub mod log;
pub mod moment;
pub mod session;
pub mod teach;
pub mod watch;

pub use find::{At, RunIndex};
pub use log::{EventLog, LogBuilder, LogReader};
pub use moment::{Birth, Moment};
pub use session::{explain_range, Session, Step};
pub use teach::{TeachTrace, Teaching, MAX_TEACH_EVENTS};

#[cfg(test)]
mod tests;
