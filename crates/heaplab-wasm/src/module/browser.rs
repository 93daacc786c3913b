//! The page's runtime for allocator modules: the browser's own WebAssembly engine, which
//! compiles a module where the interpreter would read it instruction by instruction.
//!
//! The module heaplab runs is the metered one ([`heaplab_mm::meter`]), so a budget stops a
//! call at the same instruction as natively; its imports are the same [`Host`] calls as
//! the interpreter's, made from JavaScript functions that call back into this module.
//! Everything a run keeps of a JavaScript object lives in this thread's table of
//! instances, so the [`JsRuntime`] a run holds is only an index, as the core's `Send`
//! bound asks.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use heaplab_core::policy::hosted::{HostedFactory, HostedHeap, Knobs};
use heaplab_mm::host::{lock, Host, SharedHost};
use heaplab_mm::runtime::{Entry, ModuleMemory, Runtime, Stop, Trap};
use heaplab_mm::{meter, Allocator, AllocatorModule};
use js_sys::{BigInt, Function, Object, Reflect, Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// Each helper is one crossing between heaplab's module and the allocator's: a call, a read
// or a write made of js-sys pieces crosses a dozen times (a BigInt, a view, a subarray,
// each handle dropped), and those crossings were most of a module run's time in the page.
#[wasm_bindgen(inline_js = r#"
export function hl_call(f, fuel, budget, a, b, memory) {
  fuel.value = budget;
  const out = f(a, b) >>> 0;
  return (memory.buffer.byteLength / 65536) * 4294967296 + out;
}
export function hl_bytes(memory) { return memory.buffer.byteLength; }
const views = new WeakMap();
function viewOf(memory) {
  let view = views.get(memory);
  // Growing the memory detaches the buffer under the old view, leaving it empty.
  if (view === undefined || view.byteLength === 0) {
    view = new Uint8Array(memory.buffer);
    views.set(memory, view);
  }
  return view;
}
export function hl_write(memory, at, bytes) {
  const view = viewOf(memory);
  if (at + bytes.length > view.length) return false;
  view.set(bytes, at);
  return true;
}
export function hl_read(memory, at, out) {
  const view = viewOf(memory);
  if (at + out.length > view.length) return false;
  out.set(view.subarray(at, at + out.length));
  return true;
}
"#)]
extern "C" {
    /// Sets the fuel counter to `budget` and calls `f`; a trap or `exit` is the error.
    /// Answers `pages * 2^32 + result`: the pages of `memory` after the call (at most
    /// 2^16) and the call's result as a u32, which an f64 holds exactly.
    #[wasm_bindgen(catch)]
    fn hl_call(
        f: &Function,
        fuel: &WebAssembly::Global,
        budget: &JsValue,
        a: i32,
        b: i32,
        memory: &WebAssembly::Memory,
    ) -> Result<f64, JsValue>;
    fn hl_bytes(memory: &WebAssembly::Memory) -> f64;
    fn hl_write(memory: &WebAssembly::Memory, at: f64, bytes: &[u8]) -> bool;
    fn hl_read(memory: &WebAssembly::Memory, at: f64, out: &mut [u8]) -> bool;
}

/// What `proc_exit` throws, so that a call that ended in `exit` is told from a trap.
const EXIT_MARK: &str = "heaplabExit";

/// One instance of a metered module in the browser's engine.
struct Instance {
    calls: [Option<Function>; 5],
    memory: WebAssembly::Memory,
    fuel: WebAssembly::Global,
    /// The imports' closures, kept alive as long as the instance.
    _imports: Vec<Closure<dyn FnMut(i32, i32) -> i32>>,
    _fd_write: Closure<dyn FnMut(i32, i32, i32, i32) -> i32>,
}

thread_local! {
    /// Each module compiled once per thread, by its SHA-256.
    static COMPILED: RefCell<HashMap<String, WebAssembly::Module>> = RefCell::default();
    /// The live instances, by the index their runtime holds.
    /// Indexed rather than hashed: the table is read several times in every call.
    static INSTANCES: RefCell<Vec<Option<std::rc::Rc<Instance>>>> = RefCell::default();
}

fn instance(id: u32) -> Option<std::rc::Rc<Instance>> {
    INSTANCES.with(|m| m.borrow().get(id as usize).cloned().flatten())
}

fn message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn compiled(module: &AllocatorModule) -> Result<WebAssembly::Module, String> {
    let sha = module.sha256().to_string();
    if let Some(m) = COMPILED.with(|c| c.borrow().get(&sha).cloned()) {
        return Ok(m);
    }
    let bytes = Uint8Array::from(module.metered());
    let m = WebAssembly::Module::new(&bytes)
        .map_err(|e| format!("{} does not compile here: {}", module.name(), message(&e)))?;
    COMPILED.with(|c| c.borrow_mut().insert(sha, m.clone()));
    Ok(m)
}

/// The memory of the instance `id`, as the imports reach it.
struct JsMemory(Option<std::rc::Rc<Instance>>);

impl ModuleMemory for JsMemory {
    fn bytes(&self) -> u64 {
        self.0.as_ref().map_or(0, |i| hl_bytes(&i.memory) as u64)
    }

    fn grow(&mut self, pages: u64) -> bool {
        let Some(i) = &self.0 else { return false };
        let Ok(pages) = u32::try_from(pages) else {
            return false;
        };
        // `grow` throws a RangeError past the memory's maximum.
        Reflect::get(&i.memory, &"grow".into())
            .ok()
            .and_then(|g| g.dyn_into::<Function>().ok())
            .map(|g| g.call1(&i.memory, &pages.into()).is_ok())
            .unwrap_or(false)
    }

    fn read(&self, at: u64, out: &mut [u8]) -> bool {
        let Some(i) = &self.0 else { return false };
        hl_read(&i.memory, at as f64, out)
    }

    fn write(&mut self, at: u64, bytes: &[u8]) -> bool {
        let Some(i) = &self.0 else { return false };
        hl_write(&i.memory, at as f64, bytes)
    }
}

/// A module instance in the browser's engine, by its index in this thread's table.
#[derive(Debug)]
pub struct JsRuntime {
    id: u32,
    /// What every call starts with, as the BigInt the counter takes, made once rather
    /// than at every call.
    budget: JsValue,
    /// The memory's size after the last call or growth, so that asking for it after every
    /// call costs no crossing of its own.
    bytes: u64,
}

impl Drop for JsRuntime {
    fn drop(&mut self) {
        INSTANCES.with(|m| m.borrow_mut()[self.id as usize] = None);
    }
}

/// Sets `object[name] = value`; setting a property of a plain new object cannot fail.
fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &name.into(), value);
}

impl JsRuntime {
    /// Instantiates the metered module over `host`.
    pub fn new(module: &AllocatorModule, host: SharedHost) -> Result<JsRuntime, String> {
        let name = module.name();
        let compiled = compiled(module)?;
        // The first free place in the table, which the closures below reach the instance
        // by; it is filled once the instance is made.
        let id = INSTANCES.with(|m| {
            let mut m = m.borrow_mut();
            let free = m.iter().position(Option::is_none).unwrap_or_else(|| {
                m.push(None);
                m.len() - 1
            });
            free as u32
        });
        // Every import is a closure of two i32 arguments, whatever it takes: JavaScript
        // passes `undefined` (read as 0) for the arguments a call leaves out, and drops
        // the ones it adds.
        let mut closures: Vec<Closure<dyn FnMut(i32, i32) -> i32>> = Vec::new();
        let env = Object::new();
        let mut import = |object: &Object, name: &str, f: Box<dyn FnMut(i32, i32) -> i32>| {
            let c = Closure::wrap(f);
            set(object, name, c.as_ref());
            closures.push(c);
        };
        let with_memory =
            |host: &SharedHost, f: fn(&mut Host, &mut dyn ModuleMemory, i32, i32) -> i32| {
                let host = host.clone();
                Box::new(move |a: i32, b: i32| {
                    f(&mut lock(&host), &mut JsMemory(instance(id)), a, b)
                }) as Box<dyn FnMut(i32, i32) -> i32>
            };
        let query = |host: &SharedHost, f: fn(&Host) -> i32| {
            let host = host.clone();
            Box::new(move |_: i32, _: i32| f(&lock(&host))) as Box<dyn FnMut(i32, i32) -> i32>
        };
        import(
            &env,
            "mem_sbrk",
            with_memory(&host, |h, m, incr, _| h.sbrk(m, incr)),
        );
        import(&env, "mem_heap_lo", query(&host, Host::heap_lo_addr));
        import(&env, "mem_heap_hi", query(&host, Host::heap_hi_addr));
        import(&env, "mem_heapsize", query(&host, Host::heap_size));
        import(&env, "mem_pagesize", query(&host, Host::page_size_of));
        let reported = host.clone();
        import(
            &env,
            "hl_free_block",
            Box::new(move |addr, size| {
                lock(&reported).free_block(addr, size);
                0
            }),
        );
        import(
            &env,
            "hl_decommit",
            with_memory(&host, |h, m, a, n| h.page_call(m, a, n, true)),
        );
        import(
            &env,
            "hl_commit",
            with_memory(&host, |h, m, a, n| h.page_call(m, a, n, false)),
        );
        let wasi = Object::new();
        // fd_write takes four arguments, more than the closures' two: a JavaScript
        // function passes them all on as one call.
        let fd_host = host.clone();
        let fd_write = Closure::<dyn FnMut(i32, i32, i32, i32) -> i32>::new(
            move |fd, iovs, count, written| {
                lock(&fd_host).fd_write(&mut JsMemory(instance(id)), fd, iovs, count, written)
            },
        );
        set(&wasi, "fd_write", fd_write.as_ref());
        // `exit` throws a mark the call's error is told by; it returns to no Rust frame.
        let proc_exit = Function::new_with_args("code", &format!("throw {{ {EXIT_MARK}: code }};"));
        set(&wasi, "proc_exit", &proc_exit);
        let imports = Object::new();
        set(&imports, "env", &env);
        set(&imports, "wasi_snapshot_preview1", &wasi);
        let made = WebAssembly::Instance::new(&compiled, &imports)
            .map_err(|e| format!("{name} could not start: {}", message(&e)))?;
        let exports = made.exports();
        let get = |n: &str| {
            Reflect::get(&exports, &n.into())
                .ok()
                .filter(|v| !v.is_undefined())
        };
        let missing = |what: &str| format!("{name} does not export {what}");
        let memory = get("memory")
            .and_then(|m| m.dyn_into::<WebAssembly::Memory>().ok())
            .ok_or_else(|| missing("its memory"))?;
        let fuel = get(meter::FUEL)
            .and_then(|g| g.dyn_into::<WebAssembly::Global>().ok())
            .ok_or_else(|| missing(meter::FUEL))?;
        let calls = Entry::ALL.map(|e| get(e.name()).and_then(|f| f.dyn_into::<Function>().ok()));
        INSTANCES.with(|m| {
            m.borrow_mut()[id as usize] = Some(std::rc::Rc::new(Instance {
                calls,
                memory,
                fuel,
                _imports: closures,
                _fd_write: fd_write,
            }))
        });
        let bytes = JsMemory(instance(id)).bytes();
        Ok(JsRuntime {
            id,
            budget: BigInt::from(0).into(),
            bytes,
        })
    }

    fn instance(&self) -> std::rc::Rc<Instance> {
        // The entry is removed only when this runtime is dropped.
        instance(self.id).expect("a runtime's instance lives as long as the runtime")
    }
}

impl ModuleMemory for JsRuntime {
    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn grow(&mut self, pages: u64) -> bool {
        let mut memory = JsMemory(instance(self.id));
        let grown = memory.grow(pages);
        self.bytes = memory.bytes();
        grown
    }

    fn read(&self, at: u64, out: &mut [u8]) -> bool {
        JsMemory(instance(self.id)).read(at, out)
    }

    fn write(&mut self, at: u64, bytes: &[u8]) -> bool {
        JsMemory(instance(self.id)).write(at, bytes)
    }
}

impl Runtime for JsRuntime {
    fn set_budget(&mut self, budget: u64) {
        self.budget = BigInt::from(budget.min(i64::MAX as u64) as i64).into();
    }

    fn has(&self, entry: Entry) -> bool {
        self.instance().calls[entry as usize].is_some()
    }

    fn call(&mut self, entry: Entry, args: &[i32]) -> Result<i32, Stop> {
        let i = self.instance();
        let Some(f) = &i.calls[entry as usize] else {
            return Ok(0);
        };
        // A WebAssembly function drops the arguments past its own, and `mm_free`'s
        // missing result reads as 0.
        let arg = |k: usize| args.get(k).copied().unwrap_or(0);
        match hl_call(f, &i.fuel, &self.budget, arg(0), arg(1), &i.memory) {
            Ok(packed) => {
                let packed = packed as u64;
                self.bytes = (packed >> 32) * 65536;
                Ok(packed as u32 as i32)
            }
            Err(e) => {
                self.bytes = JsMemory(Some(i.clone())).bytes();
                Err(stop(&i, &e))
            }
        }
    }
}

/// What a call's error came to.
fn stop(i: &Instance, e: &JsValue) -> Stop {
    if let Some(code) = Reflect::get(e, &EXIT_MARK.into())
        .ok()
        .and_then(|c| c.as_f64())
    {
        return Stop::Exit(code as i32);
    }
    let why = message(e);
    if e.is_instance_of::<js_sys::RangeError>() && why.contains("call stack") {
        return Stop::Trap(Trap::StackOverflow);
    }
    if !e.is_instance_of::<WebAssembly::RuntimeError>() {
        return Stop::Trap(Trap::Other(why));
    }
    let spent = BigInt::new(&i.fuel.value())
        .ok()
        .and_then(|left| i64::try_from(left).ok())
        .is_some_and(|left| left < 0);
    if spent && why.contains("unreachable") {
        return Stop::OutOfFuel;
    }
    Stop::Trap(trap(&why).unwrap_or(Trap::Other(why)))
}

/// A trap, from the message V8 gives its `WebAssembly.RuntimeError` (its message
/// templates `kWasmTrap…`).
fn trap(why: &str) -> Option<Trap> {
    let has = |s: &str| why.contains(s);
    Some(if has("unreachable") {
        Trap::Unreachable
    } else if has("memory access out of bounds") {
        Trap::MemoryOutOfBounds
    } else if has("by zero") {
        Trap::DivisionByZero
    } else if has("divide result unrepresentable") {
        Trap::IntegerOverflow
    } else if has("float unrepresentable") {
        Trap::BadConversion
    } else if has("signature mismatch") {
        Trap::BadSignature
    } else if has("table index") || has("invalid index into function table") {
        Trap::TableOutOfBounds
    } else {
        return None;
    })
}

/// The page's way to build a fresh allocator of a loaded module.
pub struct BrowserFactory(pub Arc<AllocatorModule>);

impl HostedFactory for BrowserFactory {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn instantiate(&self, knobs: &Knobs) -> Result<Box<dyn HostedHeap>, String> {
        Ok(Box::new(Allocator::start(
            self.0.clone(),
            knobs,
            JsRuntime::new,
        )?))
    }
}
