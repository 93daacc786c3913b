//! The steady state of the `best-fit` and `live-blocks` bench groups, for profilers: fill a
//! heap with `live` blocks of 16–512 bytes, then `steps` rounds of freeing a random live
//! block and allocating a new one, all decoded before the clock starts:
//!
//! `cargo run --release -p heaplab-core --example steady -- free-list 100000 200000`
//!
//! The rounds are replayed with `Simulation::apply_all`, as the bench does; with
//! `ONE_BY_ONE=1` in the environment, with `apply_ref` one event at a time, as a streamed
//! run applies them. Under `valgrind --tool=callgrind`, the count with `steps` = 0 taken
//! from the count with `steps` = N, divided by 2N, is the instructions per steady-state
//! event.

use std::time::Instant;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload::steady_state;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let policy = args.first().map_or("free-list", String::as_str);
    let live: u64 = args.get(1).map_or(Ok(100_000), |a| a.parse())?;
    let steps: u64 = args.get(2).map_or(Ok(200_000), |a| a.parse())?;

    let mut config = RunConfig::new("churn", "bump");
    config.policy = PolicyConfig::named(policy);
    let config = config.resolve()?;
    let (fill, churn) = steady_state(live, steps, 1);

    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    for e in &fill {
        sim.apply_ref(e)?;
    }
    let start = Instant::now();
    if std::env::var_os("ONE_BY_ONE").is_some() {
        // As the CLI's streaming runs apply events: no look ahead.
        for e in &churn {
            sim.apply_ref(e)?;
        }
    } else {
        sim.apply_all(&churn)?;
    }
    let secs = start.elapsed().as_secs_f64();
    let summary = sim.finish().0;
    let n = churn.len() as f64;
    println!(
        "{policy}, {live} live, {} churn events: {:.1} M events/s, {:.1} ns/event \
         (peak committed {} bytes)",
        churn.len(),
        n / secs.max(1e-9) / 1e6,
        secs * 1e9 / n.max(1.0),
        summary.peak_committed_bytes()
    );
    Ok(())
}
