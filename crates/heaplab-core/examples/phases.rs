use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload;
use serde_json::Value;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (id, scale, policy) = (args[0].clone(), args[1].clone(), args[2].clone());
    let rounds: u32 = args[3].parse()?;
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
    .map_err(|()| "gen")?;
    let cuts: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Phase(_)))
        .map(|(i, _)| i)
        .chain([events.len()])
        .collect();
    let mut t = vec![0f64; cuts.len() + 2];
    for _ in 0..rounds {
        let s = Instant::now();
        let mut sim = Simulation::new(&config, sim_provider(&config))?;
        t[0] += s.elapsed().as_secs_f64();
        for w in 0..cuts.len() - 1 {
            let s = Instant::now();
            sim.apply_all(&events[cuts[w]..cuts[w + 1]])?;
            t[w + 1] += s.elapsed().as_secs_f64();
        }
        let s = Instant::now();
        std::hint::black_box(sim.finish());
        t[cuts.len()] += s.elapsed().as_secs_f64();
    }
    println!("new {:.1} us", t[0] * 1e6 / rounds as f64);
    for w in 0..cuts.len() - 1 {
        let n = cuts[w + 1] - cuts[w];
        println!(
            "phase {w}: {n} events, {:.1} ns/event, {:.1} us",
            t[w + 1] * 1e9 / (n as f64 * rounds as f64),
            t[w + 1] * 1e6 / rounds as f64
        );
    }
    println!("finish+drop {:.1} us", t[cuts.len()] * 1e6 / rounds as f64);
    Ok(())
}
