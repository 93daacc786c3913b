//! Teaching mode: a run watched event by event. [`watch::Watch`] is the provider that
//! keeps the policies' [`crate::decision::Decision`]s; [`session::Session`] steps a run
//! over it and explains each event ([`explain::line`]); [`heap_map`] draws the heap at an
//! event and [`blame`] splits its resident bytes into live, pinned and kept.

pub mod blame;
pub mod explain;
pub mod heap_map;
pub mod session;
pub mod watch;

pub use session::{explain_range, Session, Step};

#[cfg(test)]
mod tests;
