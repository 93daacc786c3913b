//! The model's clock: how much time passes between a run's events.
//!
//! Real allocators count their delays in time, not in calls. mimalloc purges a page that
//! has been free for `purge_delay` milliseconds, jemalloc lets dirty pages decay over
//! `dirty_decay_ms`, and both act only when the program next calls them. So the memory a
//! time-driven allocator holds at a given call depends on how fast the program made its
//! calls, and a model of it must be told. A run chooses its clock:
//!
//! - [`Clock::Trace`]: the trace's own time marks (`t <ns>` lines, which `heaplab record`
//!   writes). Each event happens at the latest mark before it. The default when the trace
//!   has marks.
//! - [`Clock::Rate`]: a fixed pace, `ns` nanoseconds per event: event `n` (counted from 1)
//!   happens `n × ns` after the start. Marks, if any, are then ignored.
//! - [`Clock::Real`]: the time a real run of the same events took, event by event. Only a
//!   run that is itself real can give it (`heaplab run --real`, whose policy runs over
//!   real memory with its delays on the wall clock): a simulation alone has no such time
//!   and refuses it ([`Simulation::new`](crate::simulate::Simulation::new)).
//!
//! - [`Clock::Events`]: no time at all: delays are counted in events (`decommit_delay`).
//!
//! A built-in MallocBench port given no clock runs at the pace a real run of its events
//! took ([`crate::workload::WorkloadSpec::rate_ns`]). Without any (another built-in
//! workload, or a trace without marks and no rate given) the run has no clock, and its
//! report says so rather than invent a time.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::params::ParamError;

/// The slowest pace a rate may give: one event a second. A slower one is a mistake of
/// units (milliseconds for nanoseconds) rather than a program.
pub const MAX_NS_PER_EVENT: f64 = 1e9;

/// How a simulated run tells time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// The trace's own time marks.
    Trace,
    /// A fixed pace, in nanoseconds per event (fractions allowed: 0.35 µs is 350).
    Rate(f64),
    /// The wall-clock time of a real run of the same events, which that run hands in as
    /// time marks. The trace's own marks are ignored under it.
    Real,
    /// No clock, even where there would be one by default: delays count events.
    Events,
}

impl Clock {
    /// Parses `trace`, `rate=<ns per event>` or `real`, the words of `--clock`, of a
    /// config file's `clock` and of a link's: one reading for all. `field` names where the
    /// text came from in the error.
    pub fn parse(text: &str, field: &str) -> Result<Clock, ParamError> {
        let error = |message: String| ParamError {
            field: field.into(),
            message,
        };
        let text = text.trim();
        match text {
            "trace" => return Ok(Clock::Trace),
            "real" => return Ok(Clock::Real),
            "events" => return Ok(Clock::Events),
            _ => {}
        }
        let Some(rate) = text.strip_prefix("rate=") else {
            return Err(error(format!(
                "unknown clock {:?}; expected `trace` (the trace's time marks), \
                 `rate=<ns per event>`, `real` (a real run's time, with --real) or `events` \
                 (no time: delays count events)",
                crate::format::clip(text, 40)
            )));
        };
        let ns: f64 = rate.trim().parse().map_err(|_| {
            error(format!(
                "bad rate {:?}: expected nanoseconds per event, a number such as 350 or 2.5",
                crate::format::clip(rate, 40)
            ))
        })?;
        if !(ns.is_finite() && ns > 0.0 && ns <= MAX_NS_PER_EVENT) {
            return Err(error(format!(
                "rate {ns} ns per event is outside 0 (excluded) to {MAX_NS_PER_EVENT:e} \
                 (one event a second)"
            )));
        }
        Ok(Clock::Rate(ns))
    }
}

/// `trace` or `rate=<ns>`, as [`Clock::parse`] reads it back.
impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clock::Trace => f.write_str("trace"),
            Clock::Rate(ns) => write!(f, "rate={ns}"),
            Clock::Real => f.write_str("real"),
            Clock::Events => f.write_str("events"),
        }
    }
}

impl Serialize for Clock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Clock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Clock, D::Error> {
        let text = String::deserialize(d)?;
        Clock::parse(&text, "clock").map_err(serde::de::Error::custom)
    }
}

/// When an event happens, as a policy is told: its number, counted from 1, and its time
/// in nanoseconds on the run's clock, when the run has a clock from its first event on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    pub event: u64,
    pub ns: Option<u64>,
}

impl Now {
    /// The `event`-th event of a run without a clock.
    pub fn event(event: u64) -> Now {
        Now { event, ns: None }
    }
}

/// The model's time as a run goes: the clock it was given and the marks seen so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelTime {
    clock: Option<Clock>,
    /// The latest time mark, once one has come.
    mark: Option<u64>,
    marks: u64,
    /// Whether a mark came before the first event, so that a trace's own clock, chosen by
    /// default, tells the time of every event and not just of those after its first mark.
    from_start: bool,
}

impl ModelTime {
    pub fn new(clock: Option<Clock>) -> ModelTime {
        ModelTime {
            clock,
            mark: None,
            marks: 0,
            from_start: false,
        }
    }

    /// A time mark, in nanoseconds since the run began, coming after `events` events: the
    /// trace's own, or under [`Clock::Real`] the real run's (a real replay leaves the
    /// trace's out of the events it runs).
    #[inline]
    pub fn mark(&mut self, ns: u64, events: u64) {
        self.from_start |= events == 0;
        self.mark = Some(ns);
        self.marks += 1;
    }

    /// The `events`-th event as a policy sees it. Its time is given only when every event
    /// of the run has one, so a policy counting its delays in time never has to mix them
    /// with delays counted in events: under a rate, under `--clock trace` (where events
    /// before the first mark happen at 0), and under the trace's clock chosen by default
    /// when the trace opens with a mark, as `heaplab record` writes it. A trace whose
    /// first mark comes later runs its delays in events unless `--clock trace` is given.
    #[inline]
    pub fn policy_now(&self, events: u64) -> Now {
        let ns = match self.clock {
            Some(Clock::Rate(_)) => self.now(events),
            Some(Clock::Trace | Clock::Real) => Some(self.mark.unwrap_or(0)),
            Some(Clock::Events) => None,
            None if self.from_start => self.mark,
            None => None,
        };
        Now { event: events, ns }
    }

    /// The time of the `events`-th event, in nanoseconds since the start, or `None` when
    /// the run has no clock (yet: a trace's clock starts at its first mark).
    #[inline]
    pub fn now(&self, events: u64) -> Option<u64> {
        match self.clock {
            Some(Clock::Rate(ns)) => Some((events as f64 * ns).round() as u64),
            Some(Clock::Trace | Clock::Real) | None => self.mark,
            Some(Clock::Events) => None,
        }
    }

    /// How many time marks the run has seen.
    pub fn marks(&self) -> u64 {
        self.marks
    }

    /// The clock the run's time follows: the one given, or the trace's when it had marks.
    pub fn clock(&self) -> Option<Clock> {
        self.clock
            .or_else(|| (self.marks > 0).then_some(Clock::Trace))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_back_as_written() {
        assert_eq!(Clock::parse("trace", "clock").unwrap(), Clock::Trace);
        assert_eq!(Clock::parse("real", "clock").unwrap(), Clock::Real);
        assert_eq!(
            Clock::parse("rate=350", "clock").unwrap(),
            Clock::Rate(350.0)
        );
        assert_eq!(
            Clock::parse(" rate=2.5 ", "clock").unwrap(),
            Clock::Rate(2.5)
        );
        for clock in [
            Clock::Trace,
            Clock::Rate(0.35),
            Clock::Rate(11000.0),
            Clock::Real,
        ] {
            assert_eq!(Clock::parse(&clock.to_string(), "x").unwrap(), clock);
        }
    }

    #[test]
    fn a_bad_clock_names_its_field_and_what_was_expected() {
        let e = Clock::parse("wall", "--clock").unwrap_err();
        assert_eq!(e.field, "--clock");
        assert_eq!(
            e.message,
            "unknown clock \"wall\"; expected `trace` (the trace's time marks), \
             `rate=<ns per event>`, `real` (a real run's time, with --real) or `events` (no \
             time: delays count events)"
        );
        let e = Clock::parse("rate=fast", "clock").unwrap_err();
        assert_eq!(
            e.message,
            "bad rate \"fast\": expected nanoseconds per event, a number such as 350 or 2.5"
        );
        for bad in ["rate=0", "rate=-3", "rate=inf", "rate=NaN", "rate=2e9"] {
            let e = Clock::parse(bad, "clock").unwrap_err();
            assert!(
                e.message.contains("is outside 0 (excluded)"),
                "{bad}: {}",
                e.message
            );
        }
    }

    #[test]
    fn a_rate_spaces_the_events_evenly_and_a_trace_follows_its_marks() {
        let rate = ModelTime::new(Some(Clock::Rate(2.5)));
        assert_eq!(rate.now(0), Some(0));
        assert_eq!(rate.now(4), Some(10));
        assert_eq!(rate.now(1_000_000), Some(2_500_000));

        let mut trace = ModelTime::new(None);
        assert_eq!((trace.now(5), trace.clock()), (None, None));
        trace.mark(100_000, 5);
        assert_eq!(trace.now(6), Some(100_000));
        trace.mark(250_000, 800);
        assert_eq!((trace.now(900), trace.marks()), (Some(250_000), 2));
        assert_eq!(trace.clock(), Some(Clock::Trace));

        // A rate given ignores the marks.
        let mut given = ModelTime::new(Some(Clock::Rate(10.0)));
        given.mark(7, 0);
        assert_eq!(
            (given.now(3), given.clock()),
            (Some(30), Some(Clock::Rate(10.0)))
        );
    }

    /// A policy is given times only when every event of the run has one.
    #[test]
    fn policies_see_time_only_when_the_whole_run_has_it() {
        let rate = ModelTime::new(Some(Clock::Rate(2.5)));
        assert_eq!(
            rate.policy_now(4),
            Now {
                event: 4,
                ns: Some(10)
            }
        );

        // The trace's clock by default: from the start only when a mark opens the trace.
        let mut late = ModelTime::new(None);
        late.mark(100, 3);
        assert_eq!(late.policy_now(4), Now::event(4));
        let mut opening = ModelTime::new(None);
        opening.mark(0, 0);
        assert_eq!(opening.policy_now(1).ns, Some(0));
        opening.mark(900, 10);
        assert_eq!(opening.policy_now(11).ns, Some(900));

        // Asked for, the trace's clock starts at 0 before its first mark.
        let mut asked = ModelTime::new(Some(Clock::Trace));
        assert_eq!(asked.policy_now(1).ns, Some(0));
        asked.mark(700, 2);
        assert_eq!(asked.policy_now(3).ns, Some(700));
    }
}
