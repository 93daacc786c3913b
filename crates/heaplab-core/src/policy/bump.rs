//! The bump family: arenas that hand out memory by moving a pointer through slabs, as
//! LLVM's `BumpPtrAllocator` does, over a general-purpose heap.
//!
//! A program's arena allocations go to bump arenas; single blocks are never freed, the
//! arena is reset or dropped whole. Slabs come either from the general heap (`malloc`, as
//! LLVM's default `MallocAllocator`) or straight from the page provider (`mmap`), which is
//! the question of scenario S1: heap-backed slabs freed under long-lived small blocks
//! cannot be returned, page-backed slabs can, at the price of page operations.

use rustc_hash::FxHashMap;

use super::free_list::FreeList;
use super::{AllocError, Block, FamilySpec, Policy};
use crate::decision::Decision;
use crate::event::ArenaId;
use crate::format::{format_bytes, format_count, format_exact_bytes};
use crate::pages::Pages;
use crate::params::{choice, knobs, ParamError, ParamKind, Params};
use crate::provider::{Addr, PageProvider};

choice! {
    /// Whether an arena's slabs grow.
    enum Growth {
        Double = "double",
        Fixed = "fixed",
    }
}

choice! {
    /// Where slabs come from.
    enum Backing {
        Heap = "heap",
        Pages = "pages",
    }
}

choice! {
    /// Which free-list preset models the general heap under the arenas. The list is every
    /// preset of the free-list family (a test holds it to that).
    enum HeapPreset {
        GlibcLike = "glibc-like",
        DlmallocLike = "dlmalloc-like",
        FirstFit = "first-fit",
        BestFit = "best-fit",
        NextFit = "next-fit",
    }
}

choice! {
    /// Where allocations outside any arena go.
    enum Unscoped {
        Arena = "arena",
        Heap = "heap",
    }
}

knobs! {
    /// The bump family's knobs, read once when the arenas are set up.
    struct Knobs, names KnobNames, specs PARAMS;

    slab_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 256,
            max: 1 << 30,
            pow2: false,
        },
        default: "4KiB",
        unit: "bytes",
        doc: "Size of an arena's first slab (LLVM BumpPtrAllocator: 4 KiB).",
        zero_means: "",
    },
    growth: Growth = ParamSpec {
        kind: ParamKind::Choice(Growth::NAMES),
        default: "double",
        unit: "",
        doc:
            "Whether slabs grow: doubling every `growth_every` slabs (LLVM), or all the same size.",
        zero_means: "",
    },
    growth_every: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "128",
        unit: "slabs",
        doc: "Slabs of one size before the size doubles (LLVM: 128).",
        zero_means: "",
    },
    custom_threshold: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "4KiB",
        unit: "bytes",
        doc: "Allocations larger than this (with alignment padding) get a slab of their own \
              (LLVM: the slab size).",
        zero_means: "",
    },
    backing: Backing = ParamSpec {
        kind: ParamKind::Choice(Backing::NAMES),
        default: "heap",
        unit: "",
        doc: "Where slabs come from: the general heap (malloc) or the page provider directly \
              (mmap/munmap).",
        zero_means: "",
    },
    heap: HeapPreset = ParamSpec {
        kind: ParamKind::Choice(HeapPreset::NAMES),
        default: "glibc-like",
        unit: "",
        doc: "The free-list preset of the general heap: where slabs come from when \
              backing = heap, as LLVM's MallocAllocator takes them from the program's malloc, \
              and where allocations outside arenas go when unscoped = heap.",
        zero_means: "",
    },
    unscoped: Unscoped = ParamSpec {
        kind: ParamKind::Choice(Unscoped::NAMES),
        default: "arena",
        unit: "",
        doc: "Where allocations outside any arena go: a global arena that is never reset, \
              or the general heap.",
        zero_means: "",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "bump",
    title: "Bump arenas (LLVM BumpPtrAllocator)",
    description: "Pointer-bump arenas over slabs that grow, freed only by arena reset or drop; \
                  slabs come from the general heap or straight from the OS.",
    params: PARAMS,
};

/// The arena that takes allocations outside any arena when `unscoped = arena`.
const GLOBAL: ArenaId = ArenaId::MAX;

/// Bytes of bookkeeping per slab (its pointer and size in the arena's slab vectors) and per
/// arena (the allocator object itself).
const SLAB_META: u64 = 16;
const ARENA_META: u64 = 64;

#[derive(Clone, Copy, Debug)]
struct Slab {
    addr: Addr,
    len: u64,
}

#[derive(Clone, Debug, Default)]
struct Arena {
    slabs: Vec<Slab>,
    custom: Vec<Slab>,
    cur: Addr,
    end: Addr,
}

/// Bump-pointer arenas with a general heap beside them.
#[derive(Clone, Debug)]
pub struct Bump {
    slab_size: u64,
    doubling: bool,
    growth_every: u64,
    custom_threshold: u64,
    pages_backing: bool,
    unscoped_heap: bool,
    heap: FreeList,
    /// The arenas, keyed by id, apart from the unscoped one under `GLOBAL`, which is kept
    /// out of the map: nearly every allocation of most workloads goes there, and a field
    /// costs less than a hash probe.
    arenas: FxHashMap<ArenaId, Arena>,
    global: Option<Arena>,
}

/// The general heap: the free-list family with the values of preset `which`, the rest
/// the family's defaults, as `--policy <which>` would build it.
fn general_heap(which: HeapPreset, page_size: u64) -> Result<FreeList, ParamError> {
    let id = HeapPreset::NAMES[which as usize];
    let preset = crate::presets::preset(id).ok_or_else(|| ParamError {
        field: "policy.params.heap".into(),
        message: format!("{id:?} is not a preset"),
    })?;
    let given = preset
        .params
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
        .collect();
    let params = Params::resolve(
        super::free_list::FAMILY.params,
        &given,
        "policy.params.heap",
    )?;
    FreeList::new(&params, page_size)
}

impl Bump {
    pub fn new(params: &Params, page_size: u64) -> Result<Bump, ParamError> {
        let knobs = Knobs::read(params);
        Ok(Bump {
            slab_size: knobs.slab_size,
            doubling: knobs.growth == Growth::Double,
            growth_every: knobs.growth_every,
            custom_threshold: knobs.custom_threshold,
            pages_backing: knobs.backing == Backing::Pages,
            unscoped_heap: knobs.unscoped == Unscoped::Heap,
            heap: general_heap(knobs.heap, page_size)?,
            arenas: FxHashMap::default(),
            global: None,
        })
    }

    #[inline]
    fn arena(&self, key: ArenaId) -> Option<&Arena> {
        if key == GLOBAL {
            self.global.as_ref()
        } else {
            self.arenas.get(&key)
        }
    }

    #[inline]
    fn arena_mut(&mut self, key: ArenaId) -> Option<&mut Arena> {
        if key == GLOBAL {
            self.global.as_mut()
        } else {
            self.arenas.get_mut(&key)
        }
    }

    /// The arena with id `key`, made empty if it does not exist.
    fn arena_entry(&mut self, key: ArenaId) -> &mut Arena {
        if key == GLOBAL {
            self.global.get_or_insert_with(Arena::default)
        } else {
            self.arenas.entry(key).or_default()
        }
    }

    /// Every arena with its id, in no particular order.
    fn all_arenas(&self) -> impl Iterator<Item = (ArenaId, &Arena)> {
        self.arenas
            .iter()
            .map(|(&id, a)| (id, a))
            .chain(self.global.as_ref().map(|a| (GLOBAL, a)))
    }

    /// LLVM's `computeSlabSize`: the size doubles every `growth_every` slabs, up to 2^30 times.
    fn nth_slab_size(&self, n: usize) -> u64 {
        if !self.doubling {
            return self.slab_size;
        }
        let doublings = (n as u64 / self.growth_every).min(30);
        self.slab_size.saturating_mul(1 << doublings).min(1 << 40)
    }

    fn get_slab<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        len: u64,
    ) -> Result<Slab, AllocError> {
        if self.pages_backing {
            let len = mem.round_up(len);
            let addr = mem.map(len, mem.page_size())?;
            mem.note(|| crate::decision::Decision::NewRegion {
                what: "slab",
                addr,
                bytes: len,
            });
            Ok(Slab { addr, len })
        } else {
            let addr = self.heap.alloc(mem, len, 16, None, 0)?;
            mem.note(|| crate::decision::Decision::NewRegion {
                what: "slab",
                addr,
                bytes: len,
            });
            Ok(Slab { addr, len })
        }
    }

    fn put_slab<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        slab: Slab,
    ) -> Result<(), AllocError> {
        if self.pages_backing {
            mem.note(|| crate::decision::Decision::Reason {
                why: "the arena's slab goes back",
            });
            mem.release(slab.addr, slab.len)?;
            Ok(())
        } else {
            self.heap.free(
                mem,
                Block {
                    addr: slab.addr,
                    size: slab.len,
                    arena: None,
                },
                0,
            )
        }
    }

    #[cold]
    #[inline(never)]
    fn alloc_slow<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        key: ArenaId,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        // LLVM's `AllocateSlow` (llvm/Support/Allocator.h): a request whose size plus
        // alignment less one (`PaddedSize`) is above `SizeThreshold` gets a custom-sized
        // slab of its own; any other starts a new slab of `computeSlabSize(Slabs.size())`.
        let padded = size + align - 1;
        if padded > self.custom_threshold {
            let (threshold, backing) = (self.custom_threshold, self.backing_words());
            mem.note(|| crate::decision::Decision::Rule {
                rule: "slab",
                text: format!(
                    "a slab of its own: {} with alignment padding is {} > custom_threshold {}, \
                     {backing}",
                    format_exact_bytes(size),
                    format_exact_bytes(padded),
                    format_bytes(threshold)
                ),
            });
            mem.note(|| crate::decision::Decision::Reason {
                why: "above custom_threshold: a slab of its own",
            });
            let slab = self.get_slab(mem, padded)?;
            self.arena_entry(key).custom.push(slab);
            return Ok(slab.addr.next_multiple_of(align));
        }
        let n = self.arena(key).map_or(0, |a| a.slabs.len());
        mem.note(|| self.slab_rule(key, n, size, padded));
        let slab = self.get_slab(mem, self.nth_slab_size(n).max(padded))?;
        let arena = self.arena_entry(key);
        arena.slabs.push(slab);
        let p = slab.addr.next_multiple_of(align);
        arena.cur = p + size;
        arena.end = slab.addr + slab.len;
        Ok(p)
    }

    /// Why a new slab of this size, in words: the arena's slab count, the growth rule
    /// with `slab_size`, `growth` and `growth_every`, and where it comes from.
    #[cold]
    fn slab_rule(&self, key: ArenaId, n: usize, size: u64, padded: u64) -> Decision {
        let name = arena_name(key);
        let nth = self.nth_slab_size(n);
        let why = match self.arena(key) {
            Some(a) if a.cur != 0 => format!(
                "{name}'s current slab has {} left, {} asked",
                format_exact_bytes(a.end - a.cur),
                format_exact_bytes(size)
            ),
            _ => format!("{name} has no slab yet"),
        };
        let rule = if !self.doubling {
            format!("slab_size {}, growth = fixed", format_bytes(self.slab_size))
        } else {
            let doublings = (n as u64 / self.growth_every).min(30);
            let times = match doublings {
                0 => "not doubled yet".to_string(),
                1 => "doubled once".to_string(),
                d => format!("doubled {d} times"),
            };
            format!(
                "slab_size {} {times}: it doubles every growth_every {} slabs",
                format_bytes(self.slab_size),
                format_count(i128::from(self.growth_every))
            )
        };
        let stretched = if padded > nth {
            format!(
                ", stretched to the request's {} with alignment padding",
                format_exact_bytes(padded)
            )
        } else {
            String::new()
        };
        Decision::Rule {
            rule: "slab",
            text: format!(
                "{why}: slab {} is {} ({rule}){stretched}, {}",
                format_count(n as i128 + 1),
                format_bytes(nth),
                self.backing_words()
            ),
        }
    }

    /// Where slabs come from and go back to, naming the knob.
    fn backing_words(&self) -> &'static str {
        if self.pages_backing {
            "from the OS (backing = pages)"
        } else {
            "from the general heap (backing = heap)"
        }
    }

    fn free_slabs<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        arena: ArenaId,
        keep_first: bool,
    ) -> Result<(), AllocError> {
        let pages_backing = self.pages_backing;
        let Some(a) = self.arena_mut(arena) else {
            return Ok(());
        };
        mem.note(|| arena_rule(arena, a, keep_first, pages_backing));
        let keep = usize::from(keep_first && !a.slabs.is_empty());
        let mut gone: Vec<Slab> = a.slabs.drain(keep..).collect();
        gone.append(&mut a.custom);
        match a.slabs.first() {
            Some(first) => {
                a.cur = first.addr;
                a.end = first.addr + first.len;
            }
            None => {
                a.cur = 0;
                a.end = 0;
            }
        }
        for slab in gone {
            self.put_slab(mem, slab)?;
        }
        Ok(())
    }

    fn heap_owned(&self, arena: Option<ArenaId>) -> bool {
        arena.is_none() && self.unscoped_heap
    }
}

/// An arena as the explanations name it.
fn arena_name(key: ArenaId) -> String {
    if key == GLOBAL {
        "the unscoped arena".into()
    } else {
        format!("arena {key}")
    }
}

/// What a reset (`keep_first`) or a drop of arena `key` keeps and gives back, before it
/// does. LLVM's `Reset` frees the custom-sized slabs and every slab but the first, and
/// keeps the first for reuse; the destructor frees them all.
#[cold]
fn arena_rule(key: ArenaId, a: &Arena, keep_first: bool, pages_backing: bool) -> Decision {
    let kept = if keep_first { a.slabs.first() } else { None };
    let gone = &a.slabs[usize::from(kept.is_some())..];
    let mut back = Vec::new();
    if !gone.is_empty() {
        back.push(format!(
            "{} ({})",
            plural(gone.len(), "slab"),
            format_bytes(gone.iter().map(|s| s.len).sum())
        ));
    }
    if !a.custom.is_empty() {
        back.push(format!(
            "{} of its own ({})",
            plural(a.custom.len(), "slab"),
            format_exact_bytes(a.custom.iter().map(|s| s.len).sum())
        ));
    }
    let to = if pages_backing {
        "to the OS (backing = pages)"
    } else {
        "to the general heap (backing = heap), whose own rules decide whether their pages go back"
    };
    let gives = if back.is_empty() {
        "has nothing to give back".to_string()
    } else {
        format!("gives back {} {to}", back.join(" and "))
    };
    let name = arena_name(key);
    let text = match kept {
        Some(first) => format!(
            "reset of {name} keeps its first slab ({}) for reuse, as LLVM's Reset does; it {gives}",
            format_bytes(first.len)
        ),
        None if keep_first => format!("reset of {name}, which has no slab to keep, {gives}"),
        None => format!("drop of {name} {gives}"),
    };
    Decision::Rule {
        rule: "arena",
        text,
    }
}

/// "1 slab", "3 slabs".
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{} {what}s", format_count(n as i128))
    }
}

impl Policy for Bump {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        if self.heap_owned(arena) {
            return self.heap.alloc_checked(mem, size, align, None, thread);
        }
        let key = arena.unwrap_or(GLOBAL);
        // The fast path: the current slab has room after aligning the pointer.
        if let Some(a) = self.arena_mut(key) {
            let p = a.cur.next_multiple_of(align);
            if a.cur != 0 && p + size <= a.end {
                a.cur = p + size;
                return Ok(p);
            }
        }
        self.alloc_slow(mem, key, size, align)
    }

    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError> {
        if self.heap_owned(block.arena) {
            return self.heap.free(mem, block, thread);
        }
        // A bump allocator cannot free one block: its memory comes back with the arena
        // (LLVM's `BumpPtrAllocator::Deallocate` does nothing).
        mem.note(|| Decision::Rule {
            rule: "arena",
            text: match block.arena {
                Some(a) => format!(
                    "a bump arena frees no single block: its {} come back when arena {a} is \
                     reset or dropped",
                    format_exact_bytes(block.size)
                ),
                None => format!(
                    "a bump arena frees no single block, and the unscoped arena is never reset \
                     (unscoped = arena): its {} stay for the whole run",
                    format_exact_bytes(block.size)
                ),
            },
        });
        Ok(())
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        if self.heap_owned(block.arena) {
            return self
                .heap
                .realloc_checked(mem, block, new_size, align, thread);
        }
        if new_size <= block.size && block.addr.is_multiple_of(align) {
            return Ok(block.addr);
        }
        let key = block.arena.unwrap_or(GLOBAL);
        if let Some(a) = self.arena_mut(key) {
            // The newest block can grow in place while its slab has room, if it already has
            // the alignment asked for.
            if a.cur == block.addr + block.size
                && block.addr + new_size <= a.end
                && block.addr.is_multiple_of(align)
            {
                a.cur = block.addr + new_size;
                return Ok(block.addr);
            }
        }
        let addr = self.alloc_checked(mem, new_size, align, block.arena, thread)?;
        // The copy writes what the old block held, up to the new size.
        mem.touch(addr, block.size.min(new_size))?;
        Ok(addr)
    }

    fn owns_arenas(&self) -> bool {
        true
    }

    fn arena_create(&mut self, arena: ArenaId) {
        self.arena_entry(arena);
    }

    fn arena_reset<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        arena: ArenaId,
    ) -> Result<(), AllocError> {
        // LLVM's Reset keeps the first slab and frees the rest and every custom slab.
        self.free_slabs(mem, arena, true)
    }

    fn arena_drop<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        arena: ArenaId,
    ) -> Result<(), AllocError> {
        self.free_slabs(mem, arena, false)?;
        if arena == GLOBAL {
            self.global = None;
        } else {
            self.arenas.remove(&arena);
        }
        Ok(())
    }

    fn free_pieces(&self, out: &mut Vec<crate::policy::FreePiece>) -> bool {
        // The general heap's free pieces, then each arena's current slab past its bump
        // pointer. Freed blocks below the pointer are not reused until the arena resets,
        // so the map shows them as overhead.
        self.heap.pieces(out);
        for arena in self.global.iter().chain(self.arenas.values()) {
            if arena.cur < arena.end {
                out.push(crate::policy::FreePiece {
                    addr: arena.cur,
                    size: arena.end - arena.cur,
                    structure: "slab past the bump pointer".into(),
                    list: None,
                });
            }
        }
        true
    }

    fn metadata_bytes(&self) -> u64 {
        let slabs: usize = self
            .all_arenas()
            .map(|(_, a)| a.slabs.len() + a.custom.len())
            .sum();
        slabs as u64 * SLAB_META
            + self.all_arenas().count() as u64 * ARENA_META
            + self.heap.metadata_bytes()
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        for (id, a) in self.all_arenas() {
            for s in a.slabs.iter().chain(&a.custom) {
                if !mem.is_committed(s.addr, s.len) {
                    return Err(format!(
                        "arena {id}: slab {:#x}+{} is not committed",
                        s.addr, s.len
                    ));
                }
            }
            match a.slabs.last() {
                Some(last) if a.cur != 0 => {
                    let (start, end) = (last.addr, last.addr + last.len);
                    if !(a.end == end && a.cur >= start && a.cur <= end) {
                        return Err(format!("arena {id}: bump pointer outside its current slab"));
                    }
                }
                None if a.cur != 0 => {
                    return Err(format!("arena {id}: bump pointer without a slab"))
                }
                _ => {}
            }
        }
        self.heap.check_invariants(mem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Family;

    /// The `heap` knob offers exactly the free-list family's presets, in their order, so
    /// a preset added there is one the heap under the arenas can be.
    #[test]
    fn the_heap_knob_lists_every_free_list_preset() {
        let presets: Vec<&str> = crate::presets::PRESETS
            .iter()
            .filter(|p| p.family == Family::FreeList)
            .map(|p| p.id)
            .collect();
        assert_eq!(HeapPreset::NAMES, presets.as_slice());
    }

    /// Each choice's preset values are valid for the free-list family, so every choice
    /// builds a heap.
    #[test]
    fn each_heap_choice_builds() {
        for &name in HeapPreset::NAMES {
            let which = HeapPreset::NAMES.iter().position(|&n| n == name).unwrap();
            let which = [
                HeapPreset::GlibcLike,
                HeapPreset::DlmallocLike,
                HeapPreset::FirstFit,
                HeapPreset::BestFit,
                HeapPreset::NextFit,
            ][which];
            general_heap(which, 4096).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
