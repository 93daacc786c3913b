//! The simulator's own memory on a long run: `rounds` runs of the `parametric` workload
//! (2 million steps each, live memory rising to 1 GiB and held there with random frees)
//! streamed one after the other into one simulation, never collected. Prints the events,
//! the simulated heap's touched and peak resident bytes, and this process's peak resident
//! memory (Linux's `VmHWM`), which must stay under 200 MB for 10 million events over 1 GiB
//! (issue 3):
//!
//! `cargo run --release -p heaplab-core --example memory -- size-class 5`

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload;
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let policy = args.first().map_or("size-class", String::as_str);
    let rounds: u64 = args.get(1).map_or(Ok(5), |r| r.parse())?;

    let mut sim = None;
    let mut offset = 0u64;
    let mut events = 0u64;
    for round in 0..rounds {
        let mut config = RunConfig::new("parametric", "bump");
        config.policy = PolicyConfig::named(policy);
        for (k, v) in [
            ("seed", Value::from(round + 1)),
            ("scale", Value::from(10.0)),
            ("peak_live", Value::from(1u64 << 30)),
            ("mean_size", Value::from(1024)),
            ("max_size", Value::from(16384)),
        ] {
            config.workload.params.insert(k.into(), v);
        }
        let config = config.resolve()?;
        let sim = match &mut sim {
            Some(sim) => sim,
            None => sim.insert(Simulation::new(&config, sim_provider(&config))?),
        };
        let spec = workload::find("parametric")?;
        // Each round numbers its blocks from 0; shifting them keeps ids unique over the run.
        let mut last = 0;
        spec.generate(&config.workload_params()?, &mut |e| {
            events += 1;
            let e = match e {
                Event::Alloc {
                    id,
                    size,
                    align,
                    arena,
                    thread,
                } => {
                    last = last.max(id);
                    Event::Alloc {
                        id: id + offset,
                        size,
                        align,
                        arena,
                        thread,
                    }
                }
                Event::Free { id, thread } => Event::Free {
                    id: id + offset,
                    thread,
                },
                other => other,
            };
            sim.apply(e)
        })?;
        offset += last + 1;
    }
    let (summary, _) = sim.ok_or("no rounds")?.finish();
    println!(
        "{policy}, {rounds} rounds: {events} events, touched {:.2} GiB, peak resident {:.2} GiB, \
         peak live {:.2} GiB; simulator's peak RSS {}",
        summary.touched_bytes as f64 / (1u64 << 30) as f64,
        summary.peak_resident_bytes as f64 / (1u64 << 30) as f64,
        summary.peak_live_bytes as f64 / (1u64 << 30) as f64,
        peak_rss().map_or("unknown (no /proc/self/status)".into(), |kb| format!(
            "{:.1} MB",
            kb as f64 / 1000.0
        )),
    );
    Ok(())
}

/// The process's peak resident memory in kB, from Linux's `/proc/self/status`.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
