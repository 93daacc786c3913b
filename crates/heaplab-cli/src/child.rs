//! Both ends of the `baseline-child` process are here: it measures one real allocator alone.
//!
//! The parent runs this binary again with one allocator and the resolved workload as JSON,
//! and the child prints its report back as one line of JSON. `baseline` and `fidelity`
//! measure each allocator this way, so that the child's resident set holds one
//! allocator's heap and nothing left over from another.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use heaplab_native::{BaselineReport, RealAllocator};

use crate::error::CliError;

/// This binary, to run again as the child.
pub fn heaplab_exe() -> Result<PathBuf, CliError> {
    std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find the heaplab binary to re-run: {e}")))
}

/// Runs one allocator on a workload (`spec`, the resolved workload as JSON) in a child
/// process: `exe` (this binary) with the hidden `baseline-child` subcommand. The child's
/// error comes back as this error, with the child's exit code.
pub fn run_child(
    exe: &Path,
    a: RealAllocator,
    spec: &str,
    repeat: usize,
) -> Result<BaselineReport, CliError> {
    // Registered for Ctrl-C, which kills it; its output is piped back whole.
    let child = crate::interrupt::spawn(
        Command::new(exe)
            .args(["baseline-child", "--allocator", a.id(), "--workload", spec])
            .args(["--repeat", &repeat.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
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
