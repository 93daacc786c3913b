//! Your own allocator in the page: an allocator module handed over by the page is checked
//! against malloc lab's interface and registered, so that every config naming its SHA-256
//! runs it through the same `run`, `TraceRunner` and `Teach` as the presets, in the
//! browser's own engine ([`browser`]). Built only with the `mm` feature, into the module
//! `heaplab_mm`; the page's first module never carries heaplab-mm.

mod browser;

use std::sync::Arc;

use heaplab_mm::AllocatorModule;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::convert::to_js;

/// What the page learns of a module it loaded.
#[derive(Serialize)]
struct Loaded {
    name: String,
    bytes: usize,
    sha256: String,
    /// The policy that runs it with the module family's defaults, as `-p mm.wasm` names it.
    policy: heaplab_core::config::PolicyConfig,
}

/// Checks the module file `name` holding `bytes` (not WebAssembly, a missing export, a
/// wrong signature, an import heaplab does not offer and a memory too large are each
/// refused with a message naming them) and registers it; answers `{name, bytes, sha256,
/// policy}`. Loading the same bytes again changes nothing.
#[wasm_bindgen]
pub fn module_load(name: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
    let module = match sha_of(bytes).and_then(|sha| AllocatorModule::loaded(&sha)) {
        Some(loaded) => loaded,
        None => AllocatorModule::new(name, bytes)
            .map_err(|e| JsError::new(&e.to_string()))?
            .register_with(|m| Arc::new(browser::BrowserFactory(m))),
    };
    to_js(&Loaded {
        name: module.name().to_string(),
        bytes: bytes.len(),
        sha256: module.sha256().to_string(),
        policy: module.policy_config(),
    })
}

fn sha_of(bytes: &[u8]) -> Option<String> {
    heaplab_app::link::trace_ref("", bytes).sha256
}
