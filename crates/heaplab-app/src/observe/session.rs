//! `Session`: a run stepped one event at a time over a watching provider, remembering
//! which event allocated each live block, so that teaching mode can say what each event
//! did ([`Session::step`]), draw the heap at the event reached and blame its
//! fragmentation. A far event is reached by [`Session::run_to`], which keeps the births
//! and nothing else, so reaching event N costs about what running N events costs.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::Serialize;

use heaplab_core::config::RunConfig;
use heaplab_core::decision::Decision;
use heaplab_core::event::{BlockId, Event};
use heaplab_core::policy::Block;
use heaplab_core::provider::SimProvider;
use heaplab_core::run::RunError;
use heaplab_core::simulate::{sim_provider, SimError, Simulation};
use heaplab_core::trace::sites::Sites;

use super::block_map::{self, BlockMap};
use super::explain;
use super::heap_map::{self, HeapMap};
use super::log::{EventLog, LogBuilder, LogReader};
use super::moment::{Birth, Moment};
use super::watch::Watch;

/// One event explained: its trace line, the decisions, and the sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The event's number, 1-based as in the simulator's errors.
    pub event: u64,
    /// The event as a `.trace` line (`a 9 48`).
    pub op: String,
    pub decisions: Vec<Decision>,
    /// The plain-words line `heaplab explain` prints and the page shows.
    pub line: String,
}

#[derive(Debug)]
pub struct Session {
    sim: Simulation<Watch<SimProvider>>,
    /// The run's events, shared, so that teaching mode starts a session again without a
    /// copy of the run, read from the next event to apply.
    events: LogReader,
    /// How many events have been applied.
    done: usize,
    births: FxHashMap<BlockId, Birth>,
    phase: Option<Arc<str>>,
    /// The events' call sites, when the trace has them; shared with the copies teaching
    /// mode keeps.
    sites: Arc<Sites>,
    /// The live blocks that take up bytes, by address, for the pages a free leaves
    /// pinned: built when a step first needs it and kept by the steps after it;
    /// [`Session::run_to`] drops it rather than pay for it on every event.
    by_addr: Option<BTreeSet<(u64, BlockId)>>,
}

impl Session {
    /// A session over a config (resolved here) and the events of its workload.
    pub fn new(config: &RunConfig, events: impl Into<EventLog>) -> Result<Session, RunError> {
        let config = config.resolve()?;
        let sim = Simulation::new(&config, Watch::new(sim_provider(&config)))?;
        Ok(Session {
            sim,
            events: events.into().reader(),
            done: 0,
            births: FxHashMap::default(),
            phase: None,
            sites: Arc::default(),
            by_addr: None,
        })
    }

    /// The events the session steps through.
    pub fn events(&self) -> &EventLog {
        self.events.log()
    }

    /// The session with the call sites of its events (a recorded trace's `site=`), so
    /// that each live block's birth says where it was asked for.
    pub fn with_sites(mut self, sites: impl Into<Arc<Sites>>) -> Session {
        self.sites = sites.into();
        self
    }

    /// A copy of the session where it stands, or `None` when its policy cannot be copied
    /// (an allocator module, whose state lives in its own instance).
    pub fn try_clone(&self) -> Option<Session> {
        Some(Session {
            sim: self.sim.try_clone()?,
            events: self.events.clone(),
            done: self.done,
            births: self.births.clone(),
            phase: self.phase.clone(),
            sites: Arc::clone(&self.sites),
            by_addr: self.by_addr.clone(),
        })
    }

    /// The call sites of the run's events (empty when its trace had none).
    pub fn sites(&self) -> &Sites {
        &self.sites
    }

    /// The events of a config's built-in workload, generated into memory.
    pub fn workload_events(config: &RunConfig) -> Result<Vec<Event>, RunError> {
        let spec = heaplab_core::workload::find(&config.workload.id)?;
        let params = config.workload_params()?;
        let mut events = Vec::new();
        spec.generate::<SimError>(&params, &mut |e| {
            events.push(e);
            Ok(())
        })
        .map_err(|e| RunError::Event(format!("workload {}: {e}", spec.id)))?;
        Ok(events)
    }

    /// How many events the run has, and how many are applied.
    pub fn len(&self) -> usize {
        self.events.log().len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.log().is_empty()
    }

    pub fn position(&self) -> usize {
        self.done
    }

    pub fn simulation(&self) -> &Simulation<Watch<SimProvider>> {
        &self.sim
    }

    pub fn births(&self) -> &FxHashMap<BlockId, Birth> {
        &self.births
    }

    /// Applies the next event and explains it; `None` at the end of the run.
    pub fn step(&mut self) -> Result<Option<Step>, SimError> {
        let mark = self.events.mark();
        let Some(event) = self.events.next() else {
            return Ok(None);
        };
        let n = self.done as u64 + 1;
        if self.by_addr.is_none() {
            let sized = self.sim.live().filter(|(_, b)| b.size > 0);
            self.by_addr = Some(sized.map(|(id, b)| (b.addr, id)).collect());
        }
        let before: Option<Block> = match &event {
            Event::Free { id, .. } | Event::Realloc { id, .. } => self.sim.block(*id),
            _ => None,
        };
        self.sim.pages_mut().provider_mut().take();
        if let Err(e) = self.apply(&event) {
            self.events.rewind(mark);
            return Err(e);
        }
        let decisions = self.sim.pages_mut().provider_mut().take();
        let placed = match &event {
            Event::Alloc { id, .. } | Event::Realloc { id, .. } => self.sim.block(*id),
            _ => None,
        };
        self.index_moves(&event, before, placed);
        let pinned = match (&event, before) {
            (Event::Free { .. }, Some(block)) => heap_map::pinners_of(self.moment(), block),
            _ => Vec::new(),
        };
        let line = explain::line(n, &event, placed, &decisions, &pinned);
        Ok(Some(Step {
            event: n,
            op: explain::op_text(&event),
            decisions,
            line,
        }))
    }

    /// Applies the next event, just read from the log, to the simulation and the births,
    /// nothing more.
    fn apply(&mut self, event: &Event) -> Result<(), SimError> {
        let n = self.done as u64 + 1;
        // The trace's time marks before the event move the model's clock first, as they
        // did in the run: a preset counting its delays in time must decide the same here.
        if let Some((ns, marks)) = self.events.take_marks() {
            for _ in 0..marks {
                self.sim.apply_ref(&Event::Time(ns))?;
            }
        }
        self.sim.apply_ref(event)?;
        self.done += 1;
        match event {
            Event::Alloc { id, .. } | Event::Realloc { id, .. } => {
                let birth = Birth {
                    event: n,
                    phase: self.phase.clone(),
                    site: self.sites.at(n),
                };
                self.births.insert(*id, birth);
            }
            Event::Free { id, .. } => {
                self.births.remove(id);
            }
            Event::Phase(name) => self.phase = Some(name.as_str().into()),
            Event::ArenaReset(_) | Event::ArenaDrop(_) => {
                // They free blocks the births still name; keep only live ones.
                let live: rustc_hash::FxHashSet<BlockId> =
                    self.sim.live().map(|(id, _)| id).collect();
                self.births.retain(|id, _| live.contains(id));
            }
            Event::ArenaCreate(_) | Event::Time(_) => {}
        }
        Ok(())
    }

    /// Keeps the address index in step with an event that moved blocks: `before` is the
    /// block a free or realloc named before it, `placed` where an alloc or realloc put it.
    fn index_moves(&mut self, event: &Event, before: Option<Block>, placed: Option<Block>) {
        if matches!(event, Event::ArenaReset(_) | Event::ArenaDrop(_)) {
            self.by_addr = None;
            return;
        }
        let Some(index) = self.by_addr.as_mut() else {
            return;
        };
        let id = match event {
            Event::Alloc { id, .. } | Event::Free { id, .. } | Event::Realloc { id, .. } => *id,
            _ => return,
        };
        if let Some(b) = before {
            index.remove(&(b.addr, id));
        }
        if let Some(b) = placed.filter(|b| b.size > 0) {
            index.insert((b.addr, id));
        }
    }

    /// Applies events until `event` of them are applied (or the run ends), without
    /// explaining them: the births are kept, and no decision is built.
    pub fn run_to(&mut self, event: usize) -> Result<(), SimError> {
        let end = event.min(self.len());
        if self.done >= end {
            return Ok(());
        }
        self.by_addr = None;
        self.sim.pages_mut().provider_mut().set_quiet(true);
        let mut result = Ok(());
        while self.done < end {
            // A refused event stays the next one, as a refused step's does.
            let mark = self.events.mark();
            let Some(e) = self.events.next() else {
                break;
            };
            if let Err(err) = self.apply(&e) {
                self.events.rewind(mark);
                result = Err(err);
                break;
            }
        }
        self.sim.pages_mut().provider_mut().set_quiet(false);
        result
    }

    /// The run as it stands at the event reached, for the maps.
    pub fn moment(&self) -> Moment<'_> {
        Moment {
            simulation: &self.sim,
            births: &self.births,
            sites: &self.sites,
            position: self.done,
            by_addr: self.by_addr.as_ref(),
        }
    }

    /// The heap at the event reached.
    pub fn heap_map(&self) -> HeapMap {
        heap_map::heap_map(self.moment())
    }

    /// The blocks on `count` map pages from page `first`, at the event reached, drawn to
    /// scale.
    pub fn block_map(&self, first: u64, count: u64) -> BlockMap {
        block_map::block_map(self.moment(), first, count)
    }
}

/// The steps from event `from` to event `to` (1-based, both included; `to` past the end
/// stops at the end) of a run.
pub fn explain_range(
    config: &RunConfig,
    events: impl Into<EventLog>,
    from: usize,
    to: usize,
) -> Result<Vec<Step>, RunError> {
    let mut session = Session::new(config, events)?;
    let sim_err = |e: SimError| RunError::Event(e.to_string());
    session.run_to(from.saturating_sub(1)).map_err(sim_err)?;
    let mut steps = Vec::new();
    while session.position() < to {
        match session.step().map_err(sim_err)? {
            Some(s) => steps.push(s),
            None => break,
        }
    }
    Ok(steps)
}

/// The events of a trace read from `input` (gzip'd or not, any format
/// [`heaplab_core::trace::import`] knows), into memory, with their call sites when the trace
/// has them; errors name `name` and the line.
pub fn trace_events<R: std::io::Read>(
    input: R,
    name: &str,
    options: &heaplab_core::trace::ImportOptions,
) -> Result<(EventLog, Sites), RunError> {
    let mut log = LogBuilder::new();
    let (_, sites) =
        heaplab_core::trace::import_sited::<R, SimError, _>(input, name, options, |e| {
            log.push(&e);
            Ok(())
        })
        .map_err(|e| RunError::Event(e.to_string()))?;
    Ok((log.finish(), sites))
}
