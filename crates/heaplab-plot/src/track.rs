//! The track chart: each configuration's two curves over the events of a run, one solid
//! and one dashed in the configuration's colour, with the workload's phases behind them.
//! Memory over time (resident and live bytes) and page operations over time (commits and
//! decommits so far) are both this chart, told apart by their [`TrackKind`]. A run with a
//! clock can be drawn over its model time instead of its events ([`XAxis::Time`]).

use heaplab_core::series::{PageOpsCurve, Series};
use heaplab_core::simulate::PhaseMark;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::style::{self, color, font, LegendItem, Swatch, GRID, MUTED};
use crate::units;
use crate::PlotError;

/// What the y axis counts, which decides its unit and its tick labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueAxis {
    /// Bytes, in the binary unit the data calls for; the text is what is measured.
    Bytes(&'static str),
    /// A count, with ticks such as `1.2M`; the text is what is counted.
    Count(&'static str),
}

/// What a track chart's curves are: the legend's names for the solid and the dashed
/// curve, and what the y axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackKind {
    pub solid: &'static str,
    pub dashed: &'static str,
    pub axis: ValueAxis,
}

impl TrackKind {
    /// Memory over time: resident bytes (solid) against live bytes (dashed).
    pub const MEMORY: TrackKind = TrackKind {
        solid: "resident",
        dashed: "live",
        axis: ValueAxis::Bytes("memory"),
    };

    /// Commit and decommit calls over time: commits (solid) and decommits (dashed) so
    /// far. Not "page operations", which the summary's `page_ops` counts over all four
    /// kinds of call.
    pub const PAGE_OPS: TrackKind = TrackKind {
        solid: "commits",
        dashed: "decommits",
        axis: ValueAxis::Count("commit and decommit calls so far"),
    };
}

/// What a track chart's x axis counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum XAxis {
    /// The run's events.
    #[default]
    Events,
    /// The run's model time, from each track's `ns`: a chart whose tracks have no times
    /// (a run without a clock) is drawn over events.
    Time,
}

/// One configuration's track: `solid[i]` and `dashed[i]` are its two values after event
/// `t[i]`, which happened `ns[i]` nanoseconds into the run on its clock (`ns` is empty
/// when the run has no clock). Slices of different lengths are drawn as far as all of
/// them go.
#[derive(Clone, Copy, Debug)]
pub struct Track<'a> {
    pub label: &'a str,
    pub t: &'a [u64],
    pub solid: &'a [u64],
    pub dashed: &'a [u64],
    pub ns: &'a [u64],
}

impl<'a> Track<'a> {
    /// A run's memory as the core records it, under `label`: resident bytes (solid) and
    /// live bytes (dashed), each the maximum since the previous point, as [`Series`]
    /// keeps them. For a chart of [`TrackKind::MEMORY`].
    pub fn memory(label: &'a str, series: &'a Series) -> Track<'a> {
        Track {
            label,
            t: &series.t,
            solid: &series.resident,
            dashed: &series.live,
            ns: &[],
        }
    }

    /// The track with its points' times (the core's [`PageOpsCurve::ns`]), for a chart
    /// over time.
    pub fn timed(self, ns: &'a [u64]) -> Track<'a> {
        Track { ns, ..self }
    }

    /// A run's page operations as the core's [`heaplab_core::page_ops`] records them,
    /// under `label`: the commits (solid) and decommits (dashed) made up to and including
    /// each event, counted from the start of the run. For a chart of
    /// [`TrackKind::PAGE_OPS`].
    pub fn page_ops(label: &'a str, curve: &'a PageOpsCurve) -> Track<'a> {
        Track {
            label,
            t: &curve.t,
            solid: &curve.commits,
            dashed: &curve.decommits,
            ns: &curve.ns,
        }
    }
}

/// Everything a track chart shows.
#[derive(Clone, Copy, Debug)]
pub struct TrackChart<'a> {
    /// Drawn above the legend; empty for no title row (the page has its own heading).
    pub title: &'a str,
    /// What the curves are: memory or page operations.
    pub kind: TrackKind,
    pub tracks: &'a [Track<'a>],
    /// Where each phase ends, from the report's `phases`. Every run of a comparison
    /// replays the same workload, so one run's phases mark the chart for all.
    pub phases: &'a [PhaseMark],
    /// The first and last event shown; `None` shows the whole run. A reversed window is
    /// put in order and an empty one widened to one event.
    pub zoom: Option<(u64, u64)>,
    /// Events or model time along the x axis.
    pub x: XAxis,
}

impl<'a> TrackChart<'a> {
    /// Memory over time for `tracks` (made with [`Track::memory`]), with no title, no
    /// phases and the whole run shown.
    pub fn memory(tracks: &'a [Track<'a>]) -> TrackChart<'a> {
        TrackChart::new(TrackKind::MEMORY, tracks)
    }

    /// Page operations over time for `tracks` (made with [`Track::page_ops`]), with no
    /// title, no phases and the whole run shown.
    pub fn page_ops(tracks: &'a [Track<'a>]) -> TrackChart<'a> {
        TrackChart::new(TrackKind::PAGE_OPS, tracks)
    }

    fn new(kind: TrackKind, tracks: &'a [Track<'a>]) -> TrackChart<'a> {
        TrackChart {
            title: "",
            kind,
            tracks,
            phases: &[],
            zoom: None,
            x: XAxis::Events,
        }
    }
}

/// Where a track chart's plot landed on its drawing area, in the backend's pixels, and the
/// events its x axis spans. A page maps a pointer on the canvas back to an event with it
/// (for hover and for dragging a zoom window) without knowing how the axes were laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlotFrame {
    /// The plot's left, right, top and bottom edges, in pixels of the drawing backend.
    pub left: i32,
    pub right: i32,
    pub top: i32,
    pub bottom: i32,
    /// The events at the left and the right edge.
    pub first_event: u64,
    pub last_event: u64,
    /// The model times at the left and the right edge, in nanoseconds, when the x axis
    /// shows time.
    #[serde(default)]
    pub time: Option<[u64; 2]>,
}

impl PlotFrame {
    /// The event under pixel column `x`, clamped to the plot: where a pointer points.
    /// On a chart drawn over time, events are spread as evenly as time only under a rate;
    /// [`PlotFrame::event_on`] reads the event off the chart's times.
    pub fn event_at(&self, x: f64) -> u64 {
        let span = (self.last_event - self.first_event) as f64;
        self.first_event + (self.share(x) * span).round() as u64
    }

    /// The event under pixel column `x` of this frame drawn over `tracks`: on a chart over
    /// time, the first event at the time under the pointer, so that a trace's clock,
    /// which stands still over many events and jumps at its marks, is read as drawn.
    pub fn event_on(&self, x: f64, tracks: &[Track]) -> u64 {
        let (Some([lo, hi]), Some(scale)) = (self.time, TimeScale::of(tracks)) else {
            return self.event_at(x);
        };
        let ns = lo + (self.share(x) * hi.saturating_sub(lo) as f64).round() as u64;
        scale.event_of(ns).clamp(self.first_event, self.last_event)
    }

    /// How far along the plot pixel column `x` is, from 0 at its left edge to 1 at its
    /// right.
    fn share(&self, x: f64) -> f64 {
        let width = f64::from((self.right - self.left).max(1));
        ((x - f64::from(self.left)) / width).clamp(0.0, 1.0)
    }
}

/// The sample of a series that holds `event`: a series keeps, after event `t[i]`, the
/// maxima since the previous point, so the first point at or after `event` covers it;
/// past the last point, the last. `None` for an empty series.
pub fn sample_at(t: &[u64], event: u64) -> Option<usize> {
    if t.is_empty() {
        return None;
    }
    Some(t.partition_point(|&x| x < event).min(t.len() - 1))
}

/// Headroom above the highest value, where the phase names go.
const HEADROOM: f64 = 1.16;

/// Draws each track's solid and dashed curve over events, one colour per configuration,
/// with each phase's boundary and name, the y axis as the chart's [`TrackKind`] counts
/// (bytes in KiB, MiB or GiB as the data calls for, or a count), and the legend above the
/// plot: the configurations, then the kind's names for the two curves.
///
/// Generic over the backend so that the browser draws it on a canvas and the CLI writes
/// the same picture as SVG or PNG (see [`crate::write`]). Returns where the plot landed,
/// for mapping a pointer back to an event.
pub fn draw_track<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    tl: &TrackChart,
) -> Result<PlotFrame, PlotError> {
    let mut legend: Vec<LegendItem> = tl
        .tracks
        .iter()
        .enumerate()
        .map(|(i, tr)| LegendItem {
            label: tr.label.to_string(),
            swatch: Swatch::Box(color(i)),
        })
        .collect();
    legend.push(LegendItem {
        label: tl.kind.solid.to_string(),
        swatch: Swatch::Line { dashed: false },
    });
    legend.push(LegendItem {
        label: tl.kind.dashed.to_string(),
        swatch: Swatch::Line { dashed: true },
    });
    let area = style::frame(root, tl.title, &legend)?;

    let last_event = tl
        .tracks
        .iter()
        .filter_map(|tr| tr.t.last())
        .copied()
        .max()
        .unwrap_or(0);
    let (first_event, last_shown) = window(tl.zoom, last_event);
    // Over time, every x (the points, the window, the phases) is the model time of an
    // event; the zoom stays a window of events, as the link keeps it.
    let clock = match tl.x {
        XAxis::Time => TimeScale::of(tl.tracks),
        XAxis::Events => None,
    };
    let (lo, hi) = match (&clock, tl.zoom) {
        (Some(c), Some(_)) => {
            let lo = c.at(first_event);
            (lo, c.at(last_shown).max(lo + 1))
        }
        (Some(c), None) => (0, c.end.max(1)),
        (None, _) => (first_event, last_shown),
    };
    // Over time, a curve holds its value until the next point's time and then moves
    // there: a clock's marks can leave a long pause between two points (the program was
    // idle, or a trace's clock jumped), and a straight line across it would show memory
    // changing all through a pause in which nothing happened.
    let clipped: Vec<[Vec<(u64, f64)>; 2]> = tl
        .tracks
        .iter()
        .map(|tr| match clock {
            Some(_) => {
                let curve = |v: &[u64]| {
                    let (xs, vs) = steps(tr.ns, v);
                    clip(&xs, &vs, lo, hi)
                };
                [curve(tr.solid), curve(tr.dashed)]
            }
            None => [clip(tr.t, tr.solid, lo, hi), clip(tr.t, tr.dashed, lo, hi)],
        })
        .collect();
    let phase_ends: Vec<(u64, &str)> = tl
        .phases
        .iter()
        .map(|p| {
            let x = clock.as_ref().map_or(p.end_event, |c| c.at(p.end_event));
            (x, p.label.as_str())
        })
        .collect();
    let max_v = clipped
        .iter()
        .flatten()
        .flatten()
        .map(|&(_, v)| v)
        .fold(0.0, f64::max);
    let (div, y_desc) = match tl.kind.axis {
        ValueAxis::Bytes(what) => {
            let unit = units::byte_unit(max_v as u64);
            (unit.bytes as f64, format!("{what} ({})", unit.name))
        }
        ValueAxis::Count(what) => (1.0, what.to_string()),
    };
    let top = if max_v > 0.0 {
        max_v / div * HEADROOM
    } else {
        1.0
    };
    let time_unit = units::time_unit(hi);
    let x_desc = match (&clock, tl.zoom) {
        (Some(_), Some(_)) => format!(
            "model time ({}), events {} to {}",
            time_unit.name,
            units::count(first_event as f64),
            units::count(last_shown as f64)
        ),
        (Some(_), None) => format!("model time ({})", time_unit.name),
        (None, Some(_)) => format!(
            "events ({} to {})",
            units::count(lo as f64),
            units::count(hi as f64)
        ),
        (None, None) => "events".to_string(),
    };
    let timed = clock.is_some();
    let x_fmt = move |v: &u64| {
        if timed {
            units::time_tick(*v as f64 / time_unit.ns as f64)
        } else {
            units::count(*v as f64)
        }
    };

    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .margin_top(4)
        // Room for the last x label, which is centred on the axis's end.
        .margin_right(26)
        .x_label_area_size(44)
        .y_label_area_size(66)
        .build_cartesian_2d(lo..hi, 0f64..top)?;

    // Every other phase is shaded, so that phases stay apart where their names do not fit.
    let stretches = phase_stretches(&phase_ends, lo, hi);
    for (k, &(s, e, _)) in stretches.iter().enumerate() {
        if k % 2 == 1 && s < e {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(s, 0.0), (e, top)],
                RGBColor(246, 246, 246).filled(),
            )))?;
        }
    }

    let axis = tl.kind.axis;
    let y_fmt = move |v: &f64| match axis {
        ValueAxis::Bytes(_) => units::tick(*v),
        ValueAxis::Count(_) => units::count(*v),
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .axis_style(RGBColor(150, 150, 150))
        .label_style(font(13))
        .axis_desc_style(font(14))
        .draw()?;

    for &(end, _) in &phase_ends {
        if end > lo && end < hi {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(end, 0.0), (end, top)],
                RGBColor(170, 170, 170).stroke_width(1),
            )))?;
        }
    }

    for (i, [solid, dashed]) in clipped.iter().enumerate() {
        let c = color(i);
        let scale = |pts: &[(u64, f64)]| -> Vec<(u64, f64)> {
            pts.iter().map(|&(t, v)| (t, v / div)).collect()
        };
        let (solid, dashed) = (scale(solid), scale(dashed));
        chart.draw_series(LineSeries::new(solid.iter().copied(), c.stroke_width(2)))?;
        chart.draw_series(DashedLineSeries::new(
            dashed.iter().copied(),
            6,
            4,
            c.stroke_width(2),
        ))?;
        // A lone sample draws no line; a dot shows where it is.
        for pts in [&solid, &dashed] {
            if let [only] = pts[..] {
                chart.draw_series(std::iter::once(Circle::new(only, 3, c.filled())))?;
            }
        }
    }

    // Names last, over the curves, along the top where the headroom leaves them space.
    let plot = chart.plotting_area().strip_coord_spec();
    let label_style = font(12).color(&MUTED);
    for &(s, e, label) in &stretches {
        if s >= e {
            continue;
        }
        let width = chart.backend_coord(&(e, 0.0)).0 - chart.backend_coord(&(s, 0.0)).0;
        let shown = style::fit(&plot, label, &label_style, (width - 6).max(0) as u32)?;
        // A name cut to a stub says nothing; its stretch keeps its boundary and shade.
        if shown.is_empty() || (shown != label && shown.chars().count() < 5) {
            continue;
        }
        let mid = s + (e - s) / 2;
        chart.draw_series(std::iter::once(
            EmptyElement::at((mid, top))
                + Text::new(
                    shown,
                    (0, 4),
                    label_style.pos(Pos::new(HPos::Center, VPos::Top)),
                ),
        ))?;
    }

    if clipped.iter().flatten().all(|c| c.is_empty()) {
        style::no_data(&plot, "no samples in this range")?;
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    Ok(PlotFrame {
        left: xs.start,
        right: xs.end,
        top: ys.start,
        bottom: ys.end,
        first_event,
        last_event: last_shown,
        time: timed.then_some([lo, hi]),
    })
}

/// The model time of a chart's runs, read off the first track that has times for all
/// its points: every run of a comparison replays the same events on one clock.
struct TimeScale<'a> {
    t: &'a [u64],
    ns: &'a [u64],
    /// The latest time of any track: the run's end, as its report gives it.
    end: u64,
}

impl<'a> TimeScale<'a> {
    fn of(tracks: &[Track<'a>]) -> Option<TimeScale<'a>> {
        let timed = |tr: &&Track| !tr.ns.is_empty() && tr.ns.len() == tr.t.len();
        let first = tracks.iter().find(timed)?;
        let end = tracks
            .iter()
            .filter(timed)
            .filter_map(|tr| tr.ns.last())
            .copied()
            .max()?;
        Some(TimeScale {
            t: first.t,
            ns: first.ns,
            end,
        })
    }

    /// The time of `event`, interpolated between the points around it (from time 0 at
    /// event 0): exact under a rate, where time is a multiple of the event, and between
    /// a trace's marks as near as the points allow.
    fn at(&self, event: u64) -> u64 {
        let i = self.t.partition_point(|&x| x < event);
        let (Some(&t1), Some(&n1)) = (self.t.get(i), self.ns.get(i)) else {
            return self.end;
        };
        let (t0, n0) = match i {
            0 => (0, 0),
            _ => (self.t[i - 1], self.ns[i - 1]),
        };
        if t1 <= t0 {
            return n1;
        }
        let share = (event.saturating_sub(t0)) as f64 / (t1 - t0) as f64;
        n0 + ((n1.saturating_sub(n0)) as f64 * share).round() as u64
    }

    /// The first event at time `ns` or later, read back the way [`TimeScale::at`] reads
    /// forward; past the last point, the last event.
    fn event_of(&self, ns: u64) -> u64 {
        let i = self.ns.partition_point(|&x| x < ns);
        let (Some(&t1), Some(&n1)) = (self.t.get(i), self.ns.get(i)) else {
            return self.t.last().copied().unwrap_or(0);
        };
        let (t0, n0) = match i {
            0 => (0, 0),
            _ => (self.t[i - 1], self.ns[i - 1]),
        };
        if n1 <= n0 {
            return t0;
        }
        let share = ns.saturating_sub(n0) as f64 / (n1 - n0) as f64;
        t0 + ((t1.saturating_sub(t0)) as f64 * share).round() as u64
    }
}

/// The events shown: the zoom window, put in order and at least one event wide, or the
/// whole run.
fn window(zoom: Option<(u64, u64)>, last_event: u64) -> (u64, u64) {
    match zoom {
        Some((a, b)) => {
            // One below the largest event at most, so that the window has room to widen.
            let (lo, hi) = (a.min(b).min(u64::MAX - 1), a.max(b));
            (lo, hi.max(lo + 1))
        }
        None => (0, last_event.max(1)),
    }
}

/// Each phase's stretch inside `lo..=hi` of the x axis, with its name, from where each
/// phase ends on that axis. Phases arrive as JSON from the page as well as from the core,
/// so one whose end comes before the previous end is taken as empty rather than given a
/// negative width.
fn phase_stretches<'a>(ends: &[(u64, &'a str)], lo: u64, hi: u64) -> Vec<(u64, u64, &'a str)> {
    let mut start = 0;
    let mut out = Vec::with_capacity(ends.len());
    for &(end, label) in ends {
        let end = end.max(start);
        out.push((start.max(lo), end.min(hi), label));
        start = end;
    }
    out
}

/// The curve of values `v` at times `t` as steps: each value held until the next time,
/// where the curve rises or falls to the next value.
fn steps(t: &[u64], v: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let n = t.len().min(v.len());
    let (mut xs, mut vs) = (Vec::with_capacity(2 * n), Vec::with_capacity(2 * n));
    for i in 0..n {
        if i > 0 && v[i] != v[i - 1] {
            xs.push(t[i]);
            vs.push(v[i - 1]);
        }
        xs.push(t[i]);
        vs.push(v[i]);
    }
    (xs, vs)
}

/// The points of the curve of values `v` after events `t` inside `lo..=hi`, with a point
/// interpolated where the curve crosses either edge, so that a zoomed chart draws nothing
/// outside its plot.
fn clip(t: &[u64], v: &[u64], lo: u64, hi: u64) -> Vec<(u64, f64)> {
    let lerp = |(x0, y0): (u64, f64), (x1, y1): (u64, f64), x: u64| -> f64 {
        if x1 == x0 {
            return y1;
        }
        y0 + (y1 - y0) * ((x as f64 - x0 as f64) / (x1 as f64 - x0 as f64))
    };
    let mut out = Vec::new();
    let mut prev: Option<(u64, f64)> = None;
    for (&t, &v) in t.iter().zip(v) {
        let cur = (t, v as f64);
        if let Some(p) = prev {
            if p.0 < lo && t > lo {
                out.push((lo, lerp(p, cur, lo)));
            }
            if p.0 < hi && t > hi {
                out.push((hi, lerp(p, cur, hi)));
                break;
            }
        }
        if t > hi {
            break;
        }
        if t >= lo {
            out.push(cur);
        }
        prev = Some(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over time a value holds until the next point: a pause of 30 ms between two points
    /// draws the old value all through it and the change at its end, also when clipped.
    #[test]
    fn a_curve_over_time_holds_its_value_until_the_next_point() {
        let (t, v) = steps(&[0, 5, 30_000_000], &[250, 250, 125]);
        assert_eq!(t, [0, 5, 30_000_000, 30_000_000]);
        assert_eq!(v, [250, 250, 250, 125]);
        assert_eq!(
            clip(&t, &v, 0, 15_000_000),
            vec![(0, 250.0), (5, 250.0), (15_000_000, 250.0)]
        );
        // Mismatched lengths are drawn as far as both go.
        assert_eq!(steps(&[1, 2, 3], &[7]), (vec![1], vec![7]));
    }

    #[test]
    fn clipping_interpolates_at_the_edges() {
        let t = [0, 10, 20, 30];
        let v = [0, 100, 200, 100];
        assert_eq!(
            clip(&t, &v, 5, 25),
            vec![(5, 50.0), (10, 100.0), (20, 200.0), (25, 150.0)]
        );
        assert_eq!(clip(&t, &v, 0, 30).len(), 4);
        // A window between two samples still gets the line through it.
        assert_eq!(clip(&t, &v, 12, 14), vec![(12, 120.0), (14, 140.0)]);
        assert!(clip(&t, &v, 40, 50).is_empty());
        // Mismatched lengths and unordered events clip without panicking.
        assert_eq!(clip(&[5, 1], &[1], 0, 10), vec![(5, 1.0)]);
        let _ = clip(&[9, 3, 7], &[1, 2, 3], 4, 8);
    }

    #[test]
    fn a_frame_maps_pixels_to_events_and_clamps_outside_the_plot() {
        let frame = PlotFrame {
            left: 100,
            right: 300,
            top: 10,
            bottom: 90,
            first_event: 1_000,
            last_event: 2_000,
            time: None,
        };
        assert_eq!(frame.event_at(100.0), 1_000);
        assert_eq!(frame.event_at(200.0), 1_500);
        assert_eq!(frame.event_at(300.0), 2_000);
        assert_eq!(frame.event_at(-50.0), 1_000);
        assert_eq!(frame.event_at(9_999.0), 2_000);
        // A frame of no width still answers its first event.
        let flat = PlotFrame {
            right: 100,
            ..frame
        };
        assert_eq!(flat.event_at(100.0), 1_000);
    }

    #[test]
    fn the_sample_at_an_event_is_the_bucket_that_covers_it() {
        let t = [4, 8, 12];
        assert_eq!(sample_at(&t, 0), Some(0));
        assert_eq!(sample_at(&t, 4), Some(0));
        assert_eq!(sample_at(&t, 5), Some(1));
        assert_eq!(sample_at(&t, 12), Some(2));
        assert_eq!(sample_at(&t, 99), Some(2));
        assert_eq!(sample_at(&[], 3), None);
    }

    #[test]
    fn an_events_time_is_read_between_the_points_around_it() {
        let t = [10, 20, 40];
        let ns = [0, 1_000, 5_000];
        let track = Track {
            label: "",
            t: &t,
            solid: &[],
            dashed: &[],
            ns: &ns,
        };
        let untimed = Track { ns: &[], ..track };
        let scale = TimeScale::of(&[untimed, track]).unwrap();
        assert_eq!(scale.end, 5_000);
        assert_eq!(scale.at(0), 0);
        assert_eq!(scale.at(10), 0);
        assert_eq!(scale.at(15), 500);
        assert_eq!(scale.at(30), 3_000);
        assert_eq!(scale.at(40), 5_000);
        assert_eq!(scale.at(99), 5_000);
        assert!(TimeScale::of(&[untimed]).is_none());
        // Read back: the first event at a time.
        assert_eq!(scale.event_of(0), 0);
        assert_eq!(scale.event_of(500), 15);
        assert_eq!(scale.event_of(3_000), 30);
        assert_eq!(scale.event_of(9_999), 40);

        // A pointer over a chart drawn over time reads the event drawn under it: here a
        // quarter of the way along is 1,250 ns, which events 20 to 40 reach at 21.
        let frame = PlotFrame {
            left: 0,
            right: 100,
            top: 0,
            bottom: 10,
            first_event: 0,
            last_event: 40,
            time: Some([0, 5_000]),
        };
        assert_eq!(frame.event_on(25.0, &[track]), 21);
        assert_eq!(frame.event_at(25.0), 10);
        assert_eq!(frame.event_on(25.0, &[untimed]), 10);
    }

    #[test]
    fn windows_are_ordered_and_never_empty() {
        assert_eq!(window(None, 0), (0, 1));
        assert_eq!(window(None, 500), (0, 500));
        assert_eq!(window(Some((30, 10)), 500), (10, 30));
        assert_eq!(window(Some((7, 7)), 500), (7, 8));
        assert_eq!(
            window(Some((u64::MAX, u64::MAX)), 5),
            (u64::MAX - 1, u64::MAX)
        );
    }
}
