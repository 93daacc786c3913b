//! How a run in the worker tells the page how far it has come: a count of events applied,
//! handed to a JavaScript callback now and then rather than after every event, so that a
//! run of millions of events makes a few hundred calls across the boundary at most.

/// Events between two calls: at 10–30 million events a second, a call every few
/// milliseconds, often enough for a smooth bar and rare enough to cost nothing.
pub const EVERY: u64 = 1 << 16;

/// Calls the page's callback with a count of events. What the callback throws is
/// ignored: progress is a courtesy, and the run goes on without it.
pub fn tell(callback: &js_sys::Function, events: u64) {
    let _ = callback.call1(
        &wasm_bindgen::JsValue::NULL,
        &wasm_bindgen::JsValue::from_f64(events as f64),
    );
}
