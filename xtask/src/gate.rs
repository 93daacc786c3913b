//! `cargo xtask test`: the one gate that CI and developers run.
//!
//! Steps run cheapest first and stop at the first failure, so a formatting slip is
//! reported in seconds rather than after the wasm build and the browser test.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{cargo, dist, run_cmd, serve, target_dir, tools};

/// The variables that make a snapshot test rewrite its expected file and pass: a gate run
/// with one of them set would check nothing it rewrites.
const REWRITERS: [&str; 3] = ["UPDATE_GOLDEN", "UPDATE_EXPECT", "UPDATE_DOCS"];

pub fn run(root: &Path) -> Result<()> {
    refuse_rewriters(|name| std::env::var_os(name).is_some())?;
    step("formatting");
    run_cmd(cargo().args(["fmt", "--all", "--check"]), root)?;

    step("clippy on the native workspace");
    run_cmd(
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            // Teaching mode's wasm bindings and the page's module runner are behind
            // heaplab-wasm's `teach` and `mm` features.
            "--all-features",
            "--",
            "-D",
            "warnings",
        ]),
        root,
    )?;
    // The wasm crate's browser-only code sits behind `cfg(target_arch = "wasm32")`,
    // which the native clippy run above never sees. On a new machine the target is not
    // installed yet; the web build below would add it, but this step comes first.
    step("clippy on heaplab-wasm for wasm32");
    tools::ensure_wasm_target(root)?;
    run_cmd(
        cargo().args([
            "clippy",
            "-p",
            "heaplab-wasm",
            "--target",
            "wasm32-unknown-unknown",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ]),
        root,
    )?;

    step("unit and integration tests");
    // heaplab-mm's tests build its example allocators with clang.
    tools::ensure_clang(root)?;
    // heaplab-cli's baseline tests preload Debian's allocator libraries.
    tools::ensure_allocator_libraries(root)?;
    run_cmd(
        cargo().args(["test", "--workspace", "--all-features"]),
        root,
    )?;

    step("web build");
    tools::build_wasm(root)?;
    let bytes = tools::wasm_size(root, "heaplab_wasm")?;
    if bytes > tools::WASM_BUDGET {
        bail!(
            "web/pkg/heaplab_wasm_bg.wasm is {bytes} bytes, over the page's budget of {} bytes",
            tools::WASM_BUDGET
        );
    }
    println!(
        "==> the page's WebAssembly is {bytes} bytes, within {}",
        tools::WASM_BUDGET
    );

    // The dist browser test serves this site under a sub-path, as a shared host would.
    step("static site");
    let site = dist::default_out(&target_dir(root));
    dist::write_site(&root.join("web"), &site)?;
    println!("==> the static site is in {}", site.display());

    // The browser test compares the page's reports against the CLI's, so the CLI
    // binary has to exist at a known path.
    step("heaplab CLI for the browser test");
    run_cmd(cargo().args(["build", "-p", "heaplab-cli"]), root)?;
    let heaplab_bin = target_dir(root).join("debug/heaplab");

    step("browser test tooling");
    tools::ensure_chromium(root)?;
    tools::ensure_playwright(root)?;

    step("browser tests");
    let addr = serve::spawn_on_free_port(&root.join("web"))?;
    let url = format!("http://{addr}/");
    println!("==> serving web/ on {url}");
    let tests = browser_tests(root)?;
    println!("==> {}", tests.join(" "));
    // One file at a time: each drives its own browser, and the machine may have two
    // cores.
    run_cmd(
        Command::new("node")
            .args(["--test", "--test-reporter=tap", "--test-concurrency=1"])
            .args(&tests)
            .env("HEAPLAB_URL", &url)
            .env("HEAPLAB_BIN", &heaplab_bin)
            .env("HEAPLAB_DIST", &site),
        root,
    )
    .context("the browser test failed; screenshots are in web/test-results/")?;

    println!("\n==> all checks passed");
    Ok(())
}

/// Refuses to gate while any of [`REWRITERS`] is set (`set` says which are), naming them:
/// snapshots are rewritten on purpose, by a run of their own test, and then read.
fn refuse_rewriters(set: impl Fn(&str) -> bool) -> Result<()> {
    let named: Vec<&str> = REWRITERS.into_iter().filter(|n| set(n)).collect();
    if !named.is_empty() {
        bail!(
            "{} set: the snapshot tests would rewrite their expected files and pass. Unset \
             it, and run the one test that rewrites a snapshot on its own, then read the diff",
            named.join(" and ")
        );
    }
    Ok(())
}

/// Every `web/tests/*.test.mjs`, in name order, relative to the root.
fn browser_tests(root: &Path) -> Result<Vec<String>> {
    let mut tests = Vec::new();
    for entry in std::fs::read_dir(root.join("web/tests")).context("reading web/tests")? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".test.mjs") {
            tests.push(format!("web/tests/{name}"));
        }
    }
    tests.sort();
    if tests.is_empty() {
        anyhow::bail!("no browser tests (web/tests/*.test.mjs) found");
    }
    Ok(tests)
}

fn step(name: &str) {
    println!("\n==> {name}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_refuses_to_run_with_a_snapshot_rewriter_set() {
        assert!(refuse_rewriters(|_| false).is_ok());
        let e = refuse_rewriters(|n| n == "UPDATE_GOLDEN" || n == "UPDATE_DOCS")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("UPDATE_GOLDEN and UPDATE_DOCS set:"), "{e}");
    }
}
