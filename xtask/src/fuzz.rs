//! `cargo xtask fuzz [--secs N] [TARGET...]`: runs the fuzz targets in `fuzz/` with
//! cargo-fuzz on the nightly toolchain (installing cargo-fuzz when it is missing), each
//! for N seconds (60 by default), growing its corpus in `fuzz/corpus/<target>/`. A crash
//! is copied into `fuzz/regressions/<target>/`, where `cargo test` replays it from then
//! on through the same function (`crates/heaplab-app/tests/fuzz.rs`), and the command
//! fails naming it. Not part of the gate: the gate replays the corpus instead.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::run_cmd;

/// The targets, as `fuzz/Cargo.toml` names them and `heaplab_app::fuzz::TARGETS` lists
/// them.
const TARGETS: [&str; 6] = ["trace", "stream", "link", "config", "vary", "ops"];

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let mut secs = 60u64;
    let mut targets: Vec<&str> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--secs" {
            let value = rest.next().context("`--secs` needs a number of seconds")?;
            secs = value
                .parse()
                .ok()
                .filter(|&s| s > 0)
                .with_context(|| format!("`--secs {value}` is not a number of seconds"))?;
        } else if let Some(t) = TARGETS.iter().find(|t| **t == arg) {
            targets.push(t);
        } else {
            bail!(
                "unexpected argument `{arg}`: the targets are {}",
                TARGETS.join(", ")
            );
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    ensure_cargo_fuzz(root)?;
    let mut found = Vec::new();
    for target in targets {
        println!("\n==> fuzzing {target} for {secs} s");
        let corpus = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus)?;
        let status = Command::new("cargo")
            .args(["+nightly", "fuzz", "run", "-O", target])
            .arg(&corpus)
            .args(["--", &format!("-max_total_time={secs}"), "-timeout=10"])
            .current_dir(root)
            .status()
            .context("running cargo fuzz")?;
        if !status.success() {
            found.extend(keep_crashes(root, target)?);
            if found.is_empty() {
                bail!("cargo fuzz run {target} failed before it found anything");
            }
        }
    }
    if !found.is_empty() {
        bail!(
            "the fuzzer found {} crashing input(s), now regression tests: {}",
            found.len(),
            found.join(", ")
        );
    }
    println!("\n==> no findings");
    Ok(())
}

/// Installs cargo-fuzz for the nightly toolchain unless `cargo +nightly fuzz` runs.
fn ensure_cargo_fuzz(root: &Path) -> Result<()> {
    let there = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if there {
        println!("==> cargo-fuzz is installed");
        return Ok(());
    }
    println!("==> cargo-fuzz is missing, installing it");
    run_cmd(
        Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]),
        root,
    )
}

/// Copies each crash libFuzzer left in `fuzz/artifacts/<target>/` into
/// `fuzz/regressions/<target>/`, answering the copies' paths.
fn keep_crashes(root: &Path, target: &str) -> Result<Vec<String>> {
    let artifacts = root.join("fuzz/artifacts").join(target);
    let regressions = root.join("fuzz/regressions").join(target);
    let mut kept = Vec::new();
    let Ok(entries) = std::fs::read_dir(&artifacts) else {
        return Ok(kept);
    };
    std::fs::create_dir_all(&regressions)?;
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if ["crash-", "oom-", "timeout-"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            let to = regressions.join(&*name);
            std::fs::copy(&path, &to)?;
            kept.push(to.display().to_string());
        }
    }
    Ok(kept)
}
