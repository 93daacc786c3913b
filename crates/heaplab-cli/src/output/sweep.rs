//! `heaplab sweep`'s report: a table with a column per value and a row per metric, and
//! with `--plot` each chosen metric against the parameter, drawn by heaplab-plot.

use std::path::Path;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, Cell, CellAlignment, Table};
use heaplab_app::sweep::SweepReport;
use heaplab_core::metrics::{Group, Measure, METRICS};
use heaplab_plot::SweepPlot;
use serde_json::Value;

use crate::error::CliError;

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
            .map(|(a, v)| format!("{}={}", a.param, a.value_text(v)))
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

/// The metrics `--metric` names (by key, a phase figure as `resident_bytes@exit`), or the
/// sweep's own when none is given; an unknown key is an input error listing the valid
/// ones.
pub fn metrics(keys: &[String], default: &str) -> Result<Vec<Measure>, CliError> {
    let keys: Vec<&str> = if keys.is_empty() {
        vec![default]
    } else {
        keys.iter().map(String::as_str).collect()
    };
    keys.iter()
        .map(|k| {
            Measure::parse(k).ok_or_else(|| {
                CliError::input(format!(
                    "--metric {k}: there is no such metric; valid ones are: {}",
                    heaplab_core::metrics::valid_text()
                ))
            })
        })
        .collect()
}

/// Writes `--plot FILE`.
pub fn write_plot(path: &Path, report: &SweepReport, metrics: &[Measure]) -> Result<(), CliError> {
    let plot = SweepPlot { report, metrics };
    super::plot::write_chart(path, heaplab_plot::sweep_plot_size(metrics.len()), &plot)
}
