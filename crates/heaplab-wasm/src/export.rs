//! The page's downloads as text: the summary as CSV (a row per configuration, a column per
//! metric of the core's list) and memory over time as CSV (a row per series point and
//! configuration). Written here, beside the metrics list, so the columns are the ones the
//! CLI's JSON names.

use std::fmt::Write;

use heaplab_core::format::csv_field as field;
use heaplab_core::metrics::METRICS;
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A number as CSV holds it: integers without a fraction, others as JavaScript prints them.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// The summary of `reports` (as `run` returned them) under `labels`: `configuration` then
/// every metric key; a metric a report lacks is left empty.
#[wasm_bindgen]
pub fn summary_csv(labels: Vec<String>, reports: JsValue) -> String {
    let mut out = String::from("configuration");
    for m in METRICS {
        out.push(',');
        out.push_str(m.key);
    }
    out.push('\n');
    for (i, report) in Array::from(&reports).iter().enumerate() {
        out.push_str(&field(labels.get(i).map_or("", String::as_str)));
        for m in METRICS {
            out.push(',');
            if let Some(v) = get(&report, m.key).as_f64() {
                out.push_str(&number(v));
            }
        }
        out.push('\n');
    }
    out
}

/// Memory over time of `series` (each `{t, live, committed, resident}` as `run` returned
/// it) under `labels`: `configuration,event,live_bytes,committed_bytes,resident_bytes`.
#[wasm_bindgen]
pub fn series_csv(labels: Vec<String>, series: JsValue) -> String {
    let mut out = String::from("configuration,event,live_bytes,committed_bytes,resident_bytes\n");
    for (i, s) in Array::from(&series).iter().enumerate() {
        let label = field(labels.get(i).map_or("", String::as_str));
        let column = |key: &str| -> Vec<f64> {
            let v = get(&s, key);
            if v.is_undefined() || v.is_null() {
                Vec::new()
            } else {
                js_sys::Float64Array::new(&v).to_vec()
            }
        };
        let (t, live, committed, resident) = (
            column("t"),
            column("live"),
            column("committed"),
            column("resident"),
        );
        for (k, event) in t.iter().enumerate() {
            let at = |c: &[f64]| c.get(k).map_or(String::new(), |v| number(*v));
            let _ = writeln!(
                out,
                "{label},{},{},{},{}",
                number(*event),
                at(&live),
                at(&committed),
                at(&resident)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_numbers_read_back_as_written() {
        assert_eq!(field("glibc-like"), "glibc-like");
        assert_eq!(field("a, b"), "\"a, b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(number(1536000.0), "1536000");
        assert_eq!(number(0.25), "0.25");
    }
}
