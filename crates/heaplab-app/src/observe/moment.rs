//! `Moment`: the state of a watched run at one event, as the maps and blame read it. A
//! session hands out a moment of itself; the maps take the moment rather than the session,
//! so that the session can draw them without the maps depending back on it.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use heaplab_core::event::BlockId;
use heaplab_core::provider::SimProvider;
use heaplab_core::simulate::Simulation;
use heaplab_core::trace::sites::Sites;

use super::watch::Watch;

/// Where and when a live block was born, for the map's tooltips and blame's groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Birth {
    /// The event that allocated it (1-based), or last moved it in a realloc.
    pub event: u64,
    /// The phase the program was in then: shared by every block born in it, so that a
    /// birth costs no string of its own.
    pub phase: Option<Arc<str>>,
    /// The call site of that event, when the trace has one.
    pub site: Option<u64>,
}

/// A watched run after `position` events: its simulation, the birth of each live block
/// and the trace's call sites.
#[derive(Clone, Copy, Debug)]
pub struct Moment<'a> {
    pub simulation: &'a Simulation<Watch<SimProvider>>,
    pub births: &'a FxHashMap<BlockId, Birth>,
    pub sites: &'a Sites,
    /// How many events have been applied.
    pub position: usize,
    /// The live blocks that take up bytes, by address, when the session keeps them (while
    /// stepping).
    pub by_addr: Option<&'a BTreeSet<(u64, BlockId)>>,
}
