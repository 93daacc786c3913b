//! Simulator speed: events per second through each family, on events decoded before
//! timing and replayed with `Simulation::apply_all` (which fetches a freed block's slot a
//! few events ahead), and how time per event grows with the number of live blocks.
//!
//! `cargo bench -p heaplab-core --bench simulate`; figures and ratios go in BENCHMARKS.md.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload::{self, steady_state};
use serde_json::Value;

fn config(family: &str, params: &[(&str, Value)]) -> RunConfig {
    let mut c = RunConfig::new("churn", family);
    for (k, v) in params {
        c.policy.params.insert(k.to_string(), v.clone());
    }
    c.resolve().expect("bench configs are valid")
}

fn workload_events(id: &str, scale: f64) -> Vec<Event> {
    let spec = workload::find(id).unwrap();
    let mut c = RunConfig::new(id, "bump");
    c.workload.params.insert("scale".into(), Value::from(scale));
    let params = c.workload_params().unwrap();
    let mut events = Vec::new();
    spec.generate(&params, &mut |e| {
        events.push(e);
        Ok::<(), ()>(())
    })
    .unwrap();
    events
}

fn replay(c: &RunConfig, events: &[Event]) -> u64 {
    let mut sim = Simulation::new(c, sim_provider(c)).unwrap();
    sim.apply_all(events).unwrap();
    sim.finish().0.events()
}

fn families() -> Vec<(&'static str, RunConfig)> {
    vec![
        ("bump", config("bump", &[])),
        ("size-class", config("size-class", &[])),
        ("free-list-best", config("free-list", &[])),
        (
            "free-list-first",
            config("free-list", &[("fit", Value::from("first"))]),
        ),
        ("buddy", config("buddy", &[])),
    ]
}

fn throughput(c: &mut Criterion) {
    for (name, events) in [
        ("churn", workload_events("churn", 0.1)),
        ("tree_churn", workload_events("tree_churn", 0.01)),
    ] {
        let mut g = c.benchmark_group(format!("events/{name}"));
        g.throughput(Throughput::Elements(events.len() as u64));
        g.sample_size(10).measurement_time(Duration::from_secs(5));
        for (family, cfg) in families() {
            g.bench_function(family, |b| b.iter(|| replay(&cfg, &events)));
        }
        g.finish();
    }
}

/// A simulation that has applied `events`, for timing what comes after.
fn filled(cfg: &RunConfig, events: &[Event]) -> Simulation<heaplab_core::provider::SimProvider> {
    let mut sim = Simulation::new(cfg, sim_provider(cfg)).unwrap();
    sim.apply_all(events).unwrap();
    sim
}

/// Times `churn` applied to a heap filled with `fill`, the filling left out of the time.
fn time_churn(b: &mut criterion::Bencher<'_>, cfg: &RunConfig, fill: &[Event], churn: &[Event]) {
    b.iter_batched(
        || filled(cfg, fill),
        |mut sim| {
            sim.apply_all(churn).unwrap();
            sim
        },
        BatchSize::PerIteration,
    )
}

/// Best fit in a steady state of 100,000 live blocks: the target (BENCHMARKS.md) is 10 M
/// events/s.
fn best_fit(c: &mut Criterion) {
    let steps = 200_000;
    let (fill, churn) = steady_state(100_000, steps, 1);
    let cfg = config("free-list", &[]);
    let mut g = c.benchmark_group("best-fit");
    g.throughput(Throughput::Elements(2 * steps));
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("100000-live", |b| time_churn(b, &cfg, &fill, &churn));
    g.finish();
}

/// Time per steady-state event with 10,000 and with 1,000,000 live blocks: no operation
/// may be linear in live or free blocks, so the ratio must stay small.
fn scaling(c: &mut Criterion) {
    let steps = 200_000;
    let mut g = c.benchmark_group("live-blocks");
    g.throughput(Throughput::Elements(2 * steps));
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for live in [10_000u64, 1_000_000] {
        let (fill, churn) = steady_state(live, steps, 1);
        for (family, cfg) in families() {
            g.bench_with_input(BenchmarkId::new(family, live), &live, |b, _| {
                time_churn(b, &cfg, &fill, &churn)
            });
        }
    }
    g.finish();
}

criterion_group!(benches, throughput, best_fit, scaling);
criterion_main!(benches);
