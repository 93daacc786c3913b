//! Pages inside free chunks given back under `release_free_pages`, at once or after
//! `release_delay` events, and committed again when a chunk that held them is reused.

use super::{FreeList, Release};
use crate::format::{format_bytes, format_count};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

impl FreeList {
    /// Commits whatever pages of a range were given back while it lay in a free chunk or
    /// in the top. Without page release nothing inside the heap is ever decommitted.
    #[inline]
    pub(super) fn ready<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
        len: u64,
    ) -> Result<(), AllocError> {
        if self.release != Release::Never && len > 0 {
            mem.commit_missing(addr, len)?;
        }
        Ok(())
    }

    /// Gives back the whole pages inside a free chunk, keeping the pages that hold its
    /// header, links and boundary tag.
    pub(super) fn purge<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        start: Addr,
        size: u64,
    ) -> Result<(), AllocError> {
        let (lo, hi) = self.inner_pages(start, size);
        if hi > lo {
            mem.decommit_committed(lo, hi - lo)?;
        }
        Ok(())
    }

    /// The whole pages inside a free chunk, past its header and links and before its
    /// boundary tag: what a purge can give back.
    fn inner_pages(&self, start: Addr, size: u64) -> (Addr, Addr) {
        let lo = (start + self.header + 16).next_multiple_of(self.page);
        let hi = (start + size - 8) / self.page * self.page;
        (lo, hi)
    }

    /// How many bytes a purge of this free chunk would give back: its whole pages still
    /// committed.
    pub(super) fn purgeable<P: PageProvider>(&self, mem: &Pages<P>, start: Addr, size: u64) -> u64 {
        let (lo, hi) = self.inner_pages(start, size);
        if hi > lo {
            mem.committed_bytes(lo, hi - lo)
        } else {
            0
        }
    }

    /// Gives back the pages of the chunks whose delayed purge is due by `now`.
    #[cold]
    #[inline(never)]
    pub(super) fn purge_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, start)) = self.purge_queue.front() {
            if due > now {
                break;
            }
            self.purge_queue.pop_front();
            // The chunk may have been reused or merged since; purge what is free there now.
            if let Some(h) = self.chunks.find(start) {
                let c = self.chunks[h];
                let bytes = if c.is_free() {
                    self.purgeable(mem, start, c.size)
                } else {
                    0
                };
                if bytes > 0 {
                    let delay = self.release_delay;
                    mem.note(|| crate::decision::Decision::Rule {
                        rule: "purge",
                        text: format!(
                            "purge due: the free chunk at {start:#x}, freed at event {}, gives back {} of whole pages after release_delay {} events",
                            format_count(i128::from(due - delay)),
                            format_bytes(bytes),
                            format_count(i128::from(delay))
                        ),
                    });
                    mem.note(|| crate::decision::Decision::Reason {
                        why: "free pages given back after their delay",
                    });
                    self.purge(mem, start, c.size)?;
                }
            }
        }
        Ok(())
    }
}
