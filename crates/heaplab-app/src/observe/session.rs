//! `Session`: a run stepped one event at a time over a watching provider, remembering
//! which event allocated each live block, so that teaching mode can say what each event
//! did ([`Session::step`]), draw the heap at the event reached and blame its
//! fragmentation.

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
    events: Vec<Event>,
    /// How many events have been applied.
    done: usize,
    births: FxHashMap<BlockId, Birth>,
    phase: Option<String>,
    /// The events' call sites, when the trace has them.
    sites: Sites,
}

impl Session {
    /// A session over a config (resolved here) and the events of its workload.
    pub fn new(config: &RunConfig, events: Vec<Event>) -> Result<Session, RunError> {
        let config = config.resolve()?;
        let sim = Simulation::new(&config, Watch::new(sim_provider(&config)))?;
        Ok(Session {
            sim,
            events,
            done: 0,
            births: FxHashMap::default(),
            phase: None,
            sites: Sites::new(),
        })
    }

    /// The session with the call sites of its events (a recorded trace's `site=`), so
    /// that each live block's birth says where it was asked for.
    pub fn with_sites(mut self, sites: Sites) -> Session {
        self.sites = sites;
        self
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
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
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
        let Some(event) = self.events.get(self.done).cloned() else {
            return Ok(None);
        };
        let n = self.done as u64 + 1;
        let freed: Option<Block> = match &event {
            Event::Free { id, .. } => self.sim.block(*id),
            _ => None,
        };
        self.sim.pages_mut().provider_mut().take();
        self.sim.apply_ref(&event)?;
        self.done += 1;
        let decisions = self.sim.pages_mut().provider_mut().take();
        match &event {
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
            Event::Phase(name) => self.phase = Some(name.clone()),
            _ => {}
        }
        // Arena resets and drops free blocks the births still name; keep only live ones.
        if matches!(event, Event::ArenaReset(_) | Event::ArenaDrop(_)) {
            let live: rustc_hash::FxHashSet<BlockId> = self.sim.live().map(|(id, _)| id).collect();
            self.births.retain(|id, _| live.contains(id));
        }
        let placed = match &event {
            Event::Alloc { id, .. } | Event::Realloc { id, .. } => self.sim.block(*id),
            _ => None,
        };
        let pinned = match freed {
            Some(block) => heap_map::pinners_of(self.moment(), block),
            None => Vec::new(),
        };
        let line = explain::line(n, &event, placed, &decisions, &pinned);
        Ok(Some(Step {
            event: n,
            op: explain::op_text(&event),
            decisions,
            line,
        }))
    }

    /// Applies events until `event` of them are applied (or the run ends).
    pub fn run_to(&mut self, event: usize) -> Result<(), SimError> {
        while self.done < event.min(self.events.len()) {
            self.step()?;
        }
        Ok(())
    }

    /// The run as it stands at the event reached, for the maps.
    pub fn moment(&self) -> Moment<'_> {
        Moment {
            simulation: &self.sim,
            births: &self.births,
            sites: &self.sites,
            position: self.done,
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
    events: Vec<Event>,
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
) -> Result<(Vec<Event>, Sites), RunError> {
    let mut events = Vec::new();
    let (_, sites) =
        heaplab_core::trace::import_sited::<R, SimError, _>(input, name, options, |e| {
            events.push(e);
            Ok(())
        })
        .map_err(|e| RunError::Event(e.to_string()))?;
    Ok((events, sites))
}

/// The first event after which resident memory is highest (0 for an empty run).
pub fn peak_event(config: &RunConfig, events: &[Event]) -> Result<usize, RunError> {
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    let (mut best, mut at) = (0, 0);
    for (i, e) in events.iter().enumerate() {
        sim.apply_ref(e)
            .map_err(|e| RunError::Event(e.to_string()))?;
        let r = sim.pages().stats().resident_pages.current;
        if r > best {
            (best, at) = (r, i + 1);
        }
    }
    Ok(at)
}
