//! Both ends of the `baseline-child` process are here: it measures one real allocator alone.
//!
//! The parent runs this binary again with one allocator and the resolved workload as JSON,
//! once per run, and the child prints its report back as one line of JSON. `baseline`,
//! `fidelity` and `compare --allocators` measure each allocator this way, so that the
//! child's resident set holds one allocator's heap and nothing left over from another, and
//! so that a library can be preloaded into the child alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use heaplab_native::{BaselineReport, RealAllocator};

use crate::error::CliError;

/// This binary, to run again as the child.
pub fn heaplab_exe() -> Result<PathBuf, CliError> {
    std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find the heaplab binary to re-run: {e}")))
}

/// Runs one allocator on a workload (`spec`, the resolved workload as JSON) `repeat` times,
/// each run in a fresh child process, and gives their figures together: each run starts
/// from an allocator that has seen nothing else, so the spread between runs is the
/// machine's and the allocator's own, not what an earlier run left behind.
pub fn run_baseline(
    exe: &Path,
    a: &RealAllocator,
    spec: &str,
    repeat: usize,
) -> Result<BaselineReport, CliError> {
    let preload = preload_file(a)?;
    let mut reports = Vec::new();
    for _ in 0..repeat.max(1) {
        reports.push(run_child(exe, a, preload.as_deref(), spec)?);
    }
    BaselineReport::merge(reports)
        .ok_or_else(|| CliError::failed(format!("baseline {a}: no run was made")))
}

/// The file to give `LD_PRELOAD` for a preloaded allocator, made absolute (the dynamic
/// loader looks a bare name up in its own paths, not here); a missing one is refused
/// here, since the loader would only warn and run with glibc.
fn preload_file(a: &RealAllocator) -> Result<Option<PathBuf>, CliError> {
    let Some(path) = a.preload_path() else {
        return Ok(None);
    };
    if !cfg!(target_os = "linux") {
        return Err(CliError::input(format!(
            "--allocator {a}: preloading an allocator library needs Linux"
        )));
    }
    let file = std::fs::canonicalize(path)
        .map_err(|e| CliError::input(format!("--allocator {a}: {}: {e}", path.display())))?;
    if !file.is_file() {
        return Err(CliError::input(format!(
            "--allocator {a}: {} is not a file",
            path.display()
        )));
    }
    Ok(Some(file))
}

/// One run in a child process: `exe` (this binary) with the hidden `baseline-child`
/// subcommand, and `preload` in its `LD_PRELOAD`. The child's error comes back as this
/// error, with the child's exit code.
fn run_child(
    exe: &Path,
    a: &RealAllocator,
    preload: Option<&Path>,
    spec: &str,
) -> Result<BaselineReport, CliError> {
    let mut command = Command::new(exe);
    command
        .args(["baseline-child", "--allocator", &a.id(), "--workload", spec])
        .env(heaplab_native::own_heap::ENTER_AT_START, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(file) = preload {
        command.env("LD_PRELOAD", file);
    }
    // Registered for Ctrl-C, which kills it; its output is piped back whole.
    let child = crate::interrupt::spawn(&mut command)
        .map_err(|e| CliError::failed(format!("{}: cannot start the child: {e}", exe.display())))?;
    let out = crate::interrupt::wait_output(child)
        .map_err(|e| CliError::failed(format!("{}: waiting for the child: {e}", exe.display())))?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let msg = msg.trim().trim_start_matches("error: ");
        let code = out.status.code().unwrap_or(1).clamp(1, 255) as u8;
        return Err(CliError {
            code,
            message: format!("baseline {a}: {msg}"),
        });
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| CliError::failed(format!("baseline {a}: the child's report is not JSON: {e}")))
}

/// The child's side: its report on standard output, for `run_child` to read.
pub fn send_report(report: &BaselineReport) -> Result<(), CliError> {
    let text = serde_json::to_string(report).map_err(|e| CliError::failed(e.to_string()))?;
    println!("{text}");
    Ok(())
}
