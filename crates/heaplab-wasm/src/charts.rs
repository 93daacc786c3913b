//! The page's charts, drawn by heaplab-plot's functions on a canvas (and, by the same
//! functions, as SVG for the export, in `export`): memory over time, commit and decommit
//! calls over time and the summary bars, from the runs the page holds.

use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use heaplab_plot::{PlotError, PlotFrame, SummaryChart, SummaryRow, Track, TrackChart, XAxis};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::convert::{from_js, to_js};
use serde::Serialize;

/// One configuration's run as the page holds it for a chart.
pub(crate) struct ChartRun {
    label: String,
    series: Series,
    /// Page operations so far on the series' events, when the run recorded them (a
    /// scenario's runs do not).
    commits: Vec<u64>,
    decommits: Vec<u64>,
    /// Each point's model time, when the run had a clock.
    ns: Vec<u64>,
    phases: Vec<PhaseMark>,
    /// The report's figures the summary bars show, when the page passed its report.
    figures: Option<Figures>,
}

impl ChartRun {
    /// The run's two curves on a timeline of `kind`: commits and decommits so far for
    /// page operations, resident and live bytes otherwise.
    fn track(&self, kind: Kind) -> Track<'_> {
        match kind {
            Kind::PageOps => Track {
                label: &self.label,
                t: &self.series.t,
                solid: &self.commits,
                dashed: &self.decommits,
                ns: &[],
            },
            Kind::Memory | Kind::Bars => Track::memory(&self.label, &self.series),
        }
        .timed(&self.ns)
    }
}

/// The figures of a report that the summary bars draw.
#[derive(Clone, Copy)]
struct Figures {
    peak_resident_bytes: u64,
    end_resident_bytes: u64,
    page_ops: u64,
    touched_bytes: u64,
    utilization: f64,
}

/// Reads `{label, series: {t, live, resident, commits?, decommits?, ns?}, phases?, report?}`:
/// the series' gauges as the `Float64Array`s `run` returned (or plain arrays), the phases
/// as in a report (the byte figures may be left out).
fn chart_run(value: &JsValue, index: u32) -> Result<ChartRun, JsError> {
    let what = format!("chart data: run {index}");
    let get = |object: &JsValue, key: &str| {
        js_sys::Reflect::get(object, &JsValue::from_str(key))
            .map_err(|_| JsError::new(&format!("{what}: cannot read {key}")))
    };
    let label = get(value, "label")?
        .as_string()
        .ok_or_else(|| JsError::new(&format!("{what}: label is not text")))?;
    let series = get(value, "series")?;
    let gauge = |key: &str| -> Result<Vec<u64>, JsError> {
        let array = get(&series, key)?;
        if array.is_undefined() || array.is_null() {
            return Ok(Vec::new());
        }
        // A typed array or a plain array of numbers alike; negative or fractional
        // values cannot come from a run and are clamped rather than trusted.
        Ok(js_sys::Float64Array::new(&array)
            .to_vec()
            .into_iter()
            .map(|v| {
                if v.is_finite() && v > 0.0 {
                    v as u64
                } else {
                    0
                }
            })
            .collect())
    };
    let phases = get(value, "phases")?;
    let phases = if phases.is_undefined() || phases.is_null() {
        Vec::new()
    } else {
        from_js(phases, &format!("{what}: phases"))?
    };
    let report = get(value, "report")?;
    let figures = if report.is_object() {
        let number = |key: &str| get(&report, key).map(|v| v.as_f64().unwrap_or(f64::NAN));
        let bytes = |key: &str| {
            number(key).map(|v| {
                if v.is_finite() && v > 0.0 {
                    v as u64
                } else {
                    0
                }
            })
        };
        Some(Figures {
            peak_resident_bytes: bytes("peak_resident_bytes")?,
            end_resident_bytes: bytes("end_resident_bytes")?,
            page_ops: bytes("page_ops")?,
            touched_bytes: bytes("touched_bytes")?,
            utilization: number("utilization")?,
        })
    } else {
        None
    };
    Ok(ChartRun {
        label,
        figures,
        commits: gauge("commits")?,
        decommits: gauge("decommits")?,
        ns: gauge("ns")?,
        series: Series {
            t: gauge("t")?,
            live: gauge("live")?,
            committed: gauge("committed")?,
            resident: gauge("resident")?,
        },
        phases,
    })
}

/// Reads the page's runs `[{label, series, phases}]` for a chart.
pub(crate) fn chart_runs(runs: &JsValue) -> Result<Vec<ChartRun>, JsError> {
    js_sys::Array::from(runs)
        .iter()
        .enumerate()
        .map(|(i, r)| chart_run(&r, i as u32 + 1))
        .collect()
}

/// Which chart the page shows, by the names of the link's `view.chart`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Memory,
    PageOps,
    Bars,
}

impl Kind {
    pub(crate) fn parse(kind: Option<String>) -> Result<Kind, JsError> {
        match kind.as_deref() {
            None | Some("memory") => Ok(Kind::Memory),
            Some("page_ops") => Ok(Kind::PageOps),
            Some("bars") => Ok(Kind::Bars),
            Some(other) => Err(JsError::new(&format!(
                "chart: no chart {other:?}; the page draws memory, page_ops and bars"
            ))),
        }
    }
}

/// Reads what a timeline's x axis shows: "events" (the default) or "time", the model time
/// of a run with a clock.
pub(crate) fn x_axis(x: Option<String>) -> Result<XAxis, JsError> {
    match x.as_deref() {
        None | Some("events") => Ok(XAxis::Events),
        Some("time") => Ok(XAxis::Time),
        Some(other) => Err(JsError::new(&format!(
            "chart: no x axis {other:?}; a timeline shows events or time"
        ))),
    }
}

/// Reads a zoom window `[first, last]` of events, or none for the whole run.
pub(crate) fn zoom_window(zoom: Option<Vec<f64>>) -> Result<Option<(u64, u64)>, JsError> {
    let Some(zoom) = zoom else {
        return Ok(None);
    };
    match zoom[..] {
        [a, b] if a.is_finite() && b.is_finite() && a >= 0.0 && b >= 0.0 => {
            Ok(Some((a as u64, b as u64)))
        }
        _ => Err(JsError::new(
            "chart: zoom must be two event numbers [first, last], each 0 or more",
        )),
    }
}

/// The chart of `runs` the page asked for, drawn the same on a canvas and in SVG.
pub(crate) struct PageChart<'a> {
    pub runs: &'a [ChartRun],
    pub kind: Kind,
    pub zoom: Option<(u64, u64)>,
    pub x: XAxis,
}

impl PageChart<'_> {
    /// Draws the chart; a timeline answers where its plot landed, the bars nothing.
    fn draw_framed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<Option<PlotFrame>, PlotError> {
        // Every run of a comparison replays the same workload, so the first run's
        // phases mark the chart for all.
        let phases = self.runs.first().map_or(&[][..], |r| &r.phases[..]);
        match self.kind {
            Kind::Memory | Kind::PageOps => {
                let tracks: Vec<Track> = self.runs.iter().map(|r| r.track(self.kind)).collect();
                let chart = if self.kind == Kind::PageOps {
                    TrackChart::page_ops(&tracks)
                } else {
                    TrackChart::memory(&tracks)
                };
                heaplab_plot::draw_track(
                    root,
                    &TrackChart {
                        phases,
                        zoom: self.zoom,
                        x: self.x,
                        ..chart
                    },
                )
                .map(Some)
            }
            Kind::Bars => {
                let rows: Vec<SummaryRow> = self
                    .runs
                    .iter()
                    .filter_map(|r| {
                        let f = r.figures?;
                        Some(SummaryRow {
                            label: &r.label,
                            peak_resident_bytes: f.peak_resident_bytes,
                            end_resident_bytes: f.end_resident_bytes,
                            page_ops: Some(f.page_ops),
                            touched_bytes: Some(f.touched_bytes),
                            utilization: f.utilization,
                        })
                    })
                    .collect();
                heaplab_plot::draw_summary_bars(
                    root,
                    &SummaryChart {
                        rows: &rows,
                        ..SummaryChart::default()
                    },
                )
                .map(|()| None)
            }
        }
    }
}

impl heaplab_plot::Chart for PageChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.draw_framed(root).map(|_| ())
    }
}

/// The event under canvas pixel column `x` of a chart whose `frame` [`draw_chart`]
/// answered, clamped to the plot: where the pointer points. A chart drawn over time
/// reads it off the times of the `runs` it drew, which it needs then.
#[wasm_bindgen]
pub fn chart_event_at(frame: JsValue, x: f64, runs: JsValue) -> Result<f64, JsError> {
    let frame: PlotFrame = from_js(frame, "chart frame")?;
    if frame.time.is_none() || runs.is_undefined() || runs.is_null() {
        return Ok(frame.event_at(x) as f64);
    }
    let runs = chart_runs(&runs)?;
    let tracks: Vec<Track> = runs.iter().map(|r| r.track(Kind::Memory)).collect();
    Ok(frame.event_on(x, &tracks) as f64)
}

/// One configuration's values where the pointer is.
#[derive(Serialize)]
struct HoverRow<'a> {
    label: &'a str,
    /// The event of the sample shown, which covers the event asked for.
    event: u64,
    /// The solid curve's value (resident bytes, or commits so far) and the dashed one's
    /// (live bytes, or decommits so far).
    solid: u64,
    dashed: u64,
    /// The sample's model time in nanoseconds, when the run has a clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    ns: Option<u64>,
}

/// What each run's curves of a timeline (`kind` "memory" or "page_ops") show at `event`:
/// `[{label, event, solid, dashed, ns?}]`, a run without samples left out.
#[wasm_bindgen]
pub fn chart_hover(runs: JsValue, kind: Option<String>, event: f64) -> Result<JsValue, JsError> {
    let runs = chart_runs(&runs)?;
    let kind = Kind::parse(kind)?;
    let event = if event.is_finite() && event > 0.0 {
        event as u64
    } else {
        0
    };
    let rows: Vec<HoverRow> = runs
        .iter()
        .filter_map(|r| {
            let track = r.track(kind);
            let i = heaplab_plot::sample_at(track.t, event)?;
            Some(HoverRow {
                label: track.label,
                event: track.t[i],
                solid: *track.solid.get(i)?,
                dashed: *track.dashed.get(i)?,
                ns: track.ns.get(i).copied(),
            })
        })
        .collect();
    to_js(&rows)
}

/// Draws `[{label, series, phases, report}]` on a canvas, with the drawing functions the
/// CLI writes to SVG and PNG: memory over time (`kind` "memory", the default), page
/// operations over time ("page_ops") or the summary bars ("bars", from the reports).
/// `zoom` is the window `[first, last]` of events a timeline shows, `x` what its x axis
/// shows ("events" or "time"). Answers where a timeline's plot landed in canvas pixels
/// and the events it spans, `{left, right, top, bottom, first_event, last_event, time}`
/// (`time` the model times at its edges when drawn over time), so the page can map the
/// pointer to an event; null for the bars.
#[wasm_bindgen]
pub fn draw_chart(
    canvas: HtmlCanvasElement,
    runs: JsValue,
    kind: Option<String>,
    zoom: Option<Vec<f64>>,
    x: Option<String>,
) -> Result<JsValue, JsError> {
    let runs = chart_runs(&runs)?;
    let chart = PageChart {
        runs: &runs,
        kind: Kind::parse(kind)?,
        zoom: zoom_window(zoom)?,
        x: x_axis(x)?,
    };
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("chart: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    let frame = chart
        .draw_framed(&root)
        .map_err(|e| JsError::new(&format!("chart: {e}")))?;
    match frame {
        Some(frame) => to_js(&frame),
        None => Ok(JsValue::NULL),
    }
}
