//! The page's CSV files, each under its provenance as comment lines: the summary (a row
//! per configuration: every metric of the core's list, then live, committed and resident
//! bytes at the end of each phase), memory over time (a row per sample), and a sweep (a
//! row per value).

use std::fmt::Write;

use heaplab_core::format::csv_field as field;
use heaplab_core::metrics::METRICS;
use serde_json::Value;

use super::Provenance;
use crate::sweep::SweepReport;

/// What a phase's columns hold, each named `<figure>@<phase>` (`resident_bytes@exit`).
const PHASE_FIGURES: [&str; 3] = ["live_bytes", "committed_bytes", "resident_bytes"];

/// A number as CSV holds it: integers without a fraction, others as Rust prints them.
fn number(value: &Value) -> String {
    match value.as_f64() {
        Some(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => format!("{}", v as i64),
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

/// The phases a report names, in order.
fn phase_labels(report: &Value) -> Vec<String> {
    report["phases"]
        .as_array()
        .map(|phases| {
            phases
                .iter()
                .filter_map(|p| p["label"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The summary of `reports` (each as `heaplab run --json` prints it) under `labels`:
/// `configuration`, every metric key, then `<figure>@<phase>` for each phase of the
/// workload (every run of a comparison replays the same one, so the first report's
/// phases head the columns). A figure a report lacks is left empty.
pub fn summary_csv(provenance: &Provenance, labels: &[String], reports: &[Value]) -> String {
    let phases = reports.first().map(phase_labels).unwrap_or_default();
    let mut out = provenance.csv_comments();
    out.push_str("configuration");
    for m in METRICS {
        out.push(',');
        out.push_str(m.key);
    }
    for phase in &phases {
        for figure in PHASE_FIGURES {
            out.push(',');
            out.push_str(&field(&format!("{figure}@{phase}")));
        }
    }
    out.push('\n');
    for (i, report) in reports.iter().enumerate() {
        out.push_str(&field(labels.get(i).map_or("", String::as_str)));
        for m in METRICS {
            out.push(',');
            out.push_str(&number(&report[m.key]));
        }
        let own = report["phases"].as_array();
        for (k, phase) in phases.iter().enumerate() {
            let mark = own
                .and_then(|p| p.get(k))
                .filter(|p| p["label"].as_str() == Some(phase.as_str()));
            for figure in PHASE_FIGURES {
                out.push(',');
                if let Some(mark) = mark {
                    out.push_str(&number(&mark[figure]));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// One configuration's memory over time, as the page holds it.
#[derive(Clone, Debug, Default)]
pub struct SeriesColumns {
    pub t: Vec<f64>,
    pub live: Vec<f64>,
    pub committed: Vec<f64>,
    pub resident: Vec<f64>,
}

impl SeriesColumns {
    /// Memory over time of `series` under `labels`:
    /// `configuration,event,live_bytes,committed_bytes,resident_bytes`.
    pub fn csv(provenance: &Provenance, labels: &[String], series: &[SeriesColumns]) -> String {
        let mut out = provenance.csv_comments();
        out.push_str("configuration,event,live_bytes,committed_bytes,resident_bytes\n");
        let at = |c: &[f64], k: usize| c.get(k).map_or(String::new(), |v| number(&(*v).into()));
        for (i, s) in series.iter().enumerate() {
            let label = field(labels.get(i).map_or("", String::as_str));
            for k in 0..s.t.len() {
                let _ = writeln!(
                    out,
                    "{label},{},{},{},{}",
                    at(&s.t, k),
                    at(&s.live, k),
                    at(&s.committed, k),
                    at(&s.resident, k)
                );
            }
        }
        out
    }
}

/// A sweep as the page shows it: a row per value, `configuration` (the swept
/// configuration's label), each swept parameter, every metric key, then each phase
/// figure (`resident_bytes@exit`).
pub fn sweep_csv(provenance: &Provenance, label: &str, report: &SweepReport) -> String {
    let phases: Vec<&str> = report
        .points
        .first()
        .map(|p| p.metrics.1.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    let mut out = provenance.csv_comments();
    out.push_str("configuration");
    for axis in &report.params {
        out.push(',');
        out.push_str(&field(&axis.param));
    }
    for m in METRICS {
        out.push(',');
        out.push_str(m.key);
    }
    for key in &phases {
        out.push(',');
        out.push_str(&field(key));
    }
    out.push('\n');
    for point in &report.points {
        out.push_str(&field(label));
        for value in point.values.iter().chain(&point.metrics.0) {
            out.push(',');
            out.push_str(&number(value));
        }
        for key in &phases {
            out.push(',');
            if let Some(v) = point.metrics.get(key) {
                out.push_str(&number(&v.into()));
            }
        }
        out.push('\n');
    }
    out
}
