//! Delayed work: the decommits of emptied spans' slots under `empty_pages = delay`, and,
//! through the large blocks' own queue, the release of kept large mappings; `tick` runs
//! them once something is due.

use super::SizeClass;
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::PageProvider;

impl SizeClass {
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
                let delay = self.delay;
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
                            "decommit due: the {} emptied at event {} and not reused within decommit_delay {} events",
                            crate::format::format_bytes(u64::from(n) << self.page_shift),
                            crate::format::format_count(i128::from(due - delay)),
                            crate::format::format_count(i128::from(delay))
                        ),
                    });
                }
                self.decommit_units(mem, si, first, n, true)?;
                self.release_if_empty(mem, si)?;
            }
        }
        Ok(())
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
        if self.purge.front().is_some_and(|&(due, ..)| due <= now) {
            self.purge_due(mem, now)?;
        }
        let large = self.large_purge.front().map_or(u64::MAX, |e| e.0);
        let pages = self.purge.front().map_or(u64::MAX, |e| e.0);
        self.next_due = large.min(pages);
        Ok(())
    }
}
