//! The free-list heap's consistency check: every segment walked chunk by chunk against
//! the chunk table, the free structures, the thread caches and fast bins, and the page
//! map. Slow; for tests, through `Policy::check_invariants`.

use super::chunks::NIL;
use super::{Fit, FreeList, Release};
use crate::pages::Pages;
use crate::provider::PageProvider;

impl FreeList {
    /// Checks every structure against the others and the page map.
    pub(super) fn check_structures<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        self.chunks.check()?;
        let mut seen = 0usize;
        let mut free = 0usize;
        let mut live = 0u64;
        for (i, s) in self.segments.iter().enumerate() {
            if !(s.first <= s.top && s.top <= s.end && s.committed_end <= s.end) {
                return Err(format!(
                    "segment {i} has its top or break out of bounds: {s:?}"
                ));
            }
            if s.committed_end % self.page != 0 {
                return Err(format!("segment {i} break is not page-aligned"));
            }
            let mut a = s.first;
            let mut prev = NIL;
            let mut prev_free = false;
            while a < s.top {
                let h = self
                    .chunks
                    .find(a)
                    .ok_or_else(|| format!("no chunk at {a:#x} inside segment {i}"))?;
                let c = self.chunks[h];
                if c.prev != prev {
                    return Err(format!(
                        "chunk {a:#x} says its lower neighbour is record {}, not {prev}",
                        c.prev
                    ));
                }
                if prev != NIL && self.chunks[prev].next != h {
                    return Err(format!(
                        "the chunk below {a:#x} says its upper neighbour is record {}, not {h}",
                        self.chunks[prev].next
                    ));
                }
                if c.size < self.min_chunk || !c.size.is_multiple_of(self.align) {
                    return Err(format!("chunk {a:#x} has a bad size {}", c.size));
                }
                let needs_all = !c.is_free() || self.release == Release::Never;
                let ends_ok = mem.is_committed(a, (self.header + 16).min(c.size))
                    && mem.is_committed(a + c.size - 8, 8);
                if !ends_ok || (needs_all && !mem.is_committed(a, c.size)) {
                    return Err(format!("chunk {a:#x}+{} is not committed", c.size));
                }
                // An allocation writes the header of the free chunk it takes without
                // asking the page map: the pages of a free chunk's front are resident, as
                // its free touched them and a purge keeps them.
                let front = (self.header + 16).min(c.size);
                let front_resident = (a..a + front)
                    .step_by(mem.page_size() as usize)
                    .chain([a + front - 1])
                    .all(|p| mem.is_resident(p));
                if c.is_free() && !front_resident {
                    return Err(format!("free chunk {a:#x} has a front page not resident"));
                }
                // A free writes the front of a chunk in use without asking the page map
                // when it lies in the chunk's first page, which the header's write made
                // resident and which no purge or trim reaches while the chunk is in use.
                if !c.is_free() && self.header > 0 && !mem.is_resident(a) {
                    return Err(format!(
                        "chunk {a:#x} in use has its first page not resident"
                    ));
                }
                if c.is_free() {
                    free += 1;
                    if self.coalesce && prev_free {
                        return Err(format!(
                            "free chunk {a:#x} was not merged with the one below"
                        ));
                    }
                    let indexed = match self.fit {
                        // Checked below, from the bins' side.
                        Fit::Best | Fit::Bins => true,
                        Fit::First | Fit::Next => self.by_addr.contains(a, c.size),
                    };
                    if !indexed {
                        return Err(format!(
                            "free chunk {a:#x} is missing from the free structures"
                        ));
                    }
                } else {
                    live += 1;
                }
                prev_free = c.is_free();
                prev = h;
                a += c.size;
                seen += 1;
            }
            if a != s.top {
                return Err(format!("chunks of segment {i} overrun the top"));
            }
            if s.last != prev {
                return Err(format!(
                    "segment {i} thinks the chunk below the top is record {}, not {prev}",
                    s.last
                ));
            }
            if prev != NIL && self.chunks[prev].next != NIL {
                return Err(format!(
                    "the chunk below segment {i}'s top has an upper neighbour"
                ));
            }
        }
        if seen != self.chunks.len() {
            return Err(format!(
                "{} chunks in the table, {seen} in the segments",
                self.chunks.len()
            ));
        }
        let indexed = match self.fit {
            Fit::Best | Fit::Bins => {
                // Every chunk the bins name is a free chunk in the table (so in a segment,
                // as every chunk of the table was walked above), each named once: as many
                // as were walked means every free chunk is in them.
                self.bins
                    .check(|h| {
                        let c = self.chunks.holds(h).then(|| self.chunks[h])?;
                        c.is_free().then_some((c.addr, c.size, c.stamp))
                    })?
                    .len()
                    + self.by_addr.len()
            }
            Fit::First | Fit::Next => self.by_addr.len() + self.bins.len(),
        };
        if free != indexed {
            return Err(format!(
                "{free} free chunks, the free structures hold {indexed}"
            ));
        }
        if live != self.live_chunks {
            return Err(format!(
                "{live} chunks in use, counter says {}",
                self.live_chunks
            ));
        }
        for (&payload, &(base, len)) in &self.mapped {
            if !mem.is_committed(base, len) || payload < base || payload >= base + len {
                return Err(format!(
                    "mapped block {payload:#x} is not inside committed memory"
                ));
            }
        }
        let in_use_of = |h: u32, csize: u64| {
            self.chunks.holds(h) && !self.chunks[h].is_free() && self.chunks[h].size == csize
        };
        let mut cached = rustc_hash::FxHashSet::default();
        let mut fast = 0;
        for (bin, chunks) in self.fastbins.iter().enumerate() {
            let csize = (bin as u64) << self.shift;
            if !chunks.is_empty() && csize > self.fast_max_chunk {
                return Err(format!("fast bin {csize} is larger than the fast limit"));
            }
            for &h in chunks {
                fast += 1;
                if !in_use_of(h, csize) {
                    return Err(format!(
                        "fast chunk {h} is not an in-use chunk of {csize} bytes"
                    ));
                }
                if !cached.insert(h) {
                    return Err(format!("chunk {h} is in a fast bin twice"));
                }
            }
        }
        if fast != self.fast_chunks {
            return Err(format!(
                "{fast} chunks in fast bins, counter says {}",
                self.fast_chunks
            ));
        }
        for (thread, bins) in self.tcache.iter() {
            for (bin, chunks) in bins.iter().enumerate() {
                let csize = (bin as u64) << self.shift;
                if chunks.len() > self.tcache_count
                    || (!chunks.is_empty() && csize > self.tcache_max_chunk)
                {
                    return Err(format!(
                        "thread {thread}'s cache bin {csize} is over its limits"
                    ));
                }
                for &h in chunks {
                    if !in_use_of(h, csize) {
                        return Err(format!(
                            "cached chunk {h} is not an in-use chunk of {csize} bytes"
                        ));
                    }
                    if !cached.insert(h) {
                        return Err(format!("chunk {h} is cached twice"));
                    }
                }
            }
        }
        Ok(())
    }
}
