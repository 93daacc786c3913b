//! The module family: an allocator heaplab runs but did not write, such as a student's
//! malloc-lab `mm.c`, behind `mm_malloc`, `mm_free` and `mm_realloc`.
//!
//! Such an allocator keeps its heap in memory of its own and grows it with `mem_sbrk`, as
//! malloc lab's `memlib.c` gives it. The core neither runs it nor knows what it is made
//! of: a [`HostedHeap`] calls it and reports what each call did to the heap's pages, and
//! this policy maps the heap onto one reservation of heaplab's own page provider, so that
//! its committed and resident figures, page operations and heap map mean what they mean
//! for the presets. Every page below the break counts as committed and resident, as in
//! mdriver's heap, since heaplab does not see the allocator's own writes; pages the
//! allocator gives back explicitly (see [`HeapChanges::decommitted`]) leave both counts.
//!
//! A config names the allocator by the SHA-256 of its module (the `sha256` knob), so a
//! link or a config file says which allocator it ran without carrying it. The program
//! that loaded the module registers a [`HostedFactory`] for that key with [`register`]
//! before it builds a simulation. The registry is process-wide on purpose: every path
//! that builds a policy from a config (a run, a sweep, a comparison, teaching mode, the
//! page's worker) then finds the module without each of them passing it along, and the
//! presets' event path does not change.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use super::{AllocError, Block, FamilySpec, FreePiece, Policy};
use crate::decision::Decision;
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{knobs, ParamError, ParamKind, Params};
use crate::provider::{Addr, PageProvider};

knobs! {
    /// The module family's knobs, read once when the allocator is set up.
    pub struct Knobs, names KnobNames, specs PARAMS;

    sha256: String = ParamSpec {
        kind: ParamKind::Text { max_len: 64 },
        default: "",
        unit: "",
        doc: "SHA-256 of the allocator's module, in hex: which loaded module runs. \
              `-p path/to/mm.wasm` sets it.",
        zero_means: "",
    },
    align: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 4096 },
        default: "8",
        unit: "bytes",
        doc: "Alignment every payload must have, a power of two. Malloc lab's ALIGNMENT is \
              8 for the 32-bit hand-outs; 16 suits allocators written for 64-bit ones.",
        zero_means: "",
    },
    max_heap: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 64 << 10,
            max: 3 << 30,
            pow2: false,
        },
        default: "1GiB",
        unit: "bytes",
        doc: "Largest heap mem_sbrk grows to; past it mem_sbrk fails as memlib.c's does \
              past MAX_HEAP (20 MiB there).",
        zero_means: "",
    },
    checks: bool = ParamSpec {
        kind: ParamKind::Bool,
        default: "true",
        unit: "",
        doc: "Check every payload as mdriver does: aligned, inside the heap, overlapping no \
              live block, its contents kept until it is freed or moved. Off only to time the \
              allocator alone, as mdriver's speed pass does.",
        zero_means: "",
    },
    check_heap_every: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 0,
            max: 1 << 40,
        },
        default: "0",
        unit: "calls",
        doc: "Call the allocator's own mm_checkheap(1) after every this many calls, and stop \
              at the first check that fails (an abort, an exit, a failed assert or a trap), \
              naming the call it followed; 0 turns it off. `heaplab mm check --check-heap` \
              sets 1.",
        zero_means: "off",
    },
    budget: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 1000,
            max: 1 << 40,
        },
        default: "100000000",
        unit: "units",
        doc: "Work one call may do, in units of fuel: one per instruction of each loop \
              iteration, counted by the module itself (heaplab meters its loops when it \
              loads it, the same natively and in the page); a call that needs more is \
              stopped and reported, so a loop that never ends cannot hang a run.",
        zero_means: "",
    },
}

pub static FAMILY: FamilySpec = FamilySpec {
    id: "module",
    title: "Your own allocator (a malloc-lab module)",
    description: "An allocator you wrote, such as malloc lab's mm.c, built to a module with \
                  `heaplab mm build` and run with `-p mm.wasm`: each call is checked as \
                  mdriver checks it, and its heap's pages are counted as the presets' are.",
    params: PARAMS,
};

/// What one call to a hosted allocator did to its heap, in offsets from the heap's start.
/// The allocator's runtime collects the calls its `mem_sbrk` and page calls made, then
/// passes them on in order once the call returns.
pub trait HeapChanges {
    /// The break moved up to `end`: every page below it is committed and resident.
    fn grew(&mut self, end: u64) -> Result<(), String>;

    /// The allocator gave the pages of `[offset, offset + bytes)` back; page-aligned.
    fn decommitted(&mut self, offset: u64, bytes: u64) -> Result<(), String>;

    /// The allocator took back pages it had given back; page-aligned.
    fn committed(&mut self, offset: u64, bytes: u64) -> Result<(), String>;
}

/// An allocator heaplab calls but did not write. Offsets are from the heap's start (its
/// `mem_heap_lo`). A refusal is the message naming the call and what was wrong with it;
/// the simulator adds the event.
pub trait HostedHeap: fmt::Debug + Send {
    /// `mm_malloc(size)`: the payload's offset, or `None` for NULL.
    fn malloc(&mut self, size: u64, heap: &mut dyn HeapChanges) -> Result<Option<u64>, String>;

    /// `mm_free` of the block of `size` bytes at `offset`.
    fn free(&mut self, offset: u64, size: u64, heap: &mut dyn HeapChanges) -> Result<(), String>;

    /// `mm_realloc` of the block of `old_size` bytes at `offset` to `size` bytes.
    fn realloc(
        &mut self,
        offset: u64,
        old_size: u64,
        size: u64,
        heap: &mut dyn HeapChanges,
    ) -> Result<Option<u64>, String>;

    /// The free blocks the allocator reports from its own heap walk, as `(offset, size)`,
    /// or `None` when it reports none.
    fn free_blocks(&mut self) -> Option<Vec<(u64, u64)>>;

    /// Runs the allocator's own heap check, if it has one.
    fn check_heap(&mut self) -> Result<(), String>;

    /// Bytes between the heap's start and the break: malloc lab's `mem_heapsize()`.
    fn heap_size(&self) -> u64;

    /// The module's own address of the heap's first byte (`mem_heap_lo()`), so that an
    /// explanation names the pointers the allocator returned as its own `printf` would.
    fn heap_start(&self) -> u64;

    /// The live payload the last failed call was about, in heap offsets, if it was about
    /// one: the block a new payload overlaps. The run names it by its id.
    fn failed_on(&self) -> Option<u64>;
}

/// Builds a fresh allocator of one loaded module for each simulation.
pub trait HostedFactory: Send + Sync {
    /// How tables name the allocator: its module's file name.
    fn name(&self) -> &str;

    fn instantiate(&self, knobs: &Knobs) -> Result<Box<dyn HostedHeap>, String>;
}

type Registry = Mutex<BTreeMap<String, Arc<dyn HostedFactory>>>;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

/// Makes the module with SHA-256 `sha256` (hex) available to configs that name it.
pub fn register(sha256: &str, factory: Arc<dyn HostedFactory>) {
    let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
    map.insert(sha256.to_ascii_lowercase(), factory);
}

fn factory(sha256: &str) -> Option<Arc<dyn HostedFactory>> {
    let map = registry().lock().unwrap_or_else(|e| e.into_inner());
    map.get(&sha256.to_ascii_lowercase()).cloned()
}

/// The names of modules known without being runnable here: the page's own thread holds
/// a module's bytes and its name but leaves running it to its workers, and labels made
/// there (a sweep's report) name the module by its file all the same.
fn names() -> &'static Mutex<BTreeMap<String, String>> {
    static NAMES: OnceLock<Mutex<BTreeMap<String, String>>> = OnceLock::new();
    NAMES.get_or_init(Default::default)
}

/// Names the module with SHA-256 `sha256` (hex) `name` in labels, without making it
/// runnable.
pub fn register_name(sha256: &str, name: &str) {
    let mut map = names().lock().unwrap_or_else(|e| e.into_inner());
    map.insert(sha256.to_ascii_lowercase(), name.to_string());
}

/// The name of the registered (or only named) module with this SHA-256, for labels.
pub fn name_of(sha256: &str) -> Option<String> {
    if let Some(f) = factory(sha256) {
        return Some(f.name().to_string());
    }
    let map = names().lock().unwrap_or_else(|e| e.into_inner());
    map.get(&sha256.to_ascii_lowercase()).cloned()
}

/// A hosted allocator over one reservation of heaplab's pages.
pub struct Hosted {
    // A cell because teaching mode asks for the free blocks through `&self`, and the
    // allocator's heap walk is a call into it.
    heap: RefCell<Box<dyn HostedHeap>>,
    name: String,
    max_heap: u64,
    /// The reservation the heap lies in, made at the first call.
    base: Option<Addr>,
    /// Bytes from the heap's start that are committed: the break, rounded up to a page.
    committed_end: u64,
    /// heaplab's address of the live block the last failed call was about, if any.
    failed_on: Option<Addr>,
}

impl fmt::Debug for Hosted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hosted")
            .field("name", &self.name)
            .field("base", &self.base)
            .field("committed_end", &self.committed_end)
            .finish_non_exhaustive()
    }
}

impl Hosted {
    pub fn new(params: &Params, page_size: u64) -> Result<Hosted, ParamError> {
        let knobs = Knobs::read(params);
        let field = format!("policy.params.{}", Knobs::NAMES.sha256);
        if knobs.sha256.is_empty() {
            return Err(ParamError {
                field,
                message: "the module family runs an allocator module: give its file, as in \
                          `-p mm.wasm`"
                    .into(),
            });
        }
        let Some(factory) = factory(&knobs.sha256) else {
            return Err(ParamError {
                field,
                message: format!(
                    "no module with SHA-256 {} is loaded; give its .wasm file",
                    knobs.sha256
                ),
            });
        };
        if !knobs.align.is_power_of_two() {
            return Err(ParamError {
                field: format!("policy.params.{}", Knobs::NAMES.align),
                message: format!("{} is not a power of two", knobs.align),
            });
        }
        let heap = factory.instantiate(&knobs).map_err(|message| ParamError {
            field: "policy".into(),
            message,
        })?;
        Ok(Hosted {
            heap: RefCell::new(heap),
            name: factory.name().to_string(),
            max_heap: knobs.max_heap.div_ceil(page_size) * page_size,
            base: None,
            committed_end: 0,
            failed_on: None,
        })
    }

    /// The heap's reservation, made the first time it is needed.
    fn base<P: PageProvider>(&mut self, mem: &mut Pages<P>) -> Result<Addr, AllocError> {
        match self.base {
            Some(b) => Ok(b),
            None => {
                mem.note(|| Decision::Reason {
                    why: "room for the heap to grow into: max_heap",
                });
                let b = mem.reserve(self.max_heap, mem.page_size())?;
                self.base = Some(b);
                Ok(b)
            }
        }
    }

    fn call<P: PageProvider, T>(
        &mut self,
        mem: &mut Pages<P>,
        f: impl FnOnce(&mut dyn HostedHeap, &mut dyn HeapChanges) -> Result<T, String>,
    ) -> Result<T, AllocError> {
        let base = self.base(mem)?;
        let mut changes = Changes {
            mem,
            base,
            max_heap: self.max_heap,
            committed_end: &mut self.committed_end,
        };
        let heap = self.heap.get_mut();
        let out = f(heap.as_mut(), &mut changes);
        self.failed_on = out
            .is_err()
            .then(|| heap.failed_on().map(|offset| base + offset))
            .flatten();
        out.map_err(AllocError::Hosted)
    }

    fn null(call: String, heap_end: u64, max_heap: u64) -> AllocError {
        AllocError::Hosted(format!(
            "{call} returned NULL: out of memory with {} of at most {} committed",
            crate::format::format_bytes(heap_end),
            crate::format::format_bytes(max_heap)
        ))
    }
}

/// [`HeapChanges`] applied to heaplab's pages.
struct Changes<'a, P: PageProvider> {
    mem: &'a mut Pages<P>,
    base: Addr,
    max_heap: u64,
    committed_end: &'a mut u64,
}

impl<P: PageProvider> Changes<'_, P> {
    fn range(&self, offset: u64, bytes: u64) -> Result<Addr, String> {
        let page = self.mem.page_size();
        if !offset.is_multiple_of(page) || !bytes.is_multiple_of(page) {
            return Err(format!(
                "the range [{offset:#x}, +{bytes}) is not whole pages of {page} bytes"
            ));
        }
        if offset.saturating_add(bytes) > *self.committed_end {
            return Err(format!(
                "the range [{offset:#x}, +{bytes}) reaches past the break ({:#x})",
                *self.committed_end
            ));
        }
        Ok(self.base + offset)
    }
}

impl<P: PageProvider> HeapChanges for Changes<'_, P> {
    fn grew(&mut self, end: u64) -> Result<(), String> {
        let end = self.mem.round_up(end);
        if end > self.max_heap {
            return Err(format!(
                "the heap grew past max_heap ({} bytes)",
                self.max_heap
            ));
        }
        if end > *self.committed_end {
            let (at, bytes) = (self.base + *self.committed_end, end - *self.committed_end);
            self.mem.note(|| Decision::Reason {
                why: "the heap grew: mem_sbrk",
            });
            self.mem.commit(at, bytes).map_err(|e| e.to_string())?;
            self.mem.touch(at, bytes).map_err(|e| e.to_string())?;
            *self.committed_end = end;
        }
        Ok(())
    }

    fn decommitted(&mut self, offset: u64, bytes: u64) -> Result<(), String> {
        let at = self.range(offset, bytes)?;
        self.mem.note(|| Decision::Reason {
            why: "the allocator gave pages back: hl_decommit",
        });
        self.mem
            .decommit_committed(at, bytes)
            .map_err(|e| e.to_string())
    }

    fn committed(&mut self, offset: u64, bytes: u64) -> Result<(), String> {
        let at = self.range(offset, bytes)?;
        self.mem.note(|| Decision::Reason {
            why: "the allocator took pages back: hl_commit",
        });
        self.mem
            .commit_missing(at, bytes)
            .map_err(|e| e.to_string())?;
        self.mem.touch(at, bytes).map_err(|e| e.to_string())
    }
}

impl Policy for Hosted {
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        _arena: Option<ArenaId>,
        _thread: u32,
    ) -> Result<Addr, AllocError> {
        // mm_malloc takes no alignment: what it guarantees is the `align` knob, which the
        // module's runtime checks on every payload. Requests for more than a trace's
        // default cannot be passed on.
        if align > crate::event::DEFAULT_ALIGN {
            return Err(AllocError::Invalid(format!(
                "mm_malloc takes no alignment, and this request asks for {align} bytes"
            )));
        }
        let off = self.call(mem, |h, c| h.malloc(size, c))?;
        let base = self.base.unwrap_or_default();
        let lo = self.heap.get_mut().heap_start();
        mem.note(|| Decision::Call {
            call: "mm_malloc",
            ptr: None,
            size: Some(size),
            returned: off.map(|o| lo + o),
        });
        match off {
            Some(off) => Ok(base + off),
            None => Err(Hosted::null(
                format!("mm_malloc({size})"),
                self.committed_end,
                self.max_heap,
            )),
        }
    }

    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        _thread: u32,
    ) -> Result<(), AllocError> {
        let base = self.base(mem)?;
        self.call(mem, |h, c| h.free(block.addr - base, block.size, c))?;
        let lo = self.heap.get_mut().heap_start();
        mem.note(|| Decision::Call {
            call: "mm_free",
            ptr: Some(lo + block.addr - base),
            size: None,
            returned: None,
        });
        Ok(())
    }

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        _align: u64,
        _thread: u32,
    ) -> Result<Addr, AllocError> {
        let base = self.base(mem)?;
        let off = self.call(mem, |h, c| {
            h.realloc(block.addr - base, block.size, new_size, c)
        })?;
        let lo = self.heap.get_mut().heap_start();
        mem.note(|| Decision::Call {
            call: "mm_realloc",
            ptr: Some(lo + block.addr - base),
            size: Some(new_size),
            returned: off.map(|o| lo + o),
        });
        match off {
            Some(off) => Ok(base + off),
            None => Err(Hosted::null(
                format!("mm_realloc({:#x}, {new_size})", block.addr - base),
                self.committed_end,
                self.max_heap,
            )),
        }
    }

    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        // The heap size malloc lab's utilisation divides by.
        vec![("mem_heapsize", self.heap.borrow().heap_size())]
    }

    fn failed_on(&self) -> Option<Addr> {
        self.failed_on
    }

    fn metadata_bytes(&self) -> u64 {
        // Whatever the allocator keeps, it keeps inside its heap, which is counted whole.
        0
    }

    fn free_pieces(&self, out: &mut Vec<FreePiece>) -> bool {
        let (Some(base), Some(blocks)) = (self.base, self.heap.borrow_mut().free_blocks()) else {
            return false;
        };
        out.extend(blocks.into_iter().map(|(off, size)| FreePiece {
            addr: base + off,
            size,
            structure: "free block (the allocator's own report)".into(),
            list: None,
        }));
        true
    }

    fn check_invariants<P: PageProvider>(&self, _mem: &Pages<P>) -> Result<(), String> {
        self.heap.borrow_mut().check_heap()
    }
}
