//! The size-class heap's consistency check: spans, thread caches, heaps' queues and span
//! caches, segments and large mappings against each other and against the page map. Slow;
//! for tests, through `Policy::check_invariants`.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::spans::Span;
use super::{EmptyPages, SizeClass, LARGE, METADATA, NONE};
use crate::pages::Pages;
use crate::provider::PageProvider;

impl SizeClass {
    /// Checks every structure against the others and the page map.
    pub(super) fn check_structures<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        let retired: FxHashSet<u32> = self.free_span_ids.iter().copied().collect();
        if retired.len() != self.free_span_ids.len() {
            return Err("a span id is free twice".into());
        }
        // Blocks held in thread caches, per span, checked against the spans below.
        let mut in_caches: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (thread, tc) in self.tcaches.iter() {
            let mut bytes = 0;
            for (class, list) in tc.lists.iter().enumerate() {
                for &(id, index) in list {
                    let span = self
                        .spans
                        .get(id as usize)
                        .filter(|_| !retired.contains(&id));
                    let Some(span) = span else {
                        return Err(format!("thread {thread} caches a block of dead span {id}"));
                    };
                    if span.class as usize != class || span.cpos != NONE {
                        return Err(format!(
                            "thread {thread} caches a block of span {id} in the wrong class"
                        ));
                    }
                    if self.per_thread && self.thread_heaps.get(thread) != Some(span.heap) {
                        return Err(format!(
                            "thread {thread} caches a block of another heap's span {id}"
                        ));
                    }
                    bytes += span.block;
                    in_caches.entry(id).or_default().push(index);
                }
            }
            if bytes != tc.bytes || bytes > self.thread_cache {
                return Err(format!(
                    "thread {thread} cache holds {bytes} bytes, counter {}, limit {}",
                    tc.bytes, self.thread_cache
                ));
            }
        }
        let mut live = 0;
        let mut cached_per_heap = vec![(0u32, 0u64); self.heaps.len()];
        for (id, span) in self.spans.iter().enumerate() {
            let id = id as u32;
            if retired.contains(&id) {
                continue;
            }
            live += 1;
            let seg = self.segments[span.seg as usize]
                .as_ref()
                .ok_or_else(|| format!("span {id} lies in a released segment"))?;
            if seg.heap != span.heap {
                return Err(format!(
                    "span {id} of heap {} lies in a segment of heap {}",
                    span.heap, seg.heap
                ));
            }
            for s in &seg.slots[span.first as usize..(span.first + span.slots) as usize] {
                if s.owner != id || !s.committed || s.pending {
                    return Err(format!("span {id} does not own committed slots: {s:?}"));
                }
            }
            if !mem.is_committed(span.base, u64::from(span.slots) << self.page_shift) {
                return Err(format!("span {id} memory is not committed"));
            }
            let heap = self
                .heaps
                .get(span.heap as usize)
                .ok_or_else(|| format!("span {id} names heap {}, which is not", span.heap))?;
            let bits: u32 = span.in_use.iter().map(|w| w.count_ones()).sum();
            if span.cpos != NONE {
                // A cached span is empty and sits in its heap's list for its slot count.
                if bits != 0 || span.used != 0 || span.tcached != 0 || !span.remote.is_empty() {
                    return Err(format!("cached span {id} is not empty"));
                }
                if span.qpos != NONE || span.in_remote {
                    return Err(format!("cached span {id} is also queued"));
                }
                let list = heap.cache.get(&span.slots);
                if list.and_then(|l| l.get(span.cpos as usize)) != Some(&id) {
                    return Err(format!("span {id} is not where its cache position says"));
                }
                let aged = heap
                    .cache_age
                    .iter()
                    .filter(|&&(s, stamp)| s == id && stamp == span.stamp)
                    .count();
                if aged != 1 {
                    return Err(format!("cached span {id} is {aged} times in the age queue"));
                }
                let c = &mut cached_per_heap[span.heap as usize];
                c.0 += 1;
                c.1 += u64::from(span.slots) << self.page_shift;
                continue;
            }
            if self.empty != EmptyPages::Cache && span.class == LARGE && span.used == 0 {
                return Err(format!("empty large span {id} was not retired"));
            }
            if span.class == LARGE {
                if span.used != 1 || bits != 1 || span.capacity != 1 || span.extent != 1 {
                    return Err(format!("large span {id} does not hold exactly one block"));
                }
                if span.qpos != NONE || span.in_remote || span.tcached != 0 {
                    return Err(format!("large span {id} is queued or cached"));
                }
                continue;
            }
            // Every block below the extent is exactly one of: held by the program, free
            // (on `free` or `local_free`), freed remotely, or in a thread cache.
            let cached_here = in_caches.get(&id).map_or(&[][..], Vec::as_slice);
            if cached_here.len() != span.tcached as usize {
                return Err(format!(
                    "span {id}: {} blocks in thread caches, counter {}",
                    cached_here.len(),
                    span.tcached
                ));
            }
            let mut seen = span.in_use.clone();
            if !self.sharded && !span.local_free.is_empty() {
                return Err(format!("span {id}: a local_free list without sharding"));
            }
            let free = span.free.len() + span.local_free.len();
            let lists = span.free.iter().chain(&span.local_free);
            for &index in lists.chain(&span.remote).chain(cached_here) {
                let (w, bit) = Span::bit(index);
                if index >= span.extent || seen[w] & bit != 0 {
                    return Err(format!("span {id}: block {index} is accounted twice"));
                }
                seen[w] |= bit;
            }
            if bits + span.remote.len() as u32 + span.tcached != span.used
                || span.used as usize + free != span.extent as usize
            {
                return Err(format!(
                    "span {id}: {} in use by bitmap, {} remote, {} cached, counter {}, {} \
                     free of extent {}",
                    bits,
                    span.remote.len(),
                    span.tcached,
                    span.used,
                    free,
                    span.extent
                ));
            }
            if span.extent > span.capacity {
                return Err(format!("span {id} handed out more blocks than it holds"));
            }
            let queued = span.qpos != NONE;
            // Under mimalloc 2.0's queues a full span stays queued until an allocation
            // passes it.
            let full_queued = self.mimalloc2 && queued && span.used == span.capacity;
            if queued != (span.used < span.capacity) && !full_queued {
                return Err(format!(
                    "span {id} queue membership disagrees with its fill"
                ));
            }
            if queued && heap.queues[span.class as usize].get(span.qpos as usize) != Some(&id) {
                return Err(format!("span {id} is not where its queue position says"));
            }
            // There, a retired span stays at the head while another has room again behind it.
            if queued
                && span.used == 0
                && heap.queues[span.class as usize].len() > 1
                && !self.mimalloc2
            {
                return Err(format!("empty span {id} is not the only one of its class"));
            }
            let listed = heap.remote[span.class as usize]
                .iter()
                .filter(|&&s| s == id)
                .count();
            if span.in_remote == span.remote.is_empty() || listed != usize::from(span.in_remote) {
                return Err(format!(
                    "span {id} has {} remote frees and is listed {listed} times",
                    span.remote.len()
                ));
            }
        }
        if live != self.live_spans {
            return Err(format!(
                "{live} live spans, counter says {}",
                self.live_spans
            ));
        }
        for (h, heap) in self.heaps.iter().enumerate() {
            let listed: usize = heap.cache.values().map(Vec::len).sum();
            let (spans, bytes) = cached_per_heap[h];
            if listed != spans as usize
                || spans != heap.cached_spans
                || bytes != heap.cache_bytes
                || bytes > self.cache_cap
            {
                return Err(format!(
                    "heap {h} caches {spans} spans of {bytes} bytes; its counters say {} and \
                     {}, its lists {listed}, its cap {}",
                    heap.cached_spans, heap.cache_bytes, self.cache_cap
                ));
            }
            for (class, q) in heap.queues.iter().enumerate() {
                for &id in q {
                    let s = &self.spans[id as usize];
                    if retired.contains(&id) || s.heap as usize != h || s.class as usize != class {
                        return Err(format!("heap {h} queues span {id}, which is not its own"));
                    }
                }
            }
            for (class, list) in heap.remote.iter().enumerate() {
                for &id in list {
                    let s = &self.spans[id as usize];
                    if retired.contains(&id) || s.heap as usize != h || s.class as usize != class {
                        return Err(format!(
                            "heap {h} lists span {id} with remote frees, which is not its own"
                        ));
                    }
                }
            }
        }
        for (si, seg) in self.segments.iter().enumerate() {
            let Some(seg) = seg else { continue };
            let free = seg.slots.iter().filter(|s| s.owner == NONE).count() as u32;
            if free != seg.free_slots {
                return Err(format!(
                    "segment {si}: {free} free slots, counter says {}",
                    seg.free_slots
                ));
            }
            let committed = (seg.slots.iter())
                .filter(|s| s.owner == NONE && s.committed)
                .count() as u32;
            if committed != seg.free_committed {
                return Err(format!(
                    "segment {si}: {committed} free committed slots, counter says {}",
                    seg.free_committed
                ));
            }
            if self.seg_index.get(&(seg.base >> self.seg_shift)) != Some(&(si as u32)) {
                return Err(format!("segment {si} is missing from the address index"));
            }
            // The earliest expiry is read off the heap, so each one set over slots waiting
            // must be in it (one that ran out with none waiting has left it).
            let entry = std::cmp::Reverse((seg.expire, si as u32, seg.generation));
            let waiting = seg.slots.iter().any(|s| s.pending);
            if seg.expire != 0 && waiting && !self.expiries.iter().any(|e| *e == entry) {
                return Err(format!(
                    "segment {si}'s expiry is missing from the expiry heap"
                ));
            }
            for (i, s) in seg.slots.iter().enumerate() {
                let addr = seg.base + ((i as u64) << self.page_shift);
                if s.committed != mem.is_committed(addr, 1 << self.page_shift) {
                    return Err(format!(
                        "segment {si} slot {i} commit state disagrees with the page map"
                    ));
                }
                if s.pending && (s.owner != NONE || !s.committed) {
                    return Err(format!("segment {si} slot {i} is pending but {s:?}"));
                }
                if s.owner == METADATA && !s.committed {
                    return Err(format!("segment {si} slot {i} holds metadata, uncommitted"));
                }
                if s.owner != NONE && s.owner != METADATA {
                    let span = self.spans.get(s.owner as usize);
                    let covers = span.is_some_and(|sp| {
                        sp.seg as usize == si
                            && (sp.first..sp.first + sp.slots).contains(&(i as u32))
                    });
                    if !covers || retired.contains(&s.owner) {
                        return Err(format!("segment {si} slot {i} names a span not there"));
                    }
                }
            }
            // Commit units are committed whole, and decommit never splits them unless its
            // unit is the smaller (memory committed whole, given back a page at a time);
            // only memory reused from a provider that cannot release may come partly
            // committed otherwise.
            if mem.caps().can_release && self.decommit_slots >= self.commit_slots {
                for (u, unit) in seg.slots.chunks(self.commit_slots as usize).enumerate() {
                    if unit.iter().any(|s| s.committed != unit[0].committed) {
                        return Err(format!("segment {si} commit unit {u} is partly committed"));
                    }
                }
            }
        }
        for (&addr, &len) in &self.large {
            if !mem.is_committed(addr, len) {
                return Err(format!("large block {addr:#x} is not committed"));
            }
        }
        for &(len, addr) in self.large_free.iter().flat_map(BTreeMap::keys) {
            if self.large.contains_key(&addr) {
                return Err(format!("large mapping {addr:#x} is both in use and free"));
            }
            if !mem.is_committed(addr, len) {
                return Err(format!("kept large mapping {addr:#x} is not committed"));
            }
        }
        Ok(())
    }
}
