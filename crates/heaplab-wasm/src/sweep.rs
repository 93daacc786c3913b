//! A sweep for the page, in the core's two steps: the points to run, which the page runs
//! in its workers with `run`, then the report assembled from their results, the object
//! `heaplab sweep --json` prints for the same link (the page's `window.heaplabSweep`).

use heaplab_core::link::LinkState;
use heaplab_core::sweep::Sweep;
use serde_json::Value;
use wasm_bindgen::prelude::*;

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

/// The sweep's report from each point's result, in `sweep_points`' order: the `{report,
/// series}` objects `run` returned, or the reports alone.
#[wasm_bindgen]
pub fn sweep_report(state: JsValue, reports: JsValue) -> Result<JsValue, JsError> {
    let state: LinkState = from_js(state, "link")?;
    let sweep = Sweep::from_link(&state).map_err(|e| JsError::new(&e.message))?;
    // Only the reports' figures are read; the series' typed arrays are left in the page.
    let reports: Vec<Value> = js_sys::Array::from(&reports)
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
    to_js(&report)
}
