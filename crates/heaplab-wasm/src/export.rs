//! The page's Export menu: every file written by heaplab-app's writers and heaplab-plot's
//! drawing functions, each under the labels the page's table uses and the provenance of
//! what ran (`heaplab_app::export`), read from the page's link. The comparison exports its
//! summary, its memory over time and the chart shown; a sweep exports its own table and
//! chart. Built only with the `export` feature, into the module the page loads when
//! Export is first used, so the module every visitor downloads carries no SVG writer.

use heaplab_app::export::{self, Provenance, SeriesColumns};
use heaplab_plot::{Captioned, SweepPlot};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::charts::{chart_runs, x_axis, zoom_window, Kind, PageChart};
use crate::convert::from_js;

/// The provenance of what `link` (the page's address) shows, or the core's `link:`
/// message.
fn provenance(link: &str) -> Result<Provenance, JsError> {
    Provenance::of_link_text(link).map_err(|e| JsError::new(&e.message))
}

/// A chart's size as asked, within what a download should be.
fn size(width: u32, height: u32) -> (u32, u32) {
    (width.clamp(200, 4000), height.clamp(150, 4000))
}

/// The summary of `reports` (as `run` returned them) under `labels`: the provenance as
/// `#` lines, then `configuration`, every metric key and each phase's figures.
#[wasm_bindgen]
pub fn summary_csv(link: &str, labels: Vec<String>, reports: JsValue) -> Result<String, JsError> {
    let reports: Vec<Value> = from_js(reports, "reports")?;
    Ok(export::summary_csv(&provenance(link)?, &labels, &reports))
}

/// Memory over time of `series` (each `{t, live, committed, resident}` as `run` returned
/// it) under `labels`, after the provenance.
#[wasm_bindgen]
pub fn series_csv(link: &str, labels: Vec<String>, series: JsValue) -> Result<String, JsError> {
    let column = |s: &JsValue, key: &str| -> Vec<f64> {
        let v = js_sys::Reflect::get(s, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
        if v.is_undefined() || v.is_null() {
            Vec::new()
        } else {
            js_sys::Float64Array::new(&v).to_vec()
        }
    };
    let series: Vec<SeriesColumns> = js_sys::Array::from(&series)
        .iter()
        .map(|s| SeriesColumns {
            t: column(&s, "t"),
            live: column(&s, "live"),
            committed: column(&s, "committed"),
            resident: column(&s, "resident"),
        })
        .collect();
    Ok(SeriesColumns::csv(&provenance(link)?, &labels, &series))
}

/// The chart the page shows (`kind` "memory", "page_ops" or "bars", zoomed to `zoom`,
/// over `x` "events" or "time") as
/// SVG text of `width` by `height` pixels, drawn by the function that draws it on the
/// canvas, with a title naming the chart and the workload over it and the provenance
/// under it.
#[wasm_bindgen]
pub fn chart_svg(
    link: &str,
    runs: JsValue,
    width: u32,
    height: u32,
    kind: Option<String>,
    zoom: Option<Vec<f64>>,
    x: Option<String>,
) -> Result<String, JsError> {
    let provenance = provenance(link)?;
    let runs = chart_runs(&runs)?;
    let kind = Kind::parse(kind)?;
    let what = match kind {
        Kind::Memory => "Memory over time",
        Kind::PageOps => "Commit and decommit calls over time",
        Kind::Bars => "Summary",
    };
    let title = format!("{what}: {}", provenance.workload());
    let chart = PageChart {
        runs: &runs,
        kind,
        zoom: zoom_window(zoom)?,
        x: x_axis(x)?,
    };
    captioned_svg(&title, &provenance, &chart, size(width, height))
}

/// The sweep the page shows, as the page draws it, as SVG text of `width` by `height`
/// pixels under a title naming the configuration, the parameter and the workload.
/// `label` is the swept configuration's label in the page.
#[wasm_bindgen]
pub fn sweep_svg(
    link: &str,
    label: &str,
    reports: JsValue,
    width: u32,
    height: u32,
) -> Result<String, JsError> {
    let provenance = provenance(link)?;
    let (report, metrics) = crate::sweep::report_of_state(&link_state(link)?, &reports)?;
    let params: Vec<&str> = report.params.iter().map(|a| a.param.as_str()).collect();
    let title = format!(
        "{label}, varying {}: {}",
        params.join(" and "),
        provenance.workload()
    );
    let plot = SweepPlot {
        report: &report,
        metrics: &metrics,
    };
    captioned_svg(&title, &provenance, &plot, size(width, height))
}

/// The sweep's table as CSV: a row per value, after the provenance.
#[wasm_bindgen]
pub fn sweep_csv(link: &str, label: &str, reports: JsValue) -> Result<String, JsError> {
    let provenance = provenance(link)?;
    let (report, _) = crate::sweep::report_of_state(&link_state(link)?, &reports)?;
    Ok(export::sweep_csv(&provenance, label, &report))
}

/// The link's state, for the sweep it shows.
fn link_state(link: &str) -> Result<heaplab_app::link::LinkState, JsError> {
    heaplab_app::link::decode(link).map_err(|e| JsError::new(&e.message))
}

fn captioned_svg<C: heaplab_plot::Chart>(
    title: &str,
    provenance: &Provenance,
    chart: &C,
    size: (u32, u32),
) -> Result<String, JsError> {
    let notes = provenance.text_lines();
    heaplab_plot::render_svg(
        &Captioned {
            title,
            notes: &notes,
            chart,
        },
        size,
    )
    .map_err(|e| JsError::new(&format!("chart: {e}")))
}
