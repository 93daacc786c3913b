//! Finding the moments a student looks for in a run: an event named as `heaplab blame
//! --at` and the page's jumps name it ([`At`]: a number, `peak`, `end`, or the last event
//! of a phase), and the events of a kind (a page operation, a decommit, a new span, a
//! trim) found through one pass over the run that keeps a byte of kinds per event
//! ([`RunIndex`]), so that "the next decommit" is a lookup and not a replay.

use heaplab_core::config::RunConfig;
use heaplab_core::decision::Decision;
use heaplab_core::event::Event;
use heaplab_core::format::format_count;
use heaplab_core::provider::SimProvider;
use heaplab_core::run::RunError;
use heaplab_core::simulate::{sim_provider, Simulation};

use super::log::{EventLog, LogReader};
use super::watch::Watch;

/// An event of a run as a user names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// After event `n` (1-based).
    Event(usize),
    /// The first event after which resident memory is highest.
    Peak,
    /// After the last event.
    End,
    /// The last event of the `occurrence`-th (1-based) time the run is in phase `name`:
    /// the event before the next phase mark, or the run's last.
    Phase { name: String, occurrence: usize },
}

impl At {
    /// Reads `N`, `peak`, `end`, `phase:NAME` or `phase:NAME#K`; the error says what is
    /// allowed.
    pub fn parse(text: &str) -> Result<At, String> {
        let text = text.trim();
        match text {
            "peak" => return Ok(At::Peak),
            "end" => return Ok(At::End),
            _ => {}
        }
        if let Some(rest) = text.strip_prefix("phase:") {
            let (name, occurrence) = match rest.rsplit_once('#') {
                Some((name, k)) => {
                    let k: usize = k.parse().ok().filter(|&k| k > 0).ok_or_else(|| {
                        format!("{text:?}: the occurrence after # is a number from 1")
                    })?;
                    (name, k)
                }
                None => (rest, 1),
            };
            if name.is_empty() {
                return Err(format!("{text:?}: name the phase, as in phase:compile"));
            }
            return Ok(At::Phase {
                name: name.to_string(),
                occurrence,
            });
        }
        text.parse()
            .map(At::Event)
            .map_err(|_| format!("{text:?} is not an event number, peak, end or phase:NAME[#K]"))
    }

    /// The number of events applied at this moment of `events` run under `config`.
    pub fn resolve(&self, config: &RunConfig, events: &EventLog) -> Result<usize, String> {
        match self {
            At::End => Ok(events.len()),
            At::Peak => peak_event(config, events).map_err(|e| e.to_string()),
            &At::Event(k) => {
                if k == 0 || k > events.len() {
                    return Err(format!(
                        "event {k} is outside the run's 1..={}",
                        events.len()
                    ));
                }
                Ok(k)
            }
            At::Phase { name, occurrence } => phase_end(events, name, *occurrence),
        }
    }
}

/// The last event of the `occurrence`-th time `events` enter phase `name`; the error
/// names the phases the run has.
pub fn phase_end(events: &EventLog, name: &str, occurrence: usize) -> Result<usize, String> {
    let marks: Vec<(usize, String)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Phase(p) => Some((i, p)),
            _ => None,
        })
        .collect();
    let Some(k) = marks
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| *p == name)
        .map(|(k, _)| k)
        .nth(occurrence - 1)
    else {
        let seen = marks.iter().filter(|(_, p)| *p == name).count();
        if seen > 0 {
            return Err(format!(
                "phase {name:?} occurs {} {}, not {occurrence}",
                format_count(seen as i128),
                if seen == 1 { "time" } else { "times" }
            ));
        }
        // In the order the run first enters them.
        let mut names: Vec<&str> = Vec::new();
        for (_, p) in &marks {
            if !names.contains(&p.as_str()) {
                names.push(p);
            }
        }
        return Err(if names.is_empty() {
            format!("phase {name:?}: the run marks no phases")
        } else {
            format!("phase {name:?}: the run's phases are {}", names.join(", "))
        });
    };
    // Events are numbered from 1, so the event before the mark at index i is number i.
    Ok(marks.get(k + 1).map_or(events.len(), |&(i, _)| i))
}

/// Keeps the first event after which a count is highest.
#[derive(Clone, Copy, Debug, Default)]
struct Highest {
    value: u64,
    at: usize,
}

impl Highest {
    fn see(&mut self, value: u64, at: usize) {
        if value > self.value {
            (self.value, self.at) = (value, at);
        }
    }
}

/// The first event after which resident memory is highest (0 for an empty run).
pub fn peak_event(config: &RunConfig, events: &EventLog) -> Result<usize, RunError> {
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    let mut peak = Highest::default();
    for (i, e) in events.iter().enumerate() {
        sim.apply_ref(&e)
            .map_err(|e| RunError::Event(format!("event {}: {e}", i + 1)))?;
        peak.see(sim.pages().stats().resident_pages.current, i + 1);
    }
    Ok(peak.at)
}

/// A kind of event the page jumps to: its name (as the page and the link spell it), its
/// bit and what it is in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub name: &'static str,
    bit: u8,
    pub words: &'static str,
}

/// Every kind, in the order the page offers them.
pub const KINDS: [Kind; 7] = [
    Kind {
        name: "page-op",
        bit: 1,
        words: "a page operation (reserve, commit, decommit or release)",
    },
    Kind {
        name: "commit",
        bit: 2,
        words: "a commit",
    },
    Kind {
        name: "decommit",
        bit: 4,
        words: "a decommit",
    },
    Kind {
        name: "release",
        bit: 8,
        words: "a release of address space",
    },
    Kind {
        name: "new-region",
        bit: 16,
        words: "a new span, slab, segment, chunk or mapping",
    },
    Kind {
        name: "trim",
        bit: 32,
        words: "a trim of the top",
    },
    Kind {
        name: "phase",
        bit: 64,
        words: "the start of a phase",
    },
];

/// The kind named `name`; the error lists the names.
pub fn kind(name: &str) -> Result<Kind, String> {
    KINDS
        .iter()
        .copied()
        .find(|k| k.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            format!(
                "{name:?} is not a kind of event; the kinds are {}",
                names.join(", ")
            )
        })
}

/// The kinds bits of one event from what it is and the decisions it led to.
fn kinds_of(event: &Event, decisions: &[Decision]) -> u8 {
    let mut bits = 0;
    if matches!(event, Event::Phase(_)) {
        bits |= 64;
    }
    for d in decisions {
        bits |= match d {
            Decision::PageOp { op, reason, .. } => {
                let op_bit = match *op {
                    "commit" => 2,
                    "decommit" => 4,
                    "release" => 8,
                    _ => 0,
                };
                let trim = reason.is_some_and(|r| r.contains("trim"));
                1 | op_bit | if trim { 32 } else { 0 }
            }
            Decision::NewRegion { .. } => 16,
            _ => 0,
        };
    }
    bits
}

/// One pass over a run, keeping each event's kinds and the peak.
#[derive(Debug)]
pub struct RunIndex {
    sim: Simulation<Watch<SimProvider>>,
    /// Where in the run the index has read to, once it has started.
    reader: Option<LogReader>,
    kinds: Vec<u8>,
    peak: Highest,
}

impl RunIndex {
    /// The index of a run under `config`, with no event read yet.
    pub fn new(config: &RunConfig) -> Result<RunIndex, RunError> {
        let config = config.resolve()?;
        let sim = Simulation::new(&config, Watch::new(sim_provider(&config)))?;
        Ok(RunIndex {
            sim,
            reader: None,
            kinds: Vec::new(),
            peak: Highest::default(),
        })
    }

    /// Reads the next events of `events` (the same run on every call), at most `budget`
    /// of them; answers whether the whole run is read. A page calls it in slices between
    /// frames.
    pub fn read(&mut self, events: &EventLog, budget: usize) -> Result<bool, RunError> {
        let reader = self.reader.get_or_insert_with(|| events.reader());
        for e in reader.by_ref().take(budget) {
            let n = self.kinds.len() + 1;
            self.sim
                .apply_ref(&e)
                .map_err(|err| RunError::Event(format!("event {n}: {err}")))?;
            let decisions = self.sim.pages_mut().provider_mut().take();
            self.kinds.push(kinds_of(&e, &decisions));
            self.peak
                .see(self.sim.pages().stats().resident_pages.current, n);
        }
        Ok(self.kinds.len() == events.len())
    }

    /// The whole run's index.
    pub fn build(config: &RunConfig, events: &EventLog) -> Result<RunIndex, RunError> {
        let mut index = RunIndex::new(config)?;
        index.read(events, usize::MAX)?;
        Ok(index)
    }

    /// How many events are read.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The first event after which resident memory is highest, among those read.
    pub fn peak(&self) -> usize {
        self.peak.at
    }

    /// The first event after `after` (1-based numbers) of kind `kind`.
    pub fn next(&self, kind: Kind, after: usize) -> Option<usize> {
        let from = after.min(self.kinds.len());
        self.kinds[from..]
            .iter()
            .position(|b| b & kind.bit != 0)
            .map(|i| from + i + 1)
    }

    /// The last event before `before` of kind `kind`.
    pub fn previous(&self, kind: Kind, before: usize) -> Option<usize> {
        let to = before.saturating_sub(1).min(self.kinds.len());
        self.kinds[..to]
            .iter()
            .rposition(|b| b & kind.bit != 0)
            .map(|i| i + 1)
    }

    /// How many events are of kind `kind`.
    pub fn count(&self, kind: Kind) -> usize {
        self.kinds.iter().filter(|b| *b & kind.bit != 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(events: &[Event]) -> EventLog {
        EventLog::from(events)
    }

    fn phased() -> Vec<Event> {
        vec![
            Event::Phase("load".into()),
            Event::alloc(1, 48),
            Event::Phase("work".into()),
            Event::alloc(2, 5000),
            Event::free(1),
            Event::Phase("load".into()),
            Event::free(2),
        ]
    }

    #[test]
    fn reads_every_form_and_says_what_is_allowed() {
        assert_eq!(At::parse("12"), Ok(At::Event(12)));
        assert_eq!(At::parse("peak"), Ok(At::Peak));
        assert_eq!(At::parse("end"), Ok(At::End));
        let phase = |name: &str, occurrence| At::Phase {
            name: name.into(),
            occurrence,
        };
        assert_eq!(At::parse("phase:back"), Ok(phase("back", 1)));
        assert_eq!(At::parse("phase:back#3"), Ok(phase("back", 3)));
        // A phase name may hold a # of its own; the last one counts.
        assert_eq!(At::parse("phase:a#b#2"), Ok(phase("a#b", 2)));
        assert_eq!(
            At::parse("phase:back#0").unwrap_err(),
            "\"phase:back#0\": the occurrence after # is a number from 1"
        );
        assert_eq!(
            At::parse("phase:").unwrap_err(),
            "\"phase:\": name the phase, as in phase:compile"
        );
        assert_eq!(
            At::parse("middle").unwrap_err(),
            "\"middle\" is not an event number, peak, end or phase:NAME[#K]"
        );
    }

    #[test]
    fn a_phase_ends_at_the_event_before_the_next_mark() {
        let e = phased();
        // load: events 1-2, work: 3-5, load again: 6-7.
        assert_eq!(phase_end(&log(&e), "load", 1), Ok(2));
        assert_eq!(phase_end(&log(&e), "work", 1), Ok(5));
        assert_eq!(phase_end(&log(&e), "load", 2), Ok(7));
        assert_eq!(
            phase_end(&log(&e), "load", 3).unwrap_err(),
            "phase \"load\" occurs 2 times, not 3"
        );
        assert_eq!(
            phase_end(&log(&e), "exit", 1).unwrap_err(),
            "phase \"exit\": the run's phases are load, work"
        );
        assert_eq!(
            phase_end(&log(&e[1..2]), "exit", 1).unwrap_err(),
            "phase \"exit\": the run marks no phases"
        );
    }

    #[test]
    fn the_index_finds_page_operations_phases_and_the_peak() {
        let config = RunConfig::new("churn", "glibc-like");
        let e = phased();
        let index = RunIndex::build(&config, &log(&e)).unwrap();
        assert_eq!(index.len(), 7);
        let phase = kind("phase").unwrap();
        assert_eq!(index.next(phase, 0), Some(1));
        assert_eq!(index.next(phase, 1), Some(3));
        assert_eq!(index.next(phase, 6), None);
        assert_eq!(index.previous(phase, 6), Some(3));
        assert_eq!(index.previous(phase, 1), None);
        assert_eq!(index.count(phase), 3);
        // The first malloc commits the heap's first pages; the 5,000-byte block grows it.
        let commit = kind("commit").unwrap();
        assert_eq!(index.next(commit, 0), Some(2));
        assert_eq!(index.next(kind("page-op").unwrap(), 0), Some(2));
        assert_eq!(index.peak(), peak_event(&config, &log(&e)).unwrap());
        assert!(index.peak() >= 4, "the peak is not before the big block");
        assert_eq!(
            kind("trimmed").unwrap_err(),
            "\"trimmed\" is not a kind of event; the kinds are page-op, commit, decommit, \
             release, new-region, trim, phase"
        );
    }
}
