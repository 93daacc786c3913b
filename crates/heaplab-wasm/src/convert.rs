//! How values cross into JavaScript: serde structs become plain objects (with
//! serde-wasm-bindgen, keys in the order the CLI prints them), and the four gauges of a
//! series become `Float64Array`s, which the page and the worker's `postMessage` copy as
//! one block each instead of walking an array of numbers.

use heaplab_core::run::RunOutput;
use heaplab_core::series::PageOpsCurve;
use heaplab_core::series::Series;
use js_sys::{Float64Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A serde value as a plain JavaScript object: maps as objects (not `Map`s), so the page
/// reads `report.counters.num_malloc` as it reads the CLI's JSON.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&serializer)
        .map_err(|e| JsError::new(&format!("could not hand the result to the page: {e}")))
}

/// A JavaScript value read as `T`; `what` names it in the message.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| JsError::new(&format!("{what}: {e}")))
}

fn set(object: &Object, key: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(object, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| JsError::new("could not build the result object"))
}

fn floats(values: &[u64]) -> Float64Array {
    // Event numbers and byte counts stay below 2^53, where f64 holds them exactly.
    let values: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    Float64Array::from(&values[..])
}

/// `{t, live, committed, resident}`, each a `Float64Array`.
pub fn series_js(series: &Series) -> Result<JsValue, JsError> {
    let object = Object::new();
    set(&object, "t", &floats(&series.t))?;
    set(&object, "live", &floats(&series.live))?;
    set(&object, "committed", &floats(&series.committed))?;
    set(&object, "resident", &floats(&series.resident))?;
    Ok(object.into())
}

/// `{report, series}`: the report exactly as `heaplab run --json` prints it, and memory
/// over time as typed arrays. With `page_ops` (recorded on the series' own events), the
/// series also has `commits` and `decommits`, the page operations so far, and, when the
/// run has a clock, `ns`, each point's model time in nanoseconds.
pub fn output_js(out: &RunOutput, page_ops: Option<&PageOpsCurve>) -> Result<JsValue, JsError> {
    let object = Object::new();
    set(&object, "report", &to_js(&out.json())?)?;
    let series = series_js(&out.series)?;
    if let Some(ops) = page_ops {
        let series = Object::from(series.clone());
        set(&series, "commits", &floats(&ops.commits))?;
        set(&series, "decommits", &floats(&ops.decommits))?;
        if !ops.ns.is_empty() {
            set(&series, "ns", &floats(&ops.ns))?;
        }
    }
    set(&object, "series", &series)?;
    Ok(object.into())
}
