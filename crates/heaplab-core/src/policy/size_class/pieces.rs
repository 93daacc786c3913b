//! The size-class heap's free memory as teaching mode's block map draws it: in each span,
//! the slots on its free list and on its `local_free` list, those freed by other threads
//! and not yet collected, those parked in a thread cache, and the slots never handed out;
//! and whole spans waiting in a heap's span cache. Slow, for teaching only.

use rustc_hash::FxHashSet;

use super::{SizeClass, LARGE, NONE};
use crate::policy::{BlockLayout, FreePiece, ListPlace, Region};
use crate::provider::Addr;

impl SizeClass {
    pub(super) fn pieces(&self, out: &mut Vec<FreePiece>) {
        let retired: FxHashSet<u32> = self.free_span_ids.iter().copied().collect();
        // Every list here is a stack: the slot pushed last is handed out first.
        let slot = |out: &mut Vec<FreePiece>, id: u32, index: u32, structure: &str, list| {
            let span = &self.spans[id as usize];
            out.push(FreePiece {
                addr: span.start + u64::from(index) * span.block,
                size: span.block,
                structure: structure.to_string(),
                list,
            });
        };
        for (thread, tc) in self.tcaches.iter() {
            for (class, list) in tc.lists.iter().enumerate() {
                let name = format!("thread cache {class} of thread {thread}");
                for (i, &(id, index)) in list.iter().enumerate() {
                    if !retired.contains(&id) {
                        let order = (list.len() - 1 - i) as u64;
                        let place = ListPlace::new(name.clone(), order);
                        slot(out, id, index, "thread cache", place);
                    }
                }
            }
        }
        for (id, span) in self.spans.iter().enumerate() {
            let id = id as u32;
            if retired.contains(&id) || span.class == LARGE {
                continue;
            }
            if span.cpos != NONE {
                out.push(FreePiece {
                    addr: span.base,
                    size: u64::from(span.slots) << self.page_shift,
                    structure: "span cache".into(),
                    list: None,
                });
                continue;
            }
            let class = format!(
                "class {} B",
                crate::format::format_count(i128::from(span.block))
            );
            for (i, &index) in span.free.iter().enumerate() {
                let order = (span.free.len() - 1 - i) as u64;
                let place = ListPlace::new(format!("span {id} free slots"), order);
                slot(out, id, index, &class, place);
            }
            // A list of its own, not linked to `free`: it becomes the free list once `free`
            // is empty.
            let local_name = format!("{class}, local_free");
            for (i, &index) in span.local_free.iter().enumerate() {
                let order = (span.local_free.len() - 1 - i) as u64;
                let place = ListPlace::new(format!("span {id} local_free"), order);
                slot(out, id, index, &local_name, place);
            }
            for (i, &index) in span.remote.iter().enumerate() {
                let order = (span.remote.len() - 1 - i) as u64;
                let place = ListPlace::new(format!("span {id} remote frees"), order);
                slot(out, id, index, "remote frees", place);
            }
            if span.extent < span.capacity {
                out.push(FreePiece {
                    addr: span.start + u64::from(span.extent) * span.block,
                    size: u64::from(span.capacity - span.extent) * span.block,
                    structure: format!("{class}, never used"),
                    list: None,
                });
            }
        }
    }
}

impl SizeClass {
    /// Every span in use with its class, and every span in a span cache, as the block
    /// map's brackets.
    pub(super) fn span_regions(&self, out: &mut Vec<Region>) {
        let retired: FxHashSet<u32> = self.free_span_ids.iter().copied().collect();
        for (id, span) in self.spans.iter().enumerate() {
            if retired.contains(&(id as u32)) {
                continue;
            }
            let label = if span.class == LARGE {
                format!("span {id}: one large block")
            } else if span.cpos != NONE {
                format!("span {id}: in the span cache")
            } else {
                format!(
                    "span {id}: class {} B, {} of {} slots free",
                    crate::format::format_count(i128::from(span.block)),
                    (span.free.len() + span.local_free.len()) as u32 + span.capacity - span.extent,
                    span.capacity
                )
            };
            out.push(Region {
                addr: span.base,
                size: u64::from(span.slots) << self.page_shift,
                label,
            });
        }
    }
}

impl SizeClass {
    /// The slot of the live block at `addr`: its span's block size (the class size, or a
    /// large span's whole length), or the length of a large block mapped alone. Size-class
    /// blocks carry no header. `None` when the address starts no slot in use.
    pub(super) fn layout(&self, addr: Addr, size: u64) -> Option<BlockLayout> {
        let slot = match self.span_of(addr) {
            Some(id) => {
                let span = &self.spans[id as usize];
                let (index, at_start) = span.index_of(addr.checked_sub(span.start)?);
                if !at_start || index >= span.extent {
                    return None;
                }
                span.block
            }
            None => *self.large.get(&addr)?,
        };
        (size <= slot).then_some(BlockLayout { header: 0, slot })
    }
}
