//! The steady state of the simulator bench's `live-blocks` and `best-fit` groups, for
//! profilers: `live` blocks of 16–512 bytes, then `steps` rounds of freeing a random live
//! block and allocating a new one.
//!
//! `cargo run --release -p heaplab-core --example steady_state -- size-class 1000000 200000`
//! prints the time per event of the rounds alone (the fill is not counted); under
//! `valgrind --tool=callgrind` run it with `steps` 0 and with `steps` N and subtract.

use std::time::Instant;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let policy = arg(0, "size-class");
    let live: u64 = arg(1, "1000000").parse()?;
    let steps: u64 = arg(2, "200000").parse()?;

    // The same events as `steady()` in benches/simulate.rs, seed 1.
    let mut rng = Pcg64Mcg::seed_from_u64(1);
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

    let mut config = RunConfig::new("churn", "bump");
    config.policy = PolicyConfig::named(&policy);
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    for e in &fill {
        sim.apply_ref(e)?;
    }
    let start = Instant::now();
    if std::env::var_os("ONE_BY_ONE").is_some() {
        for e in &churn {
            sim.apply_ref(e)?;
        }
    } else {
        sim.apply_all(&churn)?;
    }
    let secs = start.elapsed().as_secs_f64();
    let n = churn.len().max(1) as f64;
    println!(
        "{policy}, {live} live, {} events: {:.1} M events/s, {:.1} ns/event",
        churn.len(),
        n / secs / 1e6,
        secs * 1e9 / n
    );
    std::hint::black_box(sim.finish());
    Ok(())
}
