//! The books a run ends with. `Summary` keeps what the simulator counted, as it counted
//! it; every figure read from it is a method made by the list in `list.rs`, so no figure
//! is stored twice and none can disagree with the counters it comes from.

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use super::METRICS;
use crate::clock::Clock;
use crate::stats::{Gauge, PageStats};

/// Memory at the end of a phase, the figure a `ps` after each step gives (scenario S4).
///
/// Also what the charts mark phases with; the page sends only `{label, end_event}`, so the
/// byte figures default to zero when read back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseMark {
    pub label: String,
    /// Number of the phase's last event.
    pub end_event: u64,
    #[serde(default)]
    pub live_bytes: u64,
    #[serde(default)]
    pub committed_bytes: u64,
    #[serde(default)]
    pub resident_bytes: u64,
}

/// What the program did, counted by the simulator as the events arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgramCounts {
    pub events: u64,
    pub allocs: u64,
    pub frees: u64,
    pub reallocs: u64,
    /// Bytes in live blocks, with the most there ever were.
    pub live_bytes: Gauge,
}

/// The books a run ends with. Its JSON object (`heaplab run --json`, the browser's
/// `window.heaplabResults`) holds every figure of [`METRICS`] by its key, in the list's
/// order, then `phases`, `counters` and `time`; those names are a stable contract.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub program: ProgramCounts,
    /// The page map's gauges and counters at the end.
    pub pages: PageStats,
    /// The provider's page size, which turns the page counts into bytes.
    pub page_size: u64,
    /// The allocator's own bookkeeping at the end, kept out of band.
    pub allocator_metadata_bytes: u64,
    pub phases: Vec<PhaseMark>,
    /// The modelled allocator's own counters at the end, Pike-style (`num_malloc`,
    /// `malloc_bytes`, `free_block_bytes`, ...), for the policies that keep them (the pool
    /// family); empty for the others.
    pub counters: BTreeMap<String, u64>,
    /// How much time the model saw pass, on which clock.
    pub time: RunTime,
}

impl RunTime {
    /// The line a report prints under its table: how much time the model saw pass, on
    /// which clock; `None` for a run without one.
    pub fn describe(&self) -> Option<String> {
        let elapsed = crate::format::format_duration_ns(self.elapsed_ns?);
        let marks = crate::format::format_counted(i128::from(self.marks), "mark", "marks");
        Some(match self.clock? {
            Clock::Trace => format!("model time: {elapsed}, on the trace's clock ({marks})"),
            Clock::Rate(ns) => format!("model time: {elapsed}, at {ns} ns per event"),
            Clock::Real => format!("model time: {elapsed}, on the real run's clock ({marks})"),
            // A run told to count events has no time to report.
            Clock::Events => return None,
        })
    }
}

/// The model's time at the end of a run (see [`crate::clock`]). Its JSON object is
/// `{"clock": "trace" | "rate=<ns>" | "real" | "events" | null, "elapsed_ns": <ns> | null, "marks": <n>}`:
/// `null` when the run had no clock, since a time the model never had is not zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RunTime {
    pub clock: Option<Clock>,
    /// The time of the last event, in nanoseconds since the start.
    pub elapsed_ns: Option<u64>,
    /// The trace's time marks read.
    pub marks: u64,
}

impl Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(METRICS.len() + 3))?;
        for m in METRICS {
            map.serialize_entry(m.key, &m.figure(self))?;
        }
        map.serialize_entry("phases", &self.phases)?;
        map.serialize_entry("counters", &self.counters)?;
        map.serialize_entry("time", &self.time)?;
        map.end()
    }
}
