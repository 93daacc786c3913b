//! `heaplab sweep`'s report: a table with a column per value and a row per metric, and
//! with `--plot` each chosen metric against the parameter, drawn by heaplab-plot.

use std::path::Path;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, Cell, CellAlignment, Table};
use heaplab_core::format::format_bytes;
use heaplab_core::metrics::{Group, Metric, Unit, METRICS};
use heaplab_core::sweep::{Axis, SweepReport};
use heaplab_plot::{Chart, PlotError, SweepChart, SweepLine, SweepScale, SweepValue};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use serde_json::Value;

use crate::error::CliError;

/// The width of a sweep's plot, and the height of each metric's chart in it.
const WIDTH: u32 = 1024;
const PANEL_HEIGHT: u32 = 480;

/// A value as a heading shows it: sizes in binary units.
fn value_text(axis: &Axis, value: &Value) -> String {
    match value.as_u64() {
        Some(b) if axis.size => format_bytes(b),
        _ => value.to_string(),
    }
}

/// Prints the sweep's table under a line naming the configuration and the workload.
pub fn print(report: &SweepReport) {
    let params: Vec<&str> = report.params.iter().map(|a| a.param.as_str()).collect();
    // The workload line leaves out what the sweep varies, which each column gives.
    let mut workload = report.config.workload.clone();
    for axis in &report.params {
        workload.params.remove(&axis.param);
    }
    println!(
        "{} on {}, varying {}",
        report.label,
        super::workload_line(&workload),
        params.join(" and ")
    );
    println!("{}", table(report));
}

/// A column per point (headed by its values), a row per metric of the core's list under
/// its group's heading, as `run`'s table is laid out.
pub fn table(report: &SweepReport) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("")];
    header.extend(report.points.iter().map(|p| {
        let parts: Vec<String> = report
            .params
            .iter()
            .zip(&p.values)
            .map(|(a, v)| format!("{}={}", a.param, value_text(a, v)))
            .collect();
        Cell::new(parts.join("\n"))
    }));
    table.set_header(header);
    let mut group: Option<Group> = None;
    for (i, metric) in METRICS.iter().enumerate() {
        if group != Some(metric.group) {
            group = Some(metric.group);
            table.add_row(vec![
                Cell::new(metric.group.title()).add_attribute(Attribute::Bold)
            ]);
        }
        let mut row = vec![Cell::new(format!("  {}", metric.label))];
        row.extend(report.points.iter().map(|p| {
            let v = p
                .metrics
                .0
                .get(i)
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN);
            Cell::new(metric.format(v)).set_alignment(CellAlignment::Right)
        }));
        table.add_row(row);
    }
    table
}

/// The metrics `--metric` names (by key), or the sweep's own when none is given; an
/// unknown key is an input error listing the valid ones.
pub fn metrics(keys: &[String], default: &str) -> Result<Vec<&'static Metric>, CliError> {
    let keys: Vec<&str> = if keys.is_empty() {
        vec![default]
    } else {
        keys.iter().map(String::as_str).collect()
    };
    keys.iter()
        .map(|k| {
            heaplab_core::metrics::find(k).ok_or_else(|| {
                CliError::input(format!(
                    "--metric {k}: there is no such metric; valid ones are: {}",
                    heaplab_core::metrics::keys().join(", ")
                ))
            })
        })
        .collect()
}

/// The lines of one metric's chart: one for a single parameter, one per value of the
/// second parameter for a grid, each over the first parameter's values.
fn lines(report: &SweepReport, metric: &Metric) -> Vec<(String, Vec<(f64, f64)>)> {
    if report.params.is_empty() {
        return Vec::new();
    }
    let point = |p: &heaplab_core::sweep::PointReport| {
        let x = p.values.first().and_then(Value::as_f64).unwrap_or(f64::NAN);
        (x, p.metrics.get(metric.key).unwrap_or(f64::NAN))
    };
    match report.params.get(1) {
        None => vec![(
            report.label.clone(),
            report.points.iter().map(point).collect(),
        )],
        Some(second) => second
            .values
            .iter()
            .map(|v| {
                let label = format!("{}={}", second.param, value_text(second, v));
                let points = report
                    .points
                    .iter()
                    .filter(|p| p.values.get(1) == Some(v))
                    .map(point)
                    .collect();
                (label, points)
            })
            .collect(),
    }
    .into_iter()
    .map(|(label, points)| (label, sorted(points)))
    .collect()
}

fn sorted(mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    // A list may be given in any order; a line joins its points from left to right.
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

/// Each chosen metric's chart, stacked top to bottom.
pub struct SweepPlot<'a> {
    pub report: &'a SweepReport,
    pub metrics: &'a [&'static Metric],
}

impl Chart for SweepPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let areas = root.split_evenly((self.metrics.len().max(1), 1));
        let first = self.report.params.first();
        for (metric, area) in self.metrics.iter().zip(&areas) {
            let lines = lines(self.report, metric);
            let sweep_lines: Vec<SweepLine> = lines
                .iter()
                .map(|(label, points)| SweepLine { label, points })
                .collect();
            let title = format!(
                "{} on {}: {}",
                self.report.label, self.report.config.workload.id, metric.label
            );
            let chart = SweepChart {
                title: &title,
                parameter: first.map_or("", |a| a.param.as_str()),
                scale: if first.is_some_and(|a| a.size) {
                    SweepScale::Log2Bytes
                } else {
                    SweepScale::Linear
                },
                metric: metric.label,
                value: match metric.unit {
                    Unit::Bytes => SweepValue::Bytes,
                    Unit::Count => SweepValue::Count,
                    Unit::Fraction => SweepValue::Ratio,
                },
                lines: &sweep_lines,
            };
            heaplab_plot::draw_sweep(area, &chart)?;
        }
        Ok(())
    }
}

/// The plot's size for `n` metrics.
pub fn plot_size(n: usize) -> (u32, u32) {
    let height = PANEL_HEIGHT * n.max(1) as u32;
    (WIDTH, height.min(heaplab_plot::MAX_SIDE))
}

/// Writes `--plot FILE`.
pub fn write_plot(
    path: &Path,
    report: &SweepReport,
    metrics: &[&'static Metric],
) -> Result<(), CliError> {
    let plot = SweepPlot { report, metrics };
    let size = plot_size(metrics.len());
    let drawn = match heaplab_plot::Format::from_path(path) {
        Ok(heaplab_plot::Format::Svg) => {
            heaplab_plot::render_svg(&plot, size).map(String::into_bytes)
        }
        Ok(heaplab_plot::Format::Png) => heaplab_plot::render_png(&plot, size),
        Err(e) => Err(e),
    };
    let bytes = drawn.map_err(|e| match e {
        PlotError::UnsupportedFormat { .. } => CliError::input(format!("--plot: {e}")),
        other => CliError::failed(format!("--plot: {other}")),
    })?;
    write_whole(path, &bytes)
}

/// Writes a file whole or not at all: the bytes go to a hidden file beside it, renamed
/// over it once written, so a run stopped part way never leaves half a picture behind.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("plot"),
        std::ffi::OsStr::to_os_string,
    );
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(&name);
    temp_name.push(format!(".{}.part", std::process::id()));
    let temp = path.with_file_name(temp_name);
    let failed = |e: std::io::Error| CliError::failed(format!("--plot: {}: {e}", path.display()));
    std::fs::write(&temp, bytes).map_err(failed)?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        failed(e)
    })
}
