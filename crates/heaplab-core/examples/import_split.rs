//! Where trace import's time goes: a trace file read, parsed and checked with the events
//! dropped (the importer alone), then decoded into memory and replayed with `size-class`
//! (the simulator alone, the floor `heaplab run -w FILE` cannot go below), three rounds.
//!
//! `cargo run --release -p heaplab-core --example import_split -- FILE`; BENCHMARKS.md
//! quotes it beside `cargo xtask bench`'s end-to-end figures.

use std::time::Instant;

use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::trace;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: import_split FILE");
        std::process::exit(2);
    };
    let open = || std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut config = RunConfig::new("trace", "size-class");
    config.workload = WorkloadConfig::trace(path.clone());
    let config = config.resolve().unwrap();
    let mut events = Vec::new();
    trace::read(open(), &path, &mut |e: Event| {
        events.push(e);
        Ok::<(), String>(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let n = events.len() as f64;
    let rate = |s: f64| format!("{:.1} M events/s", n / s / 1e6);
    for round in 1..=3 {
        let t = Instant::now();
        let mut read = 0u64;
        trace::read(open(), &path, &mut |_: Event| {
            read += 1;
            Ok::<(), String>(())
        })
        .unwrap();
        let import = t.elapsed().as_secs_f64();
        let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
        let t = Instant::now();
        sim.apply_all(&events).unwrap();
        let replay = t.elapsed().as_secs_f64();
        assert_eq!(sim.finish().0.events(), read);
        println!(
            "round {round}: read, parse and check {import:.3} s ({}); simulate alone {replay:.3} s ({})",
            rate(import),
            rate(replay)
        );
    }
}
