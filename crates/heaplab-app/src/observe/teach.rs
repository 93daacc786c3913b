//! `Teaching`: a run of at most [`MAX_TEACH_EVENTS`] events held for stepping back and
//! forth, as the page's teaching panel does. Every line is worked out once, by the same
//! [`Session::step`] that `heaplab explain` prints from, so the page's line k is the CLI's
//! line k; the heap at any event is a second session moved there (forward by stepping,
//! back by replaying from the start, which for this many events takes milliseconds).

use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::format::format_count;
use heaplab_core::run::RunError;
use heaplab_core::trace::sites::Sites;

use super::blame::{blame, Blame};
use super::block_map::BlockMap;
use super::heap_map::HeapMap;
use super::session::{Session, Step};

/// The most events teaching mode steps through: enough for a lesson, few enough that
/// every line and any event's heap are ready at once.
pub const MAX_TEACH_EVENTS: usize = 10_000;

#[derive(Debug)]
pub struct Teaching {
    config: RunConfig,
    events: Vec<Event>,
    sites: Sites,
    steps: Vec<Step>,
    /// The run moved to the event shown.
    at: Session,
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

/// A sink that keeps events in `events` and refuses the one past [`MAX_TEACH_EVENTS`],
/// which stops whatever feeds it.
fn keep_teachable(events: &mut Vec<Event>) -> impl FnMut(Event) -> Result<(), String> + '_ {
    move |e| {
        if events.len() == MAX_TEACH_EVENTS {
            return Err(too_long(&format!(
                "more than {}",
                format_count(MAX_TEACH_EVENTS as i128)
            )));
        }
        events.push(e);
        Ok(())
    }
}

/// The events of a config's built-in workload, generation stopped (and the run refused)
/// as soon as it passes [`MAX_TEACH_EVENTS`], so a large workload costs nothing to refuse.
pub fn workload_events(config: &RunConfig) -> Result<Vec<Event>, RunError> {
    let spec = heaplab_core::workload::find(&config.workload.id)?;
    let params = config.workload_params()?;
    let mut events = Vec::new();
    spec.generate::<String>(&params, &mut keep_teachable(&mut events))
        .map_err(RunError::Event)?;
    Ok(events)
}

/// The events of a trace's bytes (any format, gzip'd or not), read up to
/// [`MAX_TEACH_EVENTS`], with their call sites when the trace has them; errors name
/// `name` and the line.
pub fn trace_events(
    bytes: &[u8],
    name: &str,
    options: &heaplab_core::trace::ImportOptions,
) -> Result<(Vec<Event>, Sites), RunError> {
    let (_, kept) = heaplab_core::trace::import_into(bytes, name, options, Teachable::default())
        .map_err(|e| RunError::Event(e.to_string()))?;
    Ok((kept.events, kept.sites))
}

/// The events a trace read for teaching mode keeps, with their call sites: an
/// [`EventSink`](heaplab_core::trace::EventSink) that refuses the event past
/// [`MAX_TEACH_EVENTS`], which stops the import (or a [`TeachTrace`]'s stream) at its line.
#[derive(Debug, Default)]
pub struct Teachable {
    events: Vec<Event>,
    sites: Sites,
}

impl heaplab_core::trace::EventSink for Teachable {
    type Error = String;

    fn event(&mut self, e: Event) -> Result<(), String> {
        keep_teachable(&mut self.events)(e)
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
    pub fn finish(self) -> Result<(Vec<Event>, Sites), RunError> {
        let (_, kept) = self
            .stream
            .finish()
            .map_err(|e| RunError::Event(e.to_string()))?;
        Ok((kept.events, kept.sites))
    }
}

impl Teaching {
    /// Explains every event of the run; a run of more than [`MAX_TEACH_EVENTS`] events is
    /// refused with a message that says how many it has and what to do.
    pub fn new(config: &RunConfig, events: Vec<Event>) -> Result<Teaching, RunError> {
        Teaching::with_sites(config, events, Sites::new())
    }

    /// [`Teaching::new`] for a trace's events with their call sites, so that blame
    /// groups its pinning blocks by call site too.
    pub fn with_sites(
        config: &RunConfig,
        events: Vec<Event>,
        sites: Sites,
    ) -> Result<Teaching, RunError> {
        if events.len() > MAX_TEACH_EVENTS {
            return Err(RunError::Event(too_long(&format_count(
                events.len() as i128
            ))));
        }
        let mut all = Session::new(config, events.clone())?;
        let mut steps = Vec::with_capacity(events.len());
        while let Some(step) = all.step().map_err(sim_error)? {
            steps.push(step);
        }
        let at = Session::new(config, events.clone())?.with_sites(sites.clone());
        Ok(Teaching {
            config: config.clone(),
            events,
            sites,
            steps,
            at,
        })
    }

    /// How many events the run has.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Every event's step, event 1 first.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The step of event `k` (1-based), if the run has it.
    pub fn step(&self, k: usize) -> Option<&Step> {
        k.checked_sub(1).and_then(|i| self.steps.get(i))
    }

    /// How many events are applied to the heap shown.
    pub fn position(&self) -> usize {
        self.at.position()
    }

    /// Shows the heap after event `k` (0: before the first); past the end is an error
    /// naming the run's length.
    pub fn seek(&mut self, k: usize) -> Result<(), RunError> {
        if k > self.len() {
            return Err(RunError::Event(format!(
                "teach: event {k} is past the run's last, {}",
                self.len()
            )));
        }
        if k < self.at.position() {
            self.at =
                Session::new(&self.config, self.events.clone())?.with_sites(self.sites.clone());
        }
        self.at.run_to(k).map_err(sim_error)
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
    fn lines_are_explains_lines_and_seeking_back_matches_going_forward() {
        let c = config("free-list");
        let events = Session::workload_events(&c).unwrap();
        let n = events.len();
        let cli = explain_range(&c, events.clone(), 1, n).unwrap();
        let mut t = Teaching::new(&c, events).unwrap();
        assert_eq!(t.steps(), &cli[..]);
        assert_eq!(t.step(3).unwrap().event, 3);
        assert!(t.step(0).is_none() && t.step(n + 1).is_none());
        t.seek(n / 2).unwrap();
        let forward = t.heap_map();
        t.seek(n).unwrap();
        t.seek(n / 2).unwrap();
        assert_eq!(t.position(), n / 2);
        assert_eq!(t.heap_map(), forward);
        assert_eq!(t.blame(), blame(&forward));
    }

    #[test]
    fn a_trace_pushed_in_chunks_gives_the_events_and_stops_past_the_limit() {
        let options = heaplab_core::trace::ImportOptions::default();
        let text = b"a 1 48\na 2 16\nf 1\n";
        let mut t = TeachTrace::new("small.trace", &options);
        for chunk in text.chunks(5) {
            t.push(chunk).unwrap();
        }
        assert_eq!(
            t.finish().unwrap(),
            trace_events(text, "small.trace", &options).unwrap()
        );
        // A trace past the limit is refused at the chunk holding the event past it, so a
        // reader stops there.
        let line = b"a 1 8\nf 1\n";
        let mut t = TeachTrace::new("huge.trace", &options);
        let mut pushed = 0;
        let refused = loop {
            match t.push(line) {
                Ok(()) => pushed += 1,
                Err(e) => break e.to_string(),
            }
            assert!(pushed <= MAX_TEACH_EVENTS, "never refused");
        };
        assert_eq!(pushed, MAX_TEACH_EVENTS / 2);
        assert!(refused.contains("huge.trace:10001"), "{refused}");
        assert!(refused.contains("more than 10,000"), "{refused}");
    }

    #[test]
    fn refuses_long_runs_and_seeks_past_the_end() {
        let c = config("bump");
        let events = vec![Event::free(1); MAX_TEACH_EVENTS + 1];
        let e = Teaching::new(&c, events).unwrap_err().to_string();
        assert!(
            e.starts_with("teach: the workload has 10,001 events"),
            "{e}"
        );
        let events = Session::workload_events(&c).unwrap();
        let n = events.len();
        let mut t = Teaching::new(&c, events).unwrap();
        let e = t.seek(n + 1).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("teach: event {} is past the run's last, {n}", n + 1)
        );
    }
}
