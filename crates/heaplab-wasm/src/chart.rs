//! Memory over time, drawn with plotters on any backend (a canvas in the browser).

use heaplab_core::series::Series;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Colours for up to eight runs; readable on white and distinct for common colour
/// blindness (the Okabe-Ito palette).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// Where a phase of the workload ends: the chart marks the boundary and names the phase.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Phase {
    pub label: String,
    /// The number of the phase's last event.
    pub end_event: u64,
}

/// Picks a unit so the axis reads in small numbers.
fn unit_for(max: u64) -> (f64, &'static str) {
    match max {
        m if m >= 4 << 30 => ((1u64 << 30) as f64, "GiB"),
        m if m >= 4 << 20 => ((1u64 << 20) as f64, "MiB"),
        _ => (1024.0, "KiB"),
    }
}

/// Draws resident bytes (solid) and live bytes (dashed) over events for each run, with a
/// thin line where each phase ends and the phase's name over its stretch of the x axis.
pub fn draw_memory<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    runs: &[(&str, &Series)],
    phases: &[Phase],
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let max_t = runs
        .iter()
        .filter_map(|(_, s)| s.t.last())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let max_y = runs
        .iter()
        .flat_map(|(_, s)| s.resident.iter().chain(&s.live))
        .copied()
        .max()
        .unwrap_or(0)
        .max(1);
    let (div, unit) = unit_for(max_y);
    let top = max_y as f64 / div * 1.08;
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(0u64..max_t, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("events")
        .y_desc(format!("memory ({unit})"))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    let mut start = 0;
    for p in phases {
        // Clamped below too: phases come as JSON from the page, and one out of order
        // must not make the stretch's width negative.
        let end = p.end_event.clamp(start, max_t);
        if end < max_t {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(end, 0.0), (end, top)],
                    RGBColor(170, 170, 170).stroke_width(1),
                )))
                .map_err(err)?;
        }
        // A label goes in its phase's stretch only when the stretch is wide enough to
        // hold it; short phases keep their boundary line and lose the name.
        let wide = (end - start) as f64 >= max_t as f64 * 0.06;
        if wide {
            let mid = start + (end - start) / 2;
            chart
                .draw_series(std::iter::once(Text::new(
                    p.label.clone(),
                    // Along the bottom, where the legend (top right) cannot cover it.
                    (mid, top * 0.015),
                    ("sans-serif", 12)
                        .into_font()
                        .color(&RGBColor(110, 110, 110))
                        .pos(plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Bottom,
                        )),
                )))
                .map_err(err)?;
        }
        start = end;
    }
    for (i, (label, s)) in runs.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let resident =
            s.t.iter()
                .zip(&s.resident)
                .map(|(&t, &v)| (t, v as f64 / div));
        chart
            .draw_series(LineSeries::new(resident, color.stroke_width(2)))
            .map_err(err)?
            .label(format!("{label}: resident"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        let live = s.t.iter().zip(&s.live).map(|(&t, &v)| (t, v as f64 / div));
        chart
            .draw_series(DashedLineSeries::new(live, 6, 4, color.stroke_width(1)))
            .map_err(err)?
            .label(format!("{label}: live"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(1))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters_svg::SVGBackend;

    fn svg(runs: &[(&str, &Series)], phases: &[Phase]) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (800, 400)).into_drawing_area();
            draw_memory(&root, runs, phases).unwrap();
        }
        out
    }

    #[test]
    fn runs_phases_and_legend_are_drawn() {
        let series = Series {
            t: vec![100, 200, 300, 400],
            live: vec![1 << 20, 2 << 20, 1 << 20, 0],
            committed: vec![2 << 20, 3 << 20, 3 << 20, 3 << 20],
            resident: vec![2 << 20, 3 << 20, 3 << 20, 1 << 20],
        };
        let phases = [
            Phase {
                label: "load".into(),
                end_event: 200,
            },
            Phase {
                label: "back".into(),
                end_event: 400,
            },
        ];
        let out = svg(&[("glibc-like", &series)], &phases);
        for text in [
            "glibc-like: resident",
            "glibc-like: live",
            "load",
            "back",
            "KiB",
        ] {
            assert!(out.contains(text), "{text} missing from the chart");
        }
        // A phase too short to hold its name keeps only its boundary.
        let tiny = [Phase {
            label: "blink".into(),
            end_event: 5,
        }];
        assert!(!svg(&[("a", &series)], &tiny).contains("blink"));
    }
}
