//! Large blocks: requests above `large_threshold`, served by a mapping of their own or,
//! under `share_small_large`, by a run of segment slots. A freed mapping is released at
//! once, or with `large_free = delay` kept committed on the large free list for later
//! requests until its delay runs out.

use super::{SizeClass, LARGE};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

impl SizeClass {
    pub(super) fn alloc_large<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        // A large block is a slow-path call, mapped or carved, as it is in mimalloc.
        self.slow = true;
        if self.retire_cycles > 0 {
            self.generic_call(mem)?;
        }
        if self.share && size <= self.shared_large_limit() && align <= self.page_size() {
            let n = size.div_ceil(self.page_size()) as u32;
            let heap = self.heap_of(thread);
            let id = self.obtain_span(mem, heap, n)?;
            self.init_span(id, heap, LARGE, u64::from(n) << self.page_shift);
            let span = &mut self.spans[id as usize];
            span.used = 1;
            span.extent = 1;
            span.in_use[0] = 1;
            return Ok(span.base);
        }
        let len = mem.round_up(size.max(1));
        if let Some(base) = self.reuse_large(len, align) {
            Self::note_large_reuse(mem, base, self.large[&base]);
            return Ok(base);
        }
        let base = mem.map(len, align.max(self.os_page))?;
        if self.huge_pages {
            mem.advise_huge(base, len)?;
        }
        self.large.insert(base, len);
        Ok(base)
    }

    /// The smallest kept large mapping that holds `len` bytes at `align`, taken off the
    /// large free list. Its pages are still committed, so reuse costs no page operation.
    /// Mappings more than twice the request are left for larger requests, as a best-fit
    /// large free list would split them and keep the rest.
    pub(super) fn reuse_large(&mut self, len: u64, align: u64) -> Option<Addr> {
        let free = self.large_free.as_mut()?;
        let (&(have, base), _) = free
            .range((len, 0)..=(len.saturating_mul(2), Addr::MAX))
            .find(|((_, base), _)| base.is_multiple_of(align))?;
        free.remove(&(have, base));
        self.large.insert(base, have);
        Some(base)
    }

    /// Says which kept mapping a large request took, and why no page operation follows.
    pub(super) fn note_large_reuse<P: PageProvider>(mem: &mut Pages<P>, base: Addr, len: u64) {
        mem.note(|| crate::decision::Decision::Rule {
            rule: "large free list",
            text: format!(
                "reused the kept mapping of {} at {base:#x} from the large free list (large_free = delay): its pages are still committed",
                crate::format::format_bytes(len)
            ),
        });
    }

    /// Frees a large block's own mapping: at once, or onto the large free list.
    pub(super) fn free_large<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        addr: Addr,
        len: u64,
    ) -> Result<(), AllocError> {
        self.slow = true;
        if self.large_free.is_none() {
            mem.release(addr, len)?;
        } else {
            let due = self.now + 1 + self.delay();
            mem.note(|| crate::decision::Decision::Rule {
                rule: "large free list",
                text: format!(
                    "the {} mapping kept committed on the large free list until {} (large_free = delay, {}), unless a large request reuses it first",
                    crate::format::format_bytes(len),
                    self.moment(due),
                    self.delay_named()
                ),
            });
            if let Some(free) = &mut self.large_free {
                free.insert((len, addr), due);
            }
            self.large_purge.push_back((due, addr, len));
            self.next_due = self.next_due.min(due);
        }
        Ok(())
    }

    /// Releases the kept large mappings whose delay has run out.
    #[cold]
    #[inline(never)]
    pub(super) fn release_large_due<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        now: u64,
    ) -> Result<(), AllocError> {
        while let Some(&(due, addr, len)) = self.large_purge.front() {
            if due > now {
                break;
            }
            self.large_purge.pop_front();
            let free = self
                .large_free
                .as_mut()
                .expect("only queued with a large free list");
            if free.get(&(len, addr)) == Some(&due) {
                free.remove(&(len, addr));
                mem.note(|| crate::decision::Decision::Rule {
                    rule: "large free list",
                    text: format!(
                        "release due: the {} mapping freed at {} was not reused within {}",
                        crate::format::format_bytes(len),
                        self.moment(due - self.delay()),
                        self.delay_named()
                    ),
                });
                mem.release(addr, len)?;
            }
        }
        Ok(())
    }
}
