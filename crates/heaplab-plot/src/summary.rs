//! The summary as bars: one panel per metric side by side, one bar per configuration in
//! each, with the value written at the bar's end.
//!
//! Each panel has its own scale (the largest value fills it), since peak bytes, page
//! operations and a ratio share no axis; the written values carry the units. The
//! configurations are rows across all panels with their names on the left, so a row
//! reads as one configuration's line of the summary table and a panel compares them.

use heaplab_core::format::format_bytes;
use heaplab_core::simulate::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::style::{self, color, font, MUTED};
use crate::units;
use crate::PlotError;

/// One configuration's figures, as in its report's summary.
#[derive(Clone, Copy, Debug)]
pub struct SummaryRow<'a> {
    pub label: &'a str,
    pub peak_resident_bytes: u64,
    pub end_resident_bytes: u64,
    /// All provider calls: reserve, release, commit and decommit. None where nothing
    /// counted them (a real allocator, measured by its RSS alone), drawn as `n/a`.
    pub page_ops: Option<u64>,
    /// Distinct memory ever written; None, drawn as `n/a`, where nothing counted it.
    pub touched_bytes: Option<u64>,
    /// Peak live bytes over peak resident bytes; NaN is drawn as `n/a`.
    pub utilization: f64,
}

impl<'a> SummaryRow<'a> {
    /// A run's summary under `label`.
    pub fn from_summary(label: &'a str, s: &Summary) -> SummaryRow<'a> {
        SummaryRow {
            label,
            peak_resident_bytes: s.peak_resident_bytes(),
            end_resident_bytes: s.end_resident_bytes(),
            page_ops: Some(s.page_ops()),
            touched_bytes: Some(s.touched_bytes()),
            utilization: s.utilization(),
        }
    }
}

/// Everything the summary chart shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct SummaryChart<'a> {
    /// Drawn at the top; empty for no title row.
    pub title: &'a str,
    pub rows: &'a [SummaryRow<'a>],
}

/// How a metric's values are written.
#[derive(Clone, Copy)]
enum Kind {
    Bytes,
    Count,
    Ratio,
}

struct Metric {
    name: &'static str,
    kind: Kind,
    value: fn(&SummaryRow) -> f64,
}

const METRICS: [Metric; 5] = [
    Metric {
        name: "peak resident",
        kind: Kind::Bytes,
        value: |r| r.peak_resident_bytes as f64,
    },
    Metric {
        name: "end resident",
        kind: Kind::Bytes,
        value: |r| r.end_resident_bytes as f64,
    },
    // The core's label of `page_ops`: every call of the four kinds, not only the commits
    // and decommits a timeline of page calls draws.
    Metric {
        name: "all page calls",
        kind: Kind::Count,
        value: |r| r.page_ops.map_or(f64::NAN, |v| v as f64),
    },
    Metric {
        name: "touched",
        kind: Kind::Bytes,
        value: |r| r.touched_bytes.map_or(f64::NAN, |v| v as f64),
    },
    Metric {
        name: "utilization",
        kind: Kind::Ratio,
        value: |r| r.utilization,
    },
];

fn written(kind: Kind, v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    match kind {
        // The core's formatter, so a value reads as it does in the CLI's table.
        Kind::Bytes => format_bytes(v as u64),
        Kind::Count => units::count(v),
        Kind::Ratio => units::percent(v),
    }
}

/// Draws the summary as five panels (peak resident, end resident, all page calls,
/// touched, utilization), one bar per configuration in each, in the configuration's
/// colour, with its value written at the bar's end.
///
/// Each panel is scaled to its largest value (utilization to at least 100%), so bars
/// compare configurations within a metric, never metrics with each other.
pub fn draw_summary_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &SummaryChart,
) -> Result<(), PlotError> {
    let area = style::frame(root, chart.title, &[])?;
    if chart.rows.is_empty() {
        style::no_data(&area, "no runs to compare")?;
        return Ok(());
    }
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let margin = 12;
    let n = chart.rows.len() as i32;
    // Rows no taller than a bar needs, the whole block centred: a few configurations on a
    // tall chart read as a table, not as bars adrift in bands of white.
    let row_h = ((h - 24 - margin) / n).clamp(1, 80);
    let header_h = 24 + ((h - margin - 24 - n * row_h) / 2).max(0);
    let text_size = (row_h * 6 / 10).clamp(9, 13) as u32;
    let text = font(text_size);

    // Names on the left, as wide as the longest needs, but never more than a quarter of
    // the chart; longer names are cut with an ellipsis.
    let swatch = 12;
    let mut name_w = 0;
    for r in chart.rows {
        name_w = name_w.max(area.estimate_text_size(r.label, &text)?.0 as i32);
    }
    let label_w = (name_w + swatch + 16).min(w / 4).max(swatch + 24);
    let cols = METRICS.len() as i32;
    let col_w = ((w - 2 * margin - label_w) / cols).max(1);
    let x0 = margin + label_w;
    let bar_h = (row_h * 55 / 100).clamp(1, 30);

    // Every other row is shaded, so a row reads across the panels.
    for i in 0..n {
        let top = header_h + i * row_h;
        if i % 2 == 0 {
            area.draw(&Rectangle::new(
                [(margin, top), (w - margin, top + row_h)],
                RGBColor(247, 247, 247).filled(),
            ))?;
        }
        let r = &chart.rows[i as usize];
        let mid = top + row_h / 2;
        area.draw(&Rectangle::new(
            [
                (margin + 2, mid - swatch / 2),
                (margin + 2 + swatch, mid + swatch / 2),
            ],
            color(i as usize).filled(),
        ))?;
        let shown = style::fit(&area, r.label, &text, (label_w - swatch - 12) as u32)?;
        area.draw_text(
            &shown,
            &text.pos(Pos::new(HPos::Left, VPos::Center)),
            (margin + swatch + 8, mid),
        )?;
    }

    let header = font(13);
    for (c, metric) in METRICS.iter().enumerate() {
        let left = x0 + c as i32 * col_w;
        let name = style::fit(&area, metric.name, &header, (col_w - 8).max(0) as u32)?;
        area.draw_text(
            &name,
            &header.pos(Pos::new(HPos::Left, VPos::Center)),
            (left + 6, header_h - 12),
        )?;
        let values: Vec<f64> = chart.rows.iter().map(|r| (metric.value)(r)).collect();
        let texts: Vec<String> = values.iter().map(|&v| written(metric.kind, v)).collect();
        let mut text_w = 0;
        for t in &texts {
            text_w = text_w.max(area.estimate_text_size(t, &text)?.0 as i32);
        }
        let pad = 6;
        // Values are written when there is room for them and a bar of some length.
        let write_values = col_w - 2 * pad - text_w - 4 >= 24;
        let bar_max = if write_values {
            col_w - 2 * pad - text_w - 4
        } else {
            col_w - 2 * pad
        }
        .max(1);
        let mut scale = values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
        if let Kind::Ratio = metric.kind {
            scale = scale.max(1.0);
        }
        let base = left + pad;
        area.draw(&PathElement::new(
            vec![(base, header_h), (base, header_h + n * row_h)],
            RGBColor(180, 180, 180).stroke_width(1),
        ))?;
        for (i, (&v, t)) in values.iter().zip(&texts).enumerate() {
            let mid = header_h + i as i32 * row_h + row_h / 2;
            let len = if v.is_finite() && v > 0.0 && scale > 0.0 {
                // A value above zero keeps a sliver, so it never looks like zero.
                ((v / scale) * bar_max as f64).round().max(2.0) as i32
            } else {
                0
            };
            if len > 0 {
                area.draw(&Rectangle::new(
                    [
                        (base, mid - bar_h / 2),
                        (base + len, mid + bar_h - bar_h / 2),
                    ],
                    color(i).filled(),
                ))?;
            }
            if write_values {
                let tint = if v.is_finite() { style::TEXT } else { MUTED };
                area.draw_text(
                    t,
                    &text.color(&tint).pos(Pos::new(HPos::Left, VPos::Center)),
                    (base + len + 4, mid),
                )?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two counts never share a name: the bars' panel of `page_ops` (all four kinds of
    /// call) reads as the core's label of that figure, and differs from the axis of the
    /// timeline that draws commits and decommits alone.
    #[test]
    fn the_page_call_panel_is_named_as_the_core_names_page_ops() {
        let label = heaplab_core::metrics::find("page_ops").unwrap().label;
        let panel = METRICS.iter().find(|m| (m.value)(&ROW) == 7.0).unwrap();
        assert_eq!(panel.name, label.to_lowercase());
        let crate::ValueAxis::Count(axis) = crate::TrackKind::PAGE_OPS.axis else {
            panic!("the page-call timeline counts");
        };
        assert!(!axis.contains(panel.name) && !panel.name.contains("operations"));
    }

    const ROW: SummaryRow = SummaryRow {
        label: "A",
        peak_resident_bytes: 1,
        end_resident_bytes: 2,
        page_ops: Some(7),
        touched_bytes: Some(3),
        utilization: 0.5,
    };
}
