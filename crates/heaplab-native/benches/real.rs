//! Time per event over real memory: the `mimalloc-like` preset over `MmapProvider` (what
//! `heaplab run --real` times) against glibc's malloc, mimalloc and jemalloc replaying the
//! same decoded events (what `heaplab baseline` times), in one run, with the ratios printed
//! at the end. The simulated provider is there too, to show what the model itself costs.
//!
//! `cargo bench -p heaplab-native --bench real -- --noplot`, for a closer look in one
//! process: the report of `cargo xtask bench` (BENCHMARKS.md) quotes `heaplab run --real`
//! and `heaplab baseline`, the commands a person runs.
//! `HEAPLAB_BENCH_WORKLOAD=churn HEAPLAB_BENCH_SCALE=0.02` picks another workload.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::provider::PageProvider;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_native::baseline::{time_once, RealAllocator};
use heaplab_native::{decode, MmapProvider};
use serde_json::Value;

/// Replays the events through the config's policy over `provider`; the clock runs over the
/// events alone, as in `heaplab run --real`.
fn replay_policy<P: PageProvider>(c: &RunConfig, provider: P, events: &[Event]) -> Duration {
    let mut sim = Simulation::new(c, provider).unwrap();
    let start = Instant::now();
    for e in events {
        sim.apply(e.clone()).unwrap();
    }
    let t = start.elapsed();
    drop(sim);
    t
}

fn main() {
    let workload = std::env::var("HEAPLAB_BENCH_WORKLOAD").unwrap_or_else(|_| "tree_churn".into());
    let scale: f64 = std::env::var("HEAPLAB_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.01);
    let mut config = RunConfig::new(&workload, "");
    config.policy = PolicyConfig::named("mimalloc-like");
    config
        .workload
        .params
        .insert("scale".into(), Value::from(scale));
    let config = config.resolve().unwrap();
    let events = decode(&config.workload).unwrap();
    let n = events.len() as f64;

    // Every iteration's ns per event, by case, for the ratios at the end.
    let seen: RefCell<BTreeMap<&'static str, Vec<f64>>> = RefCell::default();
    let record = |case: &'static str, t: Duration| {
        seen.borrow_mut()
            .entry(case)
            .or_default()
            .push(t.as_nanos() as f64 / n);
    };

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut g = c.benchmark_group(format!("real/{workload}@{scale}"));
    g.throughput(Throughput::Elements(events.len() as u64));
    let cases: [(&'static str, &dyn Fn() -> Duration); 5] = [
        ("mimalloc-like over mmap", &|| {
            replay_policy(&config, MmapProvider::new().unwrap(), &events)
        }),
        ("mimalloc-like simulated", &|| {
            replay_policy(&config, sim_provider(&config), &events)
        }),
        ("glibc malloc", &|| {
            time_once(&RealAllocator::System, &events).unwrap()
        }),
        ("mimalloc", &|| {
            time_once(&RealAllocator::Mimalloc, &events).unwrap()
        }),
        ("jemalloc", &|| {
            time_once(&RealAllocator::Jemalloc, &events).unwrap()
        }),
    ];
    for (case, run) in cases {
        g.bench_function(BenchmarkId::from_parameter(case), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let t = run();
                        record(case, t);
                        t
                    })
                    .sum()
            })
        });
    }
    g.finish();
    c.final_summary();

    let medians: BTreeMap<&str, f64> = seen
        .into_inner()
        .into_iter()
        .map(|(case, mut v)| {
            v.sort_by(f64::total_cmp);
            (case, v[v.len() / 2])
        })
        .collect();
    println!(
        "\n{workload} at scale {scale}: {} events, median ns per event over every iteration",
        events.len()
    );
    for (case, ns) in &medians {
        println!("  {case:<26} {ns:8.1} ns/event");
    }
    let over = medians["mimalloc-like over mmap"];
    for base in [
        "mimalloc",
        "glibc malloc",
        "jemalloc",
        "mimalloc-like simulated",
    ] {
        println!(
            "  mimalloc-like over mmap / {base:<24} {:.2}x",
            over / medians[base]
        );
    }
}
