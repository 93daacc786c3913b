//! A sweep for the page, in the core's two steps: the points to run, which the page runs
//! in its workers with `run`, then the report assembled from their results, the object
//! `heaplab sweep --json` prints for the same link (the page's `window.heaplabSweep`).

use heaplab_app::link::LinkState;
use heaplab_app::sweep::{Sweep, SweepReport};
use heaplab_core::metrics::{self, Measure};
use heaplab_plot::SweepPlot;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::convert::{from_js, to_js};

/// The runs a link state's sweep (`view.sweep`) needs: `[{values, config}]`, each config
/// resolved, in the order `sweep_report` takes their results. Throws the core's `link:`
/// message naming what is wrong.
#[wasm_bindgen]
pub fn sweep_points(state: JsValue) -> Result<JsValue, JsError> {
    let state: LinkState = from_js(state, "link")?;
    let sweep = Sweep::from_link(&state).map_err(|e| JsError::new(&e.message))?;
    to_js(&sweep.points)
}

/// The sweep's report from each point's result in `sweep_points`' order (the `{report,
/// series}` objects `run` returned, or the reports alone), as the core assembles it, and
/// the metrics its chart plots.
fn report_of(state: JsValue, reports: &JsValue) -> Result<(SweepReport, Vec<Measure>), JsError> {
    let state: LinkState = from_js(state, "link")?;
    report_of_state(&state, reports)
}

/// [`report_of`] for a link state already read (the export's, from the page's link).
pub(crate) fn report_of_state(
    state: &LinkState,
    reports: &JsValue,
) -> Result<(SweepReport, Vec<Measure>), JsError> {
    let sweep = Sweep::from_link(state).map_err(|e| JsError::new(&e.message))?;
    // Only the reports' figures are read; the series' typed arrays are left in the page.
    let reports: Vec<Value> = js_sys::Array::from(reports)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let report = js_sys::Reflect::get(&r, &JsValue::from_str("report"))
                .ok()
                .filter(|v| !v.is_undefined())
                .unwrap_or(r);
            from_js::<Value>(report, &format!("sweep: reports[{i}]"))
        })
        .collect::<Result<_, _>>()?;
    let report = sweep
        .report(&reports)
        .map_err(|e| JsError::new(&format!("sweep: {e}")))?;
    let plotted = sweep
        .metrics()
        .into_iter()
        .map(metric)
        .collect::<Result<_, _>>()?;
    Ok((report, plotted))
}

/// The object `heaplab sweep --json` prints for the same link (`window.heaplabSweep`).
#[wasm_bindgen]
pub fn sweep_report(state: JsValue, reports: JsValue) -> Result<JsValue, JsError> {
    to_js(&report_of(state, &reports)?.0)
}

/// The metric or phase figure `key`, or an Error naming the valid ones.
fn metric(key: &str) -> Result<Measure, JsError> {
    Measure::parse(key).ok_or_else(|| {
        JsError::new(&format!(
            "sweep: no metric {key:?}; valid ones are: {}",
            metrics::valid_text()
        ))
    })
}

/// Draws each metric the link's sweep plots (`view.sweep.metric`, then `also`) against
/// the swept parameter on a canvas, stacked: the chart `heaplab sweep --plot` draws for
/// the same sweep. Answers where each point landed, `[{point, x, y}]` in canvas pixels,
/// `point` its index in the report's `points`.
#[wasm_bindgen]
pub fn draw_sweep_chart(
    canvas: HtmlCanvasElement,
    state: JsValue,
    reports: JsValue,
) -> Result<JsValue, JsError> {
    let (report, metrics) = report_of(state, &reports)?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("chart: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    let plot = SweepPlot {
        report: &report,
        metrics: &metrics,
    };
    let marks = plot
        .draw_marked(&root)
        .map_err(|e| JsError::new(&format!("chart: {e}")))?;
    to_js(&marks)
}

/// The values of `param` (a numeric parameter of `config`'s policy or workload) that
/// `text` names, as `heaplab sweep --vary param=text` reads it: `4K..1M` doubling, a list
/// `4K,16K,64K`, or `a..b:step`. Throws the core's message naming the parameter.
#[wasm_bindgen]
pub fn sweep_values(config: JsValue, param: &str, text: &str) -> Result<JsValue, JsError> {
    let config: heaplab_core::config::RunConfig = from_js(config, "config")?;
    let (_, spec) = heaplab_app::sweep::find_param(&config, param)
        .map_err(|e| JsError::new(&format!("sweep: {e}")))?;
    let values = heaplab_app::sweep::parse_values(spec, text)
        .map_err(|e| JsError::new(&format!("sweep: {param}={text}: {e}")))?;
    to_js(&values)
}
