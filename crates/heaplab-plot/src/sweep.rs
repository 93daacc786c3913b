//! A sweep: one metric against the values a parameter took, one line per configuration
//! (or per metric, when they share a unit), each measured point marked.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::style::{self, color, font, LegendItem, Swatch, GRID};
use crate::units;
use crate::PlotError;

/// How the parameter's values are laid out along the x axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SweepScale {
    /// Byte sizes on a log2 axis, ticks at powers of two (`4 KiB`, `64 KiB`, `1 MiB`):
    /// sizes are swept in doublings, and a linear axis would crowd the small ones into
    /// its left edge. Values of zero or below cannot be placed and are left out.
    #[default]
    Log2Bytes,
    /// Plain numbers on a linear axis, ticks as counts (`350`, `1.2k`).
    Linear,
}

/// What the metric is, which decides how its axis is labelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SweepValue {
    /// Bytes, in the binary unit the data calls for.
    #[default]
    Bytes,
    /// A count (events, page operations), ticks as `1.2M`.
    Count,
    /// A fraction, ticks as percentages.
    Ratio,
}

/// One line: the metric at each parameter value, as `(parameter, metric)` pairs. Pairs
/// with a non-finite value are left out, and the line is broken there.
#[derive(Clone, Copy, Debug)]
pub struct SweepLine<'a> {
    pub label: &'a str,
    pub points: &'a [(f64, f64)],
}

/// Everything the sweep chart shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct SweepChart<'a> {
    /// Drawn above the legend; empty for no title row.
    pub title: &'a str,
    /// The parameter swept, the x axis's description (`slab_size`).
    pub parameter: &'a str,
    pub scale: SweepScale,
    /// The metric, the y axis's description (`page operations`); a byte unit is added.
    pub metric: &'a str,
    pub value: SweepValue,
    pub lines: &'a [SweepLine<'a>],
}

/// Where each point of each line landed, in the backend's pixels, in the order of the
/// line's `points`; `None` for a point that could not be drawn. A page finds the point a
/// click is on with it.
pub type SweepMarks = Vec<Vec<Option<(i32, i32)>>>;

/// Draws each line of the sweep with its points marked, in the configuration colours,
/// the legend above the plot. A sweep with no drawable point draws its axes and says so.
/// Answers where the points landed.
pub fn draw_sweep<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &SweepChart,
) -> Result<SweepMarks, PlotError> {
    let legend: Vec<LegendItem> = chart
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| LegendItem {
            label: l.label.to_string(),
            swatch: Swatch::Marked(color(i)),
        })
        .collect();
    let area = style::frame(root, chart.title, &legend)?;

    let usable = |&(x, y): &(f64, f64)| {
        x.is_finite() && y.is_finite() && (chart.scale == SweepScale::Linear || x > 0.0)
    };
    let all: Vec<(f64, f64)> = chart
        .lines
        .iter()
        .flat_map(|l| l.points.iter().copied().filter(usable))
        .collect();
    let (x_min, x_max) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let y_max = all.iter().map(|p| p.1).fold(0.0, f64::max);
    let y_min = all.iter().map(|p| p.1).fold(0.0, f64::min);

    let metric = if chart.metric.is_empty() {
        "value"
    } else {
        chart.metric
    };
    let (div, y_desc) = match chart.value {
        SweepValue::Bytes => {
            let unit = units::byte_unit(y_max.max(-y_min) as u64);
            (unit.bytes as f64, format!("{metric} ({})", unit.name))
        }
        SweepValue::Count => (1.0, metric.to_string()),
        SweepValue::Ratio => (1.0, format!("{metric} (%)")),
    };
    let (lo, hi) = (y_min / div, y_max / div);
    let y_range = if hi > lo {
        let pad = (hi - lo) * 0.08;
        (if lo < 0.0 { lo - pad } else { 0.0 })..hi + pad
    } else {
        // A flat sweep (or none) still gets an axis around its one value.
        (lo.min(0.0))..(hi.abs().max(1.0) * 1.1)
    };
    let value = chart.value;
    let y_fmt = move |v: &f64| match value {
        SweepValue::Bytes => units::tick(*v),
        SweepValue::Count => units::count(*v),
        SweepValue::Ratio => units::tick(*v * 100.0),
    };

    let mut builder = ChartBuilder::on(&area);
    builder
        .margin(12)
        .margin_top(4)
        // Room for the last x label, which is centred on the axis's end.
        .margin_right(26)
        .x_label_area_size(44)
        .y_label_area_size(66);
    let lines: Vec<Vec<Vec<(f64, f64)>>> = chart
        .lines
        .iter()
        .map(|l| segments(l.points, usable, div))
        .collect();
    let raw: Vec<&[(f64, f64)]> = chart.lines.iter().map(|l| l.points).collect();
    let body = Body {
        x_desc: chart.parameter,
        y_desc: &y_desc,
        y_fmt: &y_fmt,
        lines: &lines,
        raw: &raw,
        usable: &usable,
        div,
        empty: all.is_empty(),
    };
    let marks = match chart.scale {
        SweepScale::Log2Bytes => {
            let (a, b) = if all.is_empty() {
                (4096.0, 1048576.0)
            } else {
                (x_min, x_max)
            };
            // A quarter of a doubling beyond the end points, so their markers are not cut
            // by the axes; a single size gets a doubling on each side.
            let (a, b) = if b > a {
                (a / 2f64.powf(0.25), b * 2f64.powf(0.25))
            } else {
                (a / 2.0, a * 2.0)
            };
            let c = builder.build_cartesian_2d(Log2Bytes { lo: a, hi: b }, y_range)?;
            body.draw(c, &|v: &f64| units::size(*v))?
        }
        SweepScale::Linear => {
            let (a, b) = if all.is_empty() {
                (0.0, 1.0)
            } else {
                (x_min, x_max)
            };
            let (a, b) = if b > a {
                let pad = (b - a) * 0.04;
                (a - pad, b + pad)
            } else {
                let half = a.abs().max(1.0) * 0.5;
                (a - half, a + half)
            };
            let c = builder.build_cartesian_2d(a..b, y_range)?;
            body.draw(c, &|v: &f64| units::count(*v))?
        }
    };
    Ok(marks)
}

/// Splits a line's points at those that cannot be drawn (a NaN, or a size of zero on the
/// log2 axis), scaling the values into the axis's unit.
fn segments(
    points: &[(f64, f64)],
    usable: impl Fn(&(f64, f64)) -> bool,
    div: f64,
) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![Vec::new()];
    for p in points {
        if usable(p) {
            if let Some(seg) = out.last_mut() {
                seg.push((p.0, p.1 / div));
            }
        } else if out.last().is_some_and(|seg| !seg.is_empty()) {
            out.push(Vec::new());
        }
    }
    out
}

/// What is drawn once the axes are built, whichever x axis they have.
struct Body<'a> {
    x_desc: &'a str,
    y_desc: &'a str,
    y_fmt: &'a dyn Fn(&f64) -> String,
    lines: &'a [Vec<Vec<(f64, f64)>>],
    /// Each line's points as given, with the test of whether one can be drawn and the
    /// axis's unit, for where the points land.
    raw: &'a [&'a [(f64, f64)]],
    usable: &'a dyn Fn(&(f64, f64)) -> bool,
    div: f64,
    empty: bool,
}

impl Body<'_> {
    fn draw<DB, X>(
        &self,
        mut chart: ChartContext<'_, DB, Cartesian2d<X, RangedCoordf64>>,
        x_fmt: &dyn Fn(&f64) -> String,
    ) -> Result<SweepMarks, PlotError>
    where
        DB: DrawingBackend,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .x_labels(10)
            .y_labels(6)
            .x_label_formatter(x_fmt)
            .y_label_formatter(self.y_fmt)
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .axis_style(RGBColor(150, 150, 150))
            .label_style(font(13))
            .axis_desc_style(font(14))
            .draw()?;
        for (i, segs) in self.lines.iter().enumerate() {
            let c = color(i);
            for seg in segs {
                chart.draw_series(LineSeries::new(seg.iter().copied(), c.stroke_width(2)))?;
                chart.draw_series(seg.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
            }
        }
        if self.empty {
            let plot = chart.plotting_area().strip_coord_spec();
            style::no_data(&plot, "no values to draw")?;
        }
        let marks = self
            .raw
            .iter()
            .map(|points| {
                points
                    .iter()
                    .map(|p| (self.usable)(p).then(|| chart.backend_coord(&(p.0, p.1 / self.div))))
                    .collect()
            })
            .collect();
        Ok(marks)
    }
}

/// Byte sizes on a log2 axis whose key points are powers of two.
#[derive(Clone, Copy, Debug)]
struct Log2Bytes {
    lo: f64,
    hi: f64,
}

impl Ranged for Log2Bytes {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (l, h) = (self.lo.log2(), self.hi.log2());
        let f = (value.max(f64::MIN_POSITIVE).log2() - l) / (h - l);
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let first = self.lo.log2().ceil() as i32;
        let last = self.hi.log2().floor() as i32;
        let n = (last - first + 1).max(0) as usize;
        let max = hint.max_num_points().max(1);
        // Every doubling if they fit; else every 2nd, 4th, ... so the labels stay powers
        // of two that line up with round units (4 KiB, 64 KiB, 1 MiB).
        let mut step = 1;
        while n.div_ceil(step) > max {
            step *= 2;
        }
        let start = first.div_euclid(step as i32) * step as i32;
        (start..=last)
            .step_by(step)
            .filter(|&e| e >= first)
            .map(|e| 2f64.powi(e))
            .collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Log2Bytes {
    fn format(value: &f64) -> String {
        units::size(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marks_are_where_each_drawable_point_landed() {
        let flat = [(4096.0, 90.0), (16384.0, 90.0), (65536.0, 90.0)];
        let gap = [(4096.0, 10.0), (16384.0, f64::NAN), (65536.0, 30.0)];
        let lines = [
            SweepLine {
                label: "flat",
                points: &flat,
            },
            SweepLine {
                label: "gap",
                points: &gap,
            },
        ];
        let mut svg = String::new();
        let marks = {
            let root =
                plotters_svg::SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
            draw_sweep(
                &root,
                &SweepChart {
                    parameter: "slab_size",
                    metric: "page operations",
                    value: SweepValue::Count,
                    lines: &lines,
                    ..SweepChart::default()
                },
            )
            .unwrap()
        };
        let flat_at: Vec<(i32, i32)> = marks[0].iter().map(|m| m.unwrap()).collect();
        // Doublings are evenly spaced on the log2 axis, and a flat line is level.
        assert!(flat_at
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 == w[1].1));
        assert!((flat_at[1].0 - flat_at[0].0 - (flat_at[2].0 - flat_at[1].0)).abs() <= 1);
        // The NaN has no mark; the points of the other line sit at the same columns.
        assert_eq!(marks[1][1], None);
        assert_eq!(marks[1][0].unwrap().0, flat_at[0].0);
        assert!(
            marks[1][2].unwrap().1 < marks[1][0].unwrap().1,
            "30 is drawn above 10"
        );
    }

    #[test]
    fn log2_ticks_are_powers_of_two() {
        let axis = Log2Bytes {
            lo: 3000.0,
            hi: 2.0 * 1048576.0,
        };
        let ticks: Vec<String> = axis
            .key_points(20)
            .iter()
            .map(|v| units::size(*v))
            .collect();
        assert_eq!(
            ticks,
            [
                "4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB", "128 KiB", "256 KiB", "512 KiB",
                "1 MiB", "2 MiB"
            ]
        );
        let few: Vec<String> = axis.key_points(3).iter().map(|v| units::size(*v)).collect();
        assert_eq!(few, ["4 KiB", "64 KiB", "1 MiB"]);
        assert_eq!(axis.map(&3000.0, (0, 100)), 0);
        assert_eq!(axis.map(&(2.0 * 1048576.0), (0, 100)), 100);
    }
}
