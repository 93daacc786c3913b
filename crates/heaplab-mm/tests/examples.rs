//! The example allocators, built with clang and run through heaplab's simulator.

mod common;

use std::sync::Arc;

use heaplab_core::run::run;
use heaplab_mm::compile::EXAMPLES;
use heaplab_mm::AllocatorModule;
use serde_json::Value;

fn example(name: &str) -> Arc<AllocatorModule> {
    let (_, source) = EXAMPLES.iter().find(|(n, _)| *n == name).unwrap();
    common::module(name, source, &[])
}

fn config(m: &AllocatorModule, workload: &str, scale: f64) -> heaplab_core::config::RunConfig {
    let mut config = common::config(m, workload, &[]);
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
