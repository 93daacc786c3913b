//! The free-list heap's free memory as teaching mode's block map draws it: every free
//! chunk with the bin or list that holds it, the chunks parked in the thread caches and
//! fast bins (in use as far as the chunk table is concerned, free to the program), and
//! each segment's top. Each chunk on a list carries its place in the order the heap hands
//! chunks out: first fit walks one list by address (next fit from where it stopped), a best-fit bin gives its
//! lowest address first, a glibc bin the chunk freed first, and the tcache and fast bins
//! the chunk freed last. Walks the segments chunk by chunk; slow, for teaching only.

use super::{Fit, FreeList};
use crate::policy::{BlockLayout, FreePiece, ListPlace};
use crate::provider::Addr;

/// Where a chunk parked in a cache is: its structure's name and its place in the list.
struct Parked {
    structure: &'static str,
    list: String,
    order: u64,
}

impl FreeList {
    pub(crate) fn pieces(&self, out: &mut Vec<FreePiece>) {
        let mut parked = rustc_hash::FxHashMap::default();
        // A cache bin is a stack: the chunk pushed last is handed out first.
        let mut park = |chunks: &[u32], structure: &'static str, list: String| {
            for (i, &h) in chunks.iter().enumerate() {
                let order = (chunks.len() - 1 - i) as u64;
                parked.insert(
                    h,
                    Parked {
                        structure,
                        list: list.clone(),
                        order,
                    },
                );
            }
        };
        for (bin, chunks) in self.fastbins.iter().enumerate() {
            park(chunks, "fast bin", format!("fast bin {bin}"));
        }
        for (thread, bins) in self.tcache.iter() {
            for (bin, chunks) in bins.iter().enumerate() {
                park(chunks, "tcache", format!("tcache {bin} of thread {thread}"));
            }
        }
        for s in &self.segments {
            let mut a = s.first;
            while a < s.top {
                let Some(h) = self.chunks.find(a) else { break };
                let c = self.chunks[h];
                if c.is_free() {
                    let (structure, order) = match self.fit {
                        // Best fit has no bins: its chunks of one size are handed out
                        // lowest address first.
                        Fit::Best => (format!("free chunks of {} B", c.size), c.addr),
                        Fit::Bins => (
                            format!("bin {}", super::coalesce::glibc_bin_index(c.size)),
                            c.stamp,
                        ),
                        Fit::First => ("free list".to_string(), c.addr),
                        // Next fit searches on from where it last stopped, then wraps.
                        Fit::Next => ("free list".to_string(), c.addr.wrapping_sub(self.rover)),
                    };
                    out.push(FreePiece {
                        addr: c.addr,
                        size: c.size,
                        list: ListPlace::new(structure.clone(), order),
                        structure,
                    });
                } else if let Some(p) = parked.get(&h) {
                    out.push(FreePiece {
                        addr: c.addr,
                        size: c.size,
                        structure: p.structure.to_string(),
                        list: ListPlace::new(p.list.clone(), p.order),
                    });
                }
                a += c.size;
            }
            if s.top < s.end {
                out.push(FreePiece {
                    addr: s.top,
                    size: s.end - s.top,
                    structure: "top".into(),
                    list: None,
                });
            }
        }
    }
}

impl FreeList {
    /// The chunk around the live payload at `addr`: its header in front (longer for an
    /// over-aligned block, whose payload was moved up) and its whole size, or a mapping of
    /// its own for a block mapped alone. `None` when no chunk in use holds the payload.
    pub(crate) fn layout(&self, addr: Addr, size: u64) -> Option<BlockLayout> {
        let (start, slot) = if let Some(&(base, len)) = self.mapped.get(&addr) {
            (base, len)
        } else {
            let start = match self.shifted.get(&addr) {
                Some(&chunk) => chunk,
                None => addr.checked_sub(self.header)?,
            };
            let c = self.chunks[self.chunks.find(start)?];
            if c.is_free() {
                return None;
            }
            (c.addr, c.size)
        };
        (start <= addr && addr + size <= start + slot).then_some(BlockLayout {
            header: addr - start,
            slot,
        })
    }
}
