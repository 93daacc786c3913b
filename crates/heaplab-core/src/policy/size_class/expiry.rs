//! Segment expiry under `purge_extend_ms`, as mimalloc 2.0.9 keeps it (segment.c): one
//! expiry per segment, and one decommit mask, the segment's pending slots, all decommitted
//! together once the expiry passes.
//!
//! - A span that empties is merged with the free spans beside it
//!   (`mi_segment_span_free_coalesce`), and every committed slot of that free run joins
//!   the mask (`mi_segment_perhaps_decommit`): memory committed but never used, beside it,
//!   waits too. The expiry is set `decommit_ms` ahead if none was; one still running is
//!   pushed back `purge_extend_ms`; one run out less than that ago waits that long again;
//!   one run out longer ago has the whole mask decommitted on the spot.
//! - A span is committed in whole commit units, and every slot of those units leaves the
//!   mask; if any was in it, the expiry is set `decommit_ms` ahead again, even an expiry
//!   pushed back further (`mi_segment_commitx`).
//! - On the slow path a segment whose expiry has passed gives back its mask
//!   (`mi_segment_delayed_decommit`). With no slot in the mask by then, because all were
//!   taken again, the expiry is left as it is, run out: the next span to empty there,
//!   a millisecond later or more, is decommitted at once.
//!
//! The expiries that may still give something back are also kept in a min-heap of
//! (expiry, segment, generation), so the earliest is found without going through every
//! segment. An entry is pushed whenever a segment's expiry is set; one that no longer
//! matches its segment (the expiry was pushed back or ran out, or the segment was
//! released) is stale and dropped when it comes to the top, which keeps each update a push
//! rather than a search for the old entry.

use std::cmp::Reverse;

use super::segments::{free_run_around, runs_where, Segment};
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

    /// Span `id`, slots `first..first + n` of segment `si`, has just emptied: the
    /// committed slots of the free run it is now part of join the segment's mask, and the
    /// expiry is set, pushed back or run out.
    pub(super) fn span_emptied<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        id: u32,
        si: u32,
        first: u32,
        n: u32,
    ) -> Result<(), AllocError> {
        let (now, delay, extend) = (self.now, self.delay_ns, self.extend_ns);
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        let (first, end) = (first as usize, (first + n) as usize);
        let (lo, hi) = free_run_around(&seg.slots, first, end);
        let mut waiting = 0;
        for s in &mut seg.slots[lo..hi] {
            s.pending |= s.committed;
            waiting += u64::from(s.pending);
        }
        let before = seg.expire;
        if before != 0 && before + extend <= now {
            return self.purge_segment(mem, si, Purge::Forced { id, expiry: before });
        }
        seg.expire = match before {
            0 => now + delay,
            e if e <= now => now + extend,
            e => e + extend,
        };
        let expire = seg.expire;
        mem.note(|| crate::decision::Decision::Rule {
            rule: "decommit",
            text: format!(
                "empty span {id} merged with the free slots beside it: the {} committed of \
                 the run wait for the segment's expiry, {} ({})",
                crate::format::format_bytes(waiting << self.page_shift),
                self.moment(expire),
                match before {
                    0 => self.delay_named(),
                    e if e <= now => format!(
                        "purge_extend_ms {} ms, as it had run out",
                        extend / 1_000_000
                    ),
                    _ => format!("pushed back purge_extend_ms {} ms", extend / 1_000_000),
                }
            ),
        });
        self.set_expiry(si, expire);
        Ok(())
    }

    /// A span was just cut from segment `si` in commit units that held slots of its mask:
    /// the expiry is set `decommit_ms` from now, as mimalloc 2.0 does when it commits part
    /// of the mask again, whether the expiry was nearer or further.
    pub(super) fn mask_reused<P: PageProvider>(&mut self, mem: &mut Pages<P>, si: u32) {
        let expire = self.now + self.delay_ns;
        mem.note(|| crate::decision::Decision::Rule {
            rule: "decommit",
            text: format!(
                "the span's commit units held slots waiting for their decommit, which it \
                 takes out of the mask: the segment's expiry is set {} again, to {}",
                self.delay_named(),
                self.moment(expire)
            ),
        });
        self.set_expiry(si, expire);
    }

    fn set_expiry(&mut self, si: u32, expire: u64) {
        let Some(seg) = self.segments[si as usize].as_mut() else {
            return;
        };
        seg.expire = expire;
        self.expiries.push(Reverse((expire, si, seg.generation)));
        self.next_due = self.next_due.min(expire);
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

    /// On the slow path: the segments whose expiry has passed give back their masks.
    #[cold]
    #[inline(never)]
    pub(super) fn purge_expired<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        // Every expiry in force has its entry, so the passed ones are all at the top: each
        // is carried out, and stale entries among them just go.
        while let Some(&Reverse((e, si, g))) = self.expiries.peek() {
            if e > now {
                break;
            }
            self.expiries.pop();
            if !in_force(&self.segments, e, si, g) {
                continue;
            }
            self.purge_segment(mem, si, Purge::Due { expiry: e })?;
        }
        Ok(())
    }

    /// Decommits every slot in segment `si`'s mask and clears its expiry; with an empty
    /// mask, leaves both as they are.
    fn purge_segment<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        si: u32,
        purge: Purge,
    ) -> Result<(), AllocError> {
        let seg = self.segments[si as usize].as_ref().expect("live segment");
        let runs: Vec<(u32, u32)> = runs_where(&seg.slots, |s| s.pending).collect();
        let waiting: u32 = runs.iter().map(|&(_, n)| n).sum();
        if waiting == 0 {
            return Ok(());
        }
        let extend_ms = self.extend_ns / 1_000_000;
        match purge {
            Purge::Due { expiry } => self.note_emptied(mem, "decommit due", waiting, || {
                format!(
                    "in a segment whose expiry passed at {} ({}, pushed back by \
                     purge_extend_ms {extend_ms} ms at each span emptied before it)",
                    self.moment(expiry),
                    self.delay_named(),
                )
            }),
            Purge::Forced { id, expiry } => {
                self.note_emptied(mem, "decommit forced", waiting, || {
                    format!(
                        "with empty span {id}, {} after its segment's expiry passed at {} \
                         (purge_extend_ms {extend_ms} ms or more): all of the segment's \
                         mask goes at once",
                        crate::format::format_duration_ns(self.now - expiry),
                        self.moment(expiry),
                    )
                })
            }
        }
        for (first, n) in runs {
            self.decommit_units(mem, si, first, n, false)?;
        }
        // The mask is emptied whole, as mimalloc 2.0 clears it, even where a decommit unit
        // larger than a slot still held a span.
        let seg = self.segments[si as usize].as_mut().expect("live segment");
        seg.expire = 0;
        for s in &mut seg.slots {
            s.pending = false;
        }
        self.release_if_empty(mem, si)
    }
}

/// Why a segment's mask is decommitted.
enum Purge {
    /// On the slow path, its expiry having passed.
    Due { expiry: u64 },
    /// On the spot, as span `id` emptied long after the expiry passed.
    Forced { id: u32, expiry: u64 },
}

/// Whether a heap entry is the expiry segment `si` has now: the same segment (by
/// generation), with that expiry still set.
fn in_force(segments: &[Option<Segment>], e: u64, si: u32, g: u64) -> bool {
    segments[si as usize]
        .as_ref()
        .is_some_and(|seg| seg.generation == g && seg.expire == e && e != 0)
}
