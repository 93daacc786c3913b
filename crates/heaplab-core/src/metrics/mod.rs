//! A run's result and the one list of figures read from it.
//!
//! [`Summary`] holds the books a run ends with, as the simulator keeps them: the program's
//! counts, the page map's [`PageStats`](crate::stats::PageStats), the page size, the
//! allocator's metadata, the phases. Every figure people read (`peak_resident_bytes`,
//! `page_ops`, `utilization`, ...) is declared once, in `list.rs`, with its label, group,
//! unit, which way is better and how it is worked out from those books. From that one
//! declaration come `Summary`'s methods of the same names, [`METRICS`] (which the CLI's
//! tables, the page's table, CSV headers and comparison reports read) and the field names
//! of the `--json` object, so a new figure is one entry in one file. Beside them, the
//! figures each phase ends with (`phase.rs`), which [`Measure`] reads as `<figure>@<phase>`
//! wherever a metric may be named (a sweep's).

use serde::Serialize;

use crate::format::{format_bytes, format_count};

mod list;
mod phase;
mod schema;
mod summary;

pub use list::METRICS;
pub use phase::{phase_figures, valid_text, Measure, PhaseFigure, PHASE_FIGURES};
pub use schema::{versioned, Schema, Versioned, SCHEMA};
pub use summary::{PhaseMark, ProgramCounts, RunTime, Summary};

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
    read: fn(&Summary) -> Figure,
}

/// A figure's value as the `--json` object holds it: a whole number, or a share for the
/// fractions. Kept whole so that a byte count prints exactly, at any size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Figure {
    Whole(u64),
    Share(f64),
}

impl Figure {
    /// The value as tables and charts compute with it.
    pub fn as_f64(self) -> f64 {
        match self {
            Figure::Whole(n) => n as f64,
            Figure::Share(x) => x,
        }
    }
}

impl From<u64> for Figure {
    fn from(n: u64) -> Figure {
        Figure::Whole(n)
    }
}

impl From<f64> for Figure {
    fn from(x: f64) -> Figure {
        Figure::Share(x)
    }
}

impl Serialize for Figure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Figure::Whole(n) => s.serialize_u64(n),
            Figure::Share(x) => s.serialize_f64(x),
        }
    }
}

impl Metric {
    /// The figure's value in a summary.
    pub fn value(&self, summary: &Summary) -> f64 {
        (self.read)(summary).as_f64()
    }

    /// The figure's value as `--json` writes it.
    pub fn figure(&self, summary: &Summary) -> Figure {
        (self.read)(summary)
    }

    /// The value as a table shows it: bytes in binary units, counts with thousands
    /// separators, fractions as percentages.
    pub fn format(&self, value: f64) -> String {
        format_value(self.unit, value)
    }

    /// `value` against a baseline's, MallocBench-style ("^ 1.12x smaller"), as a table
    /// that prints both with [`Metric::format`] shows it: blank when the two print alike,
    /// and for a property of the workload, which no policy changes.
    pub fn delta(&self, base: f64, value: f64) -> String {
        self.delta_as_shown(base, value, |v| self.format(v))
    }

    /// [`Metric::delta`] for a table that prints the figures with `shown` (the CLI's
    /// comparison prints memory in whole KiB): blank when the two print alike.
    pub fn delta_as_shown(&self, base: f64, value: f64, shown: impl Fn(f64) -> String) -> String {
        let direction = match self.better {
            Better::Smaller => crate::format::Direction::Smaller,
            Better::Larger => crate::format::Direction::Larger,
            Better::Neither => return String::new(),
        };
        crate::format::format_shown_delta(base, value, direction, shown)
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
