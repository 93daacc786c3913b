//! The page's charts, drawn by heaplab-plot's functions on a canvas and, for the export,
//! as SVG: memory over time and the summary bars, from the runs the page holds.

use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use heaplab_plot::{MemoryChart, MemoryRun, PlotError, SummaryChart, SummaryRow};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::convert::from_js;

/// One configuration's run as the page holds it for a chart.
struct ChartRun {
    label: String,
    series: Series,
    phases: Vec<PhaseMark>,
    /// The report's figures the summary bars show, when the page passed its report.
    figures: Option<Figures>,
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

/// Reads `{label, series: {t, live, resident}, phases?}`: the series' gauges as the
/// `Float64Array`s `run` returned (or plain arrays), the phases as in a report (the byte
/// figures may be left out).
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
fn chart_runs(runs: &JsValue) -> Result<Vec<ChartRun>, JsError> {
    js_sys::Array::from(runs)
        .iter()
        .enumerate()
        .map(|(i, r)| chart_run(&r, i as u32 + 1))
        .collect()
}

/// Which chart the page shows: memory over time, or the summary bars.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Memory,
    Bars,
}

impl Kind {
    fn parse(kind: Option<String>) -> Result<Kind, JsError> {
        match kind.as_deref() {
            None | Some("memory") => Ok(Kind::Memory),
            Some("bars") => Ok(Kind::Bars),
            Some(other) => Err(JsError::new(&format!(
                "chart: no chart {other:?}; the page draws memory and bars"
            ))),
        }
    }
}

/// The chart of `runs` the page asked for, drawn the same on a canvas and in SVG.
struct PageChart<'a> {
    runs: &'a [ChartRun],
    kind: Kind,
}

impl heaplab_plot::Chart for PageChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        match self.kind {
            Kind::Memory => {
                // Every run of a comparison replays the same workload, so the first
                // run's phases mark the chart for all.
                let phases = self.runs.first().map_or(&[][..], |r| &r.phases[..]);
                let curves: Vec<MemoryRun> = self
                    .runs
                    .iter()
                    .map(|r| MemoryRun::from_series(&r.label, &r.series))
                    .collect();
                heaplab_plot::draw_memory(
                    root,
                    &MemoryChart {
                        runs: &curves,
                        phases,
                        ..MemoryChart::default()
                    },
                )
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
                            page_ops: f.page_ops,
                            touched_bytes: f.touched_bytes,
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
            }
        }
    }
}

/// Draws `[{label, series, phases, report}]` on a canvas, with the drawing functions the
/// CLI writes to SVG and PNG: memory over time (`kind` "memory", the default) or the
/// summary bars ("bars", from the reports).
#[wasm_bindgen]
pub fn draw_chart(
    canvas: HtmlCanvasElement,
    runs: JsValue,
    kind: Option<String>,
) -> Result<(), JsError> {
    let runs = chart_runs(&runs)?;
    let kind = Kind::parse(kind)?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("chart: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    heaplab_plot::Chart::draw(&PageChart { runs: &runs, kind }, &root)
        .map_err(|e| JsError::new(&format!("chart: {e}")))
}

/// The same chart as [`draw_chart`] as SVG text of `width` by `height` pixels, for the
/// page's export: what `heaplab run --plot out.svg` writes for the same runs.
#[wasm_bindgen]
pub fn chart_svg(
    runs: JsValue,
    width: u32,
    height: u32,
    kind: Option<String>,
) -> Result<String, JsError> {
    let runs = chart_runs(&runs)?;
    let kind = Kind::parse(kind)?;
    heaplab_plot::render_svg(
        &PageChart { runs: &runs, kind },
        (width.clamp(200, 4000), height.clamp(150, 4000)),
    )
    .map_err(|e| JsError::new(&format!("chart: {e}")))
}
