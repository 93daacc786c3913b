//! The simulator's own memory on a long run: `rounds` runs of the `parametric` workload
//! (2 million steps each, live memory rising to 1 GiB and held there with random frees)
//! streamed one after the other into one simulation, never collected. Prints the events,
//! the simulated heap's touched and peak resident bytes, and this process's peak resident
//! memory (Linux's `VmHWM`), which must stay under 200 MB for 10 million events over 1 GiB
//! (a target in BENCHMARKS.md):
//!
//! `cargo run --release -p heaplab-core --example memory -- size-class 5`

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let policy = args.first().map_or("size-class", String::as_str);
    let rounds: u64 = args.get(1).map_or(Ok(5), |r| r.parse())?;

    let mut config = RunConfig::new("parametric", "bump");
    config.policy = PolicyConfig::named(policy);
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    let mut events = 0u64;
    workload::gibibyte_rounds(rounds, &mut |e| {
        events += 1;
        sim.apply(e)
    })?;
    let (summary, _) = sim.finish();
    println!(
        "{policy}, {rounds} rounds: {events} events, touched {:.2} GiB, peak resident {:.2} GiB, \
         peak live {:.2} GiB; simulator's peak RSS {}",
        summary.touched_bytes() as f64 / (1u64 << 30) as f64,
        summary.peak_resident_bytes() as f64 / (1u64 << 30) as f64,
        summary.peak_live_bytes() as f64 / (1u64 << 30) as f64,
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
