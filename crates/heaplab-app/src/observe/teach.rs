//! `Teaching`: a run held for stepping back and forth at any event, as the page's teaching
//! panel does. The heap shown is a [`Session`] moved to the event: forward by
//! [`Session::run_to`], which keeps no explanation and so costs about what running the
//! events costs, and back from the nearest checkpoint before the event, a copy of the
//! session kept on the way. The event reached is stepped rather than run, so its line is
//! the one `heaplab explain` prints for it. A [`RunIndex`] of the whole run, read once
//! when a jump first needs it, finds the peak and the next or previous event of a kind.
//!
//! The events are held in an [`EventLog`], at most [`MAX_TEACH_EVENTS`] of them (a few
//! bytes each), so that a step back needs no second read of a trace.

use std::collections::BTreeMap;
use std::sync::Arc;

use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::format::format_count;
use heaplab_core::run::RunError;
use heaplab_core::trace::sites::Sites;

use super::blame::{blame, Blame};
use super::block_map::BlockMap;
use super::find::{Kind, RunIndex};
use super::heap_map::HeapMap;
use super::log::{EventLog, LogBuilder};
use super::session::{Session, Step};

/// The most events teaching mode holds: the page's limit on a run it steps through.
pub const MAX_TEACH_EVENTS: usize = 10_000_000;

/// Checkpoints are taken at multiples of this many events, so a step back replays at
/// most this many: a few milliseconds, even in the page.
const CHECKPOINT_EVERY: usize = 65_536;

/// The most checkpoints kept; the one farthest from the event shown goes first. A
/// checkpoint is a copy of the heap's books, so this bounds what stepping back costs in
/// memory.
const MAX_CHECKPOINTS: usize = 8;

#[derive(Debug)]
pub struct Teaching {
    config: RunConfig,
    events: EventLog,
    sites: Arc<Sites>,
    /// The run moved to the event shown.
    at: Session,
    /// The step of the event shown, worked out as the session reached it.
    shown: Option<Step>,
    /// Copies of the session at multiples of [`CHECKPOINT_EVERY`] events, taken on the
    /// way to the events shown, for stepping back. Empty for a policy that cannot be
    /// copied (an allocator module), which steps back from the first event instead.
    checkpoints: BTreeMap<usize, Session>,
    /// The whole run's kinds of event and its peak, read when first asked for.
    index: Option<RunIndex>,
    /// How many events have been applied in all, counting each replay again.
    applied: usize,
}

fn sim_error(e: heaplab_core::simulate::SimError) -> RunError {
    RunError::Event(e.to_string())
}

/// The refusal of a run too long to teach; `count` says how long it is.
fn too_long(count: &str) -> String {
    format!(
        "teach: the workload has {count} events, and teaching mode steps through at most {}; \
         lower its scale or cut the trace",
        format_count(MAX_TEACH_EVENTS as i128)
    )
}

/// Keeps `e` in `log`, or refuses it when it is the event past [`MAX_TEACH_EVENTS`], which
/// stops whatever feeds it.
fn keep_teachable(log: &mut LogBuilder, e: &Event) -> Result<(), String> {
    if log.len() == MAX_TEACH_EVENTS {
        return Err(too_long(&format!(
            "more than {}",
            format_count(MAX_TEACH_EVENTS as i128)
        )));
    }
    log.push(e);
    Ok(())
}

/// The events of a config's built-in workload, generation stopped (and the run refused)
/// as soon as it passes [`MAX_TEACH_EVENTS`], so a large workload costs nothing to refuse.
pub fn workload_events(config: &RunConfig) -> Result<EventLog, RunError> {
    let spec = heaplab_core::workload::find(&config.workload.id)?;
    let params = config.workload_params()?;
    let mut log = LogBuilder::new();
    spec.generate::<String>(&params, &mut |e| keep_teachable(&mut log, &e))
        .map_err(RunError::Event)?;
    Ok(log.finish())
}

/// The events of a trace's bytes (any format, gzip'd or not), read up to
/// [`MAX_TEACH_EVENTS`], with their call sites when the trace has them; errors name
/// `name` and the line.
pub fn trace_events(
    bytes: &[u8],
    name: &str,
    options: &heaplab_core::trace::ImportOptions,
) -> Result<(EventLog, Sites), RunError> {
    let (_, kept) = heaplab_core::trace::import_into(bytes, name, options, Teachable::default())
        .map_err(|e| RunError::Event(e.to_string()))?;
    Ok((kept.events.finish(), kept.sites))
}

/// The events a trace read for teaching mode keeps, with their call sites: an
/// [`EventSink`](heaplab_core::trace::EventSink) that refuses the event past
/// [`MAX_TEACH_EVENTS`], which stops the import (or a [`TeachTrace`]'s stream) at its line.
#[derive(Debug, Default)]
pub struct Teachable {
    events: LogBuilder,
    sites: Sites,
}

impl heaplab_core::trace::EventSink for Teachable {
    type Error = String;

    fn event(&mut self, e: Event) -> Result<(), String> {
        keep_teachable(&mut self.events, &e)
    }

    fn sited_event(&mut self, e: Event, site: u64) -> Result<(), String> {
        self.event(e)?;
        self.sites.set(self.events.len() as u64, site);
        Ok(())
    }

    fn site_name(&mut self, addr: u64, name: &str) {
        self.sites.set_name(addr, name);
    }
}

/// A trace file pushed in chunks as it is read, keeping its events for teaching mode: a
/// trace longer than [`MAX_TEACH_EVENTS`] is refused at the chunk holding the event past
/// the limit, so the reader stops there and never reads the rest of a huge file.
pub struct TeachTrace {
    stream: heaplab_core::trace::stream::TraceStream<Teachable>,
}

impl std::fmt::Debug for TeachTrace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeachTrace")
            .field("lines", &self.stream.lines())
            .finish()
    }
}

impl TeachTrace {
    pub fn new(name: &str, options: &heaplab_core::trace::ImportOptions) -> TeachTrace {
        TeachTrace {
            stream: heaplab_core::trace::stream::TraceStream::new(
                name,
                options,
                Teachable::default(),
            ),
        }
    }

    /// Reads the next bytes; an error (a bad line, or the run passing the limit) names
    /// the file and the line, and the trace is of no further use.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), RunError> {
        self.stream
            .push(chunk)
            .map_err(|e| RunError::Event(e.to_string()))
    }

    /// The end of the file: its events and their call sites.
    pub fn finish(self) -> Result<(EventLog, Sites), RunError> {
        let (_, kept) = self
            .stream
            .finish()
            .map_err(|e| RunError::Event(e.to_string()))?;
        Ok((kept.events.finish(), kept.sites))
    }
}

impl Teaching {
    /// Holds the run for stepping, standing before its first event; a run of more than
    /// [`MAX_TEACH_EVENTS`] events is refused with a message that says how many it has
    /// and what to do.
    pub fn new(config: &RunConfig, events: impl Into<EventLog>) -> Result<Teaching, RunError> {
        Teaching::with_sites(config, events, Sites::new())
    }

    /// [`Teaching::new`] for a trace's events with their call sites, so that blame
    /// groups its pinning blocks by call site too.
    pub fn with_sites(
        config: &RunConfig,
        events: impl Into<EventLog>,
        sites: Sites,
    ) -> Result<Teaching, RunError> {
        let events = events.into();
        if events.len() > MAX_TEACH_EVENTS {
            return Err(RunError::Event(too_long(&format_count(
                events.len() as i128
            ))));
        }
        let sites = Arc::new(sites);
        let at = Session::new(config, events.clone())?.with_sites(Arc::clone(&sites));
        Ok(Teaching {
            config: config.clone(),
            events,
            sites,
            at,
            shown: None,
            checkpoints: BTreeMap::new(),
            index: None,
            applied: 0,
        })
    }

    /// The same run under another configuration, standing before its first event: the
    /// events are shared, not copied, so two configurations side by side cost one run's
    /// events.
    pub fn alongside(&self, config: &RunConfig) -> Result<Teaching, RunError> {
        Teaching::with_sites(config, self.events.clone(), Sites::clone(&self.sites))
    }

    /// How many events the run has.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The run's events.
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// The step of event `k` (1-based) when it is the event shown, else `None`.
    pub fn step(&self, k: usize) -> Option<&Step> {
        self.shown.as_ref().filter(|s| s.event as usize == k)
    }

    /// How many events are applied to the heap shown.
    pub fn position(&self) -> usize {
        self.at.position()
    }

    /// How many checkpoints are kept, for tests of the memory they take.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// How many events have been applied in all since the run was opened, each replay
    /// counted again: what the seeks have cost.
    pub fn applied(&self) -> usize {
        self.applied
    }

    /// Shows the heap after event `k` (0: before the first); past the end is an error
    /// naming the run's length.
    pub fn seek(&mut self, k: usize) -> Result<(), RunError> {
        while !self.seek_some(k, usize::MAX)? {}
        Ok(())
    }

    /// Moves toward event `k` by at most `budget` events and answers whether it is there,
    /// so that the page can show progress between slices of a long replay.
    pub fn seek_some(&mut self, k: usize, budget: usize) -> Result<bool, RunError> {
        if k > self.len() {
            return Err(RunError::Event(format!(
                "teach: event {} is past the run's last, {}",
                format_count(k as i128),
                format_count(self.len() as i128)
            )));
        }
        if k < self.at.position() || (k == self.at.position() && k > 0 && self.shown.is_none()) {
            self.restart_before(k)?;
        }
        if k == self.at.position() {
            return Ok(true);
        }
        // Run to the event before `k`, then step `k` itself for its line. On the way,
        // keep a checkpoint at the last multiple of CHECKPOINT_EVERY before it, so the
        // steps back from `k` start near it.
        let before = k - 1;
        let mut budget = budget;
        let mark = before / CHECKPOINT_EVERY * CHECKPOINT_EVERY;
        if mark > self.at.position() && !self.checkpoints.contains_key(&mark) {
            let to = mark.min(self.at.position().saturating_add(budget));
            budget -= to - self.at.position();
            self.run_to(to)?;
            if to < mark {
                return Ok(false);
            }
            self.keep_checkpoint();
        }
        if self.at.position() < before {
            let to = before.min(self.at.position().saturating_add(budget));
            self.run_to(to)?;
            if to < before {
                return Ok(false);
            }
        }
        self.shown = self.at.step().map_err(sim_error)?;
        self.applied += 1;
        Ok(true)
    }

    fn run_to(&mut self, to: usize) -> Result<(), RunError> {
        let from = self.at.position();
        let result = self.at.run_to(to).map_err(sim_error);
        self.applied += self.at.position() - from;
        result
    }

    /// Puts the session back to the latest checkpoint before event `k`, or to the run's
    /// start when there is none.
    fn restart_before(&mut self, k: usize) -> Result<(), RunError> {
        self.shown = None;
        let from = self
            .checkpoints
            .range(..k)
            .next_back()
            .and_then(|(_, s)| s.try_clone());
        self.at = match from {
            Some(session) => session,
            None => {
                Session::new(&self.config, self.events.clone())?.with_sites(Arc::clone(&self.sites))
            }
        };
        Ok(())
    }

    /// Keeps a copy of the session where it stands, dropping the checkpoint farthest from
    /// it when there are too many.
    fn keep_checkpoint(&mut self) {
        let here = self.at.position();
        let Some(copy) = self.at.try_clone() else {
            return;
        };
        self.checkpoints.insert(here, copy);
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            let farthest = *self
                .checkpoints
                .keys()
                .max_by_key(|&&at| at.abs_diff(here))
                .expect("more than one checkpoint");
            self.checkpoints.remove(&farthest);
        }
    }

    /// Reads the whole run's index by at most `budget` events; answers whether it is
    /// read. [`Teaching::index`] is ready once it is.
    pub fn read_index(&mut self, budget: usize) -> Result<bool, RunError> {
        if self.index.is_none() {
            self.index = Some(RunIndex::new(&self.config)?);
        }
        let index = self.index.as_mut().expect("made above");
        index.read(&self.events, budget)
    }

    /// The whole run's index, read here if it is not yet.
    pub fn index(&mut self) -> Result<&RunIndex, RunError> {
        while !self.read_index(usize::MAX)? {}
        Ok(self.index.as_ref().expect("read above"))
    }

    /// The next (`forward`) or previous event of `kind` from the event shown, or `None`
    /// when there is none; the first call reads the index.
    pub fn find(&mut self, kind: Kind, forward: bool) -> Result<Option<usize>, RunError> {
        let at = self.position();
        let index = self.index()?;
        Ok(if forward {
            index.next(kind, at)
        } else {
            index.previous(kind, at)
        })
    }

    pub fn heap_map(&self) -> HeapMap {
        self.at.heap_map()
    }

    pub fn blame(&self) -> Blame {
        blame(&self.at.heap_map())
    }

    /// The blocks on `count` map pages from page `first`, drawn to scale.
    pub fn block_map(&self, first: u64, count: u64) -> BlockMap {
        self.at.block_map(first, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::explain_range;

    fn config(family: &str) -> RunConfig {
        let mut c = RunConfig::new("churn", family);
        c.workload.params.insert("scale".into(), 0.0005.into());
        c
    }

    #[test]
    fn opening_at_an_event_equals_a_run_stepped_there_for_every_family() {
        // Teaching mode reaches an event without explaining the ones before it; what it
        // shows there (the line, both maps, blame) is what stepping every event shows.
        for f in heaplab_core::policy::FAMILIES {
            let c = config(f.id);
            let events = Session::workload_events(&c).unwrap();
            let n = events.len();
            let cli = explain_range(&c, events.clone(), 1, n).unwrap();
            let mut t = Teaching::new(&c, events.clone()).unwrap();
            // Forward, forward by one, then back.
            for k in [n / 3, n / 3 + 1, n - 1, n / 5] {
                t.seek(k).unwrap();
                assert_eq!(t.position(), k);
                assert_eq!(t.step(k), Some(&cli[k - 1]), "{}: line {k}", f.id);
                assert!(t.step(k + 1).is_none());
                let mut stepped = Session::new(&c, events.clone()).unwrap();
                for _ in 0..k {
                    stepped.step().unwrap();
                }
                let map = stepped.heap_map();
                assert_eq!(t.heap_map(), map, "{}: heap map at {k}", f.id);
                assert_eq!(t.blame(), blame(&map), "{}: blame at {k}", f.id);
                let pages = map.pages.len() as u64;
                assert_eq!(
                    t.block_map(0, pages),
                    stepped.block_map(0, pages),
                    "{}: block map at {k}",
                    f.id
                );
            }
            t.seek(0).unwrap();
            assert_eq!((t.position(), t.step(0)), (0, None));
        }
    }

    /// On a trace whose every event has a time (it opens with a mark), the presets
    /// whose delays count time decide in teaching mode as they do in the run: the marks
    /// in the log move the replay's clock as the trace's moved the run's.
    #[test]
    fn teaching_keeps_the_trace_clock_of_the_run() {
        let mut w = RunConfig::new("balloon", "buddy");
        w.workload.params.insert("scale".into(), 0.02.into());
        let plain = Session::workload_events(&w).unwrap();
        let mut marked = Vec::new();
        for (i, e) in plain.iter().enumerate() {
            if i % 50 == 0 {
                // 20 ms a mark: the delays of mimalloc 2.0 (25 ms) and jemalloc's decay
                // epochs (50 ms) run out many times over.
                marked.push(Event::Time(i as u64 * 400_000));
            }
            marked.push(e.clone());
        }
        for preset in ["mimalloc2-like", "jemalloc-like"] {
            let mut c = RunConfig::new("trace", preset);
            c.workload = heaplab_core::config::WorkloadConfig::trace("marked.trace");
            let run = |events: &[Event]| {
                heaplab_core::run::run_with(&c, |sink| {
                    for e in events {
                        sink(e.clone()).map_err(|e| RunError::Event(e.to_string()))?;
                    }
                    Ok(())
                })
                .unwrap()
                .report
                .summary
            };
            let (clocked, counted) = (run(&marked), run(&plain));
            // The clock changes what the preset gives back, or this would prove nothing.
            assert_ne!(
                (
                    clocked.pages.resident_pages.current,
                    clocked.pages.decommit_ops
                ),
                (
                    counted.pages.resident_pages.current,
                    counted.pages.decommit_ops
                ),
                "{preset}"
            );
            let mut t = Session::new(&c, marked.clone()).unwrap();
            t.run_to(plain.len()).unwrap();
            let pages = &t.simulation().pages().stats();
            assert_eq!(
                (pages.resident_pages.current, pages.decommit_ops),
                (
                    clocked.pages.resident_pages.current,
                    clocked.pages.decommit_ops
                ),
                "{preset}"
            );
        }
    }

    #[test]
    fn stepping_back_starts_from_a_checkpoint_and_equals_a_fresh_run_for_every_family() {
        // Long enough for two checkpoints (every 65,536 events) before its end.
        for f in heaplab_core::policy::FAMILIES {
            let mut c = RunConfig::new("churn", f.id);
            c.workload.params.insert("scale".into(), 0.01.into());
            let events = EventLog::from(Session::workload_events(&c).unwrap());
            let n = events.len();
            assert!(n > 2 * CHECKPOINT_EVERY + 10, "{n} events");
            let mut t = Teaching::new(&c, events.clone()).unwrap();
            t.seek(n - 5).unwrap();
            assert_eq!(t.checkpoints(), 1, "{}", f.id);
            // Back a few events, to just past the checkpoint, then across it.
            let second = 2 * CHECKPOINT_EVERY;
            for k in [n - 6, second + 3, second + 1, second, second - 2] {
                let before = t.applied();
                t.seek(k).unwrap();
                let cost = t.applied() - before;
                // Past the checkpoint, a step back replays from it; across it, from the
                // one before it, which does not exist yet, so from the start.
                let most = if k > second { k - second } else { k };
                assert!(
                    cost <= most,
                    "{}: {cost} events replayed to reach {k}",
                    f.id
                );
                let mut fresh = Session::new(&c, events.clone()).unwrap();
                fresh.run_to(k - 1).unwrap();
                let line = fresh.step().unwrap().unwrap();
                assert_eq!(t.step(k), Some(&line), "{}: line {k}", f.id);
                let map = fresh.heap_map();
                assert_eq!(t.heap_map(), map, "{}: heap map at {k}", f.id);
                assert_eq!(t.blame(), blame(&map), "{}: blame at {k}", f.id);
                let pages = map.pages.len() as u64;
                assert_eq!(t.block_map(0, pages), fresh.block_map(0, pages));
            }
            // The way back across the checkpoint left one at its predecessor.
            assert_eq!(t.checkpoints(), 2, "{}", f.id);
            let before = t.applied();
            t.seek(CHECKPOINT_EVERY + 2).unwrap();
            assert!(t.applied() - before <= 2, "{}", f.id);
        }
    }

    #[test]
    fn checkpoints_stay_few_however_far_the_user_goes() {
        let mut c = RunConfig::new("churn", "bump");
        c.workload.params.insert("scale".into(), 0.1.into());
        let events = Session::workload_events(&c).unwrap();
        let n = events.len();
        let mut t = Teaching::new(&c, events).unwrap();
        for k in (1..n).step_by(CHECKPOINT_EVERY / 2) {
            t.seek(k).unwrap();
        }
        assert!(n / CHECKPOINT_EVERY > MAX_CHECKPOINTS, "{n} events");
        assert_eq!(t.checkpoints(), MAX_CHECKPOINTS);
        // The ones kept are those nearest the last event shown: a step back from it
        // replays from the checkpoint just before it.
        let last = n - 10;
        t.seek(last).unwrap();
        assert_eq!(t.checkpoints(), MAX_CHECKPOINTS);
        let nearest = (last - 1) / CHECKPOINT_EVERY * CHECKPOINT_EVERY;
        assert!(last > nearest + 3);
        let before = t.applied();
        t.seek(nearest + 3).unwrap();
        assert_eq!(t.applied() - before, 3);
    }

    #[test]
    fn a_far_event_is_reached_in_slices() {
        let c = config("size-class");
        let events = Session::workload_events(&c).unwrap();
        let n = events.len();
        let mut t = Teaching::new(&c, events).unwrap();
        let mut slices = 0;
        while !t.seek_some(n - 10, 1000).unwrap() {
            slices += 1;
            assert!(t.position() < n - 10);
        }
        assert_eq!(slices, (n - 11) / 1000);
        assert_eq!(t.position(), n - 10);
        assert!(t.step(n - 10).is_some());
        // The jumps read the index once, and find the peak's event and page operations.
        let peak = t.index().unwrap().peak();
        assert_eq!(
            peak,
            crate::observe::find::peak_event(&c, t.events()).unwrap()
        );
        let page_op = crate::observe::find::kind("page-op").unwrap();
        let back = t
            .find(page_op, false)
            .unwrap()
            .expect("a page operation before");
        assert!(back < n - 10);
        t.seek(back).unwrap();
        let line = &t.step(back).unwrap().line;
        assert!(
            t.step(back)
                .unwrap()
                .decisions
                .iter()
                .any(|d| matches!(d, heaplab_core::decision::Decision::PageOp { .. })),
            "event {back} has no page operation: {line}"
        );
        assert!(t.find(page_op, true).unwrap().is_none_or(|k| k > back));
    }

    #[test]
    fn a_trace_pushed_in_chunks_gives_the_events_and_stops_past_the_limit() {
        let options = heaplab_core::trace::ImportOptions::default();
        let text = b"a 1 48\na 2 16\nf 1\n";
        let mut t = TeachTrace::new("small.trace", &options);
        for chunk in text.chunks(5) {
            t.push(chunk).unwrap();
        }
        let (pushed, sites) = t.finish().unwrap();
        let (read, read_sites) = trace_events(text, "small.trace", &options).unwrap();
        assert_eq!((pushed.to_vec(), sites), (read.to_vec(), read_sites));
        // A trace past the limit is refused at the chunk holding the event past it, so a
        // reader stops there.
        // Chunks of 100,000 events each.
        let chunk = b"a 1 8\nf 1\n".repeat(50_000);
        let mut t = TeachTrace::new("huge.trace", &options);
        let mut pushed = 0;
        let refused = loop {
            match t.push(&chunk) {
                Ok(()) => pushed += 1,
                Err(e) => break e.to_string(),
            }
            assert!(pushed <= MAX_TEACH_EVENTS / 100_000, "never refused");
        };
        assert_eq!(pushed, MAX_TEACH_EVENTS / 100_000);
        assert!(refused.contains("huge.trace:10000001"), "{refused}");
        assert!(refused.contains("more than 10,000,000"), "{refused}");
    }

    #[test]
    fn refuses_long_runs_and_seeks_past_the_end() {
        let c = config("bump");
        let events = vec![Event::free(1); MAX_TEACH_EVENTS + 1];
        let e = Teaching::new(&c, events).unwrap_err().to_string();
        assert!(
            e.starts_with("teach: the workload has 10,000,001 events"),
            "{e}"
        );
        let events = Session::workload_events(&c).unwrap();
        let n = events.len();
        let mut t = Teaching::new(&c, events).unwrap();
        let e = t.seek(n + 1).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "teach: event {} is past the run's last, {}",
                format_count(n as i128 + 1),
                format_count(n as i128)
            )
        );
    }
}
