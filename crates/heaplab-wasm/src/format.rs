//! The core's one list of metrics, its formatters and its parameter parser, for the page:
//! a figure reads the same in the page as in the CLI, and a bad value gets the same words.

use heaplab_core::metrics;
use heaplab_core::params::ParamSpec;
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};

/// Every summary metric: `{key, label, group, unit, better, doc}`, in reading order.
#[wasm_bindgen]
pub fn metrics() -> Result<JsValue, JsError> {
    to_js(metrics::METRICS)
}

/// A byte count as every table prints it ("1.46 MiB").
#[wasm_bindgen]
pub fn format_bytes(bytes: f64) -> String {
    heaplab_core::format::format_bytes(bytes.max(0.0) as u64)
}

/// A metric's value as every table prints it; a key that is no metric prints the number.
#[wasm_bindgen]
pub fn format_metric(key: &str, value: f64) -> String {
    match metrics::find(key) {
        Some(m) => m.format(value),
        None => metrics::format_value(metrics::Unit::Count, value),
    }
}

/// What a chart calls the metric or phase figure `key` ("Resident at end of exit"), or
/// null for a key that names neither.
#[wasm_bindgen]
pub fn measure_label(key: &str) -> Option<String> {
    metrics::Measure::parse(key).map(|m| m.label())
}

/// A metric's value against the baseline's, as the comparison table prints it ("^ 1.12x
/// smaller", "! 1.02x bigger", blank when equal or for a key that is no metric).
#[wasm_bindgen]
pub fn format_delta(key: &str, base: f64, value: f64) -> String {
    metrics::find(key).map_or_else(String::new, |m| m.delta(base, value))
}

/// Each configuration's label in the table, the charts and the exports, from the run
/// configs (or link configurations) in order: `B: llvm-bump (slab_size=64 KiB)`, its
/// letter, preset or family and the parameters it changes.
#[wasm_bindgen]
pub fn run_labels(configs: JsValue) -> Result<Vec<String>, JsError> {
    let configs: Vec<heaplab_core::config::RunConfig> = from_js(configs, "configs")?;
    let policies: Vec<_> = configs.into_iter().map(|c| c.policy).collect();
    Ok(heaplab_app::export::labels(&policies))
}

/// Reads a clock as `--clock` and a config's `clock` do (`trace` or `rate=<ns per
/// event>`), with the core's one parser: the clock as the core writes it back, or an
/// Error naming the field `clock` and saying why the run would refuse it.
#[wasm_bindgen]
pub fn parse_clock(text: &str) -> Result<String, JsError> {
    heaplab_core::clock::Clock::parse(text, "clock")
        .map(|clock| clock.to_string())
        .map_err(|e| JsError::new(&e.to_string()))
}

/// The parameter `name` of a policy family (`scope` "policy") or a built-in workload
/// (`scope` "workload") with id `id`.
fn spec(scope: &str, id: &str, name: &str) -> Result<&'static ParamSpec, JsError> {
    let params = match scope {
        "policy" => heaplab_core::policy::family(id)
            .map(|f| f.params)
            .ok_or_else(|| JsError::new(&format!("there is no policy family {id:?}")))?,
        "workload" => heaplab_core::workload::find(id)
            .map(|w| w.params)
            .map_err(|e| JsError::new(&e.message))?,
        other => {
            return Err(JsError::new(&format!(
                "there is no parameter scope {other:?}"
            )))
        }
    };
    params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| JsError::new(&format!("{id} has no parameter {name:?}")))
}

/// Reads what a person typed for a parameter exactly as `--set name=text` does: the typed
/// value (a number, bool or string), or an Error whose message says why the run would
/// refuse it ("must be a power of two, got 3000").
#[wasm_bindgen]
pub fn parse_param(scope: &str, id: &str, name: &str, text: &str) -> Result<JsValue, JsError> {
    let spec = spec(scope, id, name)?;
    let value = spec.parse_text(text).map_err(|e| JsError::new(&e))?;
    to_js(&value)
}
