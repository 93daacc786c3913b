//! The interpreter's runtime: wasmi running the metered module, natively (and wherever
//! the page's browser engine is not at hand). Its imports are [`Host`]'s calls.

use wasmi::{Caller, Error, Extern, Func, Global, Linker, Memory, Store, TypedFunc, Val};

use crate::host::{lock, Host, SharedHost, WASM_PAGE};
use crate::meter;
use crate::module::AllocatorModule;
use crate::runtime::{describe, Entry, ModuleMemory, Runtime, Stop, Trap};

/// One instance of a metered module in wasmi.
pub struct WasmiRuntime {
    store: Store<SharedHost>,
    memory: Memory,
    fuel: Global,
    /// What every call starts with.
    budget: i64,
    init: TypedFunc<(), i32>,
    malloc: TypedFunc<i32, i32>,
    free: TypedFunc<i32, ()>,
    realloc: TypedFunc<(i32, i32), i32>,
    checkheap: Option<Func>,
}

impl std::fmt::Debug for WasmiRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmiRuntime").finish_non_exhaustive()
    }
}

impl WasmiRuntime {
    /// Instantiates the module (running its start function, if it has one) over `host`.
    pub fn new(module: &AllocatorModule, host: SharedHost) -> Result<WasmiRuntime, String> {
        let name = module.name();
        let compiled = module.metered_wasmi().map_err(|e| format!("{name}: {e}"))?;
        let mut store = Store::new(compiled.engine(), host);
        let mut linker = Linker::new(compiled.engine());
        link(&mut linker).map_err(|e| format!("{name}: {e}"))?;
        let instance = match linker.instantiate_and_start(&mut store, compiled) {
            Ok(instance) => instance,
            Err(e) => {
                // The counter cannot be read from an instance that never came to be: a
                // start function that traps on `unreachable` is taken at its word.
                let stop = stop(&e, false);
                return Err(format!("{name} could not start: {}", describe(&stop, 0)));
            }
        };
        let missing = |what: &str| format!("{name} does not export {what}");
        let memory = instance
            .get_memory(&store, "memory")
            .ok_or_else(|| missing("its memory"))?;
        let fuel = instance
            .get_global(&store, meter::FUEL)
            .ok_or_else(|| missing(meter::FUEL))?;
        let typed = |e: Error| format!("{name}: {e}");
        Ok(WasmiRuntime {
            init: instance
                .get_typed_func(&store, Entry::Init.name())
                .map_err(typed)?,
            malloc: instance
                .get_typed_func(&store, Entry::Malloc.name())
                .map_err(typed)?,
            free: instance
                .get_typed_func(&store, Entry::Free.name())
                .map_err(typed)?,
            realloc: instance
                .get_typed_func(&store, Entry::Realloc.name())
                .map_err(typed)?,
            checkheap: instance.get_func(&store, Entry::CheckHeap.name()),
            store,
            memory,
            fuel,
            budget: 0,
        })
    }

    fn spent(&self) -> bool {
        matches!(self.fuel.get(&self.store), Val::I64(left) if left < 0)
    }
}

/// What a failed call came to; `spent` says whether the counter ran out.
fn stop(e: &Error, spent: bool) -> Stop {
    if let Some(code) = e.i32_exit_status() {
        return Stop::Exit(code);
    }
    use wasmi::TrapCode as C;
    Stop::Trap(match e.as_trap_code() {
        Some(C::UnreachableCodeReached) if spent => return Stop::OutOfFuel,
        Some(C::UnreachableCodeReached) => Trap::Unreachable,
        Some(C::MemoryOutOfBounds) => Trap::MemoryOutOfBounds,
        Some(C::TableOutOfBounds) => Trap::TableOutOfBounds,
        Some(C::IndirectCallToNull) => Trap::IndirectCallToNull,
        Some(C::IntegerDivisionByZero) => Trap::DivisionByZero,
        Some(C::IntegerOverflow) => Trap::IntegerOverflow,
        Some(C::BadConversionToInteger) => Trap::BadConversion,
        Some(C::StackOverflow) => Trap::StackOverflow,
        Some(C::BadSignature) => Trap::BadSignature,
        Some(code) => Trap::Other(code.to_string()),
        None => Trap::Other(e.to_string()),
    })
}

impl ModuleMemory for WasmiRuntime {
    fn bytes(&self) -> u64 {
        self.memory.data_size(&self.store) as u64
    }

    fn grow(&mut self, pages: u64) -> bool {
        self.memory.grow(&mut self.store, pages).is_ok()
    }

    fn read(&self, at: u64, out: &mut [u8]) -> bool {
        read(self.memory.data(&self.store), at, out)
    }

    fn write(&mut self, at: u64, bytes: &[u8]) -> bool {
        write(self.memory.data_mut(&mut self.store), at, bytes)
    }
}

fn read(data: &[u8], at: u64, out: &mut [u8]) -> bool {
    let Some(from) = usize::try_from(at)
        .ok()
        .and_then(|at| data.get(at..at.checked_add(out.len())?))
    else {
        return false;
    };
    out.copy_from_slice(from);
    true
}

fn write(data: &mut [u8], at: u64, bytes: &[u8]) -> bool {
    let Some(to) = usize::try_from(at)
        .ok()
        .and_then(|at| data.get_mut(at..at.checked_add(bytes.len())?))
    else {
        return false;
    };
    to.copy_from_slice(bytes);
    true
}

impl Runtime for WasmiRuntime {
    fn set_budget(&mut self, budget: u64) {
        self.budget = budget.min(i64::MAX as u64) as i64;
    }

    fn has(&self, entry: Entry) -> bool {
        entry != Entry::CheckHeap || self.checkheap.is_some()
    }

    fn call(&mut self, entry: Entry, args: &[i32]) -> Result<i32, Stop> {
        // The counter is the meter's own mutable i64, so setting it cannot fail.
        let _ = self.fuel.set(&mut self.store, Val::I64(self.budget));
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let out = match entry {
            Entry::Init => self.init.call(&mut self.store, ()),
            Entry::Malloc => self.malloc.call(&mut self.store, arg(0)),
            Entry::Free => self.free.call(&mut self.store, arg(0)).map(|()| 0),
            Entry::Realloc => self.realloc.call(&mut self.store, (arg(0), arg(1))),
            Entry::CheckHeap => match self.checkheap {
                None => Ok(0),
                Some(check) => {
                    let results: &mut [Val] =
                        &mut [Val::I32(0)][..check.ty(&self.store).results().len()];
                    check
                        .call(&mut self.store, &[Val::I32(arg(0))], results)
                        .map(|()| 0)
                }
            },
        };
        out.map_err(|e| stop(&e, self.spent()))
    }
}

/// The module's memory inside one of its imports.
struct CallerMemory<'a, 'b> {
    caller: &'a mut Caller<'b, SharedHost>,
    memory: Memory,
}

impl ModuleMemory for CallerMemory<'_, '_> {
    fn bytes(&self) -> u64 {
        self.memory.size(&*self.caller) * WASM_PAGE
    }

    fn grow(&mut self, pages: u64) -> bool {
        self.memory.grow(&mut *self.caller, pages).is_ok()
    }

    fn read(&self, at: u64, out: &mut [u8]) -> bool {
        read(self.memory.data(&*self.caller), at, out)
    }

    fn write(&mut self, at: u64, bytes: &[u8]) -> bool {
        write(self.memory.data_mut(&mut *self.caller), at, bytes)
    }
}

/// Runs an import that reaches the module's memory. The memory is looked up through the
/// caller rather than kept, so that a module's start function, which runs before heaplab
/// holds the instance, gets it too.
fn with_memory(
    caller: &mut Caller<'_, SharedHost>,
    fail: i32,
    f: impl FnOnce(&mut Host, &mut dyn ModuleMemory) -> i32,
) -> i32 {
    let Some(memory) = caller.get_export("memory").and_then(Extern::into_memory) else {
        return fail;
    };
    let host = caller.data().clone();
    let mut mem = CallerMemory { caller, memory };
    let out = f(&mut lock(&host), &mut mem);
    out
}

/// Defines every import of [`crate::module::IMPORTS`].
fn link(linker: &mut Linker<SharedHost>) -> Result<(), wasmi::errors::LinkerError> {
    const EFAULT: i32 = 21;
    linker.func_wrap(
        "env",
        "mem_sbrk",
        |mut c: Caller<'_, SharedHost>, incr: i32| with_memory(&mut c, -1, |h, m| h.sbrk(m, incr)),
    )?;
    linker.func_wrap("env", "mem_heap_lo", |c: Caller<'_, SharedHost>| {
        lock(c.data()).heap_lo_addr()
    })?;
    linker.func_wrap("env", "mem_heap_hi", |c: Caller<'_, SharedHost>| {
        lock(c.data()).heap_hi_addr()
    })?;
    linker.func_wrap("env", "mem_heapsize", |c: Caller<'_, SharedHost>| {
        lock(c.data()).heap_size()
    })?;
    linker.func_wrap("env", "mem_pagesize", |c: Caller<'_, SharedHost>| {
        lock(c.data()).page_size_of()
    })?;
    linker.func_wrap(
        "env",
        "hl_free_block",
        |c: Caller<'_, SharedHost>, addr: i32, size: i32| lock(c.data()).free_block(addr, size),
    )?;
    linker.func_wrap(
        "env",
        "hl_decommit",
        |mut c: Caller<'_, SharedHost>, a: i32, n: i32| {
            with_memory(&mut c, -1, |h, m| h.page_call(m, a, n, true))
        },
    )?;
    linker.func_wrap(
        "env",
        "hl_commit",
        |mut c: Caller<'_, SharedHost>, a: i32, n: i32| {
            with_memory(&mut c, -1, |h, m| h.page_call(m, a, n, false))
        },
    )?;
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "fd_write",
        |mut c: Caller<'_, SharedHost>, fd: i32, iovs: i32, count: i32, written: i32| {
            with_memory(&mut c, EFAULT, |h, m| {
                h.fd_write(m, fd, iovs, count, written)
            })
        },
    )?;
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "proc_exit",
        |_: Caller<'_, SharedHost>, code: i32| -> Result<(), Error> { Err(Error::i32_exit(code)) },
    )?;
    Ok(())
}
