//! The checks an imported trace goes through before the simulator sees it.
//!
//! The simulator refuses a free of a block that is not live, but it knows only the event
//! number and not why the block is gone. The checker follows every block by the lines
//! that made and ended it, so a bad event is reported at its line with its history:
//! "double free of id 7 (freed at line 12)" rather than "event 31: free of block id 7,
//! which is not live". It keeps a record per live block, like the simulator, and a
//! bounded memory of dead ones (see [`Graveyard`]), so a trace of any length streams.

use std::fmt;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::event::{ArenaId, BlockId, Event};
use crate::id_window::{IdWindow, WindowSlot};

/// What is wrong with a line or its event. The snake-case names are the keys of
/// `skipped` in `heaplab run --json --lenient`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// A line whose operation the format does not have.
    UnknownOp,
    /// A field that should be a number and is not, or is out of range.
    BadNumber,
    /// A line with the wrong fields for its operation.
    BadLine,
    /// A free or realloc of a block that was never allocated.
    UnknownId,
    /// A free of a block that was already freed (or died with its arena).
    DoubleFree,
    /// A realloc of a block that was already freed.
    ReallocOfFreed,
    /// An allocation under an id (or at an address) that is still live.
    AllocOfLive,
    /// An arena created twice, or used, reset or dropped without being created.
    BadArena,
    /// An mtrace realloc whose `<` and `>` lines do not come as a pair.
    UnpairedRealloc,
    /// A malloc-lab header whose counts disagree with the op lines after it.
    HeaderCounts,
    /// A time mark earlier than the one before it.
    TimeBack,
}

impl ProblemKind {
    /// The kind's name, as a key of `skipped`.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::UnknownOp => "unknown_op",
            ProblemKind::BadNumber => "bad_number",
            ProblemKind::BadLine => "bad_line",
            ProblemKind::UnknownId => "unknown_id",
            ProblemKind::DoubleFree => "double_free",
            ProblemKind::ReallocOfFreed => "realloc_of_freed",
            ProblemKind::AllocOfLive => "alloc_of_live",
            ProblemKind::BadArena => "bad_arena",
            ProblemKind::UnpairedRealloc => "unpaired_realloc",
            ProblemKind::HeaderCounts => "header_counts",
            ProblemKind::TimeBack => "time_back",
        }
    }
}

impl Serialize for ProblemKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A bad line or event: its kind, and the message naming what is wrong (the caller adds
/// `file:line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
}

impl Problem {
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// How the checker names a block in messages: by trace id, or by the address an mtrace
/// line gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    Id,
    Address,
}

impl Naming {
    fn name(self, key: u64) -> String {
        match self {
            Naming::Id => format!("id {key}"),
            Naming::Address => format!("address {key:#x}"),
        }
    }
}

/// A live block as the checker knows it: the id the simulator sees (for traces with ids,
/// the key itself) and its arena.
#[derive(Clone, Copy, Debug)]
struct Live {
    id: BlockId,
    arena: Option<ArenaId>,
}

/// How a block died, for the message about a later use of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Death {
    Freed,
    /// An mtrace realloc moved the block to another address.
    Moved,
    ArenaReset(ArenaId),
    ArenaDropped(ArenaId),
}

/// What the checker knows of a key: nothing, a live block, or how and at which line the
/// block died (with the generation of deaths it died in, see [`Keys`]).
#[derive(Clone, Copy, Debug)]
enum Slot {
    Empty,
    Live(Live),
    Dead { line: u64, how: Death, gen: u64 },
}

/// A [`Slot`] in sixteen bytes rather than the enum's thirty-two, so twice as many keys
/// share the caches: a free's look-up of a random live key is a miss more often than
/// not, and the checker's half of it is what this halves.
///
/// `b`'s two lowest bits say which slot it is (0 empty, 1 live, 2 dead). A live slot
/// keeps the block's id in `a`, whether it has an arena in bit 2 and the arena in bits
/// 32–63. A dead one keeps its line in `a`, how it died in bits 2–3 (freed, moved, in
/// an arena reset, in an arena dropped), its generation's low [`GEN_BITS`] bits in bits
/// 4–31 and the arena it died with in bits 32–63.
#[derive(Clone, Copy, Debug, Default)]
struct Packed {
    a: u64,
    b: u64,
}

/// The bits of a death's generation a [`Packed`] slot keeps. [`Keys::bury`] forgets
/// every death older than [`SWEEP`] generations before the kept bits could wrap, so the
/// full generation is always the latest one with those bits.
const GEN_BITS: u32 = 28;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

/// Every this many generations, the window's forgotten deaths become empty slots (which
/// they already mean): well within the [`GEN_BITS`] a slot keeps.
const SWEEP: u64 = 1 << (GEN_BITS - 2);

impl WindowSlot for Packed {
    const EMPTY: Packed = Packed { a: 0, b: 0 };

    fn is_empty(&self) -> bool {
        self.b & 3 == 0
    }
}

impl Packed {
    #[inline]
    fn pack(slot: Slot) -> Packed {
        match slot {
            Slot::Empty => Packed::EMPTY,
            Slot::Live(Live { id, arena }) => Packed {
                a: id,
                b: 1 | match arena {
                    Some(a) => 4 | u64::from(a) << 32,
                    None => 0,
                },
            },
            Slot::Dead { line, how, gen } => {
                let (how, arena) = match how {
                    Death::Freed => (0, 0),
                    Death::Moved => (1, 0),
                    Death::ArenaReset(a) => (2, a),
                    Death::ArenaDropped(a) => (3, a),
                };
                Packed {
                    a: line,
                    b: 2 | how << 2 | (gen & GEN_MASK) << 4 | u64::from(arena) << 32,
                }
            }
        }
    }

    /// The slot, its death's generation taken as the latest up to `now` with the bits
    /// kept.
    #[inline]
    fn unpack(self, now: u64) -> Slot {
        let arena = (self.b >> 32) as ArenaId;
        match self.b & 3 {
            1 => Slot::Live(Live {
                id: self.a,
                arena: (self.b & 4 != 0).then_some(arena),
            }),
            2 => {
                let how = match (self.b >> 2) & 3 {
                    0 => Death::Freed,
                    1 => Death::Moved,
                    2 => Death::ArenaReset(arena),
                    _ => Death::ArenaDropped(arena),
                };
                let kept = (self.b >> 4) & GEN_MASK;
                let gen = now - (now.wrapping_sub(kept) & GEN_MASK);
                Slot::Dead {
                    line: self.a,
                    how,
                    gen,
                }
            }
            _ => Slot::Empty,
        }
    }

    #[inline]
    fn is_live(self) -> bool {
        self.b & 3 == 1
    }

    /// A live block outside any arena, whose id is its key (as it is for ids).
    #[inline]
    fn live_as_itself(key: u64) -> Packed {
        Packed { a: key, b: 1 }
    }

    /// Whether the slot is a live block outside any arena.
    #[inline]
    fn is_live_without_arena(self) -> bool {
        self.b & 7 == 1
    }
}

/// Deaths one generation holds. A death is remembered while it is in the current
/// generation or the one before, so at least this many of the latest deaths are.
const GENERATION: usize = 1 << 16;

/// Slack the window may always have, and how far past its end a new key may be and
/// still stretch it rather than go to the overflow map.
const MIN_SPAN: u64 = 1 << 16;

/// How far past a new key the window is stretched, so that the allocations of the next
/// ids, which come in order, find their slots already there.
const GROW_AHEAD: u64 = 1 << 10;

/// Every key's [`Slot`], live or dead, in bounded memory.
///
/// Trace ids are mostly small integers handed out in order, so the keys in use crowd into
/// an [`IdWindow`]; the check of a free is then one array access where two hash maps (live
/// blocks and dead ones) cost an insert and a remove per free. Keys that do not fit live
/// in overflow maps (far behind the window in `behind`, far ahead of it parked in the
/// window's own map, or addresses), and no key is ever in two places. Deaths are stamped
/// with their generation: when a generation fills, the one before it is forgotten, and a
/// use of a block dead for longer is reported as a use of an unknown block (still an error
/// at its line, only with less history). The window is cut down to its live blocks
/// blocks plus the two remembered generations, and the overflow maps drop their forgotten
/// deaths at each new generation, so a trace of unique ids never grows the checker without
/// limit.
#[derive(Debug, Default)]
struct Keys {
    window: IdWindow<Packed>,
    /// Keys below the window that are still remembered.
    behind: FxHashMap<u64, Packed>,
    live: usize,
    gen: u64,
    in_gen: usize,
    /// Whether a generation of deaths has been forgotten.
    forgot: bool,
}

impl Keys {
    fn new() -> Keys {
        Keys::default()
    }

    fn remembered(&self, slot: &Slot) -> bool {
        match *slot {
            Slot::Empty => false,
            Slot::Live(_) => true,
            Slot::Dead { gen, .. } => gen + 1 >= self.gen,
        }
    }

    /// How many keys the checker holds a slot for, remembered or not.
    fn slots(&self) -> usize {
        self.window.len() + self.window.ahead_len() + self.behind.len()
    }

    #[inline]
    fn get(&self, key: u64) -> Slot {
        self.get_packed(key).unpack(self.gen)
    }

    #[inline]
    fn get_packed(&self, key: u64) -> Packed {
        if let Some(i) = self.window.index(key) {
            return self.window[i];
        }
        let outside = if key < self.window.base() {
            self.behind.get(&key)
        } else {
            self.window.ahead_get(key)
        };
        outside.copied().unwrap_or(Packed::EMPTY)
    }

    /// [`Keys::put`] of a block live outside any arena, when its key is in the window
    /// and not live: the slot written and counted, and `true`. Otherwise nothing changes
    /// and [`Keys::put`] is what does it.
    #[inline]
    fn put_live_in_window(&mut self, key: u64) -> bool {
        match self.window.slot_mut(key) {
            Some(slot) if !slot.is_live() => {
                *slot = Packed::live_as_itself(key);
                self.live += 1;
                true
            }
            _ => false,
        }
    }

    /// [`Keys::bury`] of a block freed, when its key is in the window, it is live
    /// outside any arena, and the generation has room: the slot written and counted, and
    /// `true`. Otherwise nothing changes.
    #[inline]
    fn bury_freed_in_window(&mut self, key: u64, line: u64) -> bool {
        if self.in_gen >= GENERATION {
            return false;
        }
        let gen = self.gen;
        match self.window.slot_mut(key) {
            Some(slot) if slot.is_live_without_arena() => {
                *slot = Packed::pack(Slot::Dead {
                    line,
                    how: Death::Freed,
                    gen,
                });
                self.live -= 1;
                self.in_gen += 1;
                true
            }
            _ => false,
        }
    }

    /// Whether `key` is a live block.
    #[inline]
    fn is_live(&self, key: u64) -> bool {
        self.get_packed(key).is_live()
    }

    /// The death's line and how, if the key is dead and its death remembered.
    fn find(&self, key: u64) -> Option<(u64, Death)> {
        match self.get(key) {
            Slot::Dead { line, how, gen } if gen + 1 >= self.gen => Some((line, how)),
            _ => None,
        }
    }

    /// Stamps a new death with its generation, starting a new one when it is full.
    fn bury(&mut self, key: u64, line: u64, how: Death) {
        if self.in_gen >= GENERATION {
            self.gen += 1;
            self.in_gen = 0;
            self.forgot |= self.gen >= 2;
            // The overflow maps would otherwise keep every far key that ever died.
            let now = self.gen;
            let keep = |_: &u64, s: &mut Packed| match s.unpack(now) {
                Slot::Dead { gen, .. } => gen + 1 >= now,
                _ => true,
            };
            self.behind.retain(keep);
            self.window.retain_ahead(keep);
            if now.is_multiple_of(SWEEP) {
                for s in self.window.slots_mut() {
                    if matches!(s.unpack(now), Slot::Dead { gen, .. } if gen + 1 < now) {
                        *s = Packed::EMPTY;
                    }
                }
            }
        }
        self.in_gen += 1;
        let gen = self.gen;
        self.put(key, Slot::Dead { line, how, gen });
    }

    fn put(&mut self, key: u64, slot: Slot) {
        if self.slots() == 0 {
            // The first key places the window, so traces whose ids start high (or are
            // addresses) still use it.
            self.window.restart_at(key);
        }
        let end = self.window.end();
        if key >= end && key - end < MIN_SPAN {
            self.grow(key.saturating_add(1 + GROW_AHEAD));
        }
        let place = match self.window.index(key) {
            Some(i) => &mut self.window[i],
            None if key < self.window.base() => self.behind.entry(key).or_insert(Packed::EMPTY),
            None => self.window.ahead_entry(key),
        };
        let was_live = place.is_live();
        let is_live = matches!(slot, Slot::Live(_));
        *place = Packed::pack(slot);
        match (was_live, is_live) {
            (false, true) => self.live += 1,
            (true, false) => self.live -= 1,
            _ => {}
        }
    }

    /// Stretches the window to end at `new_end`, taking in the parked keys it now
    /// covers, then cuts its front if it has grown too wide.
    fn grow(&mut self, new_end: u64) {
        self.window.grow_to(new_end, |_, _| {});
        let bound = self.live + 2 * GENERATION + MIN_SPAN as usize;
        if self.window.len() > bound + bound / 2 {
            // What the window must span is its live blocks and the two generations of
            // deaths it remembers; the rest is slack. Cutting it back to that whenever it
            // is half as wide again keeps the vector (the largest thing the checker
            // holds, sixteen bytes a key) within one doubling of what the trace keeps
            // live, and each slot is still moved only a bounded number of times. The
            // front's live blocks and remembered deaths go to `behind`.
            let cut = self.window.len() - bound;
            for (key, s) in self.window.iter().take(cut) {
                if self.remembered(&s.unpack(self.gen)) {
                    self.behind.insert(key, s);
                }
            }
            self.window.drop_front(cut);
        }
    }
}

/// What a realloc of a key found: a live block, or nothing ever allocated under it (the
/// key is now live, as `realloc(NULL, n)` makes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReallocOf {
    Live,
    Nothing,
}

/// Follows every block of a trace and refuses the events the simulator would refuse.
#[derive(Debug)]
pub struct Checker {
    naming: Naming,
    keys: Keys,
    /// Each arena's blocks, by key; keys freed or reused since are skipped when it ends.
    arenas: FxHashMap<ArenaId, Vec<u64>>,
    /// The latest time mark, in nanoseconds.
    time: u64,
}

impl Checker {
    pub fn new(naming: Naming) -> Checker {
        Checker {
            naming,
            keys: Keys::new(),
            arenas: FxHashMap::default(),
            time: 0,
        }
    }

    fn live(&self, key: u64) -> Option<Live> {
        match self.keys.get(key) {
            Slot::Live(b) => Some(b),
            _ => None,
        }
    }

    /// Checks an event of a trace whose blocks are named by id, and records it.
    #[inline]
    pub fn event(&mut self, line: u64, event: &Event) -> Result<(), Problem> {
        // Nearly every event is one of these two, and their keys are in the window: one
        // slot read and written, without the general path's calls.
        let done = match *event {
            Event::Alloc {
                id, arena: None, ..
            } => self.keys.put_live_in_window(id),
            Event::Free { id, .. } => self.keys.bury_freed_in_window(id, line),
            _ => false,
        };
        if done {
            return Ok(());
        }
        self.any_event(line, event)
    }

    /// [`Checker::event`] the general way.
    fn any_event(&mut self, line: u64, event: &Event) -> Result<(), Problem> {
        match *event {
            Event::Alloc { id, arena, .. } => self.alloc(id, id, arena),
            Event::Free { id, .. } => self.free(line, id).map(|_| ()),
            Event::Realloc { id, .. } => self.realloc(id).map(|_| ()),
            Event::Phase(_) => Ok(()),
            Event::ArenaCreate(a) => self.arena_create(a),
            Event::ArenaReset(a) => self.arena_end(line, a, false),
            Event::ArenaDrop(a) => self.arena_end(line, a, true),
            Event::Time(ns) => self.time(ns),
        }
    }

    /// A time mark: never earlier than the last, since the model's delays run on the
    /// differences between marks.
    fn time(&mut self, ns: u64) -> Result<(), Problem> {
        if ns < self.time {
            return Err(Problem::new(
                ProblemKind::TimeBack,
                format!(
                    "time mark {ns} ns is earlier than the one before it ({} ns); marks never go back",
                    self.time
                ),
            ));
        }
        self.time = ns;
        Ok(())
    }

    /// A block allocated under `key`, to be simulated as block `id`.
    pub fn alloc(&mut self, key: u64, id: BlockId, arena: Option<ArenaId>) -> Result<(), Problem> {
        if self.keys.is_live(key) {
            return Err(Problem::new(
                ProblemKind::AllocOfLive,
                format!("alloc of {}, which is already live", self.naming.name(key)),
            ));
        }
        if let Some(a) = arena {
            let Some(blocks) = self.arenas.get_mut(&a) else {
                return Err(Problem::new(
                    ProblemKind::BadArena,
                    format!("alloc in arena {a}, which was not created"),
                ));
            };
            blocks.push(key);
        }
        self.keys.put(key, Slot::Live(Live { id, arena }));
        Ok(())
    }

    /// A free of `key`; returns the block's id.
    pub fn free(&mut self, line: u64, key: u64) -> Result<BlockId, Problem> {
        let Some(block) = self.live(key) else {
            return Err(self.not_live("free", key));
        };
        self.keys.bury(key, line, Death::Freed);
        Ok(block.id)
    }

    /// A realloc of `key` that keeps its key; returns the block's id.
    pub fn realloc(&mut self, key: u64) -> Result<BlockId, Problem> {
        match self.live(key) {
            Some(block) => Ok(block.id),
            None => Err(self.not_live("realloc", key)),
        }
    }

    /// A realloc of `key` as recorders write `realloc(NULL, n)`: a key never allocated is
    /// allocated now, without an arena. A key that died is still refused with its
    /// history. Once the memory of dead blocks has forgotten a generation, a key dead for
    /// longer than it remembers cannot be told from one never allocated, and is taken as
    /// a new allocation.
    pub fn realloc_or_alloc(&mut self, key: u64) -> Result<ReallocOf, Problem> {
        if self.keys.is_live(key) {
            return Ok(ReallocOf::Live);
        }
        if self.keys.find(key).is_some() {
            return Err(self.not_live("realloc", key));
        }
        self.keys.put(
            key,
            Slot::Live(Live {
                id: key,
                arena: None,
            }),
        );
        Ok(ReallocOf::Nothing)
    }

    /// A realloc that moved the block from key `from` to key `to` (an mtrace realloc);
    /// returns the block's id. Checked whole before anything changes, so a refusal
    /// leaves the checker as it was.
    pub fn realloc_moved(&mut self, line: u64, from: u64, to: u64) -> Result<BlockId, Problem> {
        let block = self
            .live(from)
            .ok_or_else(|| self.not_live("realloc", from))?;
        if from != to {
            if self.live(to).is_some() {
                return Err(Problem::new(
                    ProblemKind::AllocOfLive,
                    format!(
                        "realloc of {} moved it to {}, which is already live",
                        self.naming.name(from),
                        self.naming.name(to)
                    ),
                ));
            }
            self.keys.bury(from, line, Death::Moved);
            self.keys.put(to, Slot::Live(block));
        }
        Ok(block.id)
    }

    pub fn arena_create(&mut self, a: ArenaId) -> Result<(), Problem> {
        if self.arenas.contains_key(&a) {
            return Err(Problem::new(
                ProblemKind::BadArena,
                format!("arena {a} already exists"),
            ));
        }
        self.arenas.insert(a, Vec::new());
        Ok(())
    }

    /// An arena reset (`drop == false`) or dropped: every block still in it dies.
    pub fn arena_end(&mut self, line: u64, a: ArenaId, drop: bool) -> Result<(), Problem> {
        let Some(keys) = self.arenas.remove(&a) else {
            let what = if drop { "drop" } else { "reset" };
            return Err(Problem::new(
                ProblemKind::BadArena,
                format!("{what} of arena {a}, which does not exist"),
            ));
        };
        let how = if drop {
            Death::ArenaDropped(a)
        } else {
            Death::ArenaReset(a)
        };
        for key in keys {
            if self.live(key).is_some_and(|b| b.arena == Some(a)) {
                self.keys.bury(key, line, how);
            }
        }
        if !drop {
            self.arenas.insert(a, Vec::new());
        }
        Ok(())
    }

    /// The problem with a free or realloc of a key that is not live, with its history.
    #[cold]
    fn not_live(&self, op: &str, key: u64) -> Problem {
        let name = self.naming.name(key);
        let Some((line, how)) = self.keys.find(key) else {
            let message = if self.keys.forgot {
                format!("{op} of {name}, which is not live (never allocated, or gone too long ago to remember)")
            } else {
                format!("{op} of {name}, which was never allocated")
            };
            return Problem::new(ProblemKind::UnknownId, message);
        };
        let kind = if op == "free" {
            ProblemKind::DoubleFree
        } else {
            ProblemKind::ReallocOfFreed
        };
        let message = match (op, how) {
            ("free", Death::Freed) => format!("double free of {name} (freed at line {line})"),
            (_, Death::Freed) => format!("{op} of {name}, which was freed at line {line}"),
            ("free", Death::Moved) => {
                format!("double free of {name} (a realloc at line {line} moved it away)")
            }
            (_, Death::Moved) => {
                format!("{op} of {name}, which a realloc at line {line} moved away")
            }
            (_, Death::ArenaReset(a)) => {
                format!("{op} of {name}, which died when arena {a} was reset at line {line}")
            }
            (_, Death::ArenaDropped(a)) => {
                format!("{op} of {name}, which died when arena {a} was dropped at line {line}")
            }
        };
        Problem::new(kind, message)
    }
}

/// A request's size as a trace gives it, refused when it is larger than any address
/// space heaplab models (the bound every policy holds requests to): the trace asks the
/// impossible at that line, whichever policy reads it.
#[inline]
pub fn request(size: u64) -> Result<u64, Problem> {
    if size <= crate::policy::MAX_REQUEST {
        return Ok(size);
    }
    Err(impossible(size))
}

/// The refusal of a size [`request`] finds too large, out of line: its callers are on
/// every line's path, and the message is built only for a trace that asks the impossible.
#[cold]
#[inline(never)]
fn impossible(size: u64) -> Problem {
    Problem::new(
        ProblemKind::BadNumber,
        format!(
            "size {size} is larger than any address space heaplab models ({})",
            crate::format::format_bytes(crate::policy::MAX_REQUEST)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn arb_key() -> impl Strategy<Value = u64> {
        prop_oneof![0u64..300, 0u64..300_000, any::<u64>()]
    }

    proptest! {
        /// Wherever the keys fall (in the window, behind it, parked ahead of it, or taken
        /// in as it grows), the checker knows each one as a map of keys would.
        #[test]
        fn keys_agree_with_a_hash_map(ops in prop::collection::vec((any::<bool>(), arb_key()), 0..300)) {
            let mut c = Checker::new(Naming::Id);
            let mut model: HashMap<u64, Option<u64>> = HashMap::new();
            for (n, (alloc, key)) in ops.into_iter().enumerate() {
                let line = n as u64 + 1;
                if alloc {
                    let live = matches!(model.get(&key), Some(None));
                    prop_assert_eq!(c.alloc(key, key, None).is_ok(), !live);
                    model.insert(key, None);
                } else {
                    let got = c.free(line, key);
                    match model.get(&key) {
                        Some(None) => {
                            prop_assert_eq!(got, Ok(key));
                            model.insert(key, Some(line));
                        }
                        Some(Some(freed)) => prop_assert_eq!(
                            got.unwrap_err().message,
                            format!("double free of id {key} (freed at line {freed})")
                        ),
                        None => prop_assert_eq!(got.unwrap_err().kind, ProblemKind::UnknownId),
                    }
                }
                prop_assert_eq!(c.keys.live, model.values().filter(|d| d.is_none()).count());
            }
            for (key, death) in &model {
                prop_assert_eq!(c.keys.is_live(*key), death.is_none());
            }
        }
    }

    #[test]
    fn a_use_after_death_names_how_and_where() {
        let mut c = Checker::new(Naming::Id);
        c.event(1, &Event::alloc(7, 16)).unwrap();
        c.event(2, &Event::free(7)).unwrap();
        let p = c.event(3, &Event::free(7)).unwrap_err();
        assert_eq!(p.kind, ProblemKind::DoubleFree);
        assert_eq!(p.message, "double free of id 7 (freed at line 2)");
        let p = c.event(4, &Event::realloc(7, 32)).unwrap_err();
        assert_eq!(p.kind, ProblemKind::ReallocOfFreed);
        assert_eq!(p.message, "realloc of id 7, which was freed at line 2");
        let p = c.event(5, &Event::free(8)).unwrap_err();
        assert_eq!(p.kind, ProblemKind::UnknownId);
        assert_eq!(p.message, "free of id 8, which was never allocated");
        // Allocated again, the id is live and its old death is forgotten.
        c.event(6, &Event::alloc(7, 16)).unwrap();
        let p = c.event(7, &Event::alloc(7, 16)).unwrap_err();
        assert_eq!(p.kind, ProblemKind::AllocOfLive);
        c.event(8, &Event::free(7)).unwrap();
    }

    #[test]
    fn arenas_kill_their_blocks() {
        let mut c = Checker::new(Naming::Id);
        assert_eq!(
            c.event(1, &Event::alloc_in(3, 1, 8)).unwrap_err().kind,
            ProblemKind::BadArena
        );
        c.event(2, &Event::ArenaCreate(3)).unwrap();
        c.event(3, &Event::alloc_in(3, 1, 8)).unwrap();
        c.event(4, &Event::alloc_in(3, 2, 8)).unwrap();
        c.event(5, &Event::free(2)).unwrap();
        c.event(6, &Event::ArenaReset(3)).unwrap();
        let p = c.event(7, &Event::free(1)).unwrap_err();
        assert_eq!(
            p.message,
            "free of id 1, which died when arena 3 was reset at line 6"
        );
        // Block 2 was freed before the reset, and keeps that history.
        let p = c.event(8, &Event::free(2)).unwrap_err();
        assert_eq!(p.message, "double free of id 2 (freed at line 5)");
        c.event(9, &Event::ArenaDrop(3)).unwrap();
        assert_eq!(
            c.event(10, &Event::ArenaDrop(3)).unwrap_err().message,
            "drop of arena 3, which does not exist"
        );
        c.event(11, &Event::ArenaCreate(3)).unwrap();
        assert_eq!(
            c.event(12, &Event::ArenaCreate(3)).unwrap_err().kind,
            ProblemKind::BadArena
        );
    }

    #[test]
    fn moved_blocks_keep_their_id() {
        let mut c = Checker::new(Naming::Address);
        c.alloc(0x1000, 0, None).unwrap();
        c.alloc(0x2000, 1, None).unwrap();
        assert_eq!(c.realloc_moved(3, 0x1000, 0x3000), Ok(0));
        let p = c.free(4, 0x1000).unwrap_err();
        assert_eq!(
            p.message,
            "double free of address 0x1000 (a realloc at line 3 moved it away)"
        );
        // Moving onto a live block is refused and changes nothing.
        assert_eq!(
            c.realloc_moved(5, 0x3000, 0x2000).unwrap_err().kind,
            ProblemKind::AllocOfLive
        );
        assert_eq!(c.free(6, 0x3000), Ok(0));
        assert_eq!(c.free(7, 0x2000), Ok(1));
    }

    #[test]
    fn old_generations_are_forgotten_and_said_to_be() {
        let mut g = Keys::new();
        for key in 0..(2 * GENERATION as u64 + 1) {
            g.bury(key, key + 1, Death::Freed);
        }
        assert!(g.forgot);
        assert_eq!(g.find(0), None);
        assert_eq!(
            g.find(2 * GENERATION as u64),
            Some((2 * GENERATION as u64 + 1, Death::Freed))
        );
        assert!(g.slots() <= 4 * GENERATION + 4 * MIN_SPAN as usize);
    }

    /// A slot keeps only the low bits of its death's generation; deaths are swept out
    /// long before those bits could make an old one look recent.
    #[test]
    fn a_death_older_than_the_kept_generation_bits_is_not_taken_for_a_recent_one() {
        let mut g = Keys::new();
        g.bury(1, 10, Death::ArenaDropped(7));
        assert_eq!(g.find(1), Some((10, Death::ArenaDropped(7))));
        // Just before a sweep, with the generation full: the next death starts one.
        g.gen = SWEEP - 1;
        g.in_gen = GENERATION;
        g.bury(2, 20, Death::Freed);
        assert_eq!(g.gen, SWEEP);
        assert!(matches!(g.get(1), Slot::Empty));
        assert_eq!(g.find(2), Some((20, Death::Freed)));
        // Without the sweep, key 1's kept bits would now read as the current generation.
        g.gen = 1 << GEN_BITS;
        assert_eq!(g.find(1), None);
        let live = Slot::Live(Live {
            id: 5,
            arena: Some(u32::MAX),
        });
        assert!(matches!(
            Packed::pack(live).unpack(0),
            Slot::Live(Live {
                id: 5,
                arena: Some(u32::MAX)
            })
        ));
    }

    #[test]
    fn far_and_sparse_keys_keep_their_history() {
        let mut c = Checker::new(Naming::Id);
        for (line, key) in [5u64, 1 << 40, 3, 1 << 20, 6].into_iter().enumerate() {
            c.alloc(key, key, None).unwrap();
            c.free(line as u64 + 10, key).unwrap();
        }
        assert_eq!(
            c.free(1, 1 << 40).unwrap_err().message,
            format!("double free of id {} (freed at line 11)", 1u64 << 40)
        );
        assert_eq!(
            c.free(1, 3).unwrap_err().message,
            "double free of id 3 (freed at line 12)"
        );
        // A window stretched over a far key takes its history in.
        for key in 7..(1 << 20) + 5 {
            c.alloc(key, key, None).unwrap();
        }
        assert_eq!(
            c.alloc(1 << 20, 1 << 20, None).unwrap_err().kind,
            ProblemKind::AllocOfLive
        );
        assert_eq!(c.keys.live, (1 << 20) + 5 - 7);
    }
}
