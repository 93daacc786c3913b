//! What runs a module: an engine holding one instance of the metered module (see
//! [`crate::meter`]). heaplab has two: the interpreter natively ([`crate::native`]), and
//! in the page the browser's own engine, which the page's bindings supply. Everything
//! else — the checks, the heap, the page operations — is the same code over either.

/// A module's memory, as the imports and the checks reach it.
pub trait ModuleMemory {
    /// The memory's size in bytes.
    fn bytes(&self) -> u64;

    /// Grows the memory by `pages` module pages of 64 KiB; whether it could.
    fn grow(&mut self, pages: u64) -> bool;

    /// Copies the memory at `at` into `out`; false when that lies past its end.
    fn read(&self, at: u64, out: &mut [u8]) -> bool;

    /// Copies `bytes` into the memory at `at`; false when that lies past its end.
    fn write(&mut self, at: u64, bytes: &[u8]) -> bool;
}

/// Malloc lab's calls, as the runtime makes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Init,
    Malloc,
    Free,
    Realloc,
    CheckHeap,
}

impl Entry {
    pub const ALL: [Entry; 5] = [
        Entry::Init,
        Entry::Malloc,
        Entry::Free,
        Entry::Realloc,
        Entry::CheckHeap,
    ];

    /// The call's name, as the module exports it.
    pub fn name(self) -> &'static str {
        match self {
            Entry::Init => "mm_init",
            Entry::Malloc => "mm_malloc",
            Entry::Free => "mm_free",
            Entry::Realloc => "mm_realloc",
            Entry::CheckHeap => "mm_checkheap",
        }
    }
}

/// Why a call did not return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It called `exit` (WASI's `proc_exit`), as a failed `assert` does.
    Exit(i32),
    /// It spent its budget.
    OutOfFuel,
    /// It trapped.
    Trap(Trap),
}

/// Why a module trapped, in words of heaplab's own, so that every engine reports a trap
/// the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trap {
    Unreachable,
    MemoryOutOfBounds,
    TableOutOfBounds,
    IndirectCallToNull,
    DivisionByZero,
    IntegerOverflow,
    BadConversion,
    StackOverflow,
    BadSignature,
    /// Anything else, in the engine's words.
    Other(String),
}

impl std::fmt::Display for Trap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Trap::Unreachable => "it reached `unreachable` (an abort or a failed assert)",
            Trap::MemoryOutOfBounds => "it read or wrote past the end of its memory",
            Trap::TableOutOfBounds => "an indirect call went past the end of its table",
            Trap::IndirectCallToNull => "an indirect call found no function",
            Trap::DivisionByZero => "an integer division by zero",
            Trap::IntegerOverflow => "an integer division overflowed",
            Trap::BadConversion => "a float could not be converted to an integer",
            Trap::StackOverflow => "its call stack overflowed (endless recursion?)",
            Trap::BadSignature => "an indirect call's signature did not match",
            Trap::Other(why) => why,
        })
    }
}

/// One instance of a metered module.
pub trait Runtime: ModuleMemory + Send {
    /// Sets what every call starts with, in units of fuel: the runtime fills the meter's
    /// counter ([`crate::meter::FUEL`]) with it before each call.
    fn set_budget(&mut self, budget: u64);

    /// Whether the module exports this call (`mm_checkheap` is optional).
    fn has(&self, entry: Entry) -> bool;

    /// Makes a call with its arguments; what it returned (0 for a void call).
    fn call(&mut self, entry: Entry, args: &[i32]) -> Result<i32, Stop>;
}

/// What a failed call did, in a few words after the call.
pub(crate) fn describe(stop: &Stop, budget: u64) -> String {
    match stop {
        Stop::Exit(code) => format!("called exit({code})"),
        Stop::OutOfFuel => format!(
            "ran past its budget of {budget} units of fuel (policy.params.budget) and was \
             stopped: an endless loop?"
        ),
        Stop::Trap(why) => format!("trapped: {why}"),
    }
}
