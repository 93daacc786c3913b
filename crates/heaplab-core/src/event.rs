//! What a program asks of its allocator, one event at a time.

/// A block's name in a workload: trace ids, not addresses, so the same workload runs
/// against any policy.
pub type BlockId = u64;

/// An arena's name in a workload.
pub type ArenaId = u32;

/// One allocator call, or a marker in the program's life.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// `malloc`/`memalign`; inside `arena` when given (an arena is reset or dropped whole).
    Alloc {
        id: BlockId,
        size: u64,
        align: u64,
        arena: Option<ArenaId>,
        thread: u32,
    },
    Free {
        id: BlockId,
        thread: u32,
    },
    Realloc {
        id: BlockId,
        size: u64,
        thread: u32,
    },
    /// The program enters a named phase (page load, compile, back, ...).
    Phase(String),
    ArenaCreate(ArenaId),
    /// Every block of the arena dies; the arena stays usable.
    ArenaReset(ArenaId),
    /// Every block of the arena dies and the arena is gone.
    ArenaDrop(ArenaId),
    /// The program's clock reads this many nanoseconds since the trace began: a time
    /// mark (`t <ns>` in a `.trace`), not a call. Real allocators count their delays in
    /// time (mimalloc purges pages freed more than 10 ms ago, jemalloc decays dirty pages
    /// over 10 s), so a model of them needs to know how much passed between two calls; a
    /// recorder writes a mark at most every 100 µs of activity. Marks never go back, and
    /// they are not counted as events: a trace with them runs the same events as one
    /// without.
    Time(u64),
}

/// The alignment a plain `malloc` guarantees on 64-bit platforms.
pub const DEFAULT_ALIGN: u64 = 16;

impl Event {
    /// A plain allocation on thread 0, outside any arena.
    pub fn alloc(id: BlockId, size: u64) -> Event {
        Event::Alloc {
            id,
            size,
            align: DEFAULT_ALIGN,
            arena: None,
            thread: 0,
        }
    }

    pub fn free(id: BlockId) -> Event {
        Event::Free { id, thread: 0 }
    }

    pub fn realloc(id: BlockId, size: u64) -> Event {
        Event::Realloc {
            id,
            size,
            thread: 0,
        }
    }

    /// An allocation inside an arena.
    pub fn alloc_in(arena: ArenaId, id: BlockId, size: u64) -> Event {
        Event::Alloc {
            id,
            size,
            align: 8,
            arena: Some(arena),
            thread: 0,
        }
    }

    /// The block an allocation, free or realloc names.
    #[inline]
    pub fn block(&self) -> Option<BlockId> {
        match *self {
            Event::Alloc { id, .. } | Event::Free { id, .. } | Event::Realloc { id, .. } => {
                Some(id)
            }
            _ => None,
        }
    }
}
