//! What a baseline measured: each run's figures, and over the runs their median and spread.

use serde::{Deserialize, Serialize};

use super::{RealAllocator, Release};
use crate::marks::TimeMarks;

/// A spread (largest less smallest, over the median) above this is flagged: a real figure
/// that moves that much between runs of the same events says more about the machine, or
/// the allocator's clock, than about the allocator's policy.
pub const SPREAD_FLAG: f64 = 0.10;

/// Memory figures closer than this across runs are not flagged whatever their ratio: a
/// near-empty heap moves by a few pages of the allocator's own bookkeeping from run to run.
pub const SPREAD_SLACK_BYTES: u64 = 128 << 10;

/// One replay in a process of its own: its pace and the heap RSS it reached. RSS figures
/// are of the heap: the process's anonymous resident memory minus `rss_before_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    /// The process the run was made in: each run of a baseline has one of its own.
    pub pid: u32,
    /// Wall time per event of this replay, RSS sampling included: the pace at which the
    /// memory figures below were reached.
    pub ns_per_event: f64,
    /// The most heap RSS during the replay: the larger of the samples (about every 1% of
    /// the events, and after the last) and the kernel's high water mark, which also covers
    /// spikes between samples.
    pub peak_rss_bytes: u64,
    /// The most heap RSS at a sample alone, without the high water mark.
    pub peak_sampled_rss_bytes: u64,
    /// Whether the kernel's high water mark could be reset and read, so that the peak
    /// covers the whole replay and not only the samples.
    pub peak_from_high_water_mark: bool,
    /// Heap RSS after the last event, with the workload's still-live blocks live.
    pub end_rss_bytes: u64,
    /// The same after the allocator was asked to give free memory back (`trim_call`).
    pub end_rss_after_trim_bytes: u64,
    /// The process's anonymous resident memory just before the first event, heaplab's own
    /// heap left out.
    pub rss_before_bytes: u64,
    /// heaplab's own heap (the decoded events, the id table, buffers), resident in its
    /// private mapping at the end and left out of every figure above; 0 where heaplab's
    /// memory is in the system allocator's heap (the baseline's process did not move it).
    pub own_heap_bytes: u64,
    /// The replay's wall clock, read as it went: the time that passed at each event, for
    /// a model to run on (`heaplab fidelity`). Empty in a report written without it, and
    /// in `heaplab baseline`'s own output, where it would only be long.
    #[serde(default, skip_serializing_if = "TimeMarks::is_empty")]
    pub time_marks: TimeMarks,
}

/// How far apart the runs' figures are: largest less smallest, over the median.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub ns_per_event: f64,
    pub peak_rss_bytes: f64,
    pub end_rss_bytes: f64,
}

/// What a baseline measured, over one run or more, each in a fresh process. The figures at
/// the top are the medians of `runs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineReport {
    pub allocator: RealAllocator,
    /// The allocator's name and version as it reports them (e.g. "glibc 2.36",
    /// "jemalloc 5.3.0"), and for a preloaded library its file.
    pub version: String,
    /// The same version as numbers, where the allocator gives them: what a caller decides
    /// by. Absent from a report written before it was kept.
    #[serde(default)]
    pub release: Option<Release>,
    pub events: u64,
    /// Median over the runs of wall time per event, of the same runs whose memory is
    /// reported.
    pub ns_per_event: f64,
    pub ns_per_event_runs: Vec<f64>,
    /// Median over the runs of the peak heap RSS.
    pub peak_rss_bytes: u64,
    /// Median over the runs of the heap RSS after the last event, blocks still live.
    pub end_rss_bytes: u64,
    /// Median over the runs of the same after the trim call.
    pub end_rss_after_trim_bytes: u64,
    pub trim_call: String,
    /// Median over the runs of the process's anonymous resident memory just before the
    /// first event: the decoded events and heaplab itself, subtracted from every figure.
    pub rss_before_bytes: u64,
    /// Each run, in the order they ran.
    pub runs: Vec<RunFigures>,
    pub spread: Spread,
    /// The figures of `spread` above [`SPREAD_FLAG`] (memory figures only when their runs
    /// are also more than [`SPREAD_SLACK_BYTES`] apart), by name.
    pub wide_spread: Vec<String>,
}

impl BaselineReport {
    /// A report of one run.
    pub fn single(
        allocator: RealAllocator,
        version: String,
        release: Option<Release>,
        events: u64,
        trim_call: String,
        run: RunFigures,
    ) -> BaselineReport {
        let mut r = BaselineReport {
            allocator,
            version,
            release,
            events,
            ns_per_event: 0.0,
            ns_per_event_runs: Vec::new(),
            peak_rss_bytes: 0,
            end_rss_bytes: 0,
            end_rss_after_trim_bytes: 0,
            trim_call,
            rss_before_bytes: 0,
            runs: vec![run],
            spread: Spread::default(),
            wide_spread: Vec::new(),
        };
        r.summarize();
        r
    }

    /// Several reports of the same allocator and events, one run each, as one: their runs
    /// together, with medians and spread. `None` when there are none.
    pub fn merge(reports: Vec<BaselineReport>) -> Option<BaselineReport> {
        let mut iter = reports.into_iter();
        let mut first = iter.next()?;
        for r in iter {
            first.runs.extend(r.runs);
        }
        first.summarize();
        Some(first)
    }

    /// The report without each run's time marks, as it is shown: they are there for a
    /// model to run on, and only make a shown report long.
    pub fn without_time_marks(mut self) -> BaselineReport {
        for r in &mut self.runs {
            r.time_marks = TimeMarks::default();
        }
        self
    }

    /// Works out the medians, the spread and its flags from `runs`.
    fn summarize(&mut self) {
        let runs = &self.runs;
        let ns: Vec<f64> = runs.iter().map(|r| r.ns_per_event).collect();
        let bytes =
            |f: fn(&RunFigures) -> u64| -> Vec<f64> { runs.iter().map(|r| f(r) as f64).collect() };
        let peak = bytes(|r| r.peak_rss_bytes);
        let end = bytes(|r| r.end_rss_bytes);
        self.ns_per_event = crate::median(&ns);
        self.ns_per_event_runs = ns.clone();
        self.peak_rss_bytes = crate::median(&peak).round() as u64;
        self.end_rss_bytes = crate::median(&end).round() as u64;
        self.end_rss_after_trim_bytes =
            crate::median(&bytes(|r| r.end_rss_after_trim_bytes)).round() as u64;
        self.rss_before_bytes = crate::median(&bytes(|r| r.rss_before_bytes)).round() as u64;
        self.spread = Spread {
            ns_per_event: spread(&ns),
            peak_rss_bytes: spread(&peak),
            end_rss_bytes: spread(&end),
        };
        let apart = |v: &[f64]| range(v) > SPREAD_SLACK_BYTES as f64;
        let mut wide = Vec::new();
        if self.spread.ns_per_event > SPREAD_FLAG {
            wide.push("ns_per_event".to_string());
        }
        if self.spread.peak_rss_bytes > SPREAD_FLAG && apart(&peak) {
            wide.push("peak_rss_bytes".to_string());
        }
        if self.spread.end_rss_bytes > SPREAD_FLAG && apart(&end) {
            wide.push("end_rss_bytes".to_string());
        }
        self.wide_spread = wide;
    }

    /// The smallest, median and largest of a figure over the runs.
    pub fn min_median_max(&self, f: impl Fn(&RunFigures) -> f64) -> [f64; 3] {
        let v: Vec<f64> = self.runs.iter().map(f).collect();
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        [min, crate::median(&v), max]
    }
}

/// Largest less smallest.
fn range(v: &[f64]) -> f64 {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if v.is_empty() {
        0.0
    } else {
        max - min
    }
}

/// Largest less smallest, over the median; 0 for one value or a zero median.
fn spread(v: &[f64]) -> f64 {
    let m = crate::median(v);
    if m > 0.0 {
        range(v) / m
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ns: f64, peak: u64, end: u64) -> RunFigures {
        RunFigures {
            pid: 1,
            ns_per_event: ns,
            peak_rss_bytes: peak,
            peak_sampled_rss_bytes: peak,
            peak_from_high_water_mark: true,
            end_rss_bytes: end,
            end_rss_after_trim_bytes: end,
            rss_before_bytes: 1 << 20,
            own_heap_bytes: 0,
            time_marks: TimeMarks::default(),
        }
    }

    fn report(r: RunFigures) -> BaselineReport {
        BaselineReport::single(
            RealAllocator::System,
            "glibc".into(),
            None,
            10,
            "none".into(),
            r,
        )
    }

    #[test]
    fn merged_runs_give_medians_and_flag_a_wide_spread() {
        let m = BaselineReport::merge(vec![
            report(run(100.0, 10 << 20, 27 << 20)),
            report(run(104.0, 10 << 20, 70 << 20)),
            report(run(102.0, 11 << 20, 70 << 20)),
        ])
        .unwrap();
        assert_eq!(m.runs.len(), 3);
        assert_eq!(m.ns_per_event, 102.0);
        assert_eq!(m.peak_rss_bytes, 10 << 20);
        assert_eq!(m.end_rss_bytes, 70 << 20);
        assert!((m.spread.peak_rss_bytes - 0.1).abs() < 1e-9);
        // 43 MiB apart over a median of 70: flagged. The peak's 10% is not above 10%, and
        // the pace's 4% is within.
        assert_eq!(m.wide_spread, vec!["end_rss_bytes".to_string()]);
        assert_eq!(
            m.min_median_max(|r| r.end_rss_bytes as f64)[0],
            (27 << 20) as f64
        );
    }

    #[test]
    fn near_empty_heaps_a_few_pages_apart_are_not_flagged() {
        let m = BaselineReport::merge(vec![
            report(run(100.0, 10 << 20, 8 << 10)),
            report(run(100.0, 10 << 20, 40 << 10)),
        ])
        .unwrap();
        assert!(m.spread.end_rss_bytes > 1.0);
        assert!(m.wide_spread.is_empty(), "{:?}", m.wide_spread);
    }
}
