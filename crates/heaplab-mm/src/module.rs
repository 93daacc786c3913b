//! A loaded allocator module: its bytes checked once, before anything runs, against the
//! interface `memlib.h` and `heaplab.h` describe.

use std::fmt;
use std::sync::OnceLock;

use heaplab_core::config::PolicyConfig;
use heaplab_core::policy::hosted;
use sha2::{Digest, Sha256};
use wasmi::{Config, Engine, ExternType, FuncType, Module, ValType};

/// The largest memory a module may ask for before its heap grows: its data, its stack
/// and whatever else it declares. A module asking for more is refused rather than given
/// that much memory up front.
pub const MAX_INITIAL_MEMORY: u64 = 64 << 20;

/// Why a module was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleError(pub String);

impl fmt::Display for ModuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModuleError {}

/// The calls malloc lab's interface exports, with their signatures on wasm32, and whether
/// heaplab needs each.
const EXPORTS: &[(&str, &[ValType], &[ValType], bool)] = &[
    ("mm_init", &[], &[ValType::I32], true),
    ("mm_malloc", &[ValType::I32], &[ValType::I32], true),
    ("mm_free", &[ValType::I32], &[], true),
    (
        "mm_realloc",
        &[ValType::I32, ValType::I32],
        &[ValType::I32],
        true,
    ),
];

/// The imports heaplab offers: `memlib.h`'s calls, `heaplab.h`'s, and the two WASI calls
/// a C library's `printf` and `exit` come down to.
pub(crate) const IMPORTS: &[(&str, &str, &[ValType], &[ValType])] = &[
    ("env", "mem_sbrk", &[ValType::I32], &[ValType::I32]),
    ("env", "mem_heap_lo", &[], &[ValType::I32]),
    ("env", "mem_heap_hi", &[], &[ValType::I32]),
    ("env", "mem_heapsize", &[], &[ValType::I32]),
    ("env", "mem_pagesize", &[], &[ValType::I32]),
    ("env", "hl_free_block", &[ValType::I32, ValType::I32], &[]),
    (
        "env",
        "hl_decommit",
        &[ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    (
        "env",
        "hl_commit",
        &[ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    (
        "wasi_snapshot_preview1",
        "fd_write",
        &[ValType::I32, ValType::I32, ValType::I32, ValType::I32],
        &[ValType::I32],
    ),
    ("wasi_snapshot_preview1", "proc_exit", &[ValType::I32], &[]),
];

fn signature(params: &[ValType], results: &[ValType]) -> String {
    let list = |v: &[ValType]| {
        v.iter()
            .map(|t| format!("{t:?}").to_lowercase())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("({}) -> ({})", list(params), list(results))
}

fn matches(ty: &FuncType, params: &[ValType], results: &[ValType]) -> bool {
    ty.params() == params && ty.results() == results
}

/// An allocator module, checked and metered, ready to be instantiated once per run.
pub struct AllocatorModule {
    pub(crate) name: String,
    pub(crate) sha256: String,
    pub(crate) wasm: Vec<u8>,
    /// The module with its calls metered (see [`crate::meter`]): what every runtime runs.
    metered: Vec<u8>,
    /// The size of the module's memory before its heap grows, where the heap starts.
    pub(crate) initial_memory: u64,
    /// The metered module compiled for the interpreter, when it first runs there.
    compiled: OnceLock<Result<Module, String>>,
}

impl fmt::Debug for AllocatorModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AllocatorModule")
            .field("name", &self.name)
            .field("sha256", &self.sha256)
            .field("bytes", &self.wasm.len())
            .finish_non_exhaustive()
    }
}

impl AllocatorModule {
    /// Checks and compiles a module; `name` is how tables will name it (its file name).
    pub fn new(name: &str, wasm: &[u8]) -> Result<AllocatorModule, ModuleError> {
        if !wasm.starts_with(b"\0asm") {
            return Err(ModuleError(format!(
                "{name} is not a WebAssembly module (it does not start with \\0asm); build \
                 one with `heaplab mm build mm.c -o mm.wasm`"
            )));
        }
        let module = Module::new(&Engine::default(), wasm)
            .map_err(|e| ModuleError(format!("{name} is not a valid module: {e}")))?;
        check_imports(name, &module)?;
        let initial_memory = check_exports(name, &module)?;
        let metered = crate::meter::meter(wasm)
            .map_err(|e| ModuleError(format!("{name} cannot be run by heaplab: {e}")))?;
        Ok(AllocatorModule {
            name: name.to_string(),
            sha256: hex(&Sha256::digest(wasm)),
            wasm: wasm.to_vec(),
            metered,
            initial_memory,
            compiled: OnceLock::new(),
        })
    }

    /// The module with every call metered: what a runtime instantiates.
    pub fn metered(&self) -> &[u8] {
        &self.metered
    }

    /// The metered module compiled for the interpreter (once).
    pub(crate) fn metered_wasmi(&self) -> Result<&Module, String> {
        self.compiled
            .get_or_init(|| {
                // Validation stays on for the rewritten module too: a fault in the meter
                // must be an error, not undefined behaviour.
                Module::new(&Engine::new(&Config::default()), &self.metered[..])
                    .map_err(|e| format!("the metered module does not compile: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The SHA-256 of the module's bytes, in hex: what a config names it by.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A policy that runs this module with the module family's defaults: what
    /// `-p mm.wasm` names.
    pub fn policy_config(&self) -> PolicyConfig {
        let mut policy = PolicyConfig::named(hosted::FAMILY.id);
        policy.params.insert(
            hosted::Knobs::NAMES.sha256.into(),
            serde_json::Value::from(self.sha256.as_str()),
        );
        policy
    }

    /// The module's bytes, as loaded: what a link carries.
    pub fn wasm(&self) -> &[u8] {
        &self.wasm
    }
}

fn check_imports(name: &str, module: &Module) -> Result<(), ModuleError> {
    for import in module.imports() {
        let (m, n) = (import.module(), import.name());
        let ExternType::Func(ty) = import.ty() else {
            return Err(ModuleError(format!(
                "{name} imports {m}.{n}, which is not a function; heaplab offers only the calls \
                 of memlib.h and heaplab.h, and WASI's fd_write and proc_exit"
            )));
        };
        let Some((_, _, params, results)) = IMPORTS
            .iter()
            .find(|(im, iname, _, _)| *im == m && *iname == n)
        else {
            return Err(ModuleError(format!(
                "{name} imports {m}.{n}, which heaplab does not offer; it offers {}",
                IMPORTS
                    .iter()
                    .map(|(m, n, _, _)| format!("{m}.{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        if !matches(ty, params, results) {
            return Err(ModuleError(format!(
                "{name} imports {m}.{n} as {}, but heaplab offers it as {}",
                signature(ty.params(), ty.results()),
                signature(params, results)
            )));
        }
    }
    Ok(())
}

/// Checks the exports; the size of the memory the module starts with.
fn check_exports(name: &str, module: &Module) -> Result<u64, ModuleError> {
    for (export, params, results, _) in EXPORTS {
        match module.get_export(export) {
            Some(ExternType::Func(ty)) if matches(&ty, params, results) => {}
            Some(ExternType::Func(ty)) => {
                return Err(ModuleError(format!(
                    "{name} exports {export} as {}, but malloc lab's interface has it as {} \
                     on wasm32",
                    signature(ty.params(), ty.results()),
                    signature(params, results)
                )));
            }
            Some(_) => {
                return Err(ModuleError(format!(
                    "{name} exports {export}, but not as a function"
                )));
            }
            None => {
                return Err(ModuleError(format!(
                    "{name} does not export {export}; an allocator module exports mm_init, \
                     mm_malloc, mm_free and mm_realloc (heaplab mm build exports them)"
                )));
            }
        }
    }
    let initial = match module.get_export("memory") {
        Some(ExternType::Memory(ty)) => {
            if ty.is_64() {
                return Err(ModuleError(format!(
                    "{name} has a 64-bit memory; heaplab runs wasm32 modules only"
                )));
            }
            let initial = ty.minimum() * 65536;
            if initial > MAX_INITIAL_MEMORY {
                return Err(ModuleError(format!(
                    "{name} asks for {initial} bytes of memory before its heap grows, more than \
                     the {MAX_INITIAL_MEMORY} heaplab allows"
                )));
            }
            initial
        }
        _ => {
            return Err(ModuleError(format!(
                "{name} does not export its memory as \"memory\"; heaplab's heap lies in it"
            )))
        }
    };
    // Malloc lab's versions disagree on what mm_checkheap returns, so either is taken.
    match module.get_export("mm_checkheap") {
        None => Ok(initial),
        Some(ExternType::Func(ty))
            if matches(&ty, &[ValType::I32], &[])
                || matches(&ty, &[ValType::I32], &[ValType::I32]) =>
        {
            Ok(initial)
        }
        Some(_) => Err(ModuleError(format!(
            "{name} exports mm_checkheap, but not as void or int mm_checkheap(int)"
        ))),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
