//! Allocation policies. Each family is a plain `&mut self` state machine over a
//! [`Pages`]; nothing here knows whether the pages are simulated or real.
//!
//! Allocator metadata (headers, free lists, page descriptors) is kept out of band, in Rust
//! collections, so the same code runs over simulated addresses. The writes a real allocator
//! would make into the heap are modelled as [`Pages::touch`] calls, so resident memory is
//! what the real allocator would have.

pub mod buddy;
pub mod bump;
pub mod free_list;
pub mod hosted;
pub mod pool;
pub mod size_class;

use std::fmt;

use serde::{Serialize, Serializer};

use crate::clock::Now;
use crate::event::ArenaId;
use crate::pages::Pages;
use crate::params::{ParamError, ParamSpec, Params};
use crate::provider::{Addr, PageProvider, ProviderError};

pub use buddy::Buddy;
pub use bump::Bump;
pub use free_list::FreeList;
pub use hosted::Hosted;
pub use pool::{Pool, PoolCounters};
pub use size_class::SizeClass;

/// Why a policy could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The provider refused memory; the policy is unchanged and still consistent.
    OutOfMemory(ProviderError),
    /// The provider refused for another reason, which means the policy misused it.
    Provider(ProviderError),
    /// The request is impossible (an alignment that is not a power of two, a size that
    /// overflows the address space).
    Invalid(String),
    /// An allocator heaplab runs but did not write ([`hosted`]) failed a call: it trapped,
    /// ran past its budget, returned NULL or a payload that breaks a rule. The message
    /// names the call and what was wrong.
    Hosted(String),
}

impl From<ProviderError> for AllocError {
    fn from(e: ProviderError) -> AllocError {
        match e {
            ProviderError::OutOfMemory { .. } => AllocError::OutOfMemory(e),
            other => AllocError::Provider(other),
        }
    }
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::OutOfMemory(e) => write!(f, "{e}"),
            AllocError::Provider(e) => write!(f, "policy misused its page provider: {e}"),
            AllocError::Invalid(msg) | AllocError::Hosted(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for AllocError {}

/// A live block as the policy handed it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub addr: Addr,
    pub size: u64,
    pub arena: Option<ArenaId>,
}

/// A piece of free memory a policy keeps in one of its structures, for teaching mode's
/// block map: `structure` names where ("bin 4", "tcache", "top", "order 3", "span free
/// slot"), and `list`, for a structure that is a list, which list it is on and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreePiece {
    pub addr: Addr,
    pub size: u64,
    pub structure: String,
    pub list: Option<ListPlace>,
}

/// A free piece's place on one of the policy's lists: `list` names the list (one bin, one
/// thread's tcache bin of one size, one span's free slots), and `order` sorts the list's
/// pieces in the order the policy hands them out, lowest first. The block map draws the
/// links between a list's pieces in that order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListPlace {
    pub list: String,
    pub order: u64,
}

impl ListPlace {
    pub fn new(list: impl Into<String>, order: u64) -> Option<ListPlace> {
        Some(ListPlace {
            list: list.into(),
            order,
        })
    }
}

/// A stretch of memory a policy manages as one unit, live blocks and free slots alike,
/// for teaching mode's block map to draw a bracket over: a size-class span with its
/// class, a pool's chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub addr: Addr,
    pub size: u64,
    pub label: String,
}

/// How a policy laid out one live block, for teaching mode's block map: `header` bytes of
/// its own in front of the payload (a chunk's boundary tag), and `slot` bytes in all from
/// the start of the header, so that the bytes past the payload up to `slot` are padding
/// (alignment, size-class or power-of-two rounding, a pool's block size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    pub header: u64,
    pub slot: u64,
}

/// What every family does. Methods take the page map explicitly so that one policy value
/// can be moved between providers in tests and so the borrow of the pages stays short.
pub trait Policy {
    /// Allocates `size` bytes aligned to `align` (a power of two), inside `arena` if given,
    /// for the program's thread `thread`. An alignment that is not a power of two up to
    /// 1 GiB, or a size larger than any address space heaplab models, is refused here,
    /// before the family sees the request, so that no family repeats the checks; families
    /// implement [`Policy::alloc_checked`] and leave this method as it is.
    #[inline(always)]
    fn alloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        check_request(size, align)?;
        self.alloc_checked(mem, size, align, arena, thread)
    }

    /// The family's allocation, for a request [`Policy::alloc`] has checked. A family that
    /// hands a request it was given on to another policy calls this method of the other
    /// one, since the request is checked already.
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError>;

    /// Frees a block this policy handed out; `thread` is the freeing thread, which need
    /// not be the one that allocated it.
    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError>;

    /// Hints that `block` is about to be freed, so the policy can ask for the cache lines its
    /// `free` will read. [`crate::simulate::Simulation::apply_all`] calls it twice per freed
    /// block when many blocks are live: with `stage` 0 about sixteen events ahead and with
    /// `stage` 1 about eight ahead. A free that follows a chain of records (a segment's page
    /// to its span, the span to its bitmap) fetches the first link at stage 0 and reads it,
    /// arrived by then, at stage 1 to fetch the next. A hint changes no state and may be
    /// wrong (the block may be freed and reused before then); the default does nothing.
    /// [`Pages::prefetch`] fetches the state of the block's page, for a free that writes
    /// a link into the block.
    #[inline(always)]
    fn prefetch_free<P: PageProvider>(&self, _mem: &Pages<P>, _block: &Block, _stage: u32) {}

    /// Whether [`Policy::prefetch_free`] does anything: when it does not, the simulator
    /// does not look up the blocks to pass it.
    const HINTS_FREE: bool = false;

    /// Resizes a block, moving it if needed. On error the old block is still live. The
    /// new size and the alignment are checked here as [`Policy::alloc`] checks a request,
    /// and for the same reason: families implement [`Policy::realloc_checked`].
    #[inline(always)]
    fn realloc<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError>
    where
        Self: Sized,
    {
        check_request(new_size, align)?;
        self.realloc_checked(mem, block, new_size, align, thread)
    }

    /// The family's resize, for a new size and alignment [`Policy::realloc`] has checked.
    /// The default allocates, copies and frees, as `realloc` does when it cannot grow in
    /// place.
    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError>
    where
        Self: Sized,
    {
        free_list::default_realloc(self, mem, block, new_size, align, thread)
    }

    /// Whether the policy frees an arena's blocks itself on reset and drop. When it does
    /// not, the simulator frees them one by one.
    fn owns_arenas(&self) -> bool {
        false
    }

    fn arena_create(&mut self, _arena: ArenaId) {}

    fn arena_reset<P: PageProvider>(
        &mut self,
        _mem: &mut Pages<P>,
        _arena: ArenaId,
    ) -> Result<(), AllocError> {
        Ok(())
    }

    fn arena_drop<P: PageProvider>(
        &mut self,
        _mem: &mut Pages<P>,
        _arena: ArenaId,
    ) -> Result<(), AllocError> {
        Ok(())
    }

    /// Called once after each event with its number and, when the run has a clock, its
    /// time, for policies that act after a delay.
    fn tick<P: PageProvider>(&mut self, _mem: &mut Pages<P>, _now: Now) -> Result<(), AllocError> {
        Ok(())
    }

    /// Called at a time mark, between events: the clock has moved to `now` (the events so
    /// far, and the mark's time). A policy that reads the time within an event reads it
    /// here, so the next event sees the time it happens at rather than that of the event
    /// before the mark; nothing falls due until the tick after that event.
    fn time_mark(&mut self, _now: Now) {}

    /// Bytes of bookkeeping the modelled allocator would keep (headers, descriptors).
    fn metadata_bytes(&self) -> u64;

    /// The knob that sets the address space the policy reserves in one piece (a heap's
    /// segment, a buddy arena), and those bytes, for a policy whose knobs can ask for
    /// more than a provider has: a config is refused before it runs rather than at its
    /// first event.
    fn reserves_at_once(&self) -> Option<(&'static str, u64)> {
        None
    }

    /// Counters of the modelled allocator in the style of Pike's `Debug.memory_usage`
    /// (`num_malloc`, `malloc_bytes`, `free_block_bytes`, ...), current values. Policies
    /// that keep no such counters leave this empty, and reports show none for them.
    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Pushes the free pieces the policy keeps in its structures onto `out`, in any
    /// order, and says whether it reports them; a policy that does not leaves `out`
    /// alone and answers false. For teaching mode only; slow is fine.
    fn free_pieces(&self, _out: &mut Vec<FreePiece>) -> bool {
        false
    }

    /// Pushes the regions the policy manages as units (see [`Region`]) onto `out`, for
    /// teaching mode only; a policy without such units leaves `out` alone.
    fn regions(&self, _out: &mut Vec<Region>) {}

    /// The address of the live block the last failed call was about, when the policy
    /// can say: your own allocator's payload that overlaps one, which the run then names
    /// by its id. Asked only once a call has failed.
    fn failed_on(&self) -> Option<Addr> {
        None
    }

    /// How the policy laid out the live block of `size` bytes it handed out at `addr`
    /// (see [`BlockLayout`]), or `None` where it cannot say exactly. For teaching mode's
    /// block map only, never on the event path; slow is fine.
    fn block_layout(&self, _addr: Addr, _size: u64) -> Option<BlockLayout> {
        None
    }

    /// Checks the policy's own structures against each other and the page map. Slow; for
    /// tests.
    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String>;
}

/// A family of policies: its id, what it models and its knobs.
#[derive(Clone, Copy, Debug)]
pub struct FamilySpec {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
}

/// Declares every family once, from a list of `Variant(PolicyType) in module`, where the
/// module holds the family's [`FamilySpec`] as `FAMILY`: the [`Family`] names, the
/// [`FAMILIES`] registry, [`AnyPolicy`] with its builder, and the `dispatch!` macro all come
/// from that one list, so adding a family is one line of it and a family the list lacks is
/// a compile error wherever it is named. The leading `$` is passed through to write the
/// inner macro's own metavariables.
macro_rules! families {
    (
        $d:tt $($own:ident($own_ty:ident) in $own_module:ident),+;
        brought $($brought:ident($brought_ty:ident) in $brought_module:ident),+ $(,)?
    ) => {
        families! {
            @all $d [$($own),+] [$($own_module),+] [$($brought_module),+]
            $($own($own_ty) in $own_module,)+ $($brought($brought_ty) in $brought_module),+
        }
    };
    (
        @all $d:tt [$($own:ident),+] [$($own_module:ident),+] [$($brought_module:ident),+]
        $($name:ident($ty:ident) in $module:ident),+
    ) => {
        /// A family of policies, by name. Its id, title and knobs are in its
        /// [`FamilySpec`]; `Family::ALL` is every family, the engine's own first.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Family {
            $($name),+
        }

        impl Family {
            /// Every family: [`FAMILIES`], then [`BROUGHT_FAMILIES`].
            pub const ALL: &'static [Family] = &[$(Family::$name),+];

            /// The family's registry entry: id, title, description and knobs.
            pub const fn spec(self) -> &'static FamilySpec {
                match self {
                    $(Family::$name => &$module::FAMILY),+
                }
            }
        }

        /// The engine's own families: a policy of each is built from its knobs alone, so
        /// menus offer them, and tests build every one. The registries (these, each
        /// family's `FAMILY`, `PRESETS`, `WORKLOADS` and `METRICS`) are statics, not
        /// consts: a const is copied where it is used, and the page's module held two
        /// copies of every description and knob's text, 47 KB.
        pub static FAMILIES: &[FamilySpec] = &[$($own_module::FAMILY),+];

        /// The families whose policy the user brings (an allocator module): a config of
        /// one runs only once what it names has been loaded.
        pub static BROUGHT_FAMILIES: &[FamilySpec] = &[$($brought_module::FAMILY),+];

        /// A policy of any family, so the simulator can hold one without generics over
        /// families.
        // Buddy's free sets (2 KiB on 64-bit targets) lie inline, where a box cost a load on
        // every allocation and free; a simulation holds one `AnyPolicy` and never moves it on
        // its event path, so the space the smaller families leave unused does not matter.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug)]
        pub enum AnyPolicy {
            $($name($ty)),+
        }

        impl AnyPolicy {
            /// Builds a policy of `family` from resolved parameters for a provider with
            /// `page_size`.
            pub fn new(
                family: Family,
                params: &Params,
                page_size: u64,
            ) -> Result<AnyPolicy, ParamError> {
                Ok(match family {
                    $(Family::$name => AnyPolicy::$name($ty::new(params, page_size)?)),+
                })
            }

            /// The family of this policy.
            pub fn family(&self) -> Family {
                match self {
                    $(AnyPolicy::$name(_) => Family::$name),+
                }
            }

            /// A copy of the policy as it stands, for teaching mode's checkpoints; `None`
            /// for a family the user brings, whose state lives in its own instance.
            pub fn try_clone(&self) -> Option<AnyPolicy> {
                match self {
                    $(AnyPolicy::$own(p) => Some(AnyPolicy::$own(p.clone())),)+
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }

        /// Runs `$e` with `$p` bound to the policy inside an `AnyPolicy`, one arm per
        /// family, so each arm is compiled for its family and everything it calls can be
        /// inlined. The simulator uses it to dispatch once per event rather than once per
        /// policy call.
        macro_rules! dispatch {
            ($d self:expr, $d p:ident => $d e:expr) => {
                match $d self {
                    $($crate::policy::AnyPolicy::$name($d p) => $d e,)+
                }
            };
        }
    };
}

families! {
    $
    Bump(Bump) in bump,
    FreeList(FreeList) in free_list,
    SizeClass(SizeClass) in size_class,
    Buddy(Buddy) in buddy,
    Pool(Pool) in pool;
    brought Hosted(Hosted) in hosted,
}
pub(crate) use dispatch;

impl Family {
    /// The family's id, as configs and the command line name it (`size-class`).
    pub const fn id(self) -> &'static str {
        self.spec().id
    }

    /// The family with this id, if there is one.
    pub fn from_id(id: &str) -> Option<Family> {
        Family::ALL.iter().copied().find(|f| f.id() == id)
    }

    /// Whether the user brings this family's policy ([`BROUGHT_FAMILIES`]).
    pub fn is_brought(self) -> bool {
        BROUGHT_FAMILIES.iter().any(|f| f.id == self.id())
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A family serializes as its id, as a config names it.
impl Serialize for Family {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl From<Family> for String {
    fn from(f: Family) -> String {
        f.id().to_string()
    }
}

/// Looks a family up by id.
pub fn family(id: &str) -> Option<&'static FamilySpec> {
    Family::from_id(id).map(Family::spec)
}

impl AnyPolicy {
    /// Builds a policy from resolved parameters for a provider with `page_size`, naming
    /// its family by id.
    pub fn build(family: &str, params: &Params, page_size: u64) -> Result<AnyPolicy, ParamError> {
        let family = Family::from_id(family).ok_or_else(|| unknown_family(family))?;
        AnyPolicy::new(family, params, page_size)
    }
}

pub(crate) fn unknown_family(id: &str) -> ParamError {
    let ids: Vec<&str> = FAMILIES.iter().map(|f| f.id).collect();
    ParamError {
        field: "policy.family".into(),
        message: format!(
            "unknown policy family {id:?}{}; valid ones are: {}",
            crate::names::did_you_mean(id, &ids),
            ids.join(", ")
        ),
    }
}

impl Policy for AnyPolicy {
    #[inline]
    fn alloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
        arena: Option<ArenaId>,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        dispatch!(self, p => p.alloc_checked(mem, size, align, arena, thread))
    }

    #[inline]
    fn free<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        thread: u32,
    ) -> Result<(), AllocError> {
        dispatch!(self, p => p.free(mem, block, thread))
    }

    #[inline(always)]
    fn prefetch_free<P: PageProvider>(&self, mem: &Pages<P>, block: &Block, stage: u32) {
        dispatch!(self, p => p.prefetch_free(mem, block, stage))
    }

    const HINTS_FREE: bool = true;

    fn realloc_checked<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        block: Block,
        new_size: u64,
        align: u64,
        thread: u32,
    ) -> Result<Addr, AllocError> {
        dispatch!(self, p => p.realloc_checked(mem, block, new_size, align, thread))
    }

    fn owns_arenas(&self) -> bool {
        dispatch!(self, p => p.owns_arenas())
    }

    fn arena_create(&mut self, arena: ArenaId) {
        dispatch!(self, p => p.arena_create(arena))
    }

    fn arena_reset<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        arena: ArenaId,
    ) -> Result<(), AllocError> {
        dispatch!(self, p => p.arena_reset(mem, arena))
    }

    fn arena_drop<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        arena: ArenaId,
    ) -> Result<(), AllocError> {
        dispatch!(self, p => p.arena_drop(mem, arena))
    }

    #[inline]
    fn tick<P: PageProvider>(&mut self, mem: &mut Pages<P>, now: Now) -> Result<(), AllocError> {
        dispatch!(self, p => p.tick(mem, now))
    }

    fn time_mark(&mut self, now: Now) {
        dispatch!(self, p => p.time_mark(now))
    }

    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        dispatch!(self, p => p.extra_counters())
    }

    fn metadata_bytes(&self) -> u64 {
        dispatch!(self, p => p.metadata_bytes())
    }

    fn reserves_at_once(&self) -> Option<(&'static str, u64)> {
        dispatch!(self, p => p.reserves_at_once())
    }

    fn free_pieces(&self, out: &mut Vec<FreePiece>) -> bool {
        dispatch!(self, p => p.free_pieces(out))
    }

    fn failed_on(&self) -> Option<Addr> {
        dispatch!(self, p => p.failed_on())
    }

    fn regions(&self, out: &mut Vec<Region>) {
        dispatch!(self, p => p.regions(out))
    }

    fn block_layout(&self, addr: Addr, size: u64) -> Option<BlockLayout> {
        dispatch!(self, p => p.block_layout(addr, size))
    }

    fn check_invariants<P: PageProvider>(&self, mem: &Pages<P>) -> Result<(), String> {
        dispatch!(self, p => p.check_invariants(mem))
    }
}

/// Checks a request's size and alignment, the alignment first, for [`Policy::alloc`] and
/// [`Policy::realloc`]: the one place a request is checked before a family sees it.
#[inline(always)]
fn check_request(size: u64, align: u64) -> Result<(), AllocError> {
    check_align(align)?;
    check_size(size)
}

/// Checks an alignment request: a power of two no larger than a page-sized slab could hold.
#[inline]
fn check_align(align: u64) -> Result<(), AllocError> {
    if align.is_power_of_two() && align <= 1 << 30 {
        Ok(())
    } else {
        Err(bad_align(align))
    }
}

#[cold]
fn bad_align(align: u64) -> AllocError {
    AllocError::Invalid(format!(
        "alignment {align} is not a power of two up to 1 GiB"
    ))
}

/// Sizes larger than this are refused as impossible rather than overflowing arithmetic.
pub(crate) const MAX_REQUEST: u64 = 1 << 46;

/// Checks a request's size against [`MAX_REQUEST`].
#[inline]
fn check_size(size: u64) -> Result<(), AllocError> {
    if size <= MAX_REQUEST {
        Ok(())
    } else {
        Err(too_big(size))
    }
}

#[cold]
fn too_big(size: u64) -> AllocError {
    AllocError::Invalid(format!(
        "request of {size} bytes is larger than any address space heaplab models"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_found_by_its_id_and_builds_as_itself() {
        assert_eq!(Family::ALL.len(), FAMILIES.len() + BROUGHT_FAMILIES.len());
        for (&f, spec) in Family::ALL
            .iter()
            .zip(FAMILIES.iter().chain(BROUGHT_FAMILIES))
        {
            assert_eq!(f.id(), spec.id);
            assert_eq!(Family::from_id(spec.id), Some(f));
        }
        for (&f, spec) in Family::ALL.iter().zip(FAMILIES) {
            assert_eq!(f.id(), spec.id);
            assert_eq!(Family::from_id(spec.id), Some(f));
            assert_eq!(family(spec.id).map(|s| s.id), Some(spec.id));
            let params = Params::resolve(spec.params, &Default::default(), "p").unwrap();
            assert_eq!(AnyPolicy::new(f, &params, 4096).unwrap().family(), f);
        }
        assert_eq!(Family::from_id("free_list"), None);
        let e = AnyPolicy::build("free_list", &Params::default(), 4096).unwrap_err();
        assert_eq!(e.field, "policy.family");
        assert!(
            e.message
                .contains("bump, free-list, size-class, buddy, pool"),
            "{e}"
        );
    }
}
