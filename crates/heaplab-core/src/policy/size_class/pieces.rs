//! The size-class heap's free memory as teaching mode's block map draws it: in each span,
//! the slots on its free list, those freed by other threads and not yet collected, those
//! parked in a thread cache, and the slots never handed out; and whole spans waiting in a
//! heap's span cache. Slow, for teaching only.

use rustc_hash::FxHashSet;

use super::{SizeClass, LARGE, NONE};
use crate::policy::FreePiece;

impl SizeClass {
    pub(super) fn pieces(&self, out: &mut Vec<FreePiece>) {
        let retired: FxHashSet<u32> = self.free_span_ids.iter().copied().collect();
        let slot = |out: &mut Vec<FreePiece>, id: u32, index: u32, structure: &str| {
            let span = &self.spans[id as usize];
            out.push(FreePiece {
                addr: span.base + u64::from(index) * span.block,
                size: span.block,
                structure: structure.to_string(),
            });
        };
        for (_, tc) in self.tcaches.iter() {
            for list in &tc.lists {
                for &(id, index) in list {
                    if !retired.contains(&id) {
                        slot(out, id, index, "thread cache");
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
                });
                continue;
            }
            let class = format!(
                "class {} B",
                crate::format::format_count(i128::from(span.block))
            );
            for &index in &span.free {
                slot(out, id, index, &class);
            }
            for &index in &span.remote {
                slot(out, id, index, "remote frees");
            }
            if span.extent < span.capacity {
                out.push(FreePiece {
                    addr: span.base + u64::from(span.extent) * span.block,
                    size: u64::from(span.capacity - span.extent) * span.block,
                    structure: format!("{class}, never used"),
                });
            }
        }
    }
}
