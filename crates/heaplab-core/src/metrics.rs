//! The one list of a run's summary figures: each field's name, label, group, unit and
//! which way is better. The CLI's tables, the page's table, CSV headers and comparison
//! reports all read [`METRICS`], so a figure is named and formatted the same everywhere.

use serde::Serialize;

use crate::format::{format_bytes, format_count};
use crate::simulate::Summary;

/// Which block of a summary table a figure belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// What the program asked for: counts of events.
    Workload,
    /// Bytes the program and the allocator hold.
    Memory,
    /// Calls to the page provider: what an OS would see as mmap, madvise and munmap.
    PageCalls,
}

impl Group {
    /// The heading of the group's rows.
    pub fn title(self) -> &'static str {
        match self {
            Group::Workload => "Workload",
            Group::Memory => "Memory",
            Group::PageCalls => "Page provider calls",
        }
    }
}

/// How a figure is read and printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Bytes,
    Count,
    /// A share between 0 and 1, printed as a percentage.
    Fraction,
}

/// Which way a figure improves, for comparison columns (`^ 1.12x smaller`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Smaller,
    Larger,
    /// A property of the workload, the same for every policy: nothing to compare.
    Neither,
}

/// One summary figure.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Metric {
    /// The field's name in `--json` and `window.heaplabResults`.
    pub key: &'static str,
    /// The row label people read ("Peak resident").
    pub label: &'static str,
    pub group: Group,
    pub unit: Unit,
    pub better: Better,
    /// One sentence on what the figure counts.
    pub doc: &'static str,
    #[serde(skip)]
    read: fn(&Summary) -> f64,
}

impl Metric {
    /// The figure's value in a summary.
    pub fn value(&self, summary: &Summary) -> f64 {
        (self.read)(summary)
    }

    /// The value as a table shows it: bytes in binary units, counts with thousands
    /// separators, fractions as percentages.
    pub fn format(&self, value: f64) -> String {
        format_value(self.unit, value)
    }

    /// `value` against a baseline's, MallocBench-style ("^ 1.12x smaller"); blank for a
    /// property of the workload, which no policy changes.
    pub fn delta(&self, base: f64, value: f64) -> String {
        let direction = match self.better {
            Better::Smaller => crate::format::Direction::Smaller,
            Better::Larger => crate::format::Direction::Larger,
            Better::Neither => return String::new(),
        };
        crate::format::format_delta(base, value, direction)
    }
}

/// Formats a value of `unit` as every table of heaplab prints it.
pub fn format_value(unit: Unit, value: f64) -> String {
    if !value.is_finite() {
        return "—".into();
    }
    match unit {
        Unit::Bytes => format_bytes(value.max(0.0) as u64),
        Unit::Count => format_count(value.round() as i128),
        Unit::Fraction => format!("{:.1} %", value * 100.0),
    }
}

macro_rules! metric {
    ($key:ident, $label:literal, $group:ident, $unit:ident, $better:ident, $doc:literal) => {
        Metric {
            key: stringify!($key),
            label: $label,
            group: Group::$group,
            unit: Unit::$unit,
            better: Better::$better,
            doc: $doc,
            read: |s| s.$key as f64,
        }
    };
}

/// Every summary figure, in reading order. A field added to [`Summary`] is added here
/// once; a test checks that the two agree.
pub const METRICS: &[Metric] = &[
    metric!(
        events,
        "Events",
        Workload,
        Count,
        Neither,
        "Events replayed: allocations, frees, reallocations, phases and arena calls."
    ),
    metric!(
        allocs,
        "Allocations",
        Workload,
        Count,
        Neither,
        "Allocations the program made."
    ),
    metric!(
        frees,
        "Frees",
        Workload,
        Count,
        Neither,
        "Frees the program made."
    ),
    metric!(
        reallocs,
        "Reallocations",
        Workload,
        Count,
        Neither,
        "Reallocations the program made."
    ),
    metric!(
        peak_live_bytes,
        "Peak live",
        Memory,
        Bytes,
        Neither,
        "Most bytes the program held in live blocks at once."
    ),
    metric!(
        end_live_bytes,
        "Live at end",
        Memory,
        Bytes,
        Neither,
        "Bytes the program still held at the end."
    ),
    metric!(
        peak_resident_bytes,
        "Peak resident",
        Memory,
        Bytes,
        Smaller,
        "Most memory in pages the program or the allocator had written (RSS)."
    ),
    metric!(
        end_resident_bytes,
        "Resident at end",
        Memory,
        Bytes,
        Smaller,
        "Resident memory at the end: what the allocator did not give back."
    ),
    metric!(
        peak_committed_bytes,
        "Peak committed",
        Memory,
        Bytes,
        Smaller,
        "Most memory committed at once (backed by the OS, written or not)."
    ),
    metric!(
        end_committed_bytes,
        "Committed at end",
        Memory,
        Bytes,
        Smaller,
        "Memory still committed at the end."
    ),
    metric!(
        peak_reserved_bytes,
        "Peak reserved",
        Memory,
        Bytes,
        Smaller,
        "Most address space reserved at once."
    ),
    metric!(
        end_reserved_bytes,
        "Reserved at end",
        Memory,
        Bytes,
        Smaller,
        "Address space still reserved at the end."
    ),
    metric!(
        touched_bytes,
        "Touched",
        Memory,
        Bytes,
        Smaller,
        "Distinct memory ever written: pages the OS had to back at some point."
    ),
    metric!(
        metadata_bytes,
        "Allocator metadata",
        Memory,
        Bytes,
        Smaller,
        "The allocator's own bookkeeping at the end, kept out of band."
    ),
    metric!(
        utilization,
        "Utilization",
        Memory,
        Fraction,
        Larger,
        "Peak live bytes over peak resident bytes (malloc-lab's utilization)."
    ),
    metric!(
        reserve_ops,
        "Reserve",
        PageCalls,
        Count,
        Smaller,
        "Calls that reserved address space (mmap)."
    ),
    metric!(
        commit_ops,
        "Commit",
        PageCalls,
        Count,
        Smaller,
        "Calls that committed pages."
    ),
    metric!(
        decommit_ops,
        "Decommit",
        PageCalls,
        Count,
        Smaller,
        "Calls that gave pages back while keeping the addresses (madvise)."
    ),
    metric!(
        release_ops,
        "Release",
        PageCalls,
        Count,
        Smaller,
        "Calls that released address space (munmap)."
    ),
    metric!(
        page_ops,
        "All page calls",
        PageCalls,
        Count,
        Smaller,
        "All four kinds of provider call: the OS page operations of LLVM review D71786."
    ),
    metric!(
        committed_pages_total,
        "Pages committed",
        PageCalls,
        Count,
        Smaller,
        "Pages committed over the run, counted at each commit."
    ),
    metric!(
        decommitted_pages_total,
        "Pages decommitted",
        PageCalls,
        Count,
        Neither,
        "Pages decommitted over the run, counted at each decommit."
    ),
];

/// The metric of a `--json` field name.
pub fn find(key: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.key == key)
}

/// The names of every metric, for messages that list what may be asked for.
pub fn keys() -> Vec<&'static str> {
    METRICS.iter().map(|m| m.key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_by_their_unit() {
        assert_eq!(format_value(Unit::Fraction, 0.4567), "45.7 %");
        assert_eq!(format_value(Unit::Count, f64::NAN), "—");
        assert_eq!(format_value(Unit::Count, 1_237_652.0), "1,237,652");
        assert_eq!(format_value(Unit::Bytes, 1_536_000.0), "1.46 MiB");
    }

    /// Every number in a summary's JSON is a metric, and every metric is one of them, so
    /// neither list can grow alone.
    #[test]
    fn the_list_covers_the_summary() {
        let config = crate::config::RunConfig::new("churn", "bump");
        let mut config = config;
        config.workload.params.insert("scale".into(), 0.0001.into());
        let out = crate::run::run(&config).unwrap();
        let json = serde_json::to_value(&out.report.summary).unwrap();
        let numbers: Vec<&str> = json
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.is_number())
            .map(|(k, _)| k.as_str())
            .collect();
        let mut listed = keys();
        listed.sort_unstable();
        let mut numbers = numbers;
        numbers.sort_unstable();
        assert_eq!(listed, numbers);
        for m in METRICS {
            assert_eq!(m.value(&out.report.summary), json[m.key].as_f64().unwrap());
        }
    }
}
