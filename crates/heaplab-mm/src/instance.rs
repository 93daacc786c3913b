//! One run's allocator: a fresh instance of a module, every call checked as malloc lab's
//! mdriver checks it.
//!
//! mdriver's rules (CS:APP malloc lab): each payload is aligned, lies inside the heap
//! (`[mem_heap_lo, mem_heap_hi]`) and overlaps no other live payload; and what the program
//! wrote into a block is still there when it frees or reallocates it, a realloc keeping
//! the old bytes up to the smaller size. heaplab writes a pattern into every payload to
//! check the last, as mdriver writes a byte into every payload it allocates.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use heaplab_core::policy::hosted::{self, HeapChanges, HostedFactory, HostedHeap, Knobs};

use crate::host::{lock, Host, PageOp, SharedHost};
use crate::module::AllocatorModule;
use crate::native::WasmiRuntime;
use crate::runtime::{describe, Entry, Runtime};

/// A byte of the pattern written into the payload at `addr`: it differs from block to
/// block and from byte to byte, so a block written over by another, or moved without
/// its contents, is caught.
#[inline]
fn pattern(addr: u64, i: u64) -> u8 {
    ((addr >> 3) as u8).wrapping_mul(31).wrapping_add(i as u8) ^ 0x5a
}

/// An instance of an allocator module in a runtime (the interpreter natively, see
/// [`crate::runtime`]), with the live payloads it handed out.
pub struct Allocator<R: Runtime = WasmiRuntime> {
    module: Arc<AllocatorModule>,
    runtime: R,
    host: SharedHost,
    /// The heap's first byte, a module address.
    heap_lo: u64,
    /// Room for a payload's bytes while they are written or compared.
    scratch: Vec<u8>,
    budget: u64,
    align: u64,
    /// Whether payloads are checked (see [`Knobs::checks`]).
    checks: bool,
    /// Calls between two runs of the allocator's own heap check; 0 for none.
    check_heap_every: u64,
    /// Calls into the allocator so far, mm_init's excepted.
    calls: u64,
    /// Live payloads by module address, with their sizes.
    live: BTreeMap<u64, u64>,
    /// The memory's size in bytes after the last call, which only `mem_sbrk` may change.
    memory_bytes: u64,
    /// The live payload (module address) the last failed check was about, if any.
    failed_on: Option<u64>,
}

impl<R: Runtime> std::fmt::Debug for Allocator<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Allocator")
            .field("module", &self.module.name)
            .field("live", &self.live.len())
            .finish_non_exhaustive()
    }
}

impl Allocator<WasmiRuntime> {
    /// Instantiates the module in the interpreter and calls `mm_init`.
    pub fn new(module: Arc<AllocatorModule>, knobs: &Knobs) -> Result<Allocator, String> {
        Allocator::start(module, knobs, WasmiRuntime::new)
    }
}

impl<R: Runtime> Allocator<R> {
    /// Instantiates the module with `instantiate` over a fresh heap, and calls `mm_init`.
    pub fn start(
        module: Arc<AllocatorModule>,
        knobs: &Knobs,
        instantiate: impl FnOnce(&AllocatorModule, SharedHost) -> Result<R, String>,
    ) -> Result<Allocator<R>, String> {
        let name = module.name.clone();
        // The heap starts where the module's own memory ends: set before instantiation,
        // since a start function may already call mem_sbrk.
        let heap_lo = module.initial_memory;
        let host = Arc::new(Mutex::new(Host::new(heap_lo, knobs.max_heap, 4096)));
        let mut runtime = instantiate(&module, host.clone())?;
        runtime.set_budget(knobs.budget);
        let memory_bytes = runtime.bytes();
        let mut me = Allocator {
            module,
            runtime,
            host,
            heap_lo,
            scratch: Vec::new(),
            budget: knobs.budget,
            align: knobs.align,
            checks: knobs.checks,
            check_heap_every: knobs.check_heap_every,
            calls: 0,
            live: BTreeMap::new(),
            memory_bytes,
            failed_on: None,
        };
        let status = me.run(Call::Init, Entry::Init, &[])?;
        if status < 0 {
            return Err(format!(
                "{name}: mm_init() returned {status}, which means it failed"
            ));
        }
        Ok(me)
    }

    fn heap_lo(&self) -> u64 {
        self.heap_lo
    }

    fn brk(&self) -> u64 {
        lock(&self.host).brk
    }

    fn heap_end(&self) -> u64 {
        self.heap_lo + self.brk()
    }

    /// Runs one call into the module with a fresh budget, and says what went wrong if it
    /// did not return.
    fn run(&mut self, call: Call, entry: Entry, args: &[i32]) -> Result<i32, String> {
        let out = self.runtime.call(entry, args).map_err(|e| {
            let mut msg = format!("{call} {}", describe(&e, self.budget));
            if let Some(line) = lock(&self.host).last_line() {
                msg.push_str(&format!("; it printed: {line}"));
            }
            msg
        })?;
        let bytes = self.runtime.bytes();
        let grown_to = self.heap_end().max(self.memory_bytes);
        if bytes > grown_to.div_ceil(65536) * 65536 {
            return Err(format!(
                "{call} grew the module's memory itself (to {bytes} bytes); an allocator \
                 grows its heap with mem_sbrk, and heaplab counts only that"
            ));
        }
        self.memory_bytes = bytes;
        Ok(out)
    }

    /// Counts a call that returned, and runs the allocator's heap check after it when one
    /// is due.
    fn after_call(&mut self, call: Call) -> Result<(), String> {
        self.calls += 1;
        if self.check_heap_every > 0 && self.calls.is_multiple_of(self.check_heap_every) {
            self.check_heap()
                .map_err(|e| format!("after {call}, the allocator's own check: {e}"))?;
        }
        Ok(())
    }

    /// Passes the page operations of the calls so far on to heaplab's page map.
    fn flush(&mut self, heap: &mut dyn HeapChanges) -> Result<(), String> {
        let ops = std::mem::take(&mut lock(&self.host).ops);
        for op in ops {
            match op {
                PageOp::Grew(end) => heap.grew(end)?,
                PageOp::Decommit(off, bytes) => heap.decommitted(off, bytes)?,
                PageOp::Commit(off, bytes) => heap.committed(off, bytes)?,
            }
        }
        Ok(())
    }

    /// Checks a payload the allocator just handed out, against every rule but the
    /// contents.
    fn check_payload(&mut self, call: Call, p: u64, size: u64) -> Result<(), String> {
        if !p.is_multiple_of(self.align) {
            return Err(format!(
                "{call} returned {p:#x}, which is not aligned to {} bytes",
                self.align
            ));
        }
        let (lo, end) = (self.heap_lo(), self.heap_end());
        if p < lo || p + size > end {
            return Err(format!(
                "{call} returned [{p:#x}, {:#x}), which is not inside the heap [{lo:#x}, \
                 {end:#x})",
                p + size
            ));
        }
        let before = self.live.range(..=p).next_back();
        let after = self.live.range(p..).next();
        for (&q, &n) in before.into_iter().chain(after) {
            if q < p + size.max(1) && p < q + n.max(1) {
                self.failed_on = Some(q);
                return Err(format!(
                    "{call} returned [{p:#x}, {:#x}), which overlaps the live block [{q:#x}, \
                     {:#x})",
                    p + size,
                    q + n
                ));
            }
        }
        Ok(())
    }

    fn write_pattern(&mut self, p: u64, size: u64) {
        self.scratch.clear();
        self.scratch.extend((0..size).map(|i| pattern(p, i)));
        // The payload was checked to lie inside the heap, below the memory's end.
        self.runtime.write(p, &self.scratch);
    }

    /// The first byte of `[at, at + size)` that no longer holds the pattern of the block
    /// that started at `was`.
    fn changed_byte(&mut self, at: u64, was: u64, size: u64) -> Option<u64> {
        self.scratch.resize(size as usize, 0);
        if !self.runtime.read(at, &mut self.scratch) {
            return None;
        }
        self.scratch
            .iter()
            .enumerate()
            .position(|(i, &b)| b != pattern(was, i as u64))
            .map(|i| i as u64)
    }

    fn ptr(&self, offset: u64) -> u64 {
        self.heap_lo + offset
    }
}

impl AllocatorModule {
    /// Makes the module available to every config that names its SHA-256: each
    /// simulation of one then gets a fresh [`Allocator`].
    pub fn register(self) -> Arc<AllocatorModule> {
        self.register_with(|me| Arc::new(Factory(me)))
    }

    /// Registers the module with the factory `make` gives for it: how another runtime
    /// (the page's browser engine) makes its allocators.
    pub fn register_with(
        self,
        make: impl FnOnce(Arc<AllocatorModule>) -> Arc<dyn HostedFactory>,
    ) -> Arc<AllocatorModule> {
        let me = Arc::new(self);
        hosted::register(&me.sha256, make(me.clone()));
        loaded_modules()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(me.sha256.clone(), me.clone());
        me
    }

    /// The module registered with this SHA-256 (hex), if one is.
    pub fn loaded(sha256: &str) -> Option<Arc<AllocatorModule>> {
        let map = loaded_modules().lock().unwrap_or_else(|e| e.into_inner());
        map.get(&sha256.to_ascii_lowercase()).cloned()
    }
}

/// The registered modules themselves, beside the core's factories, for what needs their
/// bytes (a link carries them).
fn loaded_modules() -> &'static Mutex<BTreeMap<String, Arc<AllocatorModule>>> {
    static LOADED: OnceLock<Mutex<BTreeMap<String, Arc<AllocatorModule>>>> = OnceLock::new();
    LOADED.get_or_init(Default::default)
}

/// The core's way to build a fresh allocator of a registered module.
struct Factory(Arc<AllocatorModule>);

impl HostedFactory for Factory {
    fn name(&self) -> &str {
        &self.0.name
    }

    fn instantiate(&self, knobs: &Knobs) -> Result<Box<dyn HostedHeap>, String> {
        Ok(Box::new(Allocator::new(self.0.clone(), knobs)?))
    }
}

impl<R: Runtime> Allocator<R> {
    /// One call into the module, its page operations passed on, and the heap check
    /// after it when one is due.
    fn call(
        &mut self,
        call: Call,
        heap: &mut dyn HeapChanges,
        entry: Entry,
        args: &[i32],
    ) -> Result<i32, String> {
        let out = self.run(call, entry, args)?;
        self.flush(heap)?;
        self.after_call(call)?;
        Ok(out)
    }

    /// Checks that the block of `size` bytes at `p` still holds its pattern, before
    /// `call` frees or moves it.
    fn check_intact(&mut self, call: Call, p: u64, size: u64) -> Result<(), String> {
        match self.changed_byte(p, p, size) {
            Some(i) => Err(format!(
                "before {call}: byte {i} of the {size}-byte block at {p:#x} was changed while \
                 it was live (the allocator wrote into a payload)"
            )),
            None => Ok(()),
        }
    }

    /// The heap offset of a payload the allocator returned, when its checks are off:
    /// only a payload below the heap cannot be given one.
    fn unchecked_offset(&self, call: Call, p: u64) -> Result<Option<u64>, String> {
        match p {
            0 => Ok(None),
            p if p < self.heap_lo() => Err(format!("{call} returned {p:#x}, below the heap")),
            p => Ok(Some(p - self.heap_lo())),
        }
    }
}

/// A call into the module as the messages name it, such as `mm_free(0x1010)`; it is
/// written out only when a message needs it, since a run makes millions of calls.
#[derive(Clone, Copy, Debug)]
enum Call {
    Init,
    Malloc(u64),
    Free(u64),
    Realloc(u64, u64),
    CheckHeap(i32),
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Call::Init => write!(f, "mm_init()"),
            Call::Malloc(size) => write!(f, "mm_malloc({size})"),
            Call::Free(p) => write!(f, "mm_free({p:#x})"),
            Call::Realloc(p, size) => write!(f, "mm_realloc({p:#x}, {size})"),
            Call::CheckHeap(verbose) => write!(f, "mm_checkheap({verbose})"),
        }
    }
}

fn wasm32_size(call: Call, size: u64) -> Result<i32, String> {
    i32::try_from(size).map_err(|_| format!("{call}: a wasm32 allocator takes sizes below 2 GiB"))
}

impl<R: Runtime> HostedHeap for Allocator<R> {
    fn malloc(&mut self, size: u64, heap: &mut dyn HeapChanges) -> Result<Option<u64>, String> {
        self.failed_on = None;
        let call = Call::Malloc(size);
        let n = wasm32_size(call, size)?;
        let p = self.call(call, heap, Entry::Malloc, &[n])? as u32 as u64;
        if !self.checks {
            return self.unchecked_offset(call, p);
        }
        if p == 0 {
            return Ok(None);
        }
        self.check_payload(call, p, size)?;
        self.write_pattern(p, size);
        self.live.insert(p, size);
        Ok(Some(p - self.heap_lo()))
    }

    fn free(&mut self, offset: u64, size: u64, heap: &mut dyn HeapChanges) -> Result<(), String> {
        let p = self.ptr(offset);
        let call = Call::Free(p);
        if self.checks {
            self.check_intact(call, p, size)?;
            self.live.remove(&p);
        }
        self.call(call, heap, Entry::Free, &[p as u32 as i32])
            .map(drop)
    }

    fn realloc(
        &mut self,
        offset: u64,
        old_size: u64,
        size: u64,
        heap: &mut dyn HeapChanges,
    ) -> Result<Option<u64>, String> {
        self.failed_on = None;
        let p = self.ptr(offset);
        let call = Call::Realloc(p, size);
        let n = wasm32_size(call, size)?;
        if self.checks {
            self.check_intact(call, p, old_size)?;
        }
        let q = self.call(call, heap, Entry::Realloc, &[p as u32 as i32, n])? as u32 as u64;
        if !self.checks {
            return self.unchecked_offset(call, q);
        }
        if q == 0 {
            // The old block stays live, as C's realloc leaves it when it fails.
            return Ok(None);
        }
        self.live.remove(&p);
        if let Err(e) = self.check_payload(call, q, size) {
            self.live.insert(p, old_size);
            return Err(e);
        }
        let kept = old_size.min(size);
        if let Some(i) = self.changed_byte(q, p, kept) {
            return Err(format!(
                "{call} returned {q:#x}, but byte {i} of the {kept} it should have kept is not \
                 the old block's"
            ));
        }
        self.write_pattern(q, size);
        self.live.insert(q, size);
        Ok(Some(q - self.heap_lo()))
    }

    fn free_blocks(&mut self) -> Option<Vec<(u64, u64)>> {
        if !self.runtime.has(Entry::CheckHeap) {
            return None;
        }
        lock(&self.host).reported.clear();
        self.run(Call::CheckHeap(0), Entry::CheckHeap, &[0]).ok()?;
        let lo = self.heap_lo;
        let blocks = std::mem::take(&mut lock(&self.host).reported);
        Some(
            blocks
                .into_iter()
                .filter(|&(p, _)| p >= lo)
                .map(|(p, n)| (p - lo, n))
                .collect(),
        )
    }

    fn heap_size(&self) -> u64 {
        self.brk()
    }

    fn heap_start(&self) -> u64 {
        self.heap_lo()
    }

    fn failed_on(&self) -> Option<u64> {
        self.failed_on.map(|p| p - self.heap_lo())
    }

    fn check_heap(&mut self) -> Result<(), String> {
        if !self.runtime.has(Entry::CheckHeap) {
            return Ok(());
        }
        self.run(Call::CheckHeap(1), Entry::CheckHeap, &[1])
            .map(drop)
    }
}
