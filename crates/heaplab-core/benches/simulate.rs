//! Simulator speed: events per second through each family, on events decoded before
//! timing and replayed with `Simulation::apply_all` (which fetches a freed block's slot a
//! few events ahead), and how time per event grows with the number of live blocks.
//!
//! `cargo bench -p heaplab-core --bench simulate`; `cargo xtask bench` reads criterion's
//! estimates into its report, which BENCHMARKS.md quotes. With `HEAPLAB_BENCH_QUICK` set
//! (`cargo xtask bench --quick`) every size is a tenth or less and each benchmark samples
//! for well under a second, so the same figures come in seconds, not minutes.

use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
    SamplingMode, Throughput,
};
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

/// Whether `cargo xtask bench --quick` asked for the quick sizes.
fn quick() -> bool {
    std::env::var_os("HEAPLAB_BENCH_QUICK").is_some()
}

/// Ten samples of `secs` each group (the least criterion takes); at the quick sizes a
/// tenth of a second to warm up and half a second to sample, one or more whole
/// iterations a sample (flat sampling), since linear sampling would run at least 55.
fn sampling(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, secs: u64) {
    g.sample_size(10);
    if quick() {
        g.sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(500));
    } else {
        g.measurement_time(Duration::from_secs(secs));
    }
}

fn throughput(c: &mut Criterion) {
    let (churn, tree_churn) = if quick() { (0.01, 0.002) } else { (0.1, 0.01) };
    for (name, events) in [
        ("churn", workload_events("churn", churn)),
        ("tree_churn", workload_events("tree_churn", tree_churn)),
    ] {
        let mut g = c.benchmark_group(format!("events/{name}"));
        g.throughput(Throughput::Elements(events.len() as u64));
        sampling(&mut g, 5);
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

/// Rounds of free + alloc each steady-state benchmark times.
fn steps() -> u64 {
    if quick() {
        20_000
    } else {
        200_000
    }
}

/// Best fit in a steady state of 100,000 live blocks (10,000 at the quick sizes): the
/// target (BENCHMARKS.md) is 10 M events/s.
fn best_fit(c: &mut Criterion) {
    let steps = steps();
    let live = if quick() { 10_000 } else { 100_000 };
    let (fill, churn) = steady_state(live, steps, 1);
    let cfg = config("free-list", &[]);
    let mut g = c.benchmark_group("best-fit");
    g.throughput(Throughput::Elements(2 * steps));
    sampling(&mut g, 8);
    g.bench_function(format!("{live}-live"), |b| {
        time_churn(b, &cfg, &fill, &churn)
    });
    g.finish();
}

/// Time per steady-state event with 10,000 and with 1,000,000 live blocks (1,000 and
/// 100,000 at the quick sizes): no operation may be linear in live or free blocks, so
/// the ratio must stay small.
fn scaling(c: &mut Criterion) {
    let steps = steps();
    let mut g = c.benchmark_group("live-blocks");
    g.throughput(Throughput::Elements(2 * steps));
    sampling(&mut g, 8);
    let sizes: [u64; 2] = if quick() {
        [1_000, 100_000]
    } else {
        [10_000, 1_000_000]
    };
    for live in sizes {
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
