//! The free-list heap's free memory as teaching mode's block map draws it: every free
//! chunk with the bin or list that holds it, the chunks parked in the thread caches and
//! fast bins (in use as far as the chunk table is concerned, free to the program), and
//! each segment's top. Walks the segments chunk by chunk; slow, for teaching only.

use super::{Fit, FreeList};
use crate::policy::FreePiece;

impl FreeList {
    pub(crate) fn pieces(&self, out: &mut Vec<FreePiece>) {
        let mut parked = rustc_hash::FxHashMap::default();
        for chunks in &self.fastbins {
            for &h in chunks {
                parked.insert(h, "fast bin");
            }
        }
        for (_, bins) in self.tcache.iter() {
            for chunks in bins {
                for &h in chunks {
                    parked.insert(h, "tcache");
                }
            }
        }
        for s in &self.segments {
            let mut a = s.first;
            while a < s.top {
                let Some(h) = self.chunks.find(a) else { break };
                let c = self.chunks[h];
                let structure = if c.is_free() {
                    Some(match self.fit {
                        Fit::Best | Fit::Bins => format!("bin {}", self.size_bin(c.size)),
                        Fit::First | Fit::Next => "free list".to_string(),
                    })
                } else {
                    parked.get(&h).map(|s| s.to_string())
                };
                if let Some(structure) = structure {
                    out.push(FreePiece {
                        addr: c.addr,
                        size: c.size,
                        structure,
                    });
                }
                a += c.size;
            }
            if s.top < s.end {
                out.push(FreePiece {
                    addr: s.top,
                    size: s.end - s.top,
                    structure: "top".into(),
                });
            }
        }
    }
}
