//! A sweep's report as charts: each chosen metric against the swept parameter, one line
//! for a single parameter or one per value of the second parameter of a grid. The CLI's
//! `sweep --plot` and the page's sweep view draw it with this one function.

use heaplab_app::sweep::SweepReport;
use heaplab_core::metrics::{Measure, Unit};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use serde_json::Value;

use crate::{draw_sweep, Chart, PlotError, SweepChart, SweepLine, SweepScale, SweepValue};

/// The width of a sweep's plot, and the height of each metric's chart in it.
const WIDTH: u32 = 1024;
const PANEL_HEIGHT: u32 = 480;

/// One line of a metric's chart: its label, its `(parameter, metric)` points from left to
/// right, and for each point its index in the report's `points`.
struct Line {
    label: String,
    points: Vec<(f64, f64)>,
    indices: Vec<usize>,
}

/// The lines of one metric's chart: one for a single parameter, one per value of the
/// second parameter for a grid, each over the first parameter's values.
fn lines(report: &SweepReport, metric: &Measure) -> Vec<Line> {
    let key = metric.key();
    if report.params.is_empty() {
        return Vec::new();
    }
    let point = |p: &heaplab_app::sweep::PointReport| {
        let x = p.values.first().and_then(Value::as_f64).unwrap_or(f64::NAN);
        (x, p.metrics.get(&key).unwrap_or(f64::NAN))
    };
    let line = |label: String, keep: &dyn Fn(&heaplab_app::sweep::PointReport) -> bool| {
        let mut chosen: Vec<(usize, (f64, f64))> = report
            .points
            .iter()
            .enumerate()
            .filter(|(_, p)| keep(p))
            .map(|(i, p)| (i, point(p)))
            .collect();
        // A list may be given in any order; a line joins its points from left to right.
        chosen.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
        Line {
            label,
            points: chosen.iter().map(|&(_, p)| p).collect(),
            indices: chosen.iter().map(|&(i, _)| i).collect(),
        }
    };
    match report.params.get(1) {
        None => vec![line(report.label.clone(), &|_| true)],
        Some(second) => second
            .values
            .iter()
            .map(|v| {
                let label = format!("{}={}", second.param, second.value_text(v));
                line(label, &|p| p.values.get(1) == Some(v))
            })
            .collect(),
    }
}

/// Where one of the report's points landed on a drawn chart, in the backend's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PointMark {
    /// The point's index in the report's `points`.
    pub point: usize,
    pub x: i32,
    pub y: i32,
}

/// Each chosen metric's chart, stacked top to bottom.
#[derive(Debug)]
pub struct SweepPlot<'a> {
    pub report: &'a SweepReport,
    /// Each chart's figure: a metric of the core's list, or a phase figure.
    pub metrics: &'a [Measure],
}

impl SweepPlot<'_> {
    /// Draws the plot as [`Chart::draw`] does and answers where each point landed, every
    /// metric's chart in turn, so a page can open the point a click is on.
    pub fn draw_marked<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<Vec<PointMark>, PlotError> {
        let areas = root.split_evenly((self.metrics.len().max(1), 1));
        let first = self.report.params.first();
        let mut marks = Vec::new();
        for (metric, area) in self.metrics.iter().zip(&areas) {
            let lines = lines(self.report, metric);
            let sweep_lines: Vec<SweepLine> = lines
                .iter()
                .map(|l| SweepLine {
                    label: &l.label,
                    points: &l.points,
                })
                .collect();
            let label = metric.label();
            let title = format!(
                "{} on {}: {label}",
                self.report.label, self.report.config.workload.id
            );
            let chart = SweepChart {
                title: &title,
                parameter: first.map_or("", |a| a.param.as_str()),
                scale: if first.is_some_and(|a| a.size) {
                    SweepScale::Log2Bytes
                } else {
                    SweepScale::Linear
                },
                metric: &label,
                value: match metric.unit() {
                    Unit::Bytes => SweepValue::Bytes,
                    Unit::Count => SweepValue::Count,
                    Unit::Fraction => SweepValue::Ratio,
                },
                lines: &sweep_lines,
            };
            let drawn = draw_sweep(area, &chart)?;
            for (line, landed) in lines.iter().zip(drawn) {
                for (&point, at) in line.indices.iter().zip(landed) {
                    if let Some((x, y)) = at {
                        marks.push(PointMark { point, x, y });
                    }
                }
            }
        }
        Ok(marks)
    }
}

impl Chart for SweepPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.draw_marked(root).map(|_| ())
    }
}

/// The plot's size for `n` metrics.
pub fn sweep_plot_size(n: usize) -> (u32, u32) {
    let height = PANEL_HEIGHT * n.max(1) as u32;
    (WIDTH, height.min(crate::MAX_SIDE))
}
