//! The page's half of `cargo xtask bench`: builds the wasm and the release CLI, serves
//! `web/`, and runs `web/bench/page.mjs` in headless Chromium, which prints the page
//! against `heaplab run` (events/s and their ratio), first load, a three-configuration
//! comparison and a five-value sweep, each beside its target, and the import bench's
//! 10-million-event trace streamed through the page against `heaplab run`. The size of
//! the wasm file the page downloads comes first, against its budget.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::{cargo, run_cmd, serve, target_dir, tools};

pub fn run(root: &Path) -> Result<()> {
    tools::build_wasm(root)?;
    run_cmd(
        cargo().args(["build", "--release", "-p", "heaplab-cli"]),
        root,
    )?;
    tools::ensure_chromium(root)?;
    tools::ensure_playwright(root)?;
    let bytes = tools::wasm_size(root)?;
    println!(
        "\nthe page's WebAssembly: {bytes} bytes ({:.2} MB; the budget is {:.1} MB)",
        bytes as f64 / 1e6,
        tools::WASM_BUDGET as f64 / 1e6
    );
    let addr = serve::spawn_on_free_port(&root.join("web"))?;
    let mut bench = Command::new("node");
    bench
        .arg("web/bench/page.mjs")
        .env("HEAPLAB_URL", format!("http://{addr}/"))
        .env("HEAPLAB_BIN", target_dir(root).join("release/heaplab"));
    // The import bench's trace, for the page streaming it against `heaplab run`; a
    // `--page` run before any import bench has none, and says so.
    let trace = target_dir(root).join("tmp/tracebench/import-v1.trace");
    if trace.exists() {
        bench.env("HEAPLAB_BENCH_TRACE", trace);
    }
    run_cmd(&mut bench, root)
}
