//! `heaplab compare`'s report as MallocBench's `run-malloc-benchmarks` prints it: a section
//! per figure (Peak Memory, Memory at End, OS Page Operations, Peak Committed and Touched
//! Memory, and over real memory Execution Time), a row per workload with each column's
//! figure and, after every column but the first, its Δ against the first (the core's
//! `Metric::delta` / `format_delta`: `^ 1.12x smaller`, `! 1.02x bigger`, blank when
//! equal), then the geometric, arithmetic and harmonic means over the workloads.
//!
//! The means of a row are taken over the same workloads for every column, so they
//! compare: the arithmetic mean over the workloads where every column has the figure, the
//! geometric and harmonic means over those where it is also above zero in every column (a
//! zero would make the geometric mean zero and the harmonic undefined; a policy that makes
//! no page operation on a workload leaves that workload out of those two means). A column
//! that has no such figure at all (a real allocator's page operations) shows `—`.
//!
//! The same data prints as JSON (`--json`) and as CSV (`--csv`, mimalloc-bench's
//! `benchres.csv` columns first).

use std::collections::BTreeMap;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, Cell, CellAlignment, Table};
use heaplab_core::format::{
    csv_field, format_count, format_counted, format_shown_delta, Direction,
};
use heaplab_core::metrics::{self, Unit, METRICS};
use serde::Serialize;
use serde_json::Value;

/// What a column of the comparison is.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    pub label: String,
    /// `config` (a simulated configuration) or `allocator` (a real one, as `baseline`
    /// measures it).
    pub kind: &'static str,
    /// For a configuration: its policy, provider and touch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
}

/// A row of the comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub label: String,
    pub workload: heaplab_core::config::WorkloadConfig,
}

/// One column's run of one workload: its figures by key (the metric keys of `run
/// --json`, and `ns_per_event`), and the report it printed (`run --json`'s object, `run
/// --real --json`'s, or `baseline --json`'s).
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub workload: String,
    pub column: String,
    #[serde(skip)]
    pub figures: BTreeMap<&'static str, f64>,
    pub report: Value,
}

/// Everything `compare` measured: `runs[w * columns.len() + c]` is column `c` on row `w`.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub runs: Vec<Run>,
    /// Whether Execution Time was measured (`--real`).
    pub real: bool,
}

impl Comparison {
    fn value(&self, w: usize, c: usize, key: &str) -> Option<f64> {
        self.runs
            .get(w * self.columns.len() + c)
            .and_then(|r| r.figures.get(key).copied())
    }
}

/// A figure a section compares.
#[derive(Clone, Copy, Debug)]
pub struct Figure {
    pub key: &'static str,
    pub label: &'static str,
    unit: Unit,
    /// `None`: time, which reads faster or slower.
    metric: Option<&'static metrics::Metric>,
}

/// The key of Execution Time's figure.
pub const TIME: &str = "ns_per_event";

impl Figure {
    fn of(key: &'static str) -> Figure {
        match metrics::find(key) {
            Some(m) => Figure {
                key,
                label: m.label,
                unit: m.unit,
                metric: Some(m),
            },
            None => Figure {
                key,
                label: "Time per event",
                unit: Unit::Count,
                metric: None,
            },
        }
    }

    /// `value` against the first column's, by the core's one delta formatter, as this
    /// table prints the two: no delta between figures that print alike.
    fn delta(&self, base: f64, value: f64) -> String {
        let shown = |v: f64| self.format(Some(v));
        match self.metric {
            Some(m) => m.delta_as_shown(base, value, shown),
            None => format_shown_delta(base, value, Direction::Faster, shown),
        }
    }

    /// A figure as the table prints it: bytes in KiB and counts with thousands
    /// separators, as MallocBench's report prints its kB; time in ns with one decimal.
    fn format(&self, value: Option<f64>) -> String {
        let Some(v) = value.filter(|v| v.is_finite()) else {
            return "—".into();
        };
        if self.metric.is_none() {
            let tenths = (v * 10.0).round() as i128;
            return format!("{}.{} ns", format_count(tenths / 10), tenths % 10);
        }
        match self.unit {
            Unit::Bytes => format!("{} KiB", format_count((v / 1024.0).round() as i128)),
            _ => metrics::format_value(self.unit, v),
        }
    }
}

/// The sections, in MallocBench's order, each with its figures.
pub fn sections(real: bool) -> Vec<(&'static str, Vec<Figure>)> {
    let mut out = vec![
        ("Peak Memory", vec![Figure::of("peak_resident_bytes")]),
        ("Memory at End", vec![Figure::of("end_resident_bytes")]),
        ("OS Page Operations", vec![Figure::of("page_ops")]),
        (
            "Peak Committed and Touched Memory",
            vec![
                Figure::of("peak_committed_bytes"),
                Figure::of("touched_bytes"),
            ],
        ),
    ];
    if real {
        out.push(("Execution Time", vec![Figure::of(TIME)]));
    }
    out
}

/// The three means of each column over the rows, for one figure.
#[derive(Clone, Debug, Serialize)]
pub struct Means {
    pub geometric: Vec<Option<f64>>,
    pub arithmetic: Vec<Option<f64>>,
    pub harmonic: Vec<Option<f64>>,
}

/// The means of `figure` (see the module's note on which workloads each takes).
pub fn means(cmp: &Comparison, figure: &Figure) -> Means {
    let cols = cmp.columns.len();
    let has: Vec<bool> = (0..cols)
        .map(|c| (0..cmp.rows.len()).any(|w| cmp.value(w, c, figure.key).is_some()))
        .collect();
    let mut all = Vec::new();
    let mut positive = Vec::new();
    for w in 0..cmp.rows.len() {
        let row: Vec<Option<f64>> = (0..cols)
            .filter(|&c| has[c])
            .map(|c| cmp.value(w, c, figure.key))
            .collect();
        if row.iter().all(|v| v.is_some_and(f64::is_finite)) {
            all.push(w);
            if row.iter().all(|v| v.is_some_and(|v| v > 0.0)) {
                positive.push(w);
            }
        }
    }
    let mean = |rows: &[usize], c: usize, f: &dyn Fn(&[f64]) -> f64| -> Option<f64> {
        if !has[c] || rows.is_empty() {
            return None;
        }
        let v: Vec<f64> = rows
            .iter()
            .filter_map(|&w| cmp.value(w, c, figure.key))
            .collect();
        Some(f(&v))
    };
    let n = |v: &[f64]| v.len() as f64;
    Means {
        geometric: (0..cols)
            .map(|c| {
                mean(&positive, c, &|v| {
                    (v.iter().map(|x| x.ln()).sum::<f64>() / n(v)).exp()
                })
            })
            .collect(),
        arithmetic: (0..cols)
            .map(|c| mean(&all, c, &|v| v.iter().sum::<f64>() / n(v)))
            .collect(),
        harmonic: (0..cols)
            .map(|c| {
                mean(&positive, c, &|v| {
                    n(v) / v.iter().map(|x| 1.0 / x).sum::<f64>()
                })
            })
            .collect(),
    }
}

/// A row's cells for the columns `shown`: each one's figure, and after every one but the
/// first its Δ against the first column's.
fn cells(figure: &Figure, values: &[Option<f64>], shown: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    for &c in shown {
        out.push(figure.format(values[c]));
        if c > 0 {
            out.push(match (values[0], values[c]) {
                (Some(base), Some(v)) => figure.delta(base, v),
                _ => String::new(),
            });
        }
    }
    out
}

/// One figure's table: a row per workload, then the three means. A column with no such
/// figure on any workload (a real allocator's page operations) is left out; the JSON
/// has it as nulls.
pub fn figure_table(cmp: &Comparison, figure: &Figure, titled: bool) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let shown: Vec<usize> = (0..cmp.columns.len())
        .filter(|&c| (0..cmp.rows.len()).any(|w| cmp.value(w, c, figure.key).is_some()))
        .collect();
    let mut header = vec![Cell::new(if titled { figure.label } else { "" })];
    for &c in &shown {
        header.push(Cell::new(&cmp.columns[c].label));
        if c > 0 {
            header.push(Cell::new("Δ"));
        }
    }
    table.set_header(header);
    let add = |table: &mut Table, name: &str, values: &[Option<f64>], bold: bool| {
        let mut name = Cell::new(name);
        if bold {
            name = name.add_attribute(Attribute::Italic);
        }
        let mut row = vec![name];
        row.extend(
            cells(figure, values, &shown)
                .into_iter()
                .map(|t| Cell::new(t).set_alignment(CellAlignment::Right)),
        );
        table.add_row(row);
    };
    for (w, r) in cmp.rows.iter().enumerate() {
        let values: Vec<Option<f64>> = (0..cmp.columns.len())
            .map(|c| cmp.value(w, c, figure.key))
            .collect();
        add(&mut table, &r.label, &values, false);
    }
    let m = means(cmp, figure);
    add(&mut table, "<geometric mean>", &m.geometric, true);
    add(&mut table, "<arithmetic mean>", &m.arithmetic, true);
    add(&mut table, "<harmonic mean>", &m.harmonic, true);
    table
}

/// The report as text: what ran, then each section.
pub fn print(cmp: &Comparison, scale: Option<&str>) {
    println!("{}", heading(cmp, scale));
    for (title, figures) in sections(cmp.real) {
        println!();
        println!("{title}:");
        let titled = figures.len() > 1;
        for f in &figures {
            println!("{}", figure_table(cmp, f, titled));
        }
    }
    println!();
    for note in notes(cmp) {
        println!("{note}");
    }
}

fn heading(cmp: &Comparison, scale: Option<&str>) -> String {
    let labels: Vec<&str> = cmp.columns.iter().map(|c| c.label.as_str()).collect();
    format!(
        "{} compared on {} ({}); Δ: each column against {}",
        labels.join(", "),
        format_counted(cmp.rows.len() as i128, "workload", "workloads"),
        match scale {
            Some(s) => format!("scale {s}"),
            None => "their own scale".to_string(),
        },
        labels.first().copied().unwrap_or("the first")
    )
}

fn notes(cmp: &Comparison) -> Vec<String> {
    let mut out = vec![
        "Memory figures are resident bytes (written pages) in KiB; geometric and harmonic \
         means leave out workloads where a column's figure is 0."
            .to_string(),
    ];
    if cmp.columns.iter().any(|c| c.kind == "allocator") {
        out.push(
            "A real allocator's Peak Memory and Memory at End are its heap RSS, as `heaplab \
             baseline` measures it; it has no page operation, commit or touch counts."
                .to_string(),
        );
    }
    let presets = cmp
        .columns
        .iter()
        .filter_map(|c| c.config.as_ref()?.get("policy")?.get("preset")?.as_str());
    out.extend(heaplab_core::presets::uncalibrated_note(presets));
    if cmp.real {
        out.push(
            "Execution Time: median ns per event over the timed runs, each configuration over \
             real memory as `heaplab run --real` runs it."
                .to_string(),
        );
    }
    out
}

/// The report as JSON: the columns, rows and every run's report, then each section's
/// figures with their Δ and means.
pub fn json(cmp: &Comparison) -> Value {
    let sections: Vec<Value> = sections(cmp.real)
        .into_iter()
        .map(|(title, figures)| {
            let figures: Vec<Value> = figures
                .iter()
                .map(|f| {
                    let rows: Vec<Value> = cmp
                        .rows
                        .iter()
                        .enumerate()
                        .map(|(w, r)| {
                            let values: Vec<Option<f64>> = (0..cmp.columns.len())
                                .map(|c| cmp.value(w, c, f.key))
                                .collect();
                            serde_json::json!({
                                "workload": r.label,
                                "values": values,
                                "deltas": deltas(f, &values),
                            })
                        })
                        .collect();
                    let m = means(cmp, f);
                    let mean = |v: &[Option<f64>]| serde_json::json!({"values": v, "deltas": deltas(f, v)});
                    serde_json::json!({
                        "key": f.key,
                        "label": f.label,
                        "rows": rows,
                        "geometric_mean": mean(&m.geometric),
                        "arithmetic_mean": mean(&m.arithmetic),
                        "harmonic_mean": mean(&m.harmonic),
                    })
                })
                .collect();
            serde_json::json!({"title": title, "figures": figures})
        })
        .collect();
    serde_json::json!({
        "columns": cmp.columns,
        "workloads": cmp.rows,
        "runs": cmp.runs,
        "sections": sections,
    })
}

/// Each column's Δ against the first (the first's own is empty).
fn deltas(figure: &Figure, values: &[Option<f64>]) -> Vec<String> {
    values
        .iter()
        .map(|v| match (values[0], v) {
            (Some(base), Some(v)) if values.len() > 1 => figure.delta(base, *v),
            _ => String::new(),
        })
        .collect()
}

/// The CSV: a row per workload and column. mimalloc-bench's `benchres.csv` names come
/// first where heaplab has the field — `benchmark`, `allocator`, `elapsed` (seconds: the
/// time per event times the events, with `--real` or for a real allocator) and `rss`
/// (peak memory in KiB, as its `rss` is the peak resident set in KB) — then every metric
/// of `run --json` and `ns_per_event`, empty where the column has no such figure. A real
/// allocator's row has its events and, as peak and end resident bytes, the RSS that
/// `heaplab baseline` measures, as the table shows them.
pub fn csv(cmp: &Comparison) -> String {
    let mut out = String::from("benchmark,allocator,elapsed,rss");
    for m in METRICS {
        out.push(',');
        out.push_str(m.key);
    }
    out.push(',');
    out.push_str(TIME);
    out.push('\n');
    let number = |v: Option<f64>| -> String {
        match v {
            Some(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 => {
                format!("{}", v as i64)
            }
            Some(v) if v.is_finite() => format!("{v}"),
            _ => String::new(),
        }
    };
    for run in &cmp.runs {
        let f = |k: &str| run.figures.get(k).copied();
        let elapsed = match (f(TIME), f("events")) {
            (Some(ns), Some(events)) => Some((ns * events / 1e9 * 1e6).round() / 1e6),
            _ => None,
        };
        let rss = f("peak_resident_bytes").map(|b| (b / 1024.0).round());
        let mut fields = vec![
            csv_field(&run.workload),
            csv_field(&run.column),
            number(elapsed),
            number(rss),
        ];
        // A run's figures hold what was measured of it: a real allocator's are its
        // events and its peak and end RSS, as resident bytes; the rest stay empty.
        for m in METRICS {
            fields.push(number(f(m.key)));
        }
        fields.push(number(f(TIME)));
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}
