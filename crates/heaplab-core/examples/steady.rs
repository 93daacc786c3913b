//! The steady state of the bench's `live-blocks` group, for profilers: `live` blocks of
//! 16–512 bytes, then `steps` rounds of freeing a random live block and allocating a new
//! one, through one policy. Only the rounds are timed; under `valgrind --tool=callgrind`,
//! compare a run with `steps` against one with twice as many to cancel out the fill:
//!
//! `cargo run --release -p heaplab-core --example steady -- buddy 1000000 200000`

use std::time::Instant;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The same events as `steady()` in `benches/simulate.rs`, seed and all.
fn steady(live: u64, steps: u64, seed: u64) -> (Vec<Event>, Vec<Event>) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let fill: Vec<Event> = (0..live)
        .map(|id| Event::alloc(id, rng.random_range(16..512)))
        .collect();
    let mut ids: Vec<u64> = (0..live).collect();
    let mut churn = Vec::with_capacity(2 * steps as usize);
    for next in live..live + steps {
        let slot = rng.random_range(0..ids.len());
        churn.push(Event::free(ids[slot]));
        churn.push(Event::alloc(next, rng.random_range(16..512)));
        ids[slot] = next;
    }
    (fill, churn)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let policy = arg(0, "buddy");
    let live: u64 = arg(1, "1000000").parse()?;
    let steps: u64 = arg(2, "200000").parse()?;

    let mut config = RunConfig::new("churn", "bump");
    config.policy = PolicyConfig::named(&policy);
    let config = config.resolve()?;
    let (fill, churn) = steady(live, steps, 1);
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    for e in &fill {
        sim.apply_ref(e)?;
    }
    let start = Instant::now();
    for e in &churn {
        sim.apply_ref(e)?;
    }
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(sim.finish());
    let n = churn.len() as f64;
    println!(
        "{live} live through {policy}: {} events, {:.1} M events/s, {:.1} ns/event",
        churn.len(),
        n / secs / 1e6,
        secs * 1e9 / n
    );
    Ok(())
}
