//! A sweep's report as charts: each chosen metric against the swept parameter, one line
//! for a single parameter or one per value of the second parameter of a grid. The CLI's
//! `sweep --plot` and the page's sweep view draw it with this one function.

use heaplab_core::metrics::{Metric, Unit};
use heaplab_core::sweep::SweepReport;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use serde_json::Value;

use crate::{draw_sweep, Chart, PlotError, SweepChart, SweepLine, SweepScale, SweepValue};

/// The width of a sweep's plot, and the height of each metric's chart in it.
const WIDTH: u32 = 1024;
const PANEL_HEIGHT: u32 = 480;

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
                let label = format!("{}={}", second.param, second.value_text(v));
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
#[derive(Debug)]
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
            draw_sweep(area, &chart)?;
        }
        Ok(())
    }
}

/// The plot's size for `n` metrics.
pub fn sweep_plot_size(n: usize) -> (u32, u32) {
    let height = PANEL_HEIGHT * n.max(1) as u32;
    (WIDTH, height.min(crate::MAX_SIDE))
}
