//! `heaplab run --real`: the same policy code over real memory, timed, with the model's
//! residency checked against the operating system's.
//!
//! Events are decoded before anything is timed. A simulation of them finds the event at
//! which the model's resident memory first peaks; then one run samples, about every 1% of
//! the events, at that peak and at the end, the resident pages of the provider's mappings
//! (`mincore`) and the process's resident set, and compares page by page what the page
//! map says is resident with what the kernel says. The peak is sampled where it happens:
//! a peak between two 1% samples would otherwise be missed, and the real peak reported
//! below the trace's peak live. Then `repeat` runs, each a fresh `Simulation` over a fresh
//! `MmapProvider`, time the events alone, and the median is reported.
//!
//! On the real clock (`--clock real`) the policy's delays follow the wall clock: the first
//! timed run reads it as it goes and hands it to the policy as time marks, and the model's
//! run and the sampled run replay those marks at the same events, so the three agree and
//! the comparison with the model stays exact.

use std::convert::Infallible;
use std::fs::File;

use heaplab_core::clock::Clock;
use heaplab_core::config::{ProviderKind, RunConfig, WorkloadConfig};
use heaplab_core::event::Event;
use heaplab_core::params::Params;
use heaplab_core::run::RunOutput;
use heaplab_core::series::Series;
use heaplab_core::simulate::{Report, Simulation, Summary};
use heaplab_core::trace::{ImportOptions, Imported};
use heaplab_core::{trace, workload};
use serde::Serialize;

pub use crate::error::ReplayError;
use crate::marks::{self, Stopwatch, TimeMarks};
use crate::os;
use crate::provider::MmapProvider;

/// Decodes a workload's events into memory: a built-in workload's generator (its
/// parameters checked and defaults filled in), or a trace file read whole (an error names
/// `file:line`).
pub fn decode(workload: &WorkloadConfig) -> Result<Vec<Event>, ReplayError> {
    decode_with(workload, &ImportOptions::default()).map(|(events, _)| events)
}

/// [`decode`] with a trace's import options: a lenient import skips bad lines and events
/// instead of stopping at the first. For a trace, what the import found comes back too
/// (its format, header, lines and, when lenient, what it skipped by kind), which a report
/// names as `heaplab run` does.
pub fn decode_with(
    workload: &WorkloadConfig,
    options: &ImportOptions,
) -> Result<(Vec<Event>, Option<Imported>), ReplayError> {
    let mut events = Vec::new();
    // A real replay runs on its own clock, and its figures are read at event numbers
    // the simulator's must match, which time marks are not: they are left out.
    let mut push = |e| {
        if !matches!(e, Event::Time(_)) {
            events.push(e);
        }
        Ok::<(), Infallible>(())
    };
    let imported = if workload.is_trace() {
        let path = workload.path.clone().unwrap_or_default();
        let file = File::open(&path).map_err(|e| ReplayError::Input(format!("{path}: {e}")))?;
        // Any format `heaplab run` takes, gzip'd or not.
        Some(
            trace::import(file, &path, options, &mut push)
                .map_err(|e| ReplayError::Input(e.to_string()))?,
        )
    } else {
        let spec = workload::find(&workload.id)?;
        let params = Params::resolve(spec.params, &workload.params, "workload.params")?;
        spec.check(&params)?;
        spec.generate(&params, &mut push)
            .map_err(|e| -> ReplayError { match e {} })?;
        None
    };
    Ok((events, imported))
}

/// What the real run measured, beside the simulator's summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RealFigures {
    /// Median over the timed runs of wall time per event (the events alone: no decoding,
    /// no setup, no unmapping at the end).
    pub ns_per_event: f64,
    /// Every timed run's figure, in order.
    pub ns_per_event_runs: Vec<f64>,
    /// Most bytes of the provider's mappings resident at a sample, per `mincore`.
    pub real_peak_resident_bytes: u64,
    /// Bytes of the provider's mappings resident after the last event, per `mincore`.
    pub real_end_resident_bytes: u64,
    /// Most pages at one sample where the page map and `mincore` disagree (0 when the
    /// model is exact).
    pub max_residency_mismatch_pages: u64,
    /// The first disagreement, if any, to start looking from.
    pub first_residency_mismatch: Option<Mismatch>,
    /// How many times residency was sampled.
    pub residency_samples: u64,
    /// Most resident-set bytes of the whole process at a sample (`/proc/self/statm`):
    /// heaplab, the decoded events and the simulator's own tables included.
    pub real_peak_rss_bytes: Option<u64>,
    /// The process's resident set just before the first event, to subtract from the above.
    pub real_rss_before_bytes: Option<u64>,
    /// Whether the summary equals the simulated provider's for the same events: same
    /// policy decisions, same page operations, same peaks.
    pub matches_simulation: bool,
    /// Reservations that could not be laid out as the simulated provider lays them out
    /// (see `MmapProvider`); 0 in every run so far.
    pub unplanned_reservations: u64,
}

/// Where the model and the kernel first disagreed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The number of the last event applied before the sample.
    pub event: u64,
    /// The first page that disagreed.
    pub addr: u64,
    /// What the page map says of it.
    pub model_resident: bool,
    /// How many pages disagreed at that sample.
    pub pages: u64,
}

/// A real run: the simulator's report and series, and what real memory showed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RealReport {
    #[serde(flatten)]
    pub report: Report,
    #[serde(flatten)]
    pub real: RealFigures,
    #[serde(skip)]
    pub output: RunOutput,
}

/// How a real replay runs.
#[derive(Clone, Copy, Debug)]
pub struct RealOptions {
    /// Timed runs; the median is reported. At least 1.
    pub repeat: usize,
    /// Residency samples over the sampled run (plus one at the end).
    pub samples: u64,
}

impl Default for RealOptions {
    fn default() -> Self {
        RealOptions {
            repeat: 5,
            samples: 100,
        }
    }
}

/// Checks that a config can run over real memory: the OS provider, at the OS page size.
pub fn check_config(config: &RunConfig) -> Result<(), ReplayError> {
    if config.provider.kind == ProviderKind::WasmLinear {
        return Err(ReplayError::Input(
            "--real runs over the operating system's virtual memory; the wasm-linear provider \
             is a model of WebAssembly memory and has no real counterpart here (use --provider sim)"
                .into(),
        ));
    }
    if !os::SUPPORTED {
        return Err(ReplayError::Input(
            "real memory needs Linux or macOS (mmap, mprotect, madvise, mincore)".into(),
        ));
    }
    let os_page = MmapProvider::os_page_size();
    if config.provider.page_size != os_page {
        return Err(ReplayError::Input(format!(
            "--real uses the operating system's page size, {os_page} bytes here; \
             --page-size {} cannot be run over real memory",
            config.provider.page_size
        )));
    }
    Ok(())
}

/// Replays decoded events through `config`'s policy over real memory.
pub fn replay(
    config: &RunConfig,
    events: &[Event],
    opts: RealOptions,
) -> Result<RealReport, ReplayError> {
    let config = config.resolve()?;
    check_config(&config)?;
    let mut runs = Vec::with_capacity(opts.repeat.max(1));
    // On a real run's clock the first timed run tells the time, and the model and the
    // sampled run replay the marks it took, so that all three see the same time pass.
    let live = config.clock == Some(Clock::Real);
    let (marks, first) = if live {
        let (ns, summary, taken) = timed_run(&config, events, true)?;
        runs.push(ns);
        (taken, Some(summary))
    } else {
        (TimeMarks::default(), None)
    };
    // The model's own run: it gives the event to sample the peak at, and the summary the
    // real run must equal.
    let (simulated, peak_at) = marks::simulate(&config, events, &marks)?;
    let sampled = sampled_run(&config, events, &marks, opts.samples, peak_at)?;
    let differ = || {
        ReplayError::Failed(
            "two runs of the same events over real memory ended differently: the policy \
             depends on something other than its input"
                .into(),
        )
    };
    if first.is_some_and(|summary| summary != sampled.summary) {
        return Err(differ());
    }
    while runs.len() < opts.repeat.max(1) {
        // Each timed run on the real clock tells its own time, so its policy may act at
        // other events than the first's: only its time per event is kept.
        let (ns, summary, _) = timed_run(&config, events, live)?;
        if !live && summary != sampled.summary {
            return Err(differ());
        }
        runs.push(ns);
    }
    let matches_simulation = simulated == sampled.summary;
    let page = config.provider.page_size;
    let Sampled {
        summary,
        series,
        samples: s,
    } = sampled;
    let real = RealFigures {
        ns_per_event: crate::median(&runs),
        ns_per_event_runs: runs,
        real_peak_resident_bytes: s.peak_pages * page,
        real_end_resident_bytes: s.end_pages * page,
        max_residency_mismatch_pages: s.max_mismatch,
        first_residency_mismatch: s.first_mismatch,
        residency_samples: s.samples,
        real_peak_rss_bytes: s.peak_rss,
        real_rss_before_bytes: s.rss_before,
        matches_simulation,
        unplanned_reservations: s.unplanned,
    };
    let report = Report { config, summary };
    Ok(RealReport {
        output: RunOutput {
            report: report.clone(),
            series,
            trace: None,
        },
        report,
        real,
    })
}

/// The events of one run, timed; the provider is unmapped after the clock stops. With
/// `marks`, the run is on the real clock: it reads the time as it goes, hands it to the
/// policy and keeps each mark there.
fn timed_run(
    config: &RunConfig,
    events: &[Event],
    on_real_clock: bool,
) -> Result<(f64, Summary, TimeMarks), ReplayError> {
    let mut sim = Simulation::on_real_clock(config, MmapProvider::new()?)?;
    let mut watch = Stopwatch::start(if on_real_clock { events.len() } else { 0 });
    if on_real_clock {
        sim.apply(Event::Time(0))?;
    }
    for (i, e) in (0u64..).zip(events) {
        if on_real_clock {
            if let Some(ns) = watch.before(i) {
                sim.apply(Event::Time(ns))?;
            }
        }
        sim.apply(e.clone())?;
    }
    let ns = watch.elapsed().as_nanos() as f64 / events.len().max(1) as f64;
    let marks = if on_real_clock {
        watch.into_marks()
    } else {
        TimeMarks::default()
    };
    Ok((ns, sim.finish().0, marks))
}

struct Sampled {
    summary: Summary,
    series: Series,
    samples: Samples,
}

/// What the samples of one run add up to.
#[derive(Default)]
struct Samples {
    peak_pages: u64,
    end_pages: u64,
    max_mismatch: u64,
    first_mismatch: Option<Mismatch>,
    samples: u64,
    peak_rss: Option<u64>,
    rss_before: Option<u64>,
    unplanned: u64,
}

/// The sampled run: residency compared about every `events / samples` events, at event
/// `peak_at` (the model's resident peak, 0 for none) and after the last.
fn sampled_run(
    config: &RunConfig,
    events: &[Event],
    marks: &TimeMarks,
    samples: u64,
    peak_at: u64,
) -> Result<Sampled, ReplayError> {
    let mut sim = Simulation::on_real_clock(config, MmapProvider::new()?)?;
    let mut feed = marks.feed();
    let every = (events.len() as u64 / samples.max(1)).max(1);
    let rss_before = os::rss_bytes();
    let mut out = Samples {
        peak_rss: rss_before,
        rss_before,
        ..Samples::default()
    };
    let mut buf = Vec::new();
    for (i, e) in events.iter().enumerate() {
        feed.before(i as u64, &mut sim)?;
        sim.apply(e.clone())?;
        let n = i as u64 + 1;
        if n.is_multiple_of(every) || n == events.len() as u64 || n == peak_at {
            sample(&sim, n, &mut buf, &mut out)?;
        }
    }
    if events.is_empty() {
        sample(&sim, 0, &mut buf, &mut out)?;
    }
    out.unplanned = sim.pages().provider().unplanned_reservations();
    let (summary, series) = sim.finish();
    Ok(Sampled {
        summary,
        series,
        samples: out,
    })
}

/// Compares the page map with `mincore` over every reservation, page by page.
fn sample(
    sim: &Simulation<MmapProvider>,
    event: u64,
    buf: &mut Vec<u8>,
    out: &mut Samples,
) -> Result<(), ReplayError> {
    let pages = sim.pages();
    let page = pages.page_size();
    let (mut resident, mut mismatched, mut first) = (0u64, 0u64, None);
    for (addr, len) in pages.provider().regions() {
        pages.provider().residency(addr, len, buf)?;
        for (i, &b) in buf.iter().enumerate() {
            let at = addr + i as u64 * page;
            let os_resident = b & 1 != 0;
            resident += u64::from(os_resident);
            let model = pages.is_resident(at);
            if model != os_resident {
                mismatched += 1;
                first.get_or_insert((at, model));
            }
        }
    }
    out.samples += 1;
    out.peak_pages = out.peak_pages.max(resident);
    out.end_pages = resident;
    if mismatched > out.max_mismatch {
        out.max_mismatch = mismatched;
    }
    if let (None, Some((addr, model_resident))) = (&out.first_mismatch, first) {
        out.first_mismatch = Some(Mismatch {
            event,
            addr,
            model_resident,
            pages: mismatched,
        });
    }
    if let Some(rss) = os::rss_bytes() {
        out.peak_rss = Some(out.peak_rss.unwrap_or(0).max(rss));
    }
    Ok(())
}
