//! What a policy decided while it served one event, as data: the vocabulary of teaching
//! mode. Policies hand a [`Decision`] to their provider's
//! [`crate::provider::PageProvider::note`], which every provider but teaching mode's watching one
//! (`heaplab_app::observe`) ignores without building it. A leaf: it imports nothing of the
//! crate, so the provider trait can name it without a cycle.

use serde::Serialize;

/// One decision, with the addresses and sizes it involved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// A free structure was searched: `structure` names it ("bin", "tcache", "fast bin",
    /// "class", "order", "free tree", and for the fits without bins "free chunks by size"
    /// or "address-ordered free list"), `index` which one (a bin number as glibc numbers
    /// its bins, a class size, an order; 0 for a structure that is one list), and `found`
    /// the address of what it found, if anything.
    Search {
        structure: &'static str,
        index: u64,
        found: Option<u64>,
    },
    /// A free piece of `size` bytes at `addr` (`from` says which: "top", "free chunk",
    /// "block of order 5") was cut: `taken` bytes used, `rest` bytes left free.
    Split {
        from: &'static str,
        addr: u64,
        size: u64,
        taken: u64,
        rest: u64,
    },
    /// A buddy block of `size` bytes at `addr` halved, and its lower half halved again,
    /// until the lower half is `taken` bytes: each halving leaves its upper half free, on
    /// the list of its order.
    Halve { addr: u64, size: u64, taken: u64 },
    /// A freed piece merged with a free neighbour (`with`: "previous", "next", "buddy",
    /// "top") into `size` bytes at `addr`.
    Coalesce {
        with: &'static str,
        addr: u64,
        size: u64,
    },
    /// A new region to carve blocks from: `what` is "segment", "span", "slab", "arena",
    /// "chunk" or "mapping".
    NewRegion {
        what: &'static str,
        addr: u64,
        bytes: u64,
    },
    /// A request served from a cache ("tcache", "fast bin", "thread cache", "span free
    /// list", "pool free list") without searching further.
    CacheHit { cache: &'static str, addr: u64 },
    /// A freed block kept in a cache or free structure rather than merged or given back.
    Cached { cache: &'static str, addr: u64 },
    /// A block freed by another thread than the one owning its span: queued for the owner.
    RemoteFree { owner: u32, thread: u32 },
    /// A call into your own allocator's module (`call`: "mm_malloc", "mm_free",
    /// "mm_realloc"), with its pointer and size arguments where it takes them and the
    /// pointer it returned, all in the module's own addresses, as its `printf` shows
    /// them. What the module did inside the call (the heap growing) is noted after it.
    Call {
        call: &'static str,
        ptr: Option<u64>,
        size: Option<u64>,
        returned: Option<u64>,
    },
    /// A rule that acted, or held back, with the knob or threshold that decided it and
    /// their values: "no trim: top chunk 265 KiB < trim_threshold 592 KiB". `rule` names
    /// the rule ("trim", "mmap threshold", "dynamic threshold", "consolidate", "purge",
    /// "empty span", "decommit", "realloc"), so a reader can look for it; `text` says it
    /// whole. Delayed work gets one where it is scheduled and one where it is done.
    Rule { rule: &'static str, text: String },
    /// Why the page operation that follows happens: "first use", "trim of the top",
    /// "mmap threshold", "empty span after its delay", "free pages given back", ...
    Reason { why: &'static str },
    /// A page operation (`op`: "reserve", "commit", "decommit", "release") the provider
    /// carried out, with the reason noted just before it, if any.
    PageOp {
        op: &'static str,
        addr: u64,
        bytes: u64,
        reason: Option<&'static str>,
    },
}
