//! The page's part of `cargo xtask bench`, once `bench.rs` has built the wasm and the
//! release CLI: reports the size of each WebAssembly module the page downloads (the
//! page's own against its budget), serves `web/`, and runs `web/bench/page.mjs` in headless Chromium, which
//! reports the page against `heaplab run` (events/s and their ratio), first load, a
//! three-configuration comparison and a five-value sweep, each beside its target, and the
//! import bench's trace streamed through the page against `heaplab run`.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::report::{node_rows, thousands, Row};
use crate::{serve, tools};

/// The page's bench; `trace` is the import bench's trace of this run's sizes, which the
/// page streams against `heaplab run` when it exists (a `--page` run before any import
/// bench has none, and says so).
pub fn run(root: &Path, bin: &Path, quick: bool, trace: &Path) -> Result<Vec<Row>> {
    let mut rows = wasm_sizes(root)?;
    let addr = serve::spawn_on_free_port(&root.join("web"))?;
    let mut bench = Command::new("node");
    bench
        .arg("web/bench/page.mjs")
        .env("HEAPLAB_URL", format!("http://{addr}/"))
        .env("HEAPLAB_BIN", bin);
    if trace.exists() {
        bench.env("HEAPLAB_BENCH_TRACE", trace);
    }
    rows.extend(node_rows(root, &mut bench, "page", quick)?);
    Ok(rows)
}

/// The three modules `build_wasm` wrote: the page's own, which a person downloads before
/// anything runs and which has a budget, then teaching mode's and the module runner's,
/// each loaded only when used.
fn wasm_sizes(root: &Path) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (name, what) in [
        ("heaplab_wasm", "the page's own module"),
        (
            "heaplab_teach",
            "teaching mode's module, loaded when it opens",
        ),
        (
            "heaplab_mm",
            "the allocator-module runner, loaded when one is used",
        ),
    ] {
        let bytes = tools::wasm_size(root, name)?;
        println!("{name}_bg.wasm: {bytes} bytes");
        let row = Row::new(
            "wasm size",
            format!("{what}, `{name}_bg.wasm`"),
            format!("{} B", thousands(bytes)),
        );
        rows.push(if name == "heaplab_wasm" {
            row.target(
                format!("≤ {} B", thousands(tools::WASM_BUDGET)),
                bytes <= tools::WASM_BUDGET,
            )
        } else {
            row
        });
    }
    Ok(rows)
}
