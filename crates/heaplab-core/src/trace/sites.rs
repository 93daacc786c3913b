//! Call sites: where in the recorded program each allocation was asked for.
//!
//! A `.trace` line may carry `site=0x<hex>`, the return address of the allocating call
//! (`heaplab record --callers` writes it), and a `site 0x<hex> <name>` line says what an
//! address is once the recorder has symbolised it. Neither is an [`Event`]: the importer
//! hands them to the sink beside the events ([`super::EventSink::sited_event`],
//! [`super::EventSink::site_name`]), and [`Sites`] keeps them as a side table keyed by
//! the number of the event that allocated, which is how teaching mode already knows each
//! live block's birth. Traces without sites read exactly as before.

use std::collections::BTreeMap;
use std::fmt;

use rustc_hash::FxHashMap;

use super::check::{Problem, ProblemKind};
use super::EventSink;
use crate::event::Event;

/// The call sites of a run's events, and the names known for their addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sites {
    /// Event number (1-based, as the simulator counts) → the call site's address.
    by_event: FxHashMap<u64, u64>,
    /// Address → what it is (`parse_json (json.c:212)`, `libfoo.so+0x1a2b`).
    names: BTreeMap<u64, String>,
}

impl Sites {
    pub fn new() -> Sites {
        Sites::default()
    }

    /// Whether no event has a call site.
    pub fn is_empty(&self) -> bool {
        self.by_event.is_empty()
    }

    /// How many events have a call site.
    pub fn len(&self) -> usize {
        self.by_event.len()
    }

    /// Says that event `event` (1-based) was asked for at `addr`.
    pub fn set(&mut self, event: u64, addr: u64) {
        self.by_event.insert(event, addr);
    }

    /// Names `addr`; a later name for the same address replaces an earlier one.
    pub fn set_name(&mut self, addr: u64, name: &str) {
        self.names.insert(addr, name.to_string());
    }

    /// The call site of event `event` (1-based), if it has one.
    pub fn at(&self, event: u64) -> Option<u64> {
        self.by_event.get(&event).copied()
    }

    /// The name given to `addr`, if any.
    pub fn name(&self, addr: u64) -> Option<&str> {
        self.names.get(&addr).map(String::as_str)
    }

    /// Every named address, in address order.
    pub fn names(&self) -> impl Iterator<Item = (u64, &str)> {
        self.names.iter().map(|(a, n)| (*a, n.as_str()))
    }

    /// How a site is shown: its name, or its address in hex when it has none.
    pub fn label(&self, addr: u64) -> String {
        match self.name(addr) {
            Some(name) => name.to_string(),
            None => hex(addr),
        }
    }
}

/// An address as the trace writes it: `0x` and lower-case hex digits.
pub fn hex(addr: u64) -> String {
    format!("{addr:#x}")
}

/// A `site=` value or a `site` line's address: `0x` and 1 to 16 hex digits.
pub fn parse_addr(text: &str) -> Result<u64, Problem> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .filter(|d| !d.is_empty() && d.len() <= 16 && d.bytes().all(|b| b.is_ascii_hexdigit()));
    match digits.map(|d| u64::from_str_radix(d, 16)) {
        Some(Ok(addr)) => Ok(addr),
        _ => Err(Problem::new(
            ProblemKind::BadNumber,
            format!(
                "bad site {:?}: expected an address in hex, as 0x55d0c0a1b2c3",
                super::quote(text)
            ),
        )),
    }
}

/// A sink that passes events to `inner` and keeps their call sites and the sites' names
/// in [`Sites`], numbering events as they pass.
pub struct WithSites<F> {
    pub inner: F,
    pub sites: Sites,
    events: u64,
}

impl<F> WithSites<F> {
    pub fn new(inner: F) -> WithSites<F> {
        WithSites {
            inner,
            sites: Sites::new(),
            events: 0,
        }
    }
}

impl<F> fmt::Debug for WithSites<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithSites")
            .field("sites", &self.sites)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

impl<E: fmt::Display, F: FnMut(Event) -> Result<(), E>> EventSink for WithSites<F> {
    type Error = E;

    #[inline]
    fn event(&mut self, event: Event) -> Result<(), E> {
        // Events are numbered as the simulator numbers them, and a time mark is not one.
        let counted = !matches!(event, Event::Time(_));
        (self.inner)(event)?;
        self.events += u64::from(counted);
        Ok(())
    }

    fn sited_event(&mut self, event: Event, site: u64) -> Result<(), E> {
        (self.inner)(event)?;
        self.events += 1;
        self.sites.set(self.events, site);
        Ok(())
    }

    fn site_name(&mut self, addr: u64, name: &str) {
        self.sites.set_name(addr, name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_hex_with_0x() {
        assert_eq!(parse_addr("0x55d0c0a1b2c3"), Ok(0x55d0_c0a1_b2c3));
        assert_eq!(parse_addr("0XFF"), Ok(255));
        assert_eq!(parse_addr(&hex(u64::MAX)), Ok(u64::MAX));
        for bad in [
            "",
            "0x",
            "55d0",
            "0xg1",
            "0x11112222333344445",
            "-0x1",
            "0x 1",
        ] {
            let p = parse_addr(bad).unwrap_err();
            assert_eq!(p.kind, ProblemKind::BadNumber, "{bad:?}");
            assert!(p.message.starts_with("bad site"), "{}", p.message);
        }
    }

    fn import(text: &str) -> Result<(Vec<Event>, Sites), String> {
        let mut events = Vec::new();
        let (_, sites) = super::super::import_sited(
            text.as_bytes(),
            "t.trace",
            &super::super::ImportOptions::default(),
            |e| {
                events.push(e);
                Ok::<(), String>(())
            },
        )
        .map_err(|e| e.to_string())?;
        Ok((events, sites))
    }

    #[test]
    fn the_importer_keys_sites_by_the_events_number() {
        let text = "# recorded\na 1 32 site=0x10\np parse\na 2 64\nr 1 48 site=0x20\n\
                    r 7 8 site=0x30\nf 2\nsite 0x10 main (a.c:4)\n";
        let (events, sites) = import(text).unwrap();
        assert_eq!(events.len(), 6);
        // Events 1, 4 and 5 (the realloc of a never-allocated id is an allocation).
        assert_eq!(
            (1..=6).map(|e| sites.at(e)).collect::<Vec<_>>(),
            [Some(0x10), None, None, Some(0x20), Some(0x30), None]
        );
        assert_eq!(sites.label(0x10), "main (a.c:4)");
        assert_eq!(sites.label(0x20), "0x20");
        // The same events as the trace without its sites.
        let plain: String = text
            .lines()
            .filter(|l| !l.starts_with("site "))
            .map(|l| l.split(" site=").next().unwrap().to_string() + "\n")
            .collect();
        let (plain_events, none) = import(&plain).unwrap();
        assert_eq!(plain_events, events);
        assert!(none.is_empty());
    }

    #[test]
    fn bad_sites_are_named_by_file_and_line() {
        assert_eq!(
            import("a 1 8\na 2 8 site=0x1g\n").unwrap_err(),
            "t.trace:2: bad site \"0x1g\": expected an address in hex, as 0x55d0c0a1b2c3"
        );
        assert_eq!(
            import("a 1 8\n\nsite 0x10\n").unwrap_err(),
            "t.trace:3: expected `site 0x<hex> <name>`, found \"site 0x10\""
        );
        assert_eq!(
            import("a 1 8\nf 1 site=0x10\n").unwrap_err(),
            "t.trace:2: `site=` belongs on `a` and `r` lines, found \"f 1 site=0x10\""
        );
    }

    #[test]
    fn a_site_without_a_name_shows_its_address() {
        let mut s = Sites::new();
        s.set(3, 0x1234);
        s.set_name(0x1234, "main (a.c:4)");
        assert_eq!(s.at(3), Some(0x1234));
        assert_eq!(s.at(4), None);
        assert_eq!(s.label(0x1234), "main (a.c:4)");
        assert_eq!(s.label(0xab), "0xab");
    }
}
