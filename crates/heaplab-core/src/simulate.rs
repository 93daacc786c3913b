//! The simulator: feeds events to a policy over a page provider and keeps the books.

use std::collections::BTreeMap;
use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::clock::{Clock, ModelTime};
use crate::config::{RunConfig, TouchMode};
use crate::event::{ArenaId, BlockId, Event, DEFAULT_ALIGN};
use crate::live::LiveTable;
use crate::metrics::versioned;
pub use crate::metrics::{PhaseMark, ProgramCounts, RunTime, Summary, SCHEMA};
use crate::pages::Pages;
use crate::params::ParamError;
use crate::policy::{dispatch, AllocError, AnyPolicy, Block, Policy};
use crate::provider::{PageProvider, ProviderError, SimProvider};
use crate::series::{PageOpsCurve, Sample, SeriesRecorder};
use crate::stats::Gauge;

/// An event the simulator could not carry out, with its 1-based number in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub event: u64,
    pub message: String,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event {}: {}", self.event, self.message)
    }
}

impl std::error::Error for SimError {}

/// A finished run: the resolved config and its summary, flattened into one JSON object
/// that names its layout's version first (`"schema": 1`, [`SCHEMA`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub config: RunConfig,
    pub summary: Summary,
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields<'a> {
            config: &'a RunConfig,
            #[serde(flatten)]
            summary: &'a Summary,
        }
        versioned(Fields {
            config: &self.config,
            summary: &self.summary,
        })
        .serialize(s)
    }
}

/// The steps, in events, of [`Simulation::apply_all`]'s look ahead: far enough for a miss
/// to main memory (about 100 ns) to finish while the events before it run.
const PREFETCH_AHEAD: usize = 8;

/// The live blocks from which [`Simulation::apply_all`] passes hints on to the policy: below
/// this, a policy's records of them fit in the CPU's caches.
const HINT_FROM_LIVE: usize = 1 << 16;

/// The live blocks from which [`Simulation::apply_all`] fetches live-table slots ahead:
/// below this, the table (16 bytes a block) fits in a core's second-level cache.
const FETCH_SLOTS_FROM: usize = 1 << 15;

/// A policy running over a provider.
#[derive(Debug)]
pub struct Simulation<P: PageProvider> {
    policy: AnyPolicy,
    books: Books<P>,
}

/// Everything the simulator keeps besides the policy. Kept apart so that an event is
/// applied with the policy borrowed as its own family: one match per event picks the
/// family, and the code under it is compiled for that family alone.
#[derive(Clone, Debug)]
struct Books<P: PageProvider> {
    mem: Pages<P>,
    live: LiveTable,
    /// The ids allocated in each arena since it was created or reset, for the reset or
    /// drop that frees those still live there (see [`Books::note_in_arena`]).
    arenas: FxHashMap<ArenaId, Vec<BlockId>>,
    live_bytes: Gauge,
    events: u64,
    allocs: u64,
    frees: u64,
    reallocs: u64,
    touch: TouchMode,
    /// While recording, `live` is in bytes and `committed` and `resident` in pages, which
    /// `finish` multiplies once by the page size.
    series: SeriesRecorder,
    phase: Option<String>,
    phases: Vec<PhaseMark>,
    /// See [`Simulation::hint_policy_from`].
    hint_from_live: usize,
    /// The model's time: the clock the config chose and the trace's marks.
    time: ModelTime,
}

/// Keeps the ids in `ids` of blocks live in arena `a`, each once.
#[cold]
#[inline(never)]
fn drop_dead_ids(ids: &mut Vec<BlockId>, live: &LiveTable, a: ArenaId) {
    let mut seen = FxHashSet::default();
    ids.retain(|&id| live.get(id).is_some_and(|b| b.arena == Some(a)) && seen.insert(id));
}

/// The simulated provider a resolved config asks for.
pub fn sim_provider(config: &RunConfig) -> SimProvider {
    SimProvider::new(config.provider.kind.sim_mode(), config.provider.page_size)
}

impl<P: PageProvider + Clone> Simulation<P> {
    /// A copy of the simulation as it stands (policy, pages, live blocks and counts), or
    /// `None` when its policy cannot be copied: a family the user brings keeps its state
    /// in its own instance. Teaching mode keeps such copies to step back without
    /// replaying the run from its start.
    pub fn try_clone(&self) -> Option<Simulation<P>> {
        Some(Simulation {
            policy: self.policy.try_clone()?,
            books: self.books.clone(),
        })
    }
}

impl<P: PageProvider> Simulation<P> {
    /// A simulation of a resolved config over `provider`. A config on a real run's clock
    /// is refused: nothing here would hand in that run's time (see
    /// [`Simulation::on_real_clock`]).
    pub fn new(config: &RunConfig, provider: P) -> Result<Simulation<P>, ParamError> {
        if config.clock == Some(Clock::Real) {
            return Err(ParamError {
                field: "clock".into(),
                message: "`real` is the time a real run of the same events took, and only a \
                          real run has it: add --real (heaplab run --real), or give `trace` \
                          or `rate=<ns per event>`"
                    .into(),
            });
        }
        Simulation::on_real_clock(config, provider)
    }

    /// [`Simulation::new`] for a caller that is, or replays, a real run: under
    /// [`Clock::Real`] it hands in that run's time as [`Event::Time`] marks, the first
    /// before the first event.
    pub fn on_real_clock(config: &RunConfig, provider: P) -> Result<Simulation<P>, ParamError> {
        let params = config.policy_params()?;
        let mem = Pages::new(provider);
        let policy = AnyPolicy::build(&config.policy.family, &params, mem.page_size())?;
        Ok(Simulation {
            policy,
            books: Books {
                mem,
                live: LiveTable::default(),
                hint_from_live: HINT_FROM_LIVE,
                arenas: FxHashMap::default(),
                live_bytes: Gauge::default(),
                events: 0,
                allocs: 0,
                frees: 0,
                reallocs: 0,
                touch: config.touch,
                series: SeriesRecorder::new(config.series_points),
                phase: None,
                phases: Vec::new(),
                time: ModelTime::new(config.model_clock()),
            },
        })
    }

    pub fn pages(&self) -> &Pages<P> {
        &self.books.mem
    }

    pub fn pages_mut(&mut self) -> &mut Pages<P> {
        &mut self.books.mem
    }

    /// The live blocks, by id.
    pub fn live(&self) -> impl Iterator<Item = (BlockId, Block)> + '_ {
        self.books.live.iter()
    }

    /// The live block `id`, if it is live.
    pub fn block(&self, id: BlockId) -> Option<Block> {
        self.books.live.get(id)
    }

    pub fn live_bytes(&self) -> u64 {
        self.books.live_bytes.current
    }

    /// The events applied so far, the one that failed included.
    pub fn events(&self) -> u64 {
        self.books.events
    }

    /// The policy's free pieces (see [`crate::policy::Policy::free_pieces`]), and whether
    /// it reports them.
    pub fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        self.policy.free_pieces(out)
    }

    /// The regions the policy manages as units (see [`crate::policy::Policy::regions`]).
    pub fn regions(&self, out: &mut Vec<crate::policy::Region>) {
        self.policy.regions(out)
    }

    /// How the policy laid out a live block (see [`crate::policy::Policy::block_layout`]).
    pub fn block_layout(&self, addr: u64, size: u64) -> Option<crate::policy::BlockLayout> {
        self.policy.block_layout(addr, size)
    }

    /// Carries out one event.
    #[inline]
    pub fn apply(&mut self, event: Event) -> Result<(), SimError> {
        self.apply_ref(&event)
    }

    /// Carries out one event given by reference, for callers that replay events they keep
    /// (benchmarks, profilers): only a phase label is copied.
    #[inline]
    pub fn apply_ref(&mut self, event: &Event) -> Result<(), SimError> {
        let books = &mut self.books;
        dispatch!(&mut self.policy, p => books.apply(p, event))
    }

    /// Carries out a batch of events, stopping at the first that fails. The same as
    /// [`Simulation::apply_ref`] on each in turn, but it looks ahead: with a million live
    /// blocks, a free spends most of its time waiting for memory, first for the freed
    /// block's live-table slot and then for the policy's records of it. So the slot of a
    /// block freed `3 * PREFETCH_AHEAD` events later is fetched into the cache, and when
    /// many blocks are live the policy is told about it twice after that, when the slot has
    /// arrived, to fetch its own records ([`Policy::prefetch_free`]).
    pub fn apply_all(&mut self, events: &[Event]) -> Result<(), SimError> {
        let books = &mut self.books;
        dispatch!(&mut self.policy, p => books.apply_all(p, events))
    }

    /// Sets from how many live blocks [`Simulation::apply_all`] passes hints on to the policy
    /// (65,536 unless set). Hints never change a result; tests set 0 to see that they do
    /// not on small workloads too.
    pub fn hint_policy_from(&mut self, live_blocks: usize) {
        self.books.hint_from_live = live_blocks;
    }

    /// Checks the policy, the page map, and the live blocks against both: blocks do not
    /// overlap and every live byte lies in committed pages. Slow; for tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.books.check_invariants(&self.policy)
    }

    /// Ends the run: the summary and the memory-over-time series.
    pub fn finish(self) -> (Summary, crate::series::Series) {
        let (summary, series, _) = self.books.finish(&self.policy);
        (summary, series)
    }

    /// [`Simulation::finish`], with the page operations asked for on the series' events.
    pub fn finish_with_page_ops(self) -> (Summary, crate::series::Series, PageOpsCurve) {
        self.books.finish(&self.policy)
    }
}

impl<P: PageProvider> Books<P> {
    /// [`Simulation::apply_all`] with the policy as its own family, so the loop and the
    /// hints are compiled once per family. Always inlined into its one caller: left to
    /// itself the compiler once stopped inlining it, and the loop then kept less in
    /// registers and cost 2% more instructions.
    #[inline(always)]
    fn apply_all<Q: Policy>(&mut self, policy: &mut Q, events: &[Event]) -> Result<(), SimError> {
        let freed = |e: Option<&Event>| match e {
            Some(Event::Free { id, .. } | Event::Realloc { id, .. }) => Some(*id),
            _ => None,
        };
        let (mut far, mut deep) = (false, false);
        // The blocks the first hint found, by event number modulo the step: the second
        // hint, a step later, takes its block from here rather than from the live table.
        // A block reallocated in between is hinted where it was, which costs a wasted
        // fetch and changes no result.
        let mut hinted: [Option<Block>; PREFETCH_AHEAD] = [None; PREFETCH_AHEAD];
        for (i, e) in events.iter().enumerate() {
            // With few live blocks the live table and the policy's records stay in the
            // cache, and fetching ahead would only cost instructions; the count is looked
            // at now and then.
            if i % 256 == 0 {
                let live = self.live.len();
                far = live >= FETCH_SLOTS_FROM;
                let was_deep = deep;
                deep = Q::HINTS_FREE && live >= self.hint_from_live;
                if deep && !was_deep {
                    hinted = [None; PREFETCH_AHEAD];
                }
            }
            if far {
                if let Some(id) = freed(events.get(i + 3 * PREFETCH_AHEAD)) {
                    self.live.prefetch(id);
                }
            }
            if deep {
                let slot = &mut hinted[i % PREFETCH_AHEAD];
                if let Some(block) = slot {
                    policy.prefetch_free(&self.mem, block, 1);
                }
                *slot = freed(events.get(i + 2 * PREFETCH_AHEAD)).and_then(|id| self.live.get(id));
                if let Some(block) = slot {
                    policy.prefetch_free(&self.mem, block, 0);
                }
            }
            self.apply(policy, e)?;
        }
        Ok(())
    }

    /// A failed event as the run reports it. A policy that can say which live block the
    /// failure was about (your own allocator's payload over a live one) has that block
    /// named by its id too, as the trace knows it.
    #[cold]
    #[inline(never)]
    fn failed<Q: Policy>(&self, policy: &Q, event: u64, mut message: String) -> SimError {
        let block = policy.failed_on();
        if let Some((id, _)) = block.and_then(|addr| self.live.iter().find(|(_, b)| b.addr == addr))
        {
            message.push_str(&format!(", the trace's block id {id}"));
        }
        SimError { event, message }
    }

    /// Carries out one event with the policy as its own family.
    #[inline]
    fn apply<Q: Policy>(&mut self, policy: &mut Q, event: &Event) -> Result<(), SimError> {
        // A time mark is not a call: it moves the clock and counts as no event, so a
        // trace with marks runs the same events as one without.
        if let Event::Time(ns) = *event {
            self.time.mark(ns, self.events);
            policy.time_mark(self.time.policy_now(self.events));
            return Ok(());
        }
        self.events += 1;
        let n = self.events;
        if let Err(message) = self.step(policy, event) {
            return Err(self.failed(policy, n, message));
        }
        let now = self.time.policy_now(n);
        policy.tick(&mut self.mem, now).map_err(|e| SimError {
            event: n,
            message: e.to_string(),
        })?;
        // Pages, not bytes: `finish` multiplies the series once instead of every event.
        let st = self.mem.stats();
        self.series.record(
            n,
            Sample {
                live: self.live_bytes.current,
                committed: st.committed_pages.current,
                resident: st.resident_pages.current,
            },
            st,
            &self.time,
        );
        Ok(())
    }

    /// How many bytes of a `size`-byte block the program writes.
    #[inline]
    fn written(&self, size: u64) -> u64 {
        match self.touch {
            TouchMode::All => size,
            TouchMode::First => size.min(1),
            TouchMode::None => 0,
        }
    }

    #[inline]
    fn write(&mut self, addr: u64, size: u64) -> Result<(), ProviderError> {
        self.mem.touch(addr, self.written(size))
    }

    /// Checks, before a block dies or moves, that nothing else wrote over it.
    #[inline]
    fn verify(&self, block: Block) -> Result<(), String> {
        self.mem
            .verify(block.addr, self.written(block.size))
            .map_err(|e| e.to_string())
    }

    #[inline]
    fn step<Q: Policy>(&mut self, policy: &mut Q, event: &Event) -> Result<(), String> {
        let err = |e: AllocError| e.to_string();
        match *event {
            Event::Alloc {
                id,
                size,
                align,
                arena,
                thread,
            } => {
                if self.live.contains(id) {
                    return Err(format!("alloc of block id {id}, which is already live"));
                }
                if let Some(a) = arena {
                    if !self.arenas.contains_key(&a) {
                        return Err(format!("alloc in arena {a}, which was not created"));
                    }
                }
                let addr = policy
                    .alloc(&mut self.mem, size, align, arena, thread)
                    .map_err(err)?;
                self.write(addr, size).map_err(|e| e.to_string())?;
                self.live.insert(id, Block { addr, size, arena });
                if let Some(a) = arena {
                    self.note_in_arena(a, id);
                }
                self.live_bytes.add(size);
                self.allocs += 1;
            }
            Event::Free { id, thread } => {
                // A `let else` rather than `ok_or_else(..)?`: the `Result` it built went
                // through memory, where its arena tag, stored as two halves and read back
                // whole, stalled store forwarding on every free.
                let Some(block) = self.live.remove(id) else {
                    return Err(format!("free of block id {id}, which is not live"));
                };
                self.verify(block)?;
                policy.free(&mut self.mem, block, thread).map_err(err)?;
                self.live_bytes.sub(block.size);
                self.frees += 1;
            }
            Event::Realloc { id, size, thread } => {
                let Some(block) = self.live.get(id) else {
                    return Err(format!("realloc of block id {id}, which is not live"));
                };
                self.verify(block)?;
                let addr = policy
                    .realloc(&mut self.mem, block, size, DEFAULT_ALIGN, thread)
                    .map_err(err)?;
                self.write(addr, size).map_err(|e| e.to_string())?;
                self.live.insert(
                    id,
                    Block {
                        addr,
                        size,
                        arena: block.arena,
                    },
                );
                self.live_bytes.sub(block.size);
                self.live_bytes.add(size);
                self.reallocs += 1;
            }
            Event::Phase(ref label) => {
                self.close_phase(self.events - 1);
                self.phase = Some(label.clone());
            }
            // Taken in `apply` before it counts the event.
            Event::Time(_) => {}
            Event::ArenaCreate(a) => {
                if self.arenas.contains_key(&a) {
                    return Err(format!("arena {a} already exists"));
                }
                self.arenas.insert(a, Vec::new());
                policy.arena_create(a);
            }
            Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                let drop = matches!(event, Event::ArenaDrop(_));
                let ids = self
                    .arenas
                    .remove(&a)
                    .ok_or_else(|| format!("reset or drop of arena {a}, which does not exist"))?;
                for id in ids {
                    // Ids freed or reused since are skipped: only blocks still in this arena die.
                    let Some(block) = self.live.get(id) else {
                        continue;
                    };
                    if block.arena != Some(a) {
                        continue;
                    }
                    self.live.remove(id);
                    self.verify(block)?;
                    self.live_bytes.sub(block.size);
                    if !policy.owns_arenas() {
                        policy.free(&mut self.mem, block, 0).map_err(err)?;
                    }
                }
                if drop {
                    policy.arena_drop(&mut self.mem, a).map_err(err)?;
                } else {
                    self.arenas.insert(a, Vec::new());
                    policy.arena_reset(&mut self.mem, a).map_err(err)?;
                }
            }
        }
        Ok(())
    }

    /// Notes that block `id` was allocated in arena `a`, which must exist, for the arena's
    /// reset or drop. Blocks of an arena may also be freed one by one, which leaves their
    /// ids in the list (and an id may come back, in this arena or another). So when the
    /// list is full and is at least twice as long as the blocks live in any arena, it drops
    /// the ids no longer live in this one before it grows: it stays within a few times the
    /// live blocks, each scan of n ids comes after n / 2 allocations at least, and the
    /// free path has nothing to count.
    #[inline]
    fn note_in_arena(&mut self, a: ArenaId, id: BlockId) {
        let ids = self.arenas.get_mut(&a).expect("the arena exists");
        if ids.len() == ids.capacity()
            && ids.len() >= 64
            && 2 * self.live.in_arenas_at_most() <= ids.len()
        {
            drop_dead_ids(ids, &self.live, a);
        }
        ids.push(id);
    }

    fn close_phase(&mut self, end_event: u64) {
        if let Some(label) = self.phase.take() {
            let st = self.mem.stats();
            let page = self.mem.page_size();
            self.phases.push(PhaseMark {
                label,
                end_event,
                live_bytes: self.live_bytes.current,
                committed_bytes: st.committed_pages.current * page,
                resident_bytes: st.resident_pages.current * page,
            });
        }
    }

    fn check_invariants(&self, policy: &AnyPolicy) -> Result<(), String> {
        self.mem.check_invariants()?;
        policy.check_invariants(&self.mem)?;
        let mut blocks: Vec<Block> = self
            .live
            .iter()
            .map(|(_, b)| b)
            .filter(|b| b.size > 0)
            .collect();
        blocks.sort_by_key(|b| b.addr);
        for pair in blocks.windows(2) {
            if pair[0].addr + pair[0].size > pair[1].addr {
                return Err(format!(
                    "live blocks overlap: {:#x}+{} and {:#x}+{}",
                    pair[0].addr, pair[0].size, pair[1].addr, pair[1].size
                ));
            }
        }
        for b in &blocks {
            if !self.mem.is_committed(b.addr, b.size) {
                return Err(format!(
                    "live block {:#x}+{} is not committed",
                    b.addr, b.size
                ));
            }
        }
        let live: u64 = self.live.iter().map(|(_, b)| b.size).sum();
        if live != self.live_bytes.current {
            return Err(format!(
                "{live} live bytes in blocks, counter says {}",
                self.live_bytes.current
            ));
        }
        Ok(())
    }

    fn finish(mut self, policy: &AnyPolicy) -> (Summary, crate::series::Series, PageOpsCurve) {
        self.close_phase(self.events);
        let st = *self.mem.stats();
        let page = self.mem.page_size();
        // Only a policy that keeps counters of its own reports any: made up from the live
        // blocks for the others, they would repeat the live figures under other names.
        let counters: BTreeMap<String, u64> = policy
            .extra_counters()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let summary = Summary {
            program: ProgramCounts {
                events: self.events,
                allocs: self.allocs,
                frees: self.frees,
                reallocs: self.reallocs,
                live_bytes: self.live_bytes,
            },
            pages: st,
            page_size: page,
            allocator_metadata_bytes: policy.metadata_bytes(),
            phases: self.phases,
            counters,
            time: RunTime {
                clock: self.time.clock(),
                elapsed_ns: self.time.now(self.events),
                marks: self.time.marks(),
            },
        };
        let end = Sample {
            live: self.live_bytes.current,
            committed: st.committed_pages.current,
            resident: st.resident_pages.current,
        };
        let (mut series, page_ops) = self.series.finish(self.events, &st, end, &self.time);
        for v in series
            .committed
            .iter_mut()
            .chain(series.resident.iter_mut())
        {
            *v *= page;
        }
        (summary, series, page_ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn sim(family: &str) -> Simulation<SimProvider> {
        let config = RunConfig::new("churn", family).resolve().unwrap();
        Simulation::new(&config, sim_provider(&config)).unwrap()
    }

    /// Blocks freed one by one in an arena that is never reset, with new ids and with one
    /// id used again and again, leave the arena's list of ids bounded by its live blocks,
    /// and a reset afterwards still frees exactly the blocks live in it.
    #[test]
    fn an_arena_freed_block_by_block_keeps_a_bounded_list_of_ids() {
        for family in ["bump", "size-class", "free-list"] {
            let mut s = sim(family);
            s.apply(Event::ArenaCreate(7)).unwrap();
            // Ten blocks stay live throughout; the rest are freed at once.
            for id in 0..10 {
                s.apply(Event::alloc_in(7, id, 24)).unwrap();
            }
            for id in 10..100_000 {
                s.apply(Event::alloc_in(7, id, 24)).unwrap();
                s.apply(Event::free(id)).unwrap();
            }
            for _ in 0..100_000 {
                s.apply(Event::alloc_in(7, 200_000, 24)).unwrap();
                s.apply(Event::free(200_000)).unwrap();
            }
            let held = s.books.arenas[&7].len();
            assert!(
                held <= 128,
                "{family}: the arena lists {held} ids for 10 live blocks"
            );
            s.apply(Event::alloc_in(7, 200_001, 24)).unwrap();
            s.apply(Event::ArenaReset(7)).unwrap();
            assert_eq!(s.live().count(), 0, "{family}: the reset left blocks live");
            assert_eq!(s.live_bytes(), 0);
            s.check_invariants().unwrap();
        }
    }
}
