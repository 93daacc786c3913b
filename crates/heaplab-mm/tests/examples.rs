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

/// Every example's own heap check passes throughout a run, and the free blocks it reports
/// to the block map lie in the heap and miss every live block.
#[test]
fn each_examples_heap_walk_holds_and_its_free_blocks_miss_the_live_ones() {
    use heaplab_core::simulate::{sim_provider, Simulation};
    for (name, _) in EXAMPLES {
        let m = example(name);
        let config = config(&m, "random", 1.0);
        let mut events = Vec::new();
        heaplab_core::workload::find("random")
            .unwrap()
            .generate(&config.workload_params().unwrap(), &mut |e| {
                events.push(e);
                Ok::<(), ()>(())
            })
            .unwrap();
        let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
        let mut reported = 0;
        for (i, e) in events.into_iter().enumerate() {
            sim.apply(e).unwrap();
            if i % 97 != 0 {
                continue;
            }
            sim.check_invariants()
                .unwrap_or_else(|e| panic!("{name} at event {}: {e}", i + 1));
            let mut free = Vec::new();
            if !sim.free_pieces(&mut free) {
                continue;
            }
            let mut live: Vec<(u64, u64)> = sim.live().map(|(_, b)| (b.addr, b.size)).collect();
            live.sort();
            for f in &free {
                reported += 1;
                let at = live.partition_point(|&(a, _)| a < f.addr);
                let before = at.checked_sub(1).map(|j| live[j]);
                if let Some((a, n)) = before {
                    assert!(
                        a + n <= f.addr,
                        "{name}: free {f:?} overlaps live [{a:#x}, +{n})"
                    );
                }
                if let Some(&(a, _)) = live.get(at) {
                    assert!(
                        f.addr + f.size <= a,
                        "{name}: free {f:?} overlaps live {a:#x}"
                    );
                }
            }
        }
        if *name != "naive" {
            assert!(reported > 0, "{name} reported no free blocks");
        }
    }
}
