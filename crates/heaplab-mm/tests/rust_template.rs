//! The Rust template (`examples/mm-rust`) builds for wasm32 and passes every check.

use std::path::PathBuf;
use std::process::Command;

use heaplab_mm::score::{score, CheckOptions};
use heaplab_mm::AllocatorModule;

#[test]
fn the_rust_template_builds_and_passes_mm_check() {
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/mm-rust/Cargo.toml"
    );
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mm-rust-target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "--manifest-path",
        ])
        .arg(manifest)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the template (rustup target add wasm32-unknown-unknown if it is missing):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wasm = target.join("wasm32-unknown-unknown/release/mm_rust.wasm");
    let m = AllocatorModule::new("mm_rust.wasm", &std::fs::read(wasm).unwrap())
        .unwrap()
        .register();
    let inputs: Vec<_> = heaplab_mm::score::DEFAULT_WORKLOADS
        .iter()
        .map(|w| {
            heaplab_mm::score::Input::Workload(heaplab_core::config::WorkloadConfig {
                id: w.to_string(),
                params: Default::default(),
                path: None,
            })
        })
        .collect();
    let s = score(&m, &inputs, &CheckOptions::default(), &|f| {
        f();
        1.0
    });
    for t in &s.traces {
        assert!(t.valid, "{}: {:?}", t.trace, t.error);
    }
    // Its large blocks grow in place at the end of the heap, so realloc keeps a fair share.
    let realloc = s.traces.iter().find(|t| t.trace == "realloc").unwrap();
    assert!(realloc.util > 0.3, "realloc util {}", realloc.util);
}
