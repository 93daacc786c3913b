//! A trace file streamed through the worker: the worker reads `File.stream()` and pushes
//! each chunk here, so the file is never held whole, in the worker or in the page. The
//! reading, gzip detection and inflating, checking and simulating are the core's
//! [`TraceRun`]; the hash a link names the file by is [`TraceHasher`]'s, and the page's
//! size limits the core's [`check_file_size`].

use heaplab_app::link;
use heaplab_core::config::RunConfig;
use heaplab_core::run::TraceRun;
use heaplab_core::trace::stream::{check_file_size, FileLimits};
use heaplab_core::trace::ImportOptions;
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, output_js, to_js};

/// Configs whose workload is one trace file, run side by side as its bytes arrive.
#[wasm_bindgen]
#[derive(Debug)]
pub struct TraceRunner {
    /// `None` once finished or stopped by a bad line.
    run: Option<TraceRun>,
}

fn spent() -> JsError {
    JsError::new("this trace run has ended; start a new one")
}

#[wasm_bindgen]
impl TraceRunner {
    /// A run of `configs` (each `{"workload": {"id": "trace", "path": NAME}, ...}`);
    /// `lenient` skips bad lines and events and counts them in each report's `skipped`,
    /// `strict` refuses `free(NULL)` and `realloc(NULL, n)`, as `heaplab run` takes them.
    #[wasm_bindgen(constructor)]
    pub fn new(configs: JsValue, lenient: bool, strict: bool) -> Result<TraceRunner, JsError> {
        let configs: Vec<RunConfig> = from_js(configs, "configs")?;
        let options = ImportOptions { lenient, strict };
        let run = TraceRun::new(&configs, &options).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(TraceRunner { run: Some(run) })
    }

    /// The file's next bytes. A bad line throws an Error whose message is `NAME:line:
    /// what is wrong`, and ends the run.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        let run = self.run.as_mut().ok_or_else(spent)?;
        run.push(chunk).map_err(|e| {
            self.run = None;
            JsError::new(&e.to_string())
        })
    }

    /// Lines read so far.
    pub fn lines(&self) -> f64 {
        self.run.as_ref().map_or(0.0, |run| run.lines() as f64)
    }

    /// The end of the file: `[{report, series}]` in the configs' order, as the CLI's
    /// `run_trace` makes each, the series with the page operations so far as `run`'s.
    pub fn finish(&mut self) -> Result<JsValue, JsError> {
        let run = self.run.take().ok_or_else(spent)?;
        let outputs = run
            .finish_with_page_ops()
            .map_err(|e| JsError::new(&e.to_string()))?;
        let list = js_sys::Array::new();
        for (out, page_ops) in &outputs {
            list.push(&output_js(out, Some(page_ops))?);
        }
        Ok(list.into())
    }
}

/// What a link says of a trace file, `{name, bytes, sha256}`, worked out from its chunks:
/// the page hashes a file small enough to read whole with this, and a larger one in a
/// worker of its own beside the workers that run it.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct TraceHasher(link::TraceHasher);

#[wasm_bindgen]
impl TraceHasher {
    #[wasm_bindgen(constructor)]
    pub fn new() -> TraceHasher {
        TraceHasher::default()
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.0.push(chunk);
    }

    /// `{name, bytes, sha256}` of the bytes pushed, for the file `name`.
    pub fn finish(&self, name: &str) -> Result<JsValue, JsError> {
        to_js(&self.0.clone().finish(name))
    }
}

/// The page's limits on trace files, `{max_bytes, max_gzip_bytes}`.
#[wasm_bindgen]
pub fn trace_file_limits() -> Result<JsValue, JsError> {
    to_js(&FileLimits::default())
}

/// Throws an Error naming the limit when a trace file of `bytes` is over `limits` (as
/// [`trace_file_limits`] gives them); `gzip` says whether the file starts with gzip's
/// magic bytes.
#[wasm_bindgen]
pub fn check_trace_file(
    name: &str,
    bytes: f64,
    gzip: bool,
    limits: JsValue,
) -> Result<(), JsError> {
    let limits: FileLimits = from_js(limits, "limits")?;
    check_file_size(name, bytes as u64, gzip, &limits).map_err(|e| JsError::new(&e))
}
