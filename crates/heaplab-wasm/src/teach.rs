//! Teaching mode for the page: [`Teach`] holds the core's `Teaching` for one
//! configuration (a built-in workload or a trace's bytes) of at most
//! `MAX_TEACH_EVENTS` events, and hands out each event's line (the core's
//! `explain::line`, the same text `heaplab explain` prints), the heap map, the block map
//! and blame at the event shown. Bindings only: everything is the core's.

use heaplab_core::config::RunConfig;
use heaplab_core::observe::teach::{trace_events, workload_events};
use heaplab_core::observe::Teaching;
use heaplab_core::trace::sites::Sites;
use heaplab_core::trace::ImportOptions;
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The events `config` steps through: its built-in workload's, or the trace's in `trace`
/// for a trace config with the call sites it has, each stopped past `MAX_TEACH_EVENTS`
/// by the core.
fn events_of(
    config: &RunConfig,
    trace: Option<&[u8]>,
    lenient: bool,
) -> Result<(Vec<heaplab_core::event::Event>, Sites), String> {
    if !config.workload.is_trace() {
        return workload_events(config)
            .map(|events| (events, Sites::new()))
            .map_err(|e| e.to_string());
    }
    let bytes = trace.ok_or("teach: the trace's bytes are missing")?;
    let name = config.workload.path.clone().unwrap_or_default();
    let options = ImportOptions {
        lenient,
        ..ImportOptions::default()
    };
    trace_events(bytes, &name, &options).map_err(|e| e.to_string())
}

/// One configuration's run held for stepping through.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Teach {
    inner: Teaching,
}

#[wasm_bindgen]
impl Teach {
    /// Explains every event of `config`'s run: its built-in workload, or for a trace
    /// config (`{"id": "trace", "path": NAME}`) the trace in `trace`. Throws an Error
    /// that names what is wrong: a bad field, a trace's `NAME:line`, or a run longer
    /// than teaching mode steps through (`teach: the workload has more than 10,000
    /// events …`).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, trace: Option<Vec<u8>>, lenient: bool) -> Result<Teach, JsError> {
        let config: RunConfig = from_js(config, "config")?;
        let (events, sites) =
            events_of(&config, trace.as_deref(), lenient).map_err(|e| JsError::new(&e))?;
        let inner = Teaching::with_sites(&config, events, sites).map_err(js_error)?;
        Ok(Teach { inner })
    }

    /// How many events the run has.
    pub fn events(&self) -> usize {
        self.inner.len()
    }

    /// How many events are applied to the heap shown.
    pub fn position(&self) -> usize {
        self.inner.position()
    }

    /// Event `k`'s step (1-based): `{event, op, decisions, line}` as `heaplab explain
    /// --json` prints it, or null outside the run.
    pub fn step(&self, k: usize) -> Result<JsValue, JsError> {
        match self.inner.step(k) {
            Some(step) => to_js(step),
            None => Ok(JsValue::NULL),
        }
    }

    /// Every event's line, event 1 first.
    pub fn lines(&self) -> Vec<String> {
        self.inner.steps().iter().map(|s| s.line.clone()).collect()
    }

    /// Shows the heap after event `k` (0: before the first).
    pub fn seek(&mut self, k: usize) -> Result<(), JsError> {
        self.inner.seek(k).map_err(js_error)
    }

    /// The heap map at the event shown: `{event, page_size, pages, reservations, counts}`.
    pub fn heap_map(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.heap_map())
    }

    /// Blame at the event shown, as `heaplab blame --json` prints it.
    pub fn blame(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.blame())
    }

    /// The block map of `count` map pages from page `first`, at the event shown.
    pub fn block_map(&self, first: f64, count: f64) -> Result<JsValue, JsError> {
        // Page numbers are small integers; the page passes them as numbers.
        to_js(&self.inner.block_map(first as u64, count as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use heaplab_core::config::WorkloadConfig;
    use heaplab_core::event::Event;

    #[test]
    fn a_trace_config_reads_its_bytes_and_a_workload_config_its_generator() {
        let mut config = RunConfig::new("churn", "buddy");
        config.workload = WorkloadConfig::trace("typed.trace");
        let (events, sites) = events_of(&config, Some(b"a 1 48\nf 1\n"), false).unwrap();
        assert_eq!(events, [Event::alloc(1, 48), Event::free(1)]);
        assert!(sites.is_empty());
        let (events, sites) =
            events_of(&config, Some(b"a 1 48 site=0x10\nsite 0x10 main\n"), false).unwrap();
        assert_eq!(events, [Event::alloc(1, 48)]);
        assert_eq!(sites.at(1).map(|a| sites.label(a)).as_deref(), Some("main"));
        assert_eq!(
            events_of(&config, None, false).unwrap_err(),
            "teach: the trace's bytes are missing"
        );
        let e = events_of(&config, Some(b"a 1 48\nx\n"), false).unwrap_err();
        assert!(e.starts_with("typed.trace:2: "), "{e}");
        let churn = RunConfig::new("churn", "buddy");
        let e = events_of(&churn, None, false).unwrap_err();
        assert!(
            e.starts_with("teach: the workload has more than 10,000 events"),
            "{e}"
        );
    }
}
