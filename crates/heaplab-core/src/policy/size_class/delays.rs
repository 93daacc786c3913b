//! Delayed work: the decommits of emptied spans' slots under `empty_pages = delay`, and,
//! through the large blocks' own queue, the release of kept large mappings; `tick` runs
//! them once something is due.

use super::SizeClass;
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::PageProvider;

impl SizeClass {
    /// The delay in the unit this run counts: nanoseconds when [`SizeClass::timed`], else
    /// events.
    pub(super) fn delay(&self) -> u64 {
        if self.timed {
            self.delay_ns
        } else {
            self.delay_events
        }
    }

    /// A moment on this run's count, as the decisions say it: "event 1,234", or "12.5 ms
    /// into the run".
    pub(super) fn moment(&self, t: u64) -> String {
        if self.timed {
            format!("{} into the run", crate::format::format_duration_ns(t))
        } else {
            format!("event {}", crate::format::format_count(i128::from(t)))
        }
    }

    /// The delay as the decisions name it, with the knob that set it.
    pub(super) fn delay_named(&self) -> String {
        if self.timed {
            format!("decommit_ms {} ms", self.delay_ns / 1_000_000)
        } else {
            format!(
                "decommit_delay {} events",
                crate::format::format_count(i128::from(self.delay_events))
            )
        }
    }

    /// Carries out the delayed decommits due by `now`.
    #[cold]
    #[inline(never)]
    pub(super) fn purge_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, si, generation, first, n)) = self.purge.front() {
            if due > now {
                break;
            }
            self.purge.pop_front();
            // A segment released since, and its successor in the table, are left alone;
            // slots reused or freed again since are skipped by their due time.
            let same = self.segments[si as usize]
                .as_ref()
                .is_some_and(|seg| seg.generation == generation);
            if same {
                // Slots reused since, or already given back, make no decommit to explain.
                let idle = self.segments[si as usize].as_ref().is_some_and(|seg| {
                    seg.slots[first as usize..(first + n) as usize]
                        .iter()
                        .any(|s| s.owner == super::NONE && s.committed)
                });
                if idle {
                    mem.note(|| crate::decision::Decision::Rule {
                        rule: "decommit",
                        text: format!(
                            "decommit due: the {} emptied at {} and not reused within {}",
                            crate::format::format_bytes(u64::from(n) << self.page_shift),
                            self.moment(due - self.delay()),
                            self.delay_named()
                        ),
                    });
                }
                self.decommit_units(mem, si, first, n, true)?;
                self.release_if_empty(mem, si)?;
            }
        }
        Ok(())
    }

    /// Under `decay = smootherstep`, the end of a decay epoch: the empty spans still
    /// waiting may keep committed only what the curve allows for their age, summed, and
    /// the oldest are decommitted until they keep no more. jemalloc keeps a backlog of the
    /// dirty pages each epoch added and purges, oldest first, down to their sum weighted
    /// by the curve (decay.c `decay_backlog_npages_limit`); here each waiting span is its
    /// own entry of that backlog.
    #[cold]
    #[inline(never)]
    fn decay_epoch<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        let delay = self.delay().max(1);
        // The allowance counts every span emptied within the delay, decommitted since or
        // not, as jemalloc's backlog counts the pages each epoch added.
        while self
            .emptied
            .front()
            .is_some_and(|&(at, _)| now.saturating_sub(at) >= delay)
        {
            self.emptied.pop_front();
        }
        let allowed: f64 = self
            .emptied
            .iter()
            .map(|&(at, n)| {
                // Whole epochs of age, as jemalloc counts them.
                let epochs = (u128::from(now - at) * u128::from(EPOCHS) / u128::from(delay)) as f64;
                f64::from(n) * (1.0 - smootherstep(epochs / EPOCHS as f64))
            })
            .sum();
        let mut waiting: u64 = self
            .purge
            .iter()
            .filter(|&&(_, si, generation, first, n)| self.waiting(si, generation, first, n))
            .map(|e| u64::from(e.4))
            .sum();
        // Spans go back whole, so the waiting pages can only come near the allowance:
        // the oldest goes while that brings them nearer, the nearest whole-span count.
        while let Some(&(due, si, generation, first, n)) = self.purge.front() {
            if !self.waiting(si, generation, first, n) {
                self.purge.pop_front();
                continue;
            }
            if (waiting as f64 - allowed) * 2.0 < f64::from(n) {
                break;
            }
            self.purge.pop_front();
            waiting -= u64::from(n);
            mem.note(|| crate::decision::Decision::Rule {
                rule: "decommit",
                text: format!(
                    "decay: the {} emptied at {} decommitted ahead of its {}, as the oldest of \
                     {} waiting where the smoother-step curve allows {} at {}",
                    crate::format::format_bytes(u64::from(n) << self.page_shift),
                    self.moment(due.saturating_sub(1 + self.delay())),
                    self.delay_named(),
                    crate::format::format_bytes((waiting + u64::from(n)) << self.page_shift),
                    crate::format::format_bytes((allowed.round() as u64) << self.page_shift),
                    self.moment(now)
                ),
            });
            self.decommit_units(mem, si, first, n, false)?;
            self.release_if_empty(mem, si)?;
        }
        Ok(())
    }

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
        self.next_due = self.next_due.min(seg.expire);
    }

    /// Under a segment expiry, the segments whose expiry has passed give back every span
    /// waiting in them, together.
    #[cold]
    #[inline(never)]
    fn purge_expired<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        let expired = |seg: &super::segments::Segment| seg.expire != 0 && seg.expire <= now;
        if !self.segments.iter().flatten().any(expired) {
            return Ok(());
        }
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
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "decommit",
                    text: format!(
                        "decommit due: the {} emptied in a segment whose expiry passed at {} \
                         ({}, pushed back by purge_extend_ms {} ms at each span emptied \
                         before it)",
                        crate::format::format_bytes(u64::from(n) << self.page_shift),
                        self.moment(now),
                        self.delay_named(),
                        self.extend_ns / 1_000_000
                    ),
                });
                self.decommit_units(mem, si, first, n, false)?;
                self.release_if_empty(mem, si)?;
            }
        }
        self.purge = kept;
        for seg in self.segments.iter_mut().flatten() {
            if expired(seg) {
                seg.expire = 0;
            }
        }
        Ok(())
    }

    /// Under `decay = smootherstep`, starts the next epoch from now unless one is running
    /// or no span waits.
    pub(super) fn start_epochs(&mut self) {
        if self.smooth && self.next_epoch == u64::MAX && !self.purge.is_empty() {
            self.next_epoch = self.now + (self.delay() / EPOCHS).max(1);
            self.next_due = self.next_due.min(self.next_epoch);
        }
    }

    /// Whether a queued decommit still has pages waiting for it: its segment is the same
    /// one, and some of its slots are unowned and committed.
    fn waiting(&self, si: u32, generation: u64, first: u32, n: u32) -> bool {
        self.segments[si as usize].as_ref().is_some_and(|seg| {
            seg.generation == generation
                && seg.slots[first as usize..(first + n) as usize]
                    .iter()
                    .any(|s| s.owner == super::NONE && s.committed)
        })
    }

    /// [`Policy::tick`](crate::policy::Policy::tick) once something may be due: carries
    /// out what is, then finds when the next thing will be.
    #[cold]
    #[inline(never)]
    pub(super) fn tick_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        if self
            .large_purge
            .front()
            .is_some_and(|&(due, ..)| due <= now)
        {
            self.release_large_due(mem, now)?;
        }
        if self.segment_expiry() {
            self.purge_expired(mem, now)?;
        } else if self.purge.front().is_some_and(|&(due, ..)| due <= now) {
            self.purge_due(mem, now)?;
        }
        if self.smooth && now >= self.next_epoch {
            if !self.purge.is_empty() {
                self.decay_epoch(mem, now)?;
            }
            self.next_epoch = u64::MAX;
            self.start_epochs();
        }
        let large = self.large_purge.front().map_or(u64::MAX, |e| e.0);
        let pages = if self.segment_expiry() {
            let expiries = self.segments.iter().flatten().map(|seg| seg.expire);
            expiries.filter(|&e| e != 0).min().unwrap_or(u64::MAX)
        } else {
            self.purge.front().map_or(u64::MAX, |e| e.0)
        };
        self.next_due = large.min(pages).min(self.next_epoch);
        Ok(())
    }
}

/// The epochs a decay is cut into (jemalloc's `SMOOTHSTEP_NSTEPS`).
const EPOCHS: u64 = 200;

/// The smoother-step curve jemalloc decays along (smoothstep.h, "smoother"): 0 at 0, 1 at
/// 1, flat at both ends.
fn smootherstep(x: f64) -> f64 {
    x * x * x * (x * (x * 6.0 - 15.0) + 10.0)
}
