//! Replays a built-in workload through one policy, decoded before timing, for profilers:
//! `cargo run --release -p heaplab-core --example replay -- churn 0.1 size-class 5`
//! under `perf stat` or `valgrind --tool=callgrind` gives instruction counts that do not
//! depend on what else the machine is doing.
//!
//! Events are applied one at a time with `apply_ref`, as a streamed run applies them; with
//! `BATCH=1` in the environment, with `apply_all` and its look-ahead, as the bench does.
//! `HINT_FROM=n` passes free hints on to the policy from `n` live blocks instead of the
//! simulator's default (see `Simulation::hint_policy_from`), to time what they are worth.

use std::time::Instant;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload;
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let (id, scale, policy) = (arg(0, "churn"), arg(1, "0.1"), arg(2, "size-class"));
    let rounds: u32 = arg(3, "5").parse()?;

    let mut config = RunConfig::new(&id, "bump");
    config.policy = PolicyConfig::named(&policy);
    config
        .workload
        .params
        .insert("scale".into(), Value::from(scale.parse::<f64>()?));
    let config = config.resolve()?;
    let spec = workload::find(&id)?;
    let mut events: Vec<Event> = Vec::new();
    spec.generate(&config.workload_params()?, &mut |e| {
        events.push(e);
        Ok::<(), ()>(())
    })
    .map_err(|()| "generator failed")?;

    let batch = std::env::var_os("BATCH").is_some();
    let start = Instant::now();
    for _ in 0..rounds {
        let mut sim = Simulation::new(&config, sim_provider(&config))?;
        if let Ok(h) = std::env::var("HINT_FROM") {
            sim.hint_policy_from(h.parse().map_err(|e| format!("HINT_FROM={h}: {e}"))?);
        }
        if batch {
            sim.apply_all(&events)?;
        } else {
            for e in &events {
                sim.apply_ref(e)?;
            }
        }
        std::hint::black_box(sim.finish());
    }
    let secs = start.elapsed().as_secs_f64();
    let n = events.len() as f64 * f64::from(rounds);
    println!(
        "{id} x{rounds} through {policy}: {} events, {:.1} M events/s, {:.1} ns/event",
        events.len(),
        n / secs / 1e6,
        secs * 1e9 / n
    );
    Ok(())
}
