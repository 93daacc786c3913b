//! What a recording saw, and the trailer comment that carries it at the end of the trace:
//!
//! ```text
//! # heaplab-record: allocs=.. frees=.. reallocs=.. peak_live_bytes=.. end_live_bytes=.. skipped_frees=.. unknown_reallocs=.. missed_frees=.. threads=.. slabs=.. arena_allocs=..
//! ```
//!
//! `allocs`, `frees`, `reallocs`, `peak_live_bytes` and `end_live_bytes` are counted from
//! the malloc family's lines as written, so replaying the trace (`heaplab run -w
//! prog.trace`) reports the same figures when the program annotated no arenas. `slabs`
//! and `arena_allocs` count what the annotations added (see `crate::arenas`): a replay
//! leaves the slabs out and counts the arenas' allocations instead, so its figures differ
//! from these when either is not 0. The others say what the trace had to leave out or
//! patch up.

use std::fmt;

/// The words that start the trailer comment (after `# `).
pub const TRAILER: &str = "heaplab-record:";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `a` lines.
    pub allocs: u64,
    /// `f` lines.
    pub frees: u64,
    /// `r` lines.
    pub reallocs: u64,
    /// Bytes the program held, summed over live blocks, now and at most.
    pub live_bytes: u64,
    pub peak_live_bytes: u64,
    /// Frees of addresses the trace never saw allocated (allocated before recording
    /// started): left out.
    pub skipped_frees: u64,
    /// Reallocs of such addresses: written as an allocation of the new block.
    pub unknown_reallocs: u64,
    /// Allocations at an address the trace still held live, whose free came by a path
    /// the recorder does not see: written as a free just before the allocation.
    pub missed_frees: u64,
    /// Threads that allocated or freed: the main thread and those numbered 1, 2, …
    pub threads: u32,
    /// Allocations the program marked as slabs of its own arenas (`a … slab=<n>`),
    /// counted in `allocs` too.
    pub slabs: u64,
    /// Allocations the program made in its own arenas (`a … arena=<n>`), not in
    /// `allocs`: no malloc made them, and they die with the arena's reset or drop.
    pub arena_allocs: u64,
}

impl Counts {
    pub const ZERO: Counts = Counts {
        allocs: 0,
        frees: 0,
        reallocs: 0,
        live_bytes: 0,
        peak_live_bytes: 0,
        skipped_frees: 0,
        unknown_reallocs: 0,
        missed_frees: 0,
        threads: 0,
        slabs: 0,
        arena_allocs: 0,
    };

    #[inline]
    pub(crate) fn add_live(&mut self, n: u64) {
        self.live_bytes += n;
        self.peak_live_bytes = self.peak_live_bytes.max(self.live_bytes);
    }

    /// The trailer's fields, in order.
    pub fn fields(&self) -> [(&'static str, u64); 11] {
        [
            ("allocs", self.allocs),
            ("frees", self.frees),
            ("reallocs", self.reallocs),
            ("peak_live_bytes", self.peak_live_bytes),
            ("end_live_bytes", self.live_bytes),
            ("skipped_frees", self.skipped_frees),
            ("unknown_reallocs", self.unknown_reallocs),
            ("missed_frees", self.missed_frees),
            ("threads", u64::from(self.threads)),
            ("slabs", self.slabs),
            ("arena_allocs", self.arena_allocs),
        ]
    }

    /// Reads a trailer line (`# heaplab-record: allocs=…`); `None` if `line` is not one.
    /// Fields it does not know are ignored, so older readers take newer trailers.
    pub fn parse_trailer(line: &str) -> Option<Counts> {
        let rest = line.trim().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix(TRAILER)?;
        let mut c = Counts::ZERO;
        for field in rest.split_whitespace() {
            let (name, value) = field.split_once('=')?;
            let value: u64 = value.parse().ok()?;
            match name {
                "allocs" => c.allocs = value,
                "frees" => c.frees = value,
                "reallocs" => c.reallocs = value,
                "peak_live_bytes" => c.peak_live_bytes = value,
                "end_live_bytes" => c.live_bytes = value,
                "skipped_frees" => c.skipped_frees = value,
                "unknown_reallocs" => c.unknown_reallocs = value,
                "missed_frees" => c.missed_frees = value,
                "threads" => c.threads = u32::try_from(value).ok()?,
                "slabs" => c.slabs = value,
                "arena_allocs" => c.arena_allocs = value,
                _ => {}
            }
        }
        Some(c)
    }
}

impl fmt::Display for Counts {
    /// The trailer's fields, `name=value` separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in self.fields().into_iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{name}={value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_round_trips() {
        let c = Counts {
            allocs: 5,
            frees: 4,
            reallocs: 3,
            live_bytes: 16,
            peak_live_bytes: 4096,
            skipped_frees: 2,
            unknown_reallocs: 1,
            missed_frees: 0,
            threads: 7,
            slabs: 2,
            arena_allocs: 9,
        };
        let line = format!("# {TRAILER} {c}");
        assert_eq!(Counts::parse_trailer(&line), Some(c));
        assert_eq!(Counts::parse_trailer("# a comment"), None);
        assert_eq!(Counts::parse_trailer("# heaplab-record: allocs=x"), None);
    }
}
