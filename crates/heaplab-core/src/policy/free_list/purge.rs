//! Pages inside free chunks given back under `release_free_pages`, at once or after
//! `release_delay` events, and committed again when a chunk that held them is reused.

use super::{FreeList, Release};
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
        let lo = (start + self.header + 16).next_multiple_of(self.page);
        let hi = (start + size - 8) / self.page * self.page;
        if hi > lo {
            mem.decommit_committed(lo, hi - lo)?;
        }
        Ok(())
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
                if c.is_free() {
                    self.purge(mem, start, c.size)?;
                }
            }
        }
        Ok(())
    }
}
