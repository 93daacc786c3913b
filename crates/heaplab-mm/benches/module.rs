//! What heaplab adds to an allocator module's own time: `implicit` (the example) replays
//! a 1,000,000-event workload alone, its calls made straight into the interpreter with
//! no checks and no page accounting, and then as `heaplab run -p implicit.wasm` runs it,
//! through the simulator with every payload checked.
//!
//! `cargo bench -p heaplab-mm --bench module`; `cargo xtask bench` reads criterion's
//! estimates into its report, which BENCHMARKS.md quotes. With `HEAPLAB_BENCH_QUICK` set
//! (`cargo xtask bench --quick`) the workload is a fifth as long and sampled for half a
//! second.

use std::collections::HashMap;
use std::path::PathBuf;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::params::Params;
use heaplab_core::policy::hosted::{self, HeapChanges, HostedHeap, Knobs};
use heaplab_core::run::run;
use heaplab_mm::compile::{build, BuildRequest, EXAMPLES};
use heaplab_mm::{Allocator, AllocatorModule};
use serde_json::Value;

/// Whether `cargo xtask bench --quick` asked for the quick sizes.
fn quick() -> bool {
    std::env::var_os("HEAPLAB_BENCH_QUICK").is_some()
}

/// `churn` at scale 0.0715 is 1,001,002 events with at most two blocks live: every call
/// is the allocator's fast path, so what heaplab adds per call shows most.
fn workload() -> (&'static str, f64) {
    ("churn", if quick() { 0.0143 } else { 0.0715 })
}

struct NoPages;

impl HeapChanges for NoPages {
    fn grew(&mut self, _: u64) -> Result<(), String> {
        Ok(())
    }
    fn decommitted(&mut self, _: u64, _: u64) -> Result<(), String> {
        Ok(())
    }
    fn committed(&mut self, _: u64, _: u64) -> Result<(), String> {
        Ok(())
    }
}

fn module() -> std::sync::Arc<AllocatorModule> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mm-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let (_, source) = EXAMPLES.iter().find(|(n, _)| *n == "implicit").unwrap();
    let c = dir.join("implicit.c");
    std::fs::write(&c, source).unwrap();
    let wasm = dir.join("implicit.wasm");
    build(&BuildRequest {
        sources: vec![c],
        output: wasm.clone(),
        flags: vec![],
    })
    .unwrap();
    AllocatorModule::new("implicit.wasm", &std::fs::read(wasm).unwrap())
        .unwrap()
        .register()
}

fn config(m: &AllocatorModule) -> RunConfig {
    let (id, scale) = workload();
    let mut config = RunConfig::new(id, "bump");
    config.policy = m.policy_config();
    config
        .workload
        .params
        .insert("scale".into(), Value::from(scale));
    config.resolve().unwrap()
}

/// The events, replayed straight into the module: its own time.
fn alone(m: &std::sync::Arc<AllocatorModule>, events: &[Event]) {
    let mut given = serde_json::Map::new();
    given.insert("sha256".into(), Value::from(m.sha256()));
    given.insert("checks".into(), Value::from(false));
    let params = Params::resolve(hosted::PARAMS, &given.into_iter().collect(), "p").unwrap();
    let mut a = Allocator::new(m.clone(), &Knobs::read(&params)).unwrap();
    let mut live: HashMap<u64, (u64, u64)> = HashMap::new();
    for e in events {
        match *e {
            Event::Alloc { id, size, .. } => {
                let off = a.malloc(size, &mut NoPages).unwrap().unwrap();
                live.insert(id, (off, size));
            }
            Event::Free { id, .. } => {
                let (off, size) = live.remove(&id).unwrap();
                a.free(off, size, &mut NoPages).unwrap();
            }
            Event::Realloc { id, size, .. } => {
                let (off, old) = live[&id];
                let q = a.realloc(off, old, size, &mut NoPages).unwrap().unwrap();
                live.insert(id, (q, size));
            }
            _ => {}
        }
    }
}

fn bench(c: &mut Criterion) {
    let m = module();
    let config = config(&m);
    let mut events = Vec::new();
    heaplab_core::workload::find(workload().0)
        .unwrap()
        .generate(&config.workload_params().unwrap(), &mut |e| {
            events.push(e);
            Ok::<(), ()>(())
        })
        .unwrap();
    let mut g = c.benchmark_group("module");
    g.sample_size(10)
        .throughput(Throughput::Elements(events.len() as u64));
    if quick() {
        // One whole replay a sample: linear sampling would run at least 55.
        g.sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(500));
    }
    g.bench_function("implicit-alone", |b| b.iter(|| alone(&m, &events)));
    g.bench_function("implicit-heaplab-checked", |b| {
        b.iter(|| run(&config).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
