//! Browser bindings for heaplab. Bindings only: every `#[wasm_bindgen]` in the workspace is
//! here, and everything they call lives in `heaplab-core` or, for the chart, in
//! `heaplab-plot`.
//!
//! Values cross the boundary as JSON text so that the browser receives exactly the objects
//! `heaplab run --json` prints, serialised by the same serde code.

use heaplab_core::config::RunConfig;
use heaplab_core::run::{JsonReport, RunOutput};
use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use heaplab_core::trace::ImportOptions;
use heaplab_plot::{MemoryChart, MemoryRun};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

#[wasm_bindgen(start)]
pub fn start() {
    // A bug should reach the console with its message, not as "unreachable executed".
    console_error_panic_hook::set_once();
}

/// The catalog of workloads, policy families (with every parameter), page sizes and
/// providers, as JSON.
#[wasm_bindgen]
pub fn catalog() -> String {
    heaplab_core::catalog::catalog().to_string()
}

/// Runs one config (JSON) over the simulated provider and returns
/// `{"report": ..., "series": ...}` as JSON. Bad configs and refused events throw an Error
/// whose message names the field or the event.
#[wasm_bindgen]
pub fn run(config_json: &str) -> Result<String, JsError> {
    let config = RunConfig::from_json(config_json).map_err(|e| JsError::new(&e.to_string()))?;
    let out = heaplab_core::run::run(&config).map_err(|e| JsError::new(&e.to_string()))?;
    output_json(&out)
}

/// Runs one config (JSON) whose workload is a trace (`{"id": "trace", "path": NAME}`)
/// over the bytes of that trace file: any format `heaplab run` reads, gzip'd or not,
/// through the same core importer. `lenient` skips bad lines and events and counts them
/// in the report's `skipped`. A bad trace throws an Error whose message is
/// `NAME:line: what is wrong`.
#[wasm_bindgen]
pub fn run_trace(config_json: &str, bytes: &[u8], lenient: bool) -> Result<String, JsError> {
    let config = RunConfig::from_json(config_json).map_err(|e| JsError::new(&e.to_string()))?;
    let options = ImportOptions { lenient };
    let out = heaplab_core::run::run_trace(&config, bytes, &options)
        .map_err(|e| JsError::new(&e.to_string()))?;
    output_json(&out)
}

/// `{"report": ..., "series": ...}`, the report exactly as `heaplab run --json` prints it.
fn output_json(out: &RunOutput) -> Result<String, JsError> {
    // A struct, not `json!`, so the report's keys keep the order the CLI prints them in.
    #[derive(Serialize)]
    struct Output<'a> {
        report: JsonReport<'a>,
        series: &'a Series,
    }
    serde_json::to_string(&Output {
        report: out.json(),
        series: &out.series,
    })
    .map_err(|e| JsError::new(&e.to_string()))
}

/// The seed scenarios as JSON: each with its question, workloads, configurations and the
/// finding people saw.
#[wasm_bindgen]
pub fn scenarios() -> Result<String, JsError> {
    let all = heaplab_core::scenario::scenarios().map_err(|e| JsError::new(&e))?;
    serde_json::to_string(&all).map_err(|e| JsError::new(&e.to_string()))
}

/// Runs one seed scenario and returns `{"output": ..., "series": [...]}` as JSON: `output`
/// is what `heaplab scenario <id> --json` prints, `series` each run's memory over time.
#[wasm_bindgen]
pub fn run_scenario(id: &str) -> Result<String, JsError> {
    let spec = heaplab_core::scenario::find(id).map_err(|e| JsError::new(&e))?;
    let (output, series) = heaplab_core::scenario::run_scenario_with_series(&spec)
        .map_err(|e| JsError::new(&e.to_string()))?;
    // A struct, not `json!`, so the reports' keys keep the order the CLI prints them in.
    #[derive(Serialize)]
    struct Output<'a> {
        output: &'a heaplab_core::scenario::ScenarioOutput,
        series: &'a [Series],
    }
    serde_json::to_string(&Output {
        output: &output,
        series: &series,
    })
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Resolves a config (JSON): fills in every default and checks every field, without
/// running it.
#[wasm_bindgen]
pub fn resolve(config_json: &str) -> Result<String, JsError> {
    let config = RunConfig::from_json(config_json)
        .and_then(|c| c.resolve())
        .map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&config).map_err(|e| JsError::new(&e.to_string()))
}

#[derive(Deserialize)]
struct ChartRun {
    label: String,
    series: Series,
    /// The run's phases, `{label, end_event}` as in its report (the byte figures may be
    /// left out); optional.
    #[serde(default)]
    phases: Vec<PhaseMark>,
}

/// Draws memory over time for `[{"label": ..., "series": ...}]` on a canvas.
#[wasm_bindgen]
pub fn draw_chart(canvas: HtmlCanvasElement, runs_json: &str) -> Result<(), JsError> {
    let runs: Vec<ChartRun> =
        serde_json::from_str(runs_json).map_err(|e| JsError::new(&format!("chart data: {e}")))?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("chart: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    // Every run of a comparison replays the same workload, so the first run's phases
    // mark the chart for all.
    let phases = runs.first().map_or(&[][..], |r| &r.phases[..]);
    let curves: Vec<MemoryRun> = runs
        .iter()
        .map(|r| MemoryRun::from_series(&r.label, &r.series))
        .collect();
    let chart = MemoryChart {
        runs: &curves,
        phases,
        ..MemoryChart::default()
    };
    heaplab_plot::draw_memory(&root, &chart).map_err(|e| JsError::new(&format!("chart: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What web/app.js passes to `draw_chart`: phases as `{label, end_event}` alone, and
    /// runs without phases at all.
    #[test]
    fn the_pages_chart_json_reads() {
        let json = r#"[
            {"label": "a", "series": {"t": [1, 2], "live": [3, 4], "committed": [5, 6], "resident": [7, 8]},
             "phases": [{"label": "load", "end_event": 1}, {"label": "run", "end_event": 2}]},
            {"label": "b", "series": {"t": [], "live": [], "committed": [], "resident": []}}
        ]"#;
        let runs: Vec<ChartRun> = serde_json::from_str(json).unwrap();
        assert_eq!(runs[0].phases[1].label, "run");
        assert_eq!(runs[0].phases[1].end_event, 2);
        assert_eq!(runs[0].phases[1].resident_bytes, 0);
        assert!(runs[1].phases.is_empty());
    }
}
