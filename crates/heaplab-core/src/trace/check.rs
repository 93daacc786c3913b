//! The checks an imported trace goes through before the simulator sees it.
//!
//! The simulator refuses a free of a block that is not live, but it knows only the event
//! number and not why the block is gone. The checker follows every block by the lines
//! that made and ended it, so a bad event is reported at its line with its history:
//! "double free of id 7 (freed at line 12)" rather than "event 31: free of block id 7,
//! which is not live". It keeps a record per live block, like the simulator, and a
//! bounded memory of dead ones (see [`Graveyard`]), so a trace of any length streams.

use std::collections::hash_map::Entry;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::event::{ArenaId, BlockId, Event};

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

/// Dead blocks by key, with the line they died at, in bounded memory.
///
/// Two generations: when the recent one is full it becomes the old one and the previous
/// old one is forgotten. A key allocated again keeps its old entry: it is looked up only
/// while the key is not live, and by then a newer death has shadowed it in the recent
/// generation (so an allocation costs no graveyard work). A use of a block dead for more than a generation's worth of
/// deaths is then reported as a use of an unknown block: still an error at its line,
/// only with less history. The bound keeps a trace of unique ids from growing the
/// checker without limit.
#[derive(Debug, Default)]
struct Graveyard {
    recent: FxHashMap<u64, (u64, Death)>,
    old: FxHashMap<u64, (u64, Death)>,
    forgot: bool,
}

/// Deaths one generation holds: both generations together stay near 25 MB.
const GENERATION: usize = 1 << 18;

impl Graveyard {
    fn bury(&mut self, key: u64, line: u64, how: Death) {
        if self.recent.len() >= GENERATION {
            self.forgot |= !self.old.is_empty();
            // The forgotten generation's table, cleared, holds the next one: after the
            // first two generations no death pays for a table growing.
            std::mem::swap(&mut self.recent, &mut self.old);
            self.recent.clear();
        }
        self.recent.insert(key, (line, how));
    }

    fn find(&self, key: u64) -> Option<(u64, Death)> {
        self.recent
            .get(&key)
            .or_else(|| self.old.get(&key))
            .copied()
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
    live: FxHashMap<u64, Live>,
    dead: Graveyard,
    /// Each arena's blocks, by key; keys freed or reused since are skipped when it ends.
    arenas: FxHashMap<ArenaId, Vec<u64>>,
}

impl Checker {
    pub fn new(naming: Naming) -> Checker {
        Checker {
            naming,
            live: FxHashMap::default(),
            dead: Graveyard::default(),
            arenas: FxHashMap::default(),
        }
    }

    /// Checks an event of a trace whose blocks are named by id, and records it.
    pub fn event(&mut self, line: u64, event: &Event) -> Result<(), Problem> {
        match *event {
            Event::Alloc { id, arena, .. } => self.alloc(id, id, arena),
            Event::Free { id, .. } => self.free(line, id).map(|_| ()),
            Event::Realloc { id, .. } => self.realloc(id).map(|_| ()),
            Event::Phase(_) => Ok(()),
            Event::ArenaCreate(a) => self.arena_create(a),
            Event::ArenaReset(a) => self.arena_end(line, a, false),
            Event::ArenaDrop(a) => self.arena_end(line, a, true),
        }
    }

    /// A block allocated under `key`, to be simulated as block `id`.
    pub fn alloc(&mut self, key: u64, id: BlockId, arena: Option<ArenaId>) -> Result<(), Problem> {
        // One lookup for the check and the insert: this runs for every allocation.
        let slot = match self.live.entry(key) {
            Entry::Occupied(_) => {
                return Err(Problem::new(
                    ProblemKind::AllocOfLive,
                    format!("alloc of {}, which is already live", self.naming.name(key)),
                ))
            }
            Entry::Vacant(slot) => slot,
        };
        if let Some(a) = arena {
            let Some(blocks) = self.arenas.get_mut(&a) else {
                return Err(Problem::new(
                    ProblemKind::BadArena,
                    format!("alloc in arena {a}, which was not created"),
                ));
            };
            blocks.push(key);
        }
        slot.insert(Live { id, arena });
        Ok(())
    }

    /// A free of `key`; returns the block's id.
    pub fn free(&mut self, line: u64, key: u64) -> Result<BlockId, Problem> {
        let Some(block) = self.live.remove(&key) else {
            return Err(self.not_live("free", key));
        };
        self.dead.bury(key, line, Death::Freed);
        Ok(block.id)
    }

    /// A realloc of `key` that keeps its key; returns the block's id.
    pub fn realloc(&mut self, key: u64) -> Result<BlockId, Problem> {
        match self.live.get(&key) {
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
        if self.live.contains_key(&key) {
            return Ok(ReallocOf::Live);
        }
        if self.dead.find(key).is_some() {
            return Err(self.not_live("realloc", key));
        }
        self.live.insert(
            key,
            Live {
                id: key,
                arena: None,
            },
        );
        Ok(ReallocOf::Nothing)
    }

    /// A realloc that moved the block from key `from` to key `to` (an mtrace realloc);
    /// returns the block's id. Checked whole before anything changes, so a refusal
    /// leaves the checker as it was.
    pub fn realloc_moved(&mut self, line: u64, from: u64, to: u64) -> Result<BlockId, Problem> {
        let block = *self
            .live
            .get(&from)
            .ok_or_else(|| self.not_live("realloc", from))?;
        if from != to {
            if self.live.contains_key(&to) {
                return Err(Problem::new(
                    ProblemKind::AllocOfLive,
                    format!(
                        "realloc of {} moved it to {}, which is already live",
                        self.naming.name(from),
                        self.naming.name(to)
                    ),
                ));
            }
            self.live.remove(&from);
            self.dead.bury(from, line, Death::Moved);
            self.live.insert(to, block);
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
            if self.live.get(&key).is_some_and(|b| b.arena == Some(a)) {
                self.live.remove(&key);
                self.dead.bury(key, line, how);
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
        let Some((line, how)) = self.dead.find(key) else {
            let message = if self.dead.forgot {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_graveyard_forgets_old_generations_and_says_so() {
        let mut g = Graveyard::default();
        for key in 0..(2 * GENERATION as u64 + 1) {
            g.bury(key, key + 1, Death::Freed);
        }
        assert!(g.forgot);
        assert_eq!(g.find(0), None);
        assert_eq!(
            g.find(2 * GENERATION as u64),
            Some((2 * GENERATION as u64 + 1, Death::Freed))
        );
        assert!(g.recent.len() + g.old.len() <= 2 * GENERATION);
    }
}
