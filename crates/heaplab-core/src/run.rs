//! One call from a config to a report: what the CLI and the browser both use, so their
//! numbers are the same by construction.

use std::fmt;
use std::io::Read;

use serde::Serialize;

use crate::config::RunConfig;
use crate::params::ParamError;
use crate::provider::SimProvider;
use crate::series::{PageOpsCurve, Series};
use crate::simulate::{sim_provider, Report, SimError, Simulation};
use crate::trace::stream::TraceStream;
use crate::trace::{self, EventSink, ImportOptions, Imported, Skipped};
use crate::workload::{self, Sink};

/// A run's result: the report (summary and resolved config), memory over time, and for
/// a trace what its import found.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub report: Report,
    pub series: Series,
    pub trace: Option<Imported>,
}

impl RunOutput {
    /// The object `heaplab run --json` prints for this run, and the page keeps in
    /// `window.heaplabResults`.
    pub fn json(&self) -> JsonReport<'_> {
        JsonReport {
            report: &self.report,
            trace: self.trace.as_ref(),
            skipped: self.trace.as_ref().and_then(|t| t.skipped.as_ref()),
        }
    }
}

/// A report as `--json` prints it: the report's fields, then for a trace `trace` (its
/// format, header, whether it was gzip'd, its lines) and, when lenient, `skipped` (bad
/// lines and events skipped, by kind).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct JsonReport<'a> {
    #[serde(flatten)]
    pub report: &'a Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<&'a Imported>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<&'a Skipped>,
}

/// Why a run failed: a bad config, or an event that could not be carried out.
#[derive(Debug)]
pub enum RunError {
    Config(ParamError),
    /// The message names where: `file:line`, or the workload and event number.
    Event(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::Event(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ParamError> for RunError {
    fn from(e: ParamError) -> RunError {
        RunError::Config(e)
    }
}

/// Runs `config` over the simulated provider with events from `feed`.
pub fn run_with<F>(config: &RunConfig, feed: F) -> Result<RunOutput, RunError>
where
    F: FnOnce(&mut Sink<'_, SimError>) -> Result<(), RunError>,
{
    let (out, _) = record_page_ops(config, Progress::none(), feed)?;
    Ok(out)
}

/// Events a fed run gives its simulation at a time.
const BATCH: usize = 4096;

/// Events gathered for [`Simulation::apply_all`] and handed over a batch at a time, as a
/// trace's are: the simulation looks ahead in a batch and fetches what a free will read
/// before the free reads it, which keeps a long run of a large heap from waiting on
/// memory. What is pushed after the last [`Batches::flush`] is not yet applied.
#[derive(Debug)]
pub struct Batches<'a> {
    sim: &'a mut Simulation<SimProvider>,
    events: Vec<crate::event::Event>,
}

impl<'a> Batches<'a> {
    pub fn new(sim: &'a mut Simulation<SimProvider>) -> Batches<'a> {
        Batches {
            sim,
            events: Vec::with_capacity(BATCH),
        }
    }

    /// Adds an event, applying the batch once it is full; an event the simulation refuses
    /// is reported as applying it alone would report it.
    #[inline]
    pub fn push(&mut self, event: crate::event::Event) -> Result<(), SimError> {
        self.events.push(event);
        if self.events.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Applies the events gathered so far.
    pub fn flush(&mut self) -> Result<(), SimError> {
        let result = self.sim.apply_all(&self.events);
        self.events.clear();
        result
    }
}

/// Gives `sim` the events from `feed` through [`Batches`]. `progress` is told after every
/// so many events, once they are applied.
fn feed_batched<F>(
    sim: &mut Simulation<SimProvider>,
    progress: Progress<'_>,
    feed: F,
) -> Result<(), RunError>
where
    F: FnOnce(&mut Sink<'_, SimError>) -> Result<(), RunError>,
{
    let Progress { mask, mut report } = progress;
    let mut batches = Batches::new(sim);
    let mut events = 0u64;
    feed(&mut |event| {
        batches.push(event)?;
        events += 1;
        if let Some(report) = report.as_mut().filter(|_| events & mask == 0) {
            batches.flush()?;
            report(events);
        }
        Ok(())
    })?;
    // The last batch's refusal is the feed's, as it would have been event by event.
    batches.flush().map_err(|e| RunError::Event(e.to_string()))
}

/// Runs a config whose workload is a trace, read from `input` as it streams (gzip'd or
/// not, in any format [`trace::import`] knows). Messages name the config's
/// `workload.path`.
pub fn run_trace<R: Read>(
    config: &RunConfig,
    input: R,
    options: &ImportOptions,
) -> Result<RunOutput, RunError> {
    trace_workload(config)?;
    let name = config.workload.path.clone().unwrap_or_default();
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    let (imported, _) = trace::import_into(input, &name, options, Replay(&mut sim))
        .map_err(|e| RunError::Event(e.to_string()))?;
    let (summary, series) = sim.finish();
    had_its_clock(&summary)?;
    Ok(RunOutput {
        report: Report { config, summary },
        series,
        trace: Some(imported),
    })
}

/// Refuses a run asked to follow the trace's marks (`--clock trace`) of a trace that had
/// none: its delays would all have counted from 0 and its time would be nothing, which no
/// report should pass off as the trace's clock.
fn had_its_clock(summary: &crate::simulate::Summary) -> Result<(), RunError> {
    if summary.time.clock == Some(crate::clock::Clock::Trace) && summary.time.marks == 0 {
        return Err(RunError::Config(ParamError {
            field: "clock".into(),
            message: "`trace` runs on the trace's time marks (`t <ns>` lines), and this \
                      trace has none; give `rate=<ns per event>` instead"
                .into(),
        }));
    }
    Ok(())
}

/// One simulation as a trace's sink: each batch of events goes to
/// [`Simulation::apply_all`], which looks ahead in it.
struct Replay<'a>(&'a mut Simulation<SimProvider>);

impl EventSink for Replay<'_> {
    type Error = SimError;

    fn event(&mut self, event: crate::event::Event) -> Result<(), SimError> {
        self.0.apply(event)
    }

    fn events(&mut self, events: &mut Vec<crate::event::Event>) -> Result<(), (usize, SimError)> {
        let before = self.0.events();
        self.0
            .apply_all(events)
            .map_err(|e| ((e.event - before - 1) as usize, e))
    }
}

/// Checks that a config's workload is a trace.
fn trace_workload(config: &RunConfig) -> Result<(), RunError> {
    if config.workload.is_trace() {
        return Ok(());
    }
    Err(RunError::Config(ParamError {
        field: "workload.id".into(),
        message: format!("{:?} is not a trace workload", config.workload.id),
    }))
}

/// Configs whose workload is one trace, run side by side as the trace's bytes are
/// pushed in chunks: [`run_trace`] for a caller that is handed the file a piece at a
/// time (the page's worker reading `File.stream()`), so the file is never held whole
/// and is read once for every config.
#[derive(Debug)]
pub struct TraceRun {
    stream: TraceStream<Simulations>,
    configs: Vec<RunConfig>,
}

/// Every config's simulation, each given every event.
#[derive(Debug)]
struct Simulations(Vec<Simulation<SimProvider>>);

impl EventSink for Simulations {
    type Error = SimError;
    #[inline]
    fn event(&mut self, event: crate::event::Event) -> Result<(), SimError> {
        match self.0.split_last_mut() {
            Some((last, others)) => {
                for sim in others {
                    sim.apply_ref(&event)?;
                }
                last.apply(event)
            }
            None => Ok(()),
        }
    }

    /// Each simulation takes the whole batch in turn through [`Simulation::apply_all`],
    /// which keeps one policy's code and tables in the caches at a time. The error is the
    /// one event by event would give: the earliest event any simulation refused, the
    /// first simulation to refuse it, so a simulation after one that refused stops short
    /// of that event.
    fn events(&mut self, events: &mut Vec<crate::event::Event>) -> Result<(), (usize, SimError)> {
        let mut refused: Option<(usize, SimError)> = None;
        for sim in &mut self.0 {
            let end = refused.as_ref().map_or(events.len(), |(i, _)| *i);
            let before = sim.events();
            if let Err(e) = sim.apply_all(&events[..end]) {
                refused = Some(((e.event - before - 1) as usize, e));
            }
        }
        match refused {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }
}

impl TraceRun {
    /// A run of `configs`, which name one trace (the first config's `workload.path` is
    /// the name messages give).
    pub fn new(configs: &[RunConfig], options: &ImportOptions) -> Result<TraceRun, RunError> {
        let mut resolved = Vec::with_capacity(configs.len());
        let mut sims = Vec::with_capacity(configs.len());
        for config in configs {
            trace_workload(config)?;
            let config = config.resolve()?;
            sims.push(Simulation::new(&config, sim_provider(&config))?);
            resolved.push(config);
        }
        let name = configs
            .first()
            .and_then(|c| c.workload.path.clone())
            .unwrap_or_default();
        Ok(TraceRun {
            stream: TraceStream::new(&name, options, Simulations(sims)),
            configs: resolved,
        })
    }

    /// The next bytes of the trace file; a bad line stops the run with `file:line`.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), RunError> {
        self.stream
            .push(chunk)
            .map_err(|e| RunError::Event(e.to_string()))
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.stream.lines()
    }

    /// The end of the file: every config's output, in the configs' order.
    pub fn finish(self) -> Result<Vec<RunOutput>, RunError> {
        Ok(self
            .finish_with_page_ops()?
            .into_iter()
            .map(|(out, _)| out)
            .collect())
    }

    /// [`TraceRun::finish`], each output with its page operations over time on its
    /// series' events.
    pub fn finish_with_page_ops(self) -> Result<Vec<(RunOutput, PageOpsCurve)>, RunError> {
        let (imported, Simulations(runs)) = self
            .stream
            .finish()
            .map_err(|e| RunError::Event(e.to_string()))?;
        self.configs
            .into_iter()
            .zip(runs)
            .map(|(config, sim)| {
                let (summary, series, page_ops) = sim.finish_with_page_ops();
                had_its_clock(&summary)?;
                let out = RunOutput {
                    report: Report { config, summary },
                    series,
                    trace: Some(imported.clone()),
                };
                Ok((out, page_ops))
            })
            .collect()
    }
}

/// How far a run has come, told now and then: a count of events applied, every so many
/// events rather than after each, so that a caller across a boundary (the page's worker)
/// is called a few hundred times in a run of millions.
pub struct Progress<'a> {
    /// One less than the power of two of events between calls.
    mask: u64,
    report: Option<&'a mut dyn FnMut(u64)>,
}

impl<'a> Progress<'a> {
    /// No calls.
    pub fn none() -> Progress<'a> {
        Progress {
            mask: 0,
            report: None,
        }
    }

    /// `report` is called with the events applied so far after every `every` events,
    /// rounded up to a power of two.
    pub fn every(every: u64, report: &'a mut dyn FnMut(u64)) -> Progress<'a> {
        Progress {
            mask: every.max(1).next_power_of_two() - 1,
            report: Some(report),
        }
    }
}

impl fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("every", &(self.mask + 1))
            .field("listening", &self.report.is_some())
            .finish()
    }
}

/// Runs `config` as [`run_with`] does, with the events from `feed`, and gives its page
/// operations over time on the series' events; `progress` is told how far it has come.
pub fn record_page_ops<F>(
    config: &RunConfig,
    progress: Progress<'_>,
    feed: F,
) -> Result<(RunOutput, PageOpsCurve), RunError>
where
    F: FnOnce(&mut Sink<'_, SimError>) -> Result<(), RunError>,
{
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    feed_batched(&mut sim, progress, feed)?;
    let (summary, series, page_ops) = sim.finish_with_page_ops();
    Ok((
        RunOutput {
            report: Report { config, summary },
            series,
            trace: None,
        },
        page_ops,
    ))
}

/// Runs a config whose workload is built in, as [`run`] does (the same output, field for
/// field), with its page operations over time beside it.
pub fn run_with_page_ops(
    config: &RunConfig,
    progress: Progress<'_>,
) -> Result<(RunOutput, PageOpsCurve), RunError> {
    // `record_page_ops` resolves the whole config; the generator needs only its own
    // parameters.
    let spec = workload::find(&config.workload.id)?;
    let params = config.workload_params()?;
    record_page_ops(config, progress, |sink| {
        spec.generate(&params, sink)
            .map_err(|e| RunError::Event(e.to_string()))
    })
    // An event refused in the batch the generator left last is named as one refused
    // while it ran.
    .map_err(|e| match e {
        RunError::Event(message) => RunError::Event(format!("workload {}: {message}", spec.id)),
        e => e,
    })
}

/// Runs a config whose workload is built in.
pub fn run(config: &RunConfig) -> Result<RunOutput, RunError> {
    run_with_page_ops(config, Progress::none()).map(|(out, _)| out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    #[test]
    fn a_recorded_run_is_the_plain_run_with_curves_on_the_series_events() {
        let mut config = RunConfig::new("jit", "llvm-bump");
        config.series_points = 64;
        let plain = run(&config).unwrap();
        let mut told = Vec::new();
        let mut listen = |events| told.push(events);
        let (out, curve) = run_with_page_ops(&config, Progress::every(1000, &mut listen)).unwrap();
        assert_eq!(out, plain);
        let events = out.report.summary.events();
        assert!(events > 2048, "{events} events is too few to test progress");
        let every_1024: Vec<u64> = (1..=events / 1024).map(|k| k * 1024).collect();
        assert_eq!(told, every_1024);
        assert_eq!(curve.t, out.series.t);
        assert_eq!(curve.commits.last(), Some(&out.report.summary.commit_ops()));
        assert_eq!(
            curve.decommits.last(),
            Some(&out.report.summary.decommit_ops())
        );
    }

    /// A fed run gives its simulation batches, and an event it refuses is reported as one
    /// by one would report it, whether its batch is full or the feed's last.
    #[test]
    fn a_fed_run_refuses_an_event_as_one_by_one_would() {
        let config = RunConfig::new("churn", "glibc-like");
        for bad in [7u64, 5_000, 9_999] {
            let events = move || {
                (0..10_000u64).map(move |i| match i {
                    i if i == bad => Event::free(1_000_000),
                    i => Event::alloc(i, 16 + i % 200),
                })
            };
            let fed = run_with(&config, |sink| {
                for e in events() {
                    sink(e).map_err(|e| RunError::Event(e.to_string()))?;
                }
                Ok(())
            })
            .unwrap_err();
            let resolved = config.resolve().unwrap();
            let mut sim = Simulation::new(&resolved, sim_provider(&resolved)).unwrap();
            let one_by_one = events().find_map(|e| sim.apply(e).err()).unwrap();
            assert_eq!(fed.to_string(), one_by_one.to_string());
            assert_eq!(
                fed.to_string(),
                format!(
                    "event {}: free of block id 1000000, which is not live",
                    bad + 1
                )
            );
        }
    }

    /// A streamed trace's page operations are those of the same events fed one by one.
    #[test]
    fn a_streamed_trace_records_page_operations_as_a_fed_run_does() {
        let text: String = (0..3000)
            .map(|i| format!("a {i} {}\n", 64 + (i % 7) * 500))
            .chain((0..3000).step_by(2).map(|i| format!("f {i}\n")))
            .collect();
        let mut config = RunConfig::new("trace", "glibc-like");
        config.workload = crate::config::WorkloadConfig::trace("t.trace");
        config.series_points = 50;
        let options = ImportOptions::default();
        let mut streamed = TraceRun::new(std::slice::from_ref(&config), &options).unwrap();
        for chunk in text.as_bytes().chunks(777) {
            streamed.push(chunk).unwrap();
        }
        let (out, curve) = streamed.finish_with_page_ops().unwrap().remove(0);
        let (fed, fed_curve) = record_page_ops(&config, Progress::none(), |sink| {
            trace::import(text.as_bytes(), "t.trace", &options, sink)
                .map(|_| ())
                .map_err(|e| RunError::Event(e.to_string()))
        })
        .unwrap();
        assert_eq!(out.report, fed.report);
        assert_eq!(curve, fed_curve);
        assert_eq!(curve.t, out.series.t);
        assert!(curve.commits.last().is_some_and(|&c| c > 0));
    }

    /// Each point's time goes forward with its events, and the last is the time the
    /// report gives the run, under a rate and under a trace's marks; a run without a
    /// clock has no times.
    #[test]
    fn each_point_has_its_time_and_the_last_is_the_runs_elapsed_time() {
        let mut config = RunConfig::new("jit", "mimalloc2-like");
        config.series_points = 40;
        let (out, curve) = run_with_page_ops(&config, Progress::none()).unwrap();
        assert!(curve.ns.is_empty() && out.report.summary.time.elapsed_ns.is_none());

        config.clock = Some(crate::clock::Clock::Rate(1000.0));
        let (out, curve) = run_with_page_ops(&config, Progress::none()).unwrap();
        assert_eq!(curve.ns.len(), out.series.t.len());
        assert!(curve.ns.windows(2).all(|w| w[0] <= w[1]), "{:?}", curve.ns);
        assert_eq!(curve.ns.last().copied(), out.report.summary.time.elapsed_ns);
        for (&t, &ns) in out.series.t.iter().zip(&curve.ns) {
            assert_eq!(ns, t * 1000);
        }

        let text: String = (0..400)
            .map(|i| match i % 50 {
                0 => format!("t {}\na {i} 64\n", i * 1_000),
                _ => format!("a {i} 64\n"),
            })
            .chain(std::iter::once("t 999999\n".to_string()))
            .collect();
        let mut config = RunConfig::new("trace", "mimalloc2-like");
        config.workload = crate::config::WorkloadConfig::trace("t.trace");
        config.series_points = 16;
        let (out, curve) = record_page_ops(&config, Progress::none(), |sink| {
            trace::import(text.as_bytes(), "t.trace", &ImportOptions::default(), sink)
                .map(|_| ())
                .map_err(|e| RunError::Event(e.to_string()))
        })
        .unwrap();
        assert_eq!(curve.ns.len(), out.series.t.len());
        assert!(curve.ns.windows(2).all(|w| w[0] <= w[1]), "{:?}", curve.ns);
        assert_eq!(out.report.summary.time.elapsed_ns, Some(999_999));
        assert_eq!(curve.ns.last(), Some(&999_999));
    }

    /// A call after a time mark happens at the mark's time. Under mimalloc2-like a medium
    /// page (slots 0-7) and four pages of 48-byte blocks (8-11) stay in use, and four
    /// pages of 64-byte blocks (12-15) are freed at 0: the last, its class's only page, is
    /// retired, and three wait for their segment's expiry (25 ms, and 1 ms for each
    /// further page). At 30 ms a request that takes one of the waiting pages sets the
    /// expiry 25 ms from then, so nothing goes; one that takes a medium page of another
    /// class, from slot 16 in the next 1 MiB commit unit, leaves it passed, and the three
    /// waiting pages go together.
    #[test]
    fn a_call_after_a_time_mark_happens_at_the_marks_time() {
        let decommits = |request: u64| {
            let mut text = String::from("t 0\na 0 20480\n");
            text.extend((10_001..=15_000).map(|id| format!("a {id} 48\n")));
            text.extend((1..=4000).map(|id| format!("a {id} 64\n")));
            text.extend((1..=4000).map(|id| format!("f {id}\n")));
            text.push_str(&format!("t 30000000\na 9000 {request}\nf 9000\n"));
            let mut config = RunConfig::new("trace", "mimalloc2-like");
            config.workload = crate::config::WorkloadConfig::trace("t.trace");
            let (out, _) = record_page_ops(&config, Progress::none(), |sink| {
                trace::import(text.as_bytes(), "t.trace", &ImportOptions::default(), sink)
                    .map(|_| ())
                    .map_err(|e| RunError::Event(e.to_string()))
            })
            .unwrap();
            assert_eq!(out.report.summary.time.elapsed_ns, Some(30_000_000));
            out.report.summary.pages.decommit_ops
        };
        assert_eq!(decommits(3000), 0);
        assert_eq!(decommits(40 << 10), 1);
    }

    /// Each point of the curve holds the page map's counters after that point's last
    /// event, as reading them after every event would give.
    #[test]
    fn the_curve_holds_the_counters_after_each_points_last_event() {
        let mut config = RunConfig::new("jit", "mimalloc-like");
        config.series_points = 37;
        let config = config.resolve().unwrap();
        let spec = workload::find(&config.workload.id).unwrap();
        let params = config.workload_params().unwrap();
        let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
        let mut after = Vec::new();
        spec.generate(&params, &mut |event| {
            sim.apply(event)?;
            let st = sim.pages().stats();
            after.push((st.commit_ops, st.decommit_ops));
            Ok::<(), SimError>(())
        })
        .unwrap();
        let (_, series, curve) = sim.finish_with_page_ops();
        assert_eq!(curve.t, series.t);
        assert!(curve.t.len() > 2 && curve.decommits.last() > Some(&0));
        for (i, &t) in curve.t.iter().enumerate() {
            let (commits, decommits) = after[t as usize - 1];
            assert_eq!(
                (curve.commits[i], curve.decommits[i]),
                (commits, decommits),
                "point {i}"
            );
        }
    }

    /// Streams `text` through one config of `policy`, with `clock` when given.
    fn streamed_run(text: &str, policy: &str, clock: Option<crate::clock::Clock>) -> RunOutput {
        let mut config = RunConfig::new("trace", policy);
        config.workload = crate::config::WorkloadConfig::trace("t.trace");
        config.clock = clock;
        let mut run =
            TraceRun::new(std::slice::from_ref(&config), &ImportOptions::default()).unwrap();
        run.push(text.as_bytes()).unwrap();
        run.finish().unwrap().remove(0)
    }

    /// Marks move the model's clock and nothing else: the same events, the same
    /// figures, with the time of the last mark, or of the rate when one is given.
    #[test]
    fn time_marks_give_the_run_a_clock_and_change_no_figure() {
        let plain: String = (0..2000)
            .map(|i| format!("a {i} {}\n", 32 + (i % 5) * 700))
            .chain((0..2000).step_by(3).map(|i| format!("f {i}\n")))
            .collect();
        // A mark every 250 lines, 100 µs apart: the last is mark 10, at 1 ms.
        let marked: String = plain
            .lines()
            .enumerate()
            .map(|(i, line)| match i % 250 {
                0 => format!("t {}\n{line}\n", i / 250 * 100_000),
                _ => format!("{line}\n"),
            })
            .collect();
        for policy in ["glibc-like", "mimalloc-like", "jemalloc-like", "buddy"] {
            let without = streamed_run(&plain, policy, None);
            let with = streamed_run(&marked, policy, None);
            let s = &with.report.summary;
            assert_eq!(s.events(), 2667, "{policy}: marks are not events");
            assert_eq!(
                serde_json::to_value(s.time).unwrap(),
                serde_json::json!({"clock": "trace", "elapsed_ns": 1_000_000, "marks": 11}),
                "{policy}"
            );
            let mut same = with.report.summary.clone();
            same.time = without.report.summary.time;
            assert_eq!(same, without.report.summary, "{policy}");
            assert_eq!(with.series, without.series, "{policy}");
            assert_eq!(without.report.summary.time.clock, None);
            assert_eq!(without.report.summary.time.elapsed_ns, None);
        }
        // A rate ignores the marks: 2,667 events at 2.5 ns each end at 6,667.5, rounded.
        let rated = streamed_run(&marked, "buddy", Some(crate::clock::Clock::Rate(2.5)));
        assert_eq!(
            serde_json::to_value(rated.report.summary.time).unwrap(),
            serde_json::json!({"clock": "rate=2.5", "elapsed_ns": 6668, "marks": 11})
        );
    }

    /// A trace without marks has no clock to follow: `--clock trace` is refused by its
    /// field once the trace has been read, streamed or not.
    #[test]
    fn a_trace_clock_on_a_trace_without_marks_is_refused() {
        let text = "a 1 64\nf 1\n";
        let mut config = RunConfig::new("trace", "buddy");
        config.workload = crate::config::WorkloadConfig::trace("plain.trace");
        config.clock = Some(crate::clock::Clock::Trace);
        let e = run_trace(&config, text.as_bytes(), &ImportOptions::default()).unwrap_err();
        assert!(
            matches!(&e, RunError::Config(p) if p.field == "clock"),
            "{e}"
        );
        assert!(e.to_string().contains("this trace has none"), "{e}");
        let mut streamed = TraceRun::new(&[config], &ImportOptions::default()).unwrap();
        streamed.push(text.as_bytes()).unwrap();
        assert!(streamed
            .finish()
            .unwrap_err()
            .to_string()
            .contains("this trace has none"));
    }

    /// A built-in workload has no marks to run a trace clock on: refused up front.
    #[test]
    fn a_trace_clock_on_a_built_in_workload_is_refused_with_its_field() {
        let mut config = RunConfig::new("churn", "buddy");
        config.clock = Some(crate::clock::Clock::Trace);
        let e = config.resolve().unwrap_err();
        assert_eq!(e.field, "clock");
        assert_eq!(
            e.message,
            "`trace` runs on a trace's time marks, and the built-in workload churn has none; \
             give `rate=<ns per event>`"
        );
        config.clock = Some(crate::clock::Clock::Rate(40.0));
        let out = run(&config.resolve().unwrap()).unwrap();
        let events = out.report.summary.events();
        assert_eq!(out.report.summary.time.elapsed_ns, Some(events * 40));
    }
}
