//! Browser bindings for heaplab. Bindings only: every `#[wasm_bindgen]` in the workspace is
//! here, and everything they call lives in `heaplab-core` or, for the chart, in
//! `heaplab-plot`.
//!
//! Configurations and reports cross the boundary as plain JavaScript objects made by
//! serde (serde-wasm-bindgen), so the page receives the same fields, in the same order,
//! that `heaplab run --json` prints; memory over time crosses as `Float64Array`s
//! ([`convert`]). Permalinks ([`links`]), the metrics list, the byte formatter and the
//! parameter parser ([`format`]) are the core's, so the page re-implements none of them.
//! Teaching mode's step-through (`teach`, the core's `Teaching`) is built only with the
//! `teach` feature, into a second module the page loads when teaching mode opens: the
//! module every visitor downloads stays small, and the simulator in it stays built for
//! speed.
//! Your own allocator (`module`, heaplab-mm's interpreter and checks) is built only with
//! the `mm` feature, into a third module that the page loads when a configuration runs
//! one.
//! The Export menu's files (`export`: CSV and SVG under the provenance of what ran) are
//! built only with the `export` feature, into the teaching module, which the page loads
//! when Export is first used.
//! A trace file is pushed here chunk by chunk as the worker streams it ([`stream`]).

mod charts;
mod convert;
#[cfg(feature = "export")]
mod export;
mod format;
mod links;
#[cfg(feature = "mm")]
mod module;
mod progress;
mod stream;
mod sweep;
#[cfg(feature = "teach")]
mod teach;

use heaplab_core::config::RunConfig;
use heaplab_core::series::Series;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use convert::{from_js, output_js, series_js, to_js};
use heaplab_core::run::Progress;

#[wasm_bindgen(start)]
pub fn start() {
    // A bug should reach the console with its message, not as "unreachable executed".
    console_error_panic_hook::set_once();
}

/// The most events teaching mode steps through, for the page to say before it loads the
/// teaching module.
#[wasm_bindgen]
pub fn teach_max_events() -> usize {
    heaplab_app::observe::MAX_TEACH_EVENTS
}

/// The catalog of workloads, policy families (with every parameter), presets, page sizes
/// and providers.
#[wasm_bindgen]
pub fn catalog() -> Result<JsValue, JsError> {
    to_js(&heaplab_app::catalog::catalog())
}

/// The line the table of runs shows when a preset among `presets` (in column order) models
/// a real allocator it has not been checked against, as `heaplab run` prints it under its
/// table; `undefined` when none does.
#[wasm_bindgen]
pub fn uncalibrated_note(presets: Vec<String>) -> Option<String> {
    heaplab_core::presets::uncalibrated_note(presets.iter().map(String::as_str))
}

/// Runs one config over the simulated provider and returns `{report, series}`: the report
/// as `heaplab run --json` prints it, the series as typed arrays, with the page
/// operations so far (`commits`, `decommits`) on the series' events. Bad configs and
/// refused events throw an Error whose message names the field or the event.
/// `progress`, when given, is called with the number of events applied so far every
/// [`progress::EVERY`] events.
#[wasm_bindgen]
pub fn run(config: JsValue, progress: Option<js_sys::Function>) -> Result<JsValue, JsError> {
    let config: RunConfig = from_js(config, "config")?;
    let mut tell;
    let progress = match &progress {
        Some(callback) => {
            tell = |events| progress::tell(callback, events);
            Progress::every(progress::EVERY, &mut tell)
        }
        None => Progress::none(),
    };
    // A function of the core's rather than a closure of this crate's around the
    // simulation: generic code is compiled where it is used, and this crate is built
    // for size while the core is built for speed.
    let (out, page_ops) = heaplab_core::run::run_with_page_ops(&config, progress)
        .map_err(|e| JsError::new(&e.to_string()))?;
    output_js(&out, Some(&page_ops))
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

/// The seed scenarios: each with its question, workloads, configurations and the finding
/// people saw.
#[wasm_bindgen]
pub fn scenarios() -> Result<JsValue, JsError> {
    let all = heaplab_app::scenario::scenarios().map_err(|e| JsError::new(&e))?;
    to_js(&all)
}

/// Runs one seed scenario and returns `{output, series: [...]}`: `output` is what
/// `heaplab scenario <id> --json` prints, `series` each run's memory over time.
#[wasm_bindgen]
pub fn run_scenario(id: &str) -> Result<JsValue, JsError> {
    let spec = heaplab_app::scenario::find(id).map_err(|e| JsError::new(&e))?;
    let (output, series) = heaplab_app::scenario::run_scenario_with_series(&spec)
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
