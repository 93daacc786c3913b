//! Permalinks for the page, through the core's codec: the page keeps no state codec of
//! its own, so a link it writes is one `heaplab run --link` reads, and the reverse.

use heaplab_app::link::{self, LinkState, ModuleRef};
use heaplab_core::config::RunConfig;
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};

/// Reads a link (a URL, a `#fragment` or the fragment alone) of any version into the link
/// state, checked; throws an Error whose message starts with `link:` and names what is
/// wrong.
#[wasm_bindgen]
pub fn link_decode(text: &str) -> Result<JsValue, JsError> {
    let state = link::decode(text).map_err(|e| JsError::new(&e.message))?;
    to_js(&state)
}

/// The fragment for a link state, without the `#`.
#[wasm_bindgen]
pub fn link_encode(state: JsValue) -> Result<String, JsError> {
    let state: LinkState = from_js(state, "link")?;
    Ok(link::encode(&state))
}

/// The link state of run configs that share a workload and provider, with the parameters
/// left at their defaults left out.
#[wasm_bindgen]
pub fn link_from_configs(configs: JsValue) -> Result<JsValue, JsError> {
    let configs: Vec<RunConfig> = from_js(configs, "configs")?;
    let state = LinkState::from_configs(&configs).map_err(|e| JsError::new(&e.message))?;
    to_js(&state)
}

/// The resolved run configs a link state describes, one per configuration.
#[wasm_bindgen]
pub fn link_configs(state: JsValue, series_points: usize) -> Result<JsValue, JsError> {
    let state: LinkState = from_js(state, "link")?;
    let configs = state
        .run_configs(series_points)
        .map_err(|e| JsError::new(&e.message))?;
    to_js(&configs)
}

/// The text of a trace file's bytes when a link can carry it (UTF-8, not gzip'd, small
/// once deflated), else null; the page reads a file whole only up to
/// [`link_embedded_text_limit`] to ask.
#[wasm_bindgen]
pub fn link_embeddable(bytes: &[u8]) -> Option<String> {
    link::embeddable(bytes).map(str::to_string)
}

/// The longest trace text a link carries.
#[wasm_bindgen]
pub fn link_embedded_text_limit() -> usize {
    link::MAX_EMBEDDED_TEXT_BYTES
}

/// The reference a link names the allocator module file `name` holding `bytes` by: its
/// name, size and SHA-256, with the module itself when it is small enough to travel.
/// From then on labels made here name the module by `name`, as the workers that run it
/// do.
#[wasm_bindgen]
pub fn link_module_ref(name: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
    let module = ModuleRef::of(name, bytes);
    heaplab_core::policy::hosted::register_name(&module.sha256, &module.name);
    to_js(&module)
}

/// Labels made here name the module a link names (`{name, sha256, ...}`, a `ModuleRef`)
/// by its file, before its bytes are at hand.
#[wasm_bindgen]
pub fn link_module_named(module: JsValue) -> Result<(), JsError> {
    let module: ModuleRef = from_js(module, "module")?;
    heaplab_core::policy::hosted::register_name(&module.sha256, &module.name);
    Ok(())
}

/// The bytes of a module a link names: the ones it carries, or `file` (what the person
/// loaded) when it only names the module; either is checked against the size and
/// SHA-256 the link gives, and a mismatch throws, naming both.
#[wasm_bindgen]
pub fn link_module_bytes(module: JsValue, file: Option<Vec<u8>>) -> Result<Vec<u8>, JsError> {
    let module: ModuleRef = from_js(module, "module")?;
    module
        .resolve(|| {
            file.ok_or_else(|| {
                format!(
                    "the link names the module {} ({} bytes) without carrying it: load the file",
                    module.name, module.bytes
                )
            })
        })
        .map_err(|e| JsError::new(&e))
}
