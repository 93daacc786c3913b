//! The replay's state: the live blocks by id and the arenas' members, kept as the simulator
//! keeps them so that the same events mean the same frees, and every call made through one
//! allocator's entry points.

use heaplab_core::event::{ArenaId, BlockId, Event};
use rustc_hash::FxHashMap;

use super::ffi::{self, Entry};
use super::RealAllocator;
use crate::pattern;

/// A live block of the replay.
#[derive(Clone, Copy)]
struct Live {
    ptr: *mut u8,
    size: u64,
    align: u64,
    arena: Option<ArenaId>,
}

/// The replay state: the live blocks by id and the arenas' members, as the simulator keeps
/// them, so the same events mean the same frees.
pub struct Heap {
    entry: Entry,
    /// The allocator's id, for messages.
    name: String,
    live: FxHashMap<BlockId, Live>,
    arenas: FxHashMap<ArenaId, Vec<BlockId>>,
}

impl Heap {
    /// A heap whose id table already has room for `capacity` blocks, so the table never
    /// grows during a run, and whose every slot has been written once, so its memory is
    /// resident before the RSS baseline is taken: the heap RSS is the allocator's, and
    /// the table does not interleave with the blocks in glibc's heap (heaplab's own).
    pub fn new(alloc: &RealAllocator, capacity: usize) -> Heap {
        let mut live = FxHashMap::default();
        live.reserve(capacity);
        let dummy = Live {
            ptr: std::ptr::null_mut(),
            size: 0,
            align: 1,
            arena: None,
        };
        for id in 0..capacity as u64 {
            live.insert(id, dummy);
        }
        // Clearing keeps the allocation; no dummy is ever freed.
        live.clear();
        Heap {
            entry: Entry::of(alloc),
            name: alloc.id(),
            live,
            arenas: FxHashMap::default(),
        }
    }

    pub fn apply(&mut self, event: &Event) -> Result<(), String> {
        match *event {
            Event::Alloc {
                id,
                size,
                align,
                arena,
                ..
            } => {
                if self.live.contains_key(&id) {
                    return Err(format!("alloc of block id {id}, which is already live"));
                }
                if let Some(a) = arena {
                    self.arenas
                        .get_mut(&a)
                        .ok_or_else(|| format!("alloc in arena {a}, which was not created"))?
                        .push(id);
                }
                let align = align.max(1);
                let ptr = ffi::alloc(self.entry, size, align);
                if ptr.is_null() {
                    return Err(format!(
                        "{}: out of memory allocating {size} bytes",
                        self.name
                    ));
                }
                // SAFETY: a fresh block of `size` bytes.
                unsafe { pattern::fill(ptr as u64, size) };
                self.live.insert(
                    id,
                    Live {
                        ptr,
                        size,
                        align,
                        arena,
                    },
                );
            }
            Event::Free { id, .. } => {
                let b = self
                    .live
                    .remove(&id)
                    .ok_or_else(|| format!("free of block id {id}, which is not live"))?;
                self.release(b)?;
            }
            Event::Realloc { id, size, .. } => {
                let b = self
                    .live
                    .get_mut(&id)
                    .ok_or_else(|| format!("realloc of block id {id}, which is not live"))?;
                check(&self.name, b)?;
                // SAFETY: a live block of this allocator.
                let ptr = unsafe { ffi::realloc(self.entry, b.ptr, size) };
                if ptr.is_null() {
                    return Err(format!(
                        "{}: out of memory reallocating to {size} bytes",
                        self.name
                    ));
                }
                // SAFETY: the block now has `size` bytes.
                unsafe { pattern::fill(ptr as u64, size) };
                b.ptr = ptr;
                b.size = size;
                b.align = heaplab_core::event::DEFAULT_ALIGN;
            }
            Event::Phase(_) | Event::Time(_) => {}
            Event::ArenaCreate(a) => {
                if self.arenas.insert(a, Vec::new()).is_some() {
                    return Err(format!("arena {a} already exists"));
                }
            }
            Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                let ids = self
                    .arenas
                    .remove(&a)
                    .ok_or_else(|| format!("reset or drop of arena {a}, which does not exist"))?;
                for id in ids {
                    // Ids freed or reused since are skipped, as in the simulator.
                    if self.live.get(&id).is_some_and(|b| b.arena == Some(a)) {
                        let b = self.live.remove(&id).expect("checked above");
                        self.release(b)?;
                    }
                }
                if matches!(event, Event::ArenaReset(_)) {
                    self.arenas.insert(a, Vec::new());
                }
            }
        }
        Ok(())
    }

    fn release(&mut self, b: Live) -> Result<(), String> {
        check(&self.name, &b)?;
        // SAFETY: a live block of this allocator with this size and alignment.
        unsafe { ffi::free(self.entry, b.ptr) };
        Ok(())
    }

    /// Frees every block still live, so the next run starts from an empty heap; the id
    /// table keeps its capacity.
    pub fn clear(&mut self) {
        for (_, b) in self.live.drain() {
            // SAFETY: as in `release`.
            unsafe { ffi::free(self.entry, b.ptr) };
        }
        self.arenas.clear();
    }
}

/// Reads a block back before it dies or moves, as `--real` does, so both do the same work
/// per byte (and a broken replay is caught).
fn check(alloc: &str, b: &Live) -> Result<(), String> {
    // SAFETY: a live block of `size` bytes that this replay wrote.
    if unsafe { pattern::holds(b.ptr as u64, b.size) } {
        Ok(())
    } else {
        Err(format!("{alloc}: the block at {:p} was overwritten", b.ptr))
    }
}

/// The most blocks live at once, by the same rules as the replay (arena resets and drops
/// kill their blocks); bad events are left for the replay to report.
pub fn peak_live_blocks(events: &[Event]) -> usize {
    let mut live: FxHashMap<BlockId, Option<ArenaId>> = FxHashMap::default();
    let mut arenas: FxHashMap<ArenaId, Vec<BlockId>> = FxHashMap::default();
    let mut peak = 0;
    for e in events {
        match *e {
            Event::Alloc { id, arena, .. } => {
                live.insert(id, arena);
                if let Some(ids) = arena.and_then(|a| arenas.get_mut(&a)) {
                    ids.push(id);
                }
                peak = peak.max(live.len());
            }
            Event::Free { id, .. } => {
                live.remove(&id);
            }
            Event::ArenaCreate(a) => {
                arenas.insert(a, Vec::new());
            }
            Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                for id in arenas.remove(&a).unwrap_or_default() {
                    if live.get(&id) == Some(&Some(a)) {
                        live.remove(&id);
                    }
                }
                if matches!(e, Event::ArenaReset(_)) {
                    arenas.insert(a, Vec::new());
                }
            }
            Event::Realloc { .. } | Event::Phase(_) | Event::Time(_) => {}
        }
    }
    peak
}
