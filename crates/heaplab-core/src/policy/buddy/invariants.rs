//! The buddy heap's consistency check: the free sets, the start bitmap and the live
//! blocks tile the arenas exactly, merged where they should be, with committed pages
//! where the page map must have them. Slow; for tests, through `Policy::check_invariants`.

use crate::pages::Pages;
use crate::provider::{Addr, PageProvider};

use super::Buddy;

impl Buddy {
    /// Checks every structure against the others and the page map.
    pub(super) fn check_structures<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        let mut spans: Vec<(Addr, u64, bool)> = Vec::new();
        let decommits = self.decommit_merged && mem.caps().can_decommit;
        for (k, set) in self.free.iter().enumerate() {
            set.check()
                .map_err(|e| format!("free set of order {k}: {e}"))?;
            if set.is_empty() == (self.nonempty & (1 << k) != 0) {
                return Err(format!(
                    "the mask of orders with free blocks is wrong at {k}"
                ));
            }
        }
        for (a, k) in self.free_blocks() {
            let size = self.size_of(k);
            if self.arenas.binary_search(&self.arena_of(a)).is_err() {
                return Err(format!("free block {a:#x} of order {k} is in no arena"));
            }
            if a % size != 0 {
                return Err(format!(
                    "free block {a:#x} of order {k} is not aligned to its size"
                ));
            }
            if k < self.max_order && self.is_free(self.buddy_of(a, k), k) {
                return Err(format!(
                    "free block {a:#x} and its buddy {:#x} of order {k} were not merged",
                    self.buddy_of(a, k)
                ));
            }
            let start = self.index(self.slot_of(a), a, 0);
            if !self.starts.contains(start) || self.starts.order_at(start) != k {
                return Err(format!(
                    "free block {a:#x} of order {k} is not where the start bitmap puts a \
                     block of its order"
                ));
            }
            if decommits && size >= self.page {
                // Checking every page would make the scan cost the heap's size.
                let last = a + size - self.page;
                if mem.is_committed(a, 1) || mem.is_committed(last, 1) {
                    return Err(format!(
                        "free block {a:#x} of order {k} still has committed pages"
                    ));
                }
            }
            spans.push((a, size, true));
        }
        // Every start begins a block that runs to the next start or its arena's end; those
        // not on their order's free list are the live blocks.
        let starts: Vec<usize> = self.starts.iter().collect();
        let arena_blocks = 1usize << self.max_order;
        if starts
            .last()
            .is_some_and(|&i| i >= self.arenas.len() * arena_blocks)
        {
            return Err("a block starts beyond the arenas".into());
        }
        let mut live = 0;
        for (n, &i) in starts.iter().enumerate() {
            let arena_end = (i | (arena_blocks - 1)) + 1;
            let next = starts.get(n + 1).map_or(arena_end, |&j| j.min(arena_end));
            let span = next - i;
            let block = self.address(i >> self.max_order, i, 0);
            if !span.is_power_of_two() || i % span != 0 {
                return Err(format!(
                    "the block at {block:#x} runs {span} smallest blocks to the next start, \
                     not a power of two it is aligned to"
                ));
            }
            let k = span.trailing_zeros();
            if self.starts.order_at(i) != k {
                return Err(format!(
                    "the start bitmap reads order {} for the block at {block:#x} of order {k}",
                    self.starts.order_at(i)
                ));
            }
            if self.free_set(k).contains(i >> k) {
                continue;
            }
            live += 1;
            let size = self.size_of(k);
            if !mem.is_committed(block, size) {
                return Err(format!(
                    "live block {block:#x} of order {k} is not committed"
                ));
            }
            spans.push((block, size, false));
        }
        if live != self.live_blocks {
            return Err(format!(
                "{live} blocks are live in the start bitmap, {} counted",
                self.live_blocks
            ));
        }
        for (slot, (&base, &fresh)) in self.arenas.iter().zip(&self.fresh_from).enumerate() {
            // Every page at or above the mark must be uncommitted; the first one is checked.
            if fresh < base + self.arena_size && mem.is_committed(fresh.max(base), 1) {
                return Err(format!(
                    "arena {slot} has a committed page at {fresh:#x}, marked never committed"
                ));
            }
        }
        if self.header > 0 {
            if self.payloads.len() as u64 != live {
                return Err(format!(
                    "{} payloads for {live} live blocks",
                    self.payloads.len()
                ));
            }
            if let Some(p) = self
                .payloads
                .iter()
                .find(|&&p| self.live_block(p).is_none())
            {
                return Err(format!("payload {p:#x} is in no live block"));
            }
        } else if !self.payloads.is_empty() {
            return Err("payloads recorded without a header".into());
        }
        // Free and live blocks must tile the arenas exactly: no overlap, nothing lost.
        spans.sort_unstable_by_key(|s| s.0);
        for w in spans.windows(2) {
            if w[0].0 + w[0].1 > w[1].0 {
                return Err(format!(
                    "blocks {:#x}+{} ({}) and {:#x}+{} ({}) overlap",
                    w[0].0,
                    w[0].1,
                    if w[0].2 { "free" } else { "live" },
                    w[1].0,
                    w[1].1,
                    if w[1].2 { "free" } else { "live" },
                ));
            }
        }
        let covered: u64 = spans.iter().map(|s| s.1).sum();
        let arenas = self.arenas.len() as u64 * self.arena_size;
        if covered != arenas {
            return Err(format!(
                "free and live blocks cover {covered} bytes of {arenas} in arenas"
            ));
        }
        // Every page recorded held must be committed and resident, or a link write would
        // skip the page map where it must not.
        for s in self.held.iter() {
            let slot = s >> self.max_order;
            if slot >= self.arenas.len() {
                return Err(format!("a page is recorded held beyond the arenas, at {s}"));
            }
            let page = self.address(slot, s, 0);
            if !mem.is_committed(page, 1) || !mem.is_resident(page) {
                return Err(format!(
                    "page {page:#x} is recorded held but is not committed and resident"
                ));
            }
        }
        for (&payload, &(base, len)) in &self.mapped {
            if !mem.is_committed(base, len) || payload < base || payload >= base + len {
                return Err(format!(
                    "mapped block {payload:#x} is not inside committed memory"
                ));
            }
        }
        Ok(())
    }
}
