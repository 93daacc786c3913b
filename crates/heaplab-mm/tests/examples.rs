//! The example allocators, built with clang and run through heaplab's simulator.

use std::path::PathBuf;
use std::sync::Arc;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::run::run;
use heaplab_mm::compile::{build, BuildRequest, EXAMPLES};
use heaplab_mm::AllocatorModule;
use serde_json::Value;

/// Builds an example allocator (or any C source) and registers it; its SHA-256.
pub fn module(name: &str, source: &str) -> Arc<AllocatorModule> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mm-examples");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let wasm = dir.join(format!("{name}.wasm"));
    build(&BuildRequest {
        sources: vec![c],
        output: wasm.clone(),
        flags: vec![],
    })
    .unwrap_or_else(|e| panic!("building {name}: {e}"));
    let bytes = std::fs::read(&wasm).unwrap();
    AllocatorModule::new(&format!("{name}.wasm"), &bytes)
        .unwrap()
        .register()
}

fn example(name: &str) -> Arc<AllocatorModule> {
    let (_, source) = EXAMPLES.iter().find(|(n, _)| *n == name).unwrap();
    module(name, source)
}

fn config(m: &AllocatorModule, workload: &str, scale: f64) -> RunConfig {
    let mut config = RunConfig::new(workload, "bump");
    config.policy = PolicyConfig::named("module");
    config
        .policy
        .params
        .insert("sha256".into(), Value::from(m.sha256()));
    config
        .workload
        .params
        .insert("scale".into(), Value::from(scale));
    config.resolve().unwrap()
}

#[test]
fn implicit_runs_a_workload_and_its_heap_is_counted_page_by_page() {
    let m = example("implicit");
    let out = run(&config(&m, "churn", 0.01)).unwrap();
    let s = &out.report.summary;
    assert!(s.allocs() > 10_000, "{}", s.allocs());
    assert_eq!(s.allocs(), s.frees());
    // The heap only grows, and every page below the break is committed and resident.
    assert!(s.peak_committed_bytes() >= 4096);
    assert_eq!(s.peak_committed_bytes(), s.peak_resident_bytes());
    assert_eq!(out.report.config.policy.label(), "implicit.wasm");
}

#[test]
fn naive_never_reuses_so_its_heap_grows_with_every_allocation() {
    let naive = example("naive");
    let implicit = example("implicit");
    let a = run(&config(&naive, "churn", 0.01)).unwrap().report.summary;
    let b = run(&config(&implicit, "churn", 0.01))
        .unwrap()
        .report
        .summary;
    assert!(
        a.peak_committed_bytes() > 20 * b.peak_committed_bytes(),
        "naive {} against implicit {}",
        a.peak_committed_bytes(),
        b.peak_committed_bytes()
    );
}
