//! Browser bindings for heaplab. Bindings only: every `#[wasm_bindgen]` in the workspace is
//! here, and everything they call lives in `heaplab-core` or, for the chart, in
//! `heaplab-plot`.
//!
//! Configurations and reports cross the boundary as plain JavaScript objects made by
//! serde (serde-wasm-bindgen), so the page receives the same fields, in the same order,
//! that `heaplab run --json` prints; memory over time crosses as `Float64Array`s
//! ([`convert`]). Permalinks ([`links`]), the metrics list, the byte formatter and the
//! parameter parser ([`format`]) are the core's, so the page re-implements none of them.

mod convert;
mod export;
mod format;
mod links;
mod sweep;

use heaplab_core::config::RunConfig;
use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use heaplab_core::trace::ImportOptions;
use heaplab_plot::{MemoryChart, MemoryRun};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use convert::{from_js, output_js, series_js, to_js};

#[wasm_bindgen(start)]
pub fn start() {
    // A bug should reach the console with its message, not as "unreachable executed".
    console_error_panic_hook::set_once();
}

/// The catalog of workloads, policy families (with every parameter), presets, page sizes
/// and providers.
#[wasm_bindgen]
pub fn catalog() -> Result<JsValue, JsError> {
    to_js(&heaplab_core::catalog::catalog())
}

/// Runs one config over the simulated provider and returns `{report, series}`: the report
/// as `heaplab run --json` prints it, the series as typed arrays. Bad configs and refused
/// events throw an Error whose message names the field or the event.
#[wasm_bindgen]
pub fn run(config: JsValue) -> Result<JsValue, JsError> {
    let config: RunConfig = from_js(config, "config")?;
    let out = heaplab_core::run::run(&config).map_err(|e| JsError::new(&e.to_string()))?;
    output_js(&out)
}

/// The same run as [`run`], answered as JSON text: `{"report": ..., "series": ...}`. For a
/// download of the raw result, and for measuring what the objects and typed arrays save.
#[wasm_bindgen]
pub fn run_json(config: JsValue) -> Result<String, JsError> {
    #[derive(Serialize)]
    struct Output<'a> {
        report: heaplab_core::run::JsonReport<'a>,
        series: &'a Series,
    }
    let config: RunConfig = from_js(config, "config")?;
    let out = heaplab_core::run::run(&config).map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&Output {
        report: out.json(),
        series: &out.series,
    })
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Runs one config whose workload is a trace (`{"id": "trace", "path": NAME}`) over the
/// bytes of that trace file: any format `heaplab run` reads, gzip'd or not, through the
/// same core importer. `lenient` skips bad lines and events and counts them in the
/// report's `skipped`. A bad trace throws an Error whose message is
/// `NAME:line: what is wrong`.
#[wasm_bindgen]
pub fn run_trace(config: JsValue, bytes: &[u8], lenient: bool) -> Result<JsValue, JsError> {
    let config: RunConfig = from_js(config, "config")?;
    let options = ImportOptions {
        lenient,
        ..ImportOptions::default()
    };
    let out = heaplab_core::run::run_trace(&config, bytes, &options)
        .map_err(|e| JsError::new(&e.to_string()))?;
    output_js(&out)
}

/// The seed scenarios: each with its question, workloads, configurations and the finding
/// people saw.
#[wasm_bindgen]
pub fn scenarios() -> Result<JsValue, JsError> {
    let all = heaplab_core::scenario::scenarios().map_err(|e| JsError::new(&e))?;
    to_js(&all)
}

/// Runs one seed scenario and returns `{output, series: [...]}`: `output` is what
/// `heaplab scenario <id> --json` prints, `series` each run's memory over time.
#[wasm_bindgen]
pub fn run_scenario(id: &str) -> Result<JsValue, JsError> {
    let spec = heaplab_core::scenario::find(id).map_err(|e| JsError::new(&e))?;
    let (output, series) = heaplab_core::scenario::run_scenario_with_series(&spec)
        .map_err(|e| JsError::new(&e.to_string()))?;
    let list = js_sys::Array::new();
    for s in &series {
        list.push(&series_js(s)?);
    }
    let object = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| {
        js_sys::Reflect::set(&object, &JsValue::from_str(key), value)
            .map(|_| ())
            .map_err(|_| JsError::new("could not build the result object"))
    };
    set("output", &to_js(&output)?)?;
    set("series", &list.into())?;
    Ok(object.into())
}

/// Resolves a config: fills in every default and checks every field, without running it.
#[wasm_bindgen]
pub fn resolve(config: JsValue) -> Result<JsValue, JsError> {
    let config: RunConfig = from_js(config, "config")?;
    let config = config.resolve().map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&config)
}

/// One line of the memory chart as the page holds it.
struct ChartRun {
    label: String,
    series: Series,
    phases: Vec<PhaseMark>,
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
    Ok(ChartRun {
        label,
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

/// Hands the memory chart of `runs` to `draw`: the one chart the canvas and the SVG
/// export both show.
fn with_memory_chart<T>(
    runs: &[ChartRun],
    draw: impl FnOnce(&MemoryChart<'_>) -> Result<T, JsError>,
) -> Result<T, JsError> {
    // Every run of a comparison replays the same workload, so the first run's phases
    // mark the chart for all.
    let phases = runs.first().map_or(&[][..], |r| &r.phases[..]);
    let curves: Vec<MemoryRun> = runs
        .iter()
        .map(|r| MemoryRun::from_series(&r.label, &r.series))
        .collect();
    draw(&MemoryChart {
        runs: &curves,
        phases,
        ..MemoryChart::default()
    })
}

/// Draws memory over time for `[{label, series, phases}]` on a canvas, with the one
/// drawing function the CLI writes to SVG and PNG.
#[wasm_bindgen]
pub fn draw_chart(canvas: HtmlCanvasElement, runs: JsValue) -> Result<(), JsError> {
    let runs = chart_runs(&runs)?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("chart: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    with_memory_chart(&runs, |chart| {
        heaplab_plot::draw_memory(&root, chart).map_err(|e| JsError::new(&format!("chart: {e}")))
    })
}

/// The same chart as [`draw_chart`] as SVG text of `width` by `height` pixels, for the
/// page's export: what `heaplab run --plot out.svg` writes for the same runs.
#[wasm_bindgen]
pub fn chart_svg(runs: JsValue, width: u32, height: u32) -> Result<String, JsError> {
    let runs = chart_runs(&runs)?;
    with_memory_chart(&runs, |chart| {
        heaplab_plot::render_svg(chart, (width.clamp(200, 4000), height.clamp(150, 4000)))
            .map_err(|e| JsError::new(&format!("chart: {e}")))
    })
}
