//! A long native run, watched as it goes: `tree_churn` at `scale` (3 by default, about
//! 100 million events) streamed into one simulation of `policy`, timed and weighed in
//! tenths. For each tenth it prints the time per event (the thread's CPU time, from
//! Linux's `/proc/thread-self/stat`, so that other work on a shared machine does not count
//! as the simulator's; the wall clock where that is missing), the median of `repeats`
//! passes (3 by default, each a fresh simulation: a shared machine slows single tenths of
//! single passes by a quarter), and this process's resident memory (`VmRSS`) at its end in
//! the first pass, then the two verdicts the simulator owes a long run:
//!
//! - its time per event is steady: the first and last tenths within 20% of each other;
//! - its memory is flat, bounded by live blocks and touched pages rather than by events:
//!   the last tenth ends within 10% (or 4 MB) of where the first ended.
//!
//! `cargo run --release -p heaplab-core --example long_run -- size-class 3 3`
//!
//! It exits with status 1 when either verdict fails. Under `cargo xtask bench`
//! (`HEAPLAB_BENCH_ROWS` set) it adds the verdicts to the bench's report as a row instead,
//! met or not.

use std::time::Instant;

use heaplab_core::config::{PolicyConfig, RunConfig};
use heaplab_core::run::Batches;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload;
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let policy = args.first().map_or("size-class", String::as_str);
    let scale: f64 = args.get(1).map_or(Ok(3.0), |s| s.parse())?;
    let repeats: usize = args.get(2).map_or(Ok(3), |s| s.parse())?;

    let mut config = RunConfig::new("tree_churn", "bump");
    config.policy = PolicyConfig::named(policy);
    config
        .workload
        .params
        .insert("scale".into(), Value::from(scale));
    let config = config.resolve()?;
    let spec = workload::find("tree_churn")?;
    let params = config.workload_params()?;

    // A first pass counts the events, so the others can cut them into tenths; generating
    // them is cheap beside simulating them.
    let mut total = 0u64;
    spec.generate(&params, &mut |_| {
        total += 1;
        Ok::<(), ()>(())
    })
    .map_err(|()| "counting the events failed")?;
    let tenth = total.div_ceil(10);

    let mut passes = Vec::new();
    let mut summary = None;
    for _ in 0..repeats.max(1) {
        let (marks, s) = pass(&config, spec, &params, total, tenth)?;
        passes.push(marks);
        summary.get_or_insert(s);
    }
    let summary = summary.expect("at least one pass");
    // Each tenth's median time over the passes, with the first pass's memory.
    let marks: Vec<(f64, u64)> = (0..passes[0].len())
        .map(|i| {
            let mut ns: Vec<f64> = passes.iter().map(|p| p[i].0).collect();
            ns.sort_by(f64::total_cmp);
            (ns[ns.len() / 2], passes[0][i].1)
        })
        .collect();

    println!("{policy} on tree_churn at scale {scale}: {total} events, peak live {:.1} MB, touched {:.1} MB",
        summary.peak_live_bytes() as f64 / 1e6,
        summary.touched_bytes() as f64 / 1e6,
    );
    println!("| tenth | ns/event | RSS at its end (MB) |");
    println!("|---|---|---|");
    for (i, (ns, kb)) in marks.iter().enumerate() {
        println!("| {} | {ns:.1} | {:.1} |", i + 1, *kb as f64 / 1000.0);
    }
    let (first, last) = (marks[0], marks[marks.len() - 1]);
    let time_ratio = last.0 / first.0;
    let steady = (0.8..=1.2).contains(&time_ratio);
    let grown = last.1.saturating_sub(first.1);
    let flat = grown <= (first.1 / 10).max(4000);
    println!(
        "time per event, last tenth / first: {time_ratio:.2} ({}); memory grew {:.1} MB after the first tenth ({})",
        if steady { "steady, within 20%" } else { "NOT steady" },
        grown as f64 / 1000.0,
        if flat { "flat" } else { "NOT flat" },
    );
    // Under `cargo xtask bench`, the verdicts go into its report as one row, met or not.
    if let Some(rows) = std::env::var_os("HEAPLAB_BENCH_ROWS") {
        let row = serde_json::json!({
            "area": "long runs",
            "figure": format!(
                "natively, {policy} on tree_churn at scale {scale} ({:.2} M events): time per event, last tenth / first (memory at the end of the first and the last tenth)",
                total as f64 / 1e6
            ),
            "median": format!(
                "{time_ratio:.2} ({:.1} → {:.1} MB)",
                first.1 as f64 / 1000.0,
                last.1 as f64 / 1000.0
            ),
            "target": "within 20%; memory flat (10% or 4 MB)",
            "met": steady && flat,
        });
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(rows)?;
        std::io::Write::write_all(&mut file, format!("{row}\n").as_bytes())?;
        return Ok(());
    }
    if !(steady && flat) {
        std::process::exit(1);
    }
    Ok(())
}

/// Each tenth's time per event and the process's resident memory at its end, and the
/// run's summary.
type Pass = (Vec<(f64, u64)>, heaplab_core::metrics::Summary);

/// One simulation of the whole workload.
fn pass(
    config: &RunConfig,
    spec: &workload::WorkloadSpec,
    params: &heaplab_core::params::Params,
    total: u64,
    tenth: u64,
) -> Result<Pass, Box<dyn std::error::Error>> {
    let mut sim = Simulation::new(config, sim_provider(config))?;
    let mut marks: Vec<(f64, u64)> = Vec::new();
    let mut n = 0u64;
    let mut started = Clock::now();
    // Events go to the simulation in batches, as `heaplab run` gives them, so that it can
    // look ahead in them; each tenth's are all applied before it is timed.
    let mut batches = Batches::new(&mut sim);
    spec.generate(params, &mut |e| {
        batches.push(e).map_err(|e| e.to_string())?;
        n += 1;
        if n.is_multiple_of(tenth) || n == total {
            batches.flush().map_err(|e| e.to_string())?;
            let events = if n.is_multiple_of(tenth) {
                tenth
            } else {
                n % tenth
            };
            let now = Clock::now();
            let ns = now.since(&started) / events as f64;
            marks.push((ns, rss_kb().unwrap_or(0)));
            started = now;
        }
        Ok::<(), String>(())
    })?;
    let (summary, _) = sim.finish();
    Ok((marks, summary))
}

/// A moment by this thread's CPU time where Linux gives it, by the wall clock otherwise.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

impl Clock {
    fn now() -> Clock {
        cpu_ticks().map_or_else(|| Clock::Wall(Instant::now()), Clock::Cpu)
    }

    /// Nanoseconds from `earlier` to this moment.
    fn since(&self, earlier: &Clock) -> f64 {
        match (self, earlier) {
            // Linux counts CPU time in ticks of 10 ms (USER_HZ is 100 on every platform
            // it supports); a tenth of the run lasts seconds, so the tick is fine enough.
            (Clock::Cpu(now), Clock::Cpu(then)) => (now - then) as f64 * 1e7,
            (Clock::Wall(now), Clock::Wall(then)) => (*now - *then).as_nanos() as f64,
            _ => f64::NAN,
        }
    }
}

/// This thread's user and system time, in clock ticks, from `/proc/thread-self/stat`.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command's closing parenthesis: the 14th and 15th of the line
    // are the 12th and 13th here.
    let mut after = stat.rsplit_once(')')?.1.split_whitespace();
    let user: u64 = after.nth(11)?.parse().ok()?;
    let system: u64 = after.next()?.parse().ok()?;
    Some(user + system)
}

/// This process's resident memory now, in kB, from Linux's `/proc/self/status`.
fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
