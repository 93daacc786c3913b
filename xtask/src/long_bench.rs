//! Long runs in `cargo xtask bench`: what a run of millions of events costs when it goes
//! on and on, in the three places a person makes one.
//!
//! - Natively: `tree_churn` streamed into one simulation (the `long_run` example of
//!   heaplab-core), whose time per event must stay steady, its last tenth within 20% of
//!   its first, and whose memory must stay flat.
//! - Over real memory: every MallocBench port replayed by `heaplab run --real` under a
//!   preset of every family, each block's bytes checked as it dies and the pages resident
//!   compared with the simulation's page for page.
//! - In the page: a recorded Python program streamed with three configurations
//!   (`web/bench/stream.mjs`), against `heaplab run` of the same three, with the most the
//!   tab's renderer held.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::report::{count, node_rows, Row};
use crate::{cargo, run_cmd, serve, target_dir};

/// The policies the native long run streams into: one of each kind of bookkeeping whose
/// cost could grow with a run (size classes, buddy orders, glibc's bins and top chunk).
const LONG_RUN_POLICIES: [&str; 3] = ["size-class", "buddy", "glibc-like"];

/// A preset of every family, and jemalloc-like beside mimalloc-like: the replay over real
/// pages differs by family, not by a family's settings.
const REAL_PRESETS: [&str; 6] = [
    "glibc-like",
    "llvm-bump",
    "mimalloc-like",
    "jemalloc-like",
    "buddy",
    "pike-block",
];

/// Every long-run area, in the order above. The browser area expects `bench.rs` to have
/// built the release CLI, the wasm and Chromium.
pub fn run(root: &Path, bin: &Path, quick: bool) -> Result<Vec<Row>> {
    let mut rows = native(root, quick)?;
    rows.push(real(bin, quick)?);
    rows.extend(stream(root, bin, quick)?);
    Ok(rows)
}

/// `tree_churn` at scale 3 is 102 million events; the quick sizes take a tenth.
fn native(root: &Path, quick: bool) -> Result<Vec<Row>> {
    let scale = if quick { "0.3" } else { "3" };
    let mut rows = Vec::new();
    for policy in LONG_RUN_POLICIES {
        let mut example = cargo();
        example.args([
            "run",
            "--release",
            "-q",
            "-p",
            "heaplab-core",
            "--example",
            "long_run",
            "--",
            policy,
            scale,
        ]);
        rows.extend(node_rows(root, &mut example, "long-run", quick)?);
    }
    Ok(rows)
}

/// Every MallocBench port at its default scale (a tenth of it at the quick sizes) under
/// each of [`REAL_PRESETS`]: how many runs read their every block back intact and kept the
/// simulation's pages resident, page for page.
fn real(bin: &Path, quick: bool) -> Result<Row> {
    let ports = mallocbench_ports(bin)?;
    let (mut runs, mut matched, mut events) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for port in &ports {
        let mut args = vec!["run", "--real", "--repeat", "1", "-w", port.id.as_str()];
        let scale = format!("{}", port.scale / 10.0);
        if quick {
            args.extend(["--scale", scale.as_str()]);
        }
        for preset in REAL_PRESETS {
            args.extend(["-p", preset]);
        }
        args.push("--json");
        let out = Command::new(bin)
            .args(&args)
            .output()
            .with_context(|| format!("running {}", bin.display()))?;
        runs += REAL_PRESETS.len() as u64;
        if !out.status.success() {
            // A block read back wrong stops the replay with an error naming it.
            failures.push(format!(
                "{}: {}",
                port.id,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let reports: Vec<Value> = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("reading `heaplab {}`", args.join(" ")))?;
        for r in &reports {
            events += r["events"].as_u64().unwrap_or(0);
            if r["matches_simulation"] == Value::Bool(true) {
                matched += 1;
            } else {
                failures.push(format!(
                    "{} under {}",
                    port.id, r["config"]["policy"]["preset"]
                ));
            }
        }
    }
    for failure in &failures {
        eprintln!("real replay: {failure}");
    }
    let scale = if quick {
        "a tenth of the default scale"
    } else {
        "the default scale"
    };
    Ok(Row::new(
        "long runs",
        format!(
            "`run --real`: {} MallocBench ports at {scale} × {} presets ({}), runs whose \
             every block read back intact and whose resident pages equalled the \
             simulation's",
            ports.len(),
            REAL_PRESETS.len(),
            count(events as f64)
        ),
        format!("{matched} of {runs}"),
    )
    .target("all", matched == runs && runs > 0))
}

/// A built-in workload that ports a MallocBench program, with its default scale.
struct Port {
    id: String,
    scale: f64,
}

/// The MallocBench ports, as `heaplab workloads` lists them.
fn mallocbench_ports(bin: &Path) -> Result<Vec<Port>> {
    let out = Command::new(bin)
        .args(["workloads", "--json"])
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let listed: Value =
        serde_json::from_slice(&out.stdout).context("reading `heaplab workloads --json`")?;
    let mut ports = Vec::new();
    for w in listed["workloads"].as_array().into_iter().flatten() {
        if !w["title"]
            .as_str()
            .is_some_and(|t| t.ends_with("(MallocBench)"))
        {
            continue;
        }
        let scale = w["params"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == "scale")
            .and_then(|p| p["default"].as_f64())
            .context("a MallocBench port without a scale")?;
        ports.push(Port {
            id: w["id"].as_str().unwrap_or_default().to_string(),
            scale,
        });
    }
    if ports.is_empty() {
        bail!("`heaplab workloads` lists no MallocBench port");
    }
    Ok(ports)
}

/// `web/bench/churn-dicts.py` recorded with every allocation going through malloc
/// (`PYTHONMALLOC=malloc`), then streamed through the page.
fn stream(root: &Path, bin: &Path, quick: bool) -> Result<Vec<Row>> {
    run_cmd(
        cargo().args(["build", "--release", "-p", "heaplab-preload"]),
        root,
    )?;
    let dir = target_dir(root).join("bench");
    std::fs::create_dir_all(&dir)?;
    let rounds = if quick { "1" } else { "6" };
    let trace = dir.join(format!("churn-dicts-{rounds}.trace"));
    if !trace.exists() {
        // The interpreter itself rather than `python3` on the PATH, which may be a shim (a
        // pyenv one is a shell script) whose own processes would be recorded beside it.
        let python =
            crate::probe(Command::new("python3").args(["-c", "import sys; print(sys.executable)"]))
                .context("python3 is needed to record web/bench/churn-dicts.py")?;
        run_cmd(
            Command::new(bin)
                .args(["record", "-o"])
                .arg(&trace)
                .args(["--", python.trim(), "web/bench/churn-dicts.py", rounds])
                .env("PYTHONMALLOC", "malloc"),
            root,
        )?;
    }
    let addr = serve::spawn_on_free_port(&root.join("web"))?;
    let mut bench = Command::new("node");
    bench
        .arg("web/bench/stream.mjs")
        .arg(&trace)
        .env("HEAPLAB_URL", format!("http://{addr}/"))
        .env("HEAPLAB_BIN", bin);
    node_rows(root, &mut bench, "stream", quick)
}
