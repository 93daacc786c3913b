//! The wall clock of a real run, kept as time marks so that a model can run on it.
//!
//! A real allocator that counts its delays in time (mimalloc's purge delay, jemalloc's
//! decay) returns memory according to the time that passed while it ran. A model compared
//! with it must see the same time pass at the same events. So a real run reads the clock
//! as it goes ([`Stopwatch`]) and keeps what it read as [`TimeMarks`]; a model then runs the
//! same events with those marks handed in where they were taken ([`simulate`]).
//!
//! Both real runs do this: a policy over real memory on `--clock real` (`heaplab run
//! --real`), and a real allocator in a baseline's process, whose marks `heaplab fidelity`
//! gives the model.

use std::time::Instant;

use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::provider::PageProvider;
use heaplab_core::simulate::{sim_provider, SimError, Simulation, Summary};
use serde::{Deserialize, Serialize};

use crate::error::ReplayError;

/// How often, in events, a real run reads the clock: often enough that a delay of a
/// millisecond is seen within microseconds, seldom enough that reading the clock (a call
/// of some 20 ns) stays out of the time per event.
const CLOCK_EVERY: u64 = 64;

// The least time between two marks is `heaplab record`'s spacing of a trace's, since the
// delays they serve are the same milliseconds.
use heaplab_record::MARK_EVERY_NS;

/// The time marks of a real run: `[events before it, ns since the start]`, the first at
/// `[0, 0]` before any event, the others at most one per [`MARK_EVERY_NS`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TimeMarks(Vec<[u64; 2]>);

impl TimeMarks {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The marks in the order they were taken.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().map(|&[at, ns]| (at, ns))
    }

    /// Hands a run these marks where the real run took them.
    pub fn feed(&self) -> Feed<'_> {
        Feed {
            marks: &self.0,
            next: 0,
        }
    }
}

/// Reads the wall clock during a real run of `events` events and keeps the marks.
#[derive(Debug)]
pub struct Stopwatch {
    start: Instant,
    last: u64,
    marks: TimeMarks,
}

impl Stopwatch {
    /// Starts the clock; the first mark, `[0, 0]`, is taken now. Room for every mark the
    /// run can take is made here, so that keeping them allocates nothing while it runs.
    pub fn start(events: usize) -> Stopwatch {
        let mut marks = Vec::with_capacity(events / CLOCK_EVERY as usize + 2);
        marks.push([0, 0]);
        Stopwatch {
            start: Instant::now(),
            last: 0,
            marks: TimeMarks(marks),
        }
    }

    /// The time to hand the policy before event `i` (counted from 0), when a mark is taken
    /// there: every [`CLOCK_EVERY`] events the clock is read, and a mark kept when at least
    /// [`MARK_EVERY_NS`] passed since the last.
    #[inline]
    pub fn before(&mut self, i: u64) -> Option<u64> {
        if i == 0 || !i.is_multiple_of(CLOCK_EVERY) {
            return None;
        }
        let ns = self.start.elapsed().as_nanos() as u64;
        if ns < self.last + MARK_EVERY_NS {
            return None;
        }
        self.last = ns;
        self.marks.0.push([i, ns]);
        Some(ns)
    }

    /// The time since the start.
    pub fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }

    pub fn into_marks(self) -> TimeMarks {
        self.marks
    }
}

/// Hands a run the marks of [`TimeMarks`] where the real run took them.
#[derive(Debug)]
pub struct Feed<'a> {
    marks: &'a [[u64; 2]],
    next: usize,
}

impl Feed<'_> {
    /// Applies the marks taken before event `i` (counted from 0).
    #[inline]
    pub fn before<P: PageProvider>(
        &mut self,
        i: u64,
        sim: &mut Simulation<P>,
    ) -> Result<(), SimError> {
        while let Some(&[at, ns]) = self.marks.get(self.next) {
            if at != i {
                break;
            }
            sim.apply(Event::Time(ns))?;
            self.next += 1;
        }
        Ok(())
    }
}

/// The model's run of `events` (without time marks of their own): `config`'s policy over
/// the simulated provider, on a real run's clock (`--clock real`) with `marks` handed in
/// where that run took them, or on `config`'s own clock with no marks. Gives the summary and the event after which the resident memory first
/// reached its peak (0 for none).
pub fn simulate(
    config: &RunConfig,
    events: &[Event],
    marks: &TimeMarks,
) -> Result<(Summary, u64), ReplayError> {
    let config = config.resolve()?;
    let mut sim = Simulation::on_real_clock(&config, sim_provider(&config))?;
    let mut feed = marks.feed();
    let mut peak = (0u64, 0u64);
    for (i, e) in (0u64..).zip(events) {
        feed.before(i, &mut sim)?;
        sim.apply(e.clone())?;
        let resident = sim.pages().stats().resident_pages.current;
        if resident > peak.0 {
            peak = (resident, i + 1);
        }
    }
    Ok((sim.finish().0, peak.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use heaplab_core::config::RunConfig;

    /// A mark is taken only on a read of the clock, never twice within the spacing, and
    /// is kept where it was handed out.
    #[test]
    fn a_stopwatch_keeps_the_marks_it_hands_out() {
        let mut watch = Stopwatch::start(1000);
        let mut handed = vec![(0, 0)];
        for i in 0..1000u64 {
            if let Some(ns) = watch.before(i) {
                assert_eq!(i % CLOCK_EVERY, 0);
                handed.push((i, ns));
            }
            // A pause longer than the spacing before the 128th event, so that at least
            // one mark is taken.
            if i == 100 {
                std::thread::sleep(std::time::Duration::from_nanos(2 * MARK_EVERY_NS));
            }
        }
        let marks = watch.into_marks();
        assert_eq!(marks.iter().collect::<Vec<_>>(), handed);
        assert!(handed.len() >= 2, "no mark after a pause: {handed:?}");
        for pair in handed.windows(2) {
            assert!(pair[1].1 >= pair[0].1 + MARK_EVERY_NS, "{handed:?}");
        }
    }

    /// The model runs on the marks it is given: a heap dropped and followed by more calls
    /// is purged by `mimalloc2-like` when a second passes after the drop, and kept when
    /// no time passes at all.
    #[test]
    fn the_model_runs_on_the_marks_it_is_given() {
        use heaplab_core::config::PolicyConfig;
        let alloc = |id, size| Event::Alloc {
            id,
            size,
            align: 16,
            arena: None,
            thread: 0,
        };
        let free = |id| Event::Free { id, thread: 0 };
        let mut events: Vec<Event> = (0..4000).map(|id| alloc(id, 1024)).collect();
        events.extend((0..4000).map(free));
        for id in 4000..4400 {
            events.push(alloc(id, 200_000));
            events.push(free(id));
        }
        let mut config = RunConfig::new("churn", "");
        config.policy = PolicyConfig::named("mimalloc2-like");
        config.clock = Some(heaplab_core::clock::Clock::Real);
        let end = |marks: TimeMarks| {
            let (summary, peak_at) = simulate(&config, &events, &marks).unwrap();
            assert!(peak_at > 0);
            assert_eq!(summary.time.marks, marks.len() as u64);
            summary.end_resident_bytes()
        };
        let still = end(TimeMarks(vec![[0, 0]]));
        let a_second_later = end(TimeMarks(vec![[0, 0], [8000, 1_000_000_000]]));
        assert!(still >= 4000 * 1024, "{still}");
        assert!(
            a_second_later < still / 4,
            "{a_second_later} bytes resident a second after the drop, {still} with no time"
        );
    }

    /// Marks travel as pairs of numbers, so that a baseline's process can send them.
    #[test]
    fn marks_travel_as_pairs() {
        let marks = TimeMarks(vec![[0, 0], [128, 150_000]]);
        let text = serde_json::to_string(&marks).unwrap();
        assert_eq!(text, "[[0,0],[128,150000]]");
        assert_eq!(serde_json::from_str::<TimeMarks>(&text).unwrap(), marks);
    }
}
