//! These helpers, shared by every CLI test binary, run `heaplab` and read its JSON.

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the `heaplab` binary Cargo built for these tests. The page's address a developer
/// may keep in `HEAPLAB_BASE_URL` is left out, so links start as the tests expect.
pub fn heaplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .env_remove("HEAPLAB_BASE_URL")
        .args(args)
        .output()
        .expect("heaplab runs")
}

/// Runs the `heaplab` binary in `dir`, for what depends on the current folder.
#[allow(dead_code)] // Not every test binary that shares this module runs in a folder.
pub fn heaplab_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .env_remove("HEAPLAB_BASE_URL")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("heaplab runs")
}

/// The JSON a successful run printed; fails the test with its stderr otherwise.
#[allow(dead_code)] // Not every test binary that shares this module reads JSON.
pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}
