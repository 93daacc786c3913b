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

    /// The first tick: whether the run counts its delays in nanoseconds, once for the whole
    /// run. [`ModelTime::policy_now`](crate::clock::ModelTime::policy_now) gives every
    /// event of a run a time or none, so the first event tells.
    #[cold]
    #[inline(never)]
    pub(super) fn read_clock(&mut self, now: crate::clock::Now) {
        self.timed = now.ns.is_some() && self.delay_ns > 0;
        self.clock_read = true;
    }

    /// Explains a delayed decommit of `n` slots of emptied spans, in the one form all of
    /// them take: "<why>: the <size> emptied <detail>". `detail` is worked out only when
    /// the provider keeps decisions.
    pub(super) fn note_emptied<P: PageProvider>(
        &self,
        mem: &mut Pages<P>,
        why: &str,
        n: u32,
        detail: impl FnOnce() -> String,
    ) {
        mem.note(|| crate::decision::Decision::Rule {
            rule: "decommit",
            text: format!(
                "{why}: the {} emptied {}",
                crate::format::format_bytes(u64::from(n) << self.page_shift),
                detail()
            ),
        });
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
                    self.note_emptied(mem, "decommit due", n, || {
                        format!(
                            "at {} and not reused within {}",
                            self.moment(due - self.delay()),
                            self.delay_named()
                        )
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
        // Both sums below go through their whole queue each epoch, and cannot be kept as
        // they go. Every term of the allowance changes as its span ages, and the sum of
        // floating-point terms depends on the order it is added in, so a running total
        // updated by differences would round otherwise than this sum, and move results.
        // The waiting pages change with every slot reused or decommitted, and a span
        // emptied again has two entries over the same slots: a running count would have to
        // follow every span cut from a segment, on the allocation path, where this costs
        // once an epoch. Only the curve's values are worked out ahead ([`KEEP`]), exactly
        // as they were here.
        let allowed: f64 = self
            .emptied
            .iter()
            .map(|&(at, n)| {
                // Whole epochs of age, as jemalloc counts them: fewer than `EPOCHS`, since
                // spans as old as the delay were dropped above.
                let epochs = u128::from(now - at) * u128::from(EPOCHS) / u128::from(delay);
                f64::from(n) * KEEP[epochs as usize]
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
            self.note_emptied(mem, "decay", n, || {
                format!(
                    "at {} decommitted ahead of its {}, as the oldest of {} waiting where the \
                     smoother-step curve allows {} at {}",
                    self.moment(due.saturating_sub(1 + self.delay())),
                    self.delay_named(),
                    crate::format::format_bytes((waiting + u64::from(n)) << self.page_shift),
                    crate::format::format_bytes((allowed.round() as u64) << self.page_shift),
                    self.moment(now)
                )
            });
            self.decommit_units(mem, si, first, n, false)?;
            self.release_if_empty(mem, si)?;
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
    pub(super) fn waiting(&self, si: u32, generation: u64, first: u32, n: u32) -> bool {
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
            self.earliest_expiry()
        } else {
            self.purge.front().map_or(u64::MAX, |e| e.0)
        };
        self.next_due = large.min(pages).min(self.next_epoch);
        Ok(())
    }
}

/// The epochs a decay is cut into (jemalloc's `SMOOTHSTEP_NSTEPS`).
const EPOCHS: u64 = 200;

/// The share of its pages a span may keep after each whole number of epochs of age,
/// `1 - smootherstep(epochs / EPOCHS)`, worked out at compile time. Floating-point
/// arithmetic is exact to the last bit in a constant as at run time (both round to
/// nearest, and neither fuses a multiply with an add), so the table holds the very values
/// the curve gives.
const KEEP: [f64; EPOCHS as usize] = {
    let mut keep = [0.0; EPOCHS as usize];
    let mut epochs = 0;
    while epochs < EPOCHS as usize {
        keep[epochs] = 1.0 - smootherstep(epochs as f64 / EPOCHS as f64);
        epochs += 1;
    }
    keep
};

/// The smoother-step curve jemalloc decays along (smoothstep.h, "smoother"): 0 at 0, 1 at
/// 1, flat at both ends.
const fn smootherstep(x: f64) -> f64 {
    x * x * x * (x * (x * 6.0 - 15.0) + 10.0)
}
