//! The pages of the arenas known to be committed and resident, one bit each, so that the
//! usual free and allocation need not ask the page map.
//!
//! Writing a free block's link and checking that a block handed out is committed each cost
//! a page-map lookup, several times per event once blocks split and merge. A page that is
//! committed and resident stays so until the heap decommits it, and this heap decommits
//! only with `decommit_merged` on, when the record is not kept. So a bit, set once a write
//! found its page committed and resident, stays true; a clear bit only means "ask the page
//! map". Pages are numbered as the smallest blocks are, shifted: an arena's position above
//! the page's number in it.

use super::grow_bits::GrowBits;

/// Pages known committed and resident, by number.
#[derive(Clone, Debug, Default)]
pub(super) struct HeldPages {
    pages: GrowBits,
    /// A smallest block's index shifted right by this is its page's number.
    shift: u32,
    /// Whether pages are recorded at all.
    on: bool,
}

impl HeldPages {
    /// A record for pages of `1 << (shift + min_shift)` bytes, if `on`.
    pub(super) fn new(shift: u32, on: bool) -> HeldPages {
        HeldPages {
            pages: GrowBits::default(),
            shift,
            on,
        }
    }

    /// Whether the page holding smallest block `s` is known committed and resident. Off,
    /// the record is empty and nothing is known.
    #[inline(always)]
    pub(super) fn contains(&self, s: usize) -> bool {
        self.pages.contains(s >> self.shift)
    }

    /// Records that the page holding smallest block `s` is committed and resident.
    #[inline(always)]
    pub(super) fn insert(&mut self, s: usize) {
        if self.on {
            self.pages.set(s >> self.shift);
        }
    }

    /// The first smallest block of every page recorded, lowest first: for the invariant
    /// scan.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.pages.iter().map(move |p| p << self.shift)
    }

    /// Forgets every page: the pages' numbers changed.
    #[cold]
    pub(super) fn clear(&mut self) {
        self.pages = GrowBits::default();
    }
}
