//! Segment expiry under `purge_extend_ms`: mimalloc 2.0 keeps one expiry per segment, and
//! every span waiting in a segment is decommitted together once it passes.
//!
//! The expiries in force are also kept in a min-heap of (expiry, segment, generation), so
//! the earliest is found without going through every segment. An entry is pushed whenever
//! a segment's expiry is set; one that no longer matches its segment (the expiry was pushed
//! back or ran out, or the segment was released) is stale and dropped when it comes to the
//! top, which keeps each update a push rather than a search for the old entry.

use std::cmp::Reverse;

use super::SizeClass;
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::PageProvider;

impl SizeClass {
    /// Whether delayed decommits wait on their segment's expiry (`purge_extend_ms`,
    /// with the run's time) rather than each on its own due time.
    pub(super) fn segment_expiry(&self) -> bool {
        self.timed && self.extend_ns > 0
    }

    /// A span of segment `si` has just emptied: its segment's expiry is set, pushed back or
    /// run out, as mimalloc 2.0's `mi_segment_perhaps_decommit` does. Set when none was;
    /// one that ran out at least `purge_extend_ms` ago is due now; one that ran out more
    /// recently waits that long again, in case more frees follow; one still running is
    /// pushed back by it.
    pub(super) fn extend_expiry(&mut self, si: u32) {
        let (now, delay, extend) = (self.now, self.delay_ns, self.extend_ns);
        let Some(seg) = self.segments[si as usize].as_mut() else {
            return;
        };
        seg.expire = match seg.expire {
            0 => now + delay,
            e if e <= now && e + extend <= now => now,
            e if e <= now => now + extend,
            e => e + extend,
        };
        self.expiries
            .push(Reverse((seg.expire, si, seg.generation)));
        self.next_due = self.next_due.min(seg.expire);
        // Stale entries go when they reach the top, which they may not for a while if the
        // clock stands still; past twice the segments they are swept out, so the heap
        // stays proportional to the segments.
        if self.expiries.len() > 2 * self.segments.len() + 64 {
            let segments = &self.segments;
            self.expiries
                .retain(|&Reverse((e, si, g))| in_force(segments, e, si, g));
        }
    }

    /// The earliest expiry in force, `u64::MAX` when no segment has one. Stale entries on
    /// top are dropped on the way, so the next call finds it at once.
    pub(super) fn earliest_expiry(&mut self) -> u64 {
        while let Some(&Reverse((e, si, g))) = self.expiries.peek() {
            if in_force(&self.segments, e, si, g) {
                return e;
            }
            self.expiries.pop();
        }
        u64::MAX
    }

    /// Under a segment expiry, the segments whose expiry has passed give back every span
    /// waiting in them, together.
    #[cold]
    #[inline(never)]
    pub(super) fn purge_expired<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        if self.earliest_expiry() > now {
            return Ok(());
        }
        let expired = |seg: &super::segments::Segment| seg.expire != 0 && seg.expire <= now;
        let mut kept = std::collections::VecDeque::with_capacity(self.purge.len());
        while let Some(entry @ (_, si, generation, first, n)) = self.purge.pop_front() {
            let due = self.segments[si as usize]
                .as_ref()
                .is_some_and(|seg| seg.generation == generation && expired(seg));
            if !due {
                kept.push_back(entry);
                continue;
            }
            if self.waiting(si, generation, first, n) {
                self.note_emptied(mem, "decommit due", n, || {
                    format!(
                        "in a segment whose expiry passed at {} ({}, pushed back by \
                         purge_extend_ms {} ms at each span emptied before it)",
                        self.moment(now),
                        self.delay_named(),
                        self.extend_ns / 1_000_000
                    )
                });
                self.decommit_units(mem, si, first, n, false)?;
                self.release_if_empty(mem, si)?;
            }
        }
        self.purge = kept;
        // Every expiry in force has its entry, so the passed ones are all at the top: each
        // runs out, and stale entries among them just go.
        while let Some(&Reverse((e, si, g))) = self.expiries.peek() {
            if e > now {
                break;
            }
            self.expiries.pop();
            if in_force(&self.segments, e, si, g) {
                if let Some(seg) = self.segments[si as usize].as_mut() {
                    seg.expire = 0;
                }
            }
        }
        Ok(())
    }
}

/// Whether a heap entry is the expiry segment `si` has now: the same segment (by
/// generation), with that expiry still set.
fn in_force(segments: &[Option<super::segments::Segment>], e: u64, si: u32, g: u64) -> bool {
    segments[si as usize]
        .as_ref()
        .is_some_and(|seg| seg.generation == g && seg.expire == e && e != 0)
}
