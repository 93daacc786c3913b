//! Page providers: where a policy's memory comes from.
//!
//! A provider hands out address space and turns pages of it into usable memory. It does
//! the platform work only; all counting happens one level up, in [`crate::pages::Pages`],
//! so that every provider (simulated or real) reports the same figures for the same calls.

mod sim;

pub use sim::{SimMode, SimProvider};

use std::fmt;

use crate::decision::Decision;

/// A simulated or real address. Addresses are plain integers so the same policy code runs
/// over simulated space and over real mappings.
pub type Addr = u64;

/// What a provider can do, as data rather than `cfg`s, so policies can ask instead of
/// guessing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderCaps {
    /// The granule of commit and decommit, a power of two.
    pub page_size: u64,
    /// Whether decommit gives memory back. WebAssembly linear memory cannot.
    pub can_decommit: bool,
    /// Whether release gives address space back. WebAssembly linear memory cannot.
    pub can_release: bool,
    /// Whether freshly committed pages read as zero.
    pub zeroes_on_commit: bool,
    /// The size of a transparent huge page, or 0 where the system has none. On Linux it
    /// is what one page-middle-directory entry maps: a page of page-table entries of 8
    /// bytes each, so 2 MiB for 4 KiB pages (`HPAGE_PMD_SIZE`). The page map
    /// ([`crate::pages::Pages`]) makes such a granule resident whole when the first write
    /// lands in it, in a range advised for huge pages.
    pub huge_page_size: u64,
}

impl ProviderCaps {
    /// The transparent huge page of a Linux with pages of `page_size` bytes: as many
    /// pages as one page of 8-byte page-table entries maps.
    pub const fn linux_huge_page(page_size: u64) -> u64 {
        page_size * (page_size / 8)
    }
}

/// Why a provider call failed. Every variant is recoverable: a policy turns it into an
/// out-of-memory or a bug report, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderError {
    /// The provider has no more address space or memory to give, or was told to refuse.
    OutOfMemory { bytes: u64 },
    /// A range was not page-aligned, empty, or not inside one reservation.
    BadRange {
        addr: Addr,
        bytes: u64,
        why: &'static str,
    },
    /// Memory was written that is not committed: a policy bug, reported rather than hidden.
    NotCommitted { addr: Addr },
    /// A block's bytes were not what was last written there: another block overlapped it.
    Clobbered { addr: Addr },
    /// The platform refused for a reason of its own.
    Platform(String),
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::OutOfMemory { bytes } => {
                write!(f, "out of memory: the page provider refused {bytes} bytes")
            }
            ProviderError::BadRange { addr, bytes, why } => {
                write!(f, "bad page range {addr:#x}+{bytes}: {why}")
            }
            ProviderError::NotCommitted { addr } => {
                write!(f, "write to {addr:#x}, which is not in a committed page")
            }
            ProviderError::Clobbered { addr } => write!(
                f,
                "the block at {addr:#x} was overwritten: two live blocks overlap"
            ),
            ProviderError::Platform(msg) => write!(f, "page provider: {msg}"),
        }
    }
}

impl std::error::Error for ProviderError {}

/// The operations a page source offers.
///
/// Preconditions shared by every method: ranges are non-empty and page-aligned (address and
/// length); `commit`, `decommit` and `release` ranges lie inside one earlier reservation.
/// [`crate::pages::Pages`] checks these before calling, so implementations may assume them.
pub trait PageProvider {
    /// Whether this provider keeps what [`PageProvider::note`] is handed right now: true
    /// only for teaching mode's watching provider while it explains (not while it runs
    /// fast to a far event). A policy asks it where even working out whether to note a
    /// decision would cost the usual path something (a buddy block kept committed on
    /// free); the default answer is a constant, so for every other provider the test and
    /// everything under it compile away.
    #[inline(always)]
    fn watching(&self) -> bool {
        false
    }

    /// What this provider can do.
    fn caps(&self) -> ProviderCaps;

    /// Reserves `bytes` of address space aligned to `align` (a power of two, at least a
    /// page). The range is not usable until committed. Fails with `OutOfMemory` when no
    /// address space is left.
    fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError>;

    /// Makes a reserved range readable and writable. Pages read as zero when
    /// `zeroes_on_commit`. Fails with `OutOfMemory` when the system has no memory to back it.
    fn commit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError>;

    /// Gives the memory of a committed range back; its contents are lost and it must be
    /// committed again before use. Only called when `can_decommit`.
    fn decommit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError>;

    /// Gives a whole reservation back, committed or not. Only called when `can_release`.
    fn release(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError>;

    /// The program writes `bytes` at `addr`, all inside committed pages. A simulated provider
    /// has nothing to do; a real one writes, so that the operating system's residency is the
    /// one being modelled.
    fn write(&mut self, addr: Addr, bytes: u64);

    /// Makes every page of a committed range resident at once, as the kernel does when it
    /// backs a transparent huge page. [`crate::pages::Pages`] calls it for a granule it
    /// has decided is a huge page, so a real provider's residency agrees with the page
    /// map; a simulated provider has nothing to do.
    fn populate(&mut self, addr: Addr, bytes: u64) {
        let _ = (addr, bytes);
    }

    /// Checks that the `bytes` at `addr` still hold what the last `write(addr, bytes)` put
    /// there, just before the block is freed or reallocated. A real provider writes a
    /// pattern that depends on the address, so a policy that hands out overlapping blocks
    /// is caught as an error rather than silently measured. A simulated provider has
    /// nothing to check.
    fn verify(&self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        let _ = (addr, bytes);
        Ok(())
    }

    /// Takes a policy's account of a decision, for teaching mode. Only the watching
    /// provider of teaching mode (`heaplab_app::observe`) keeps it; every other provider ignores it without
    /// calling `decision`, so with the observer off the call compiles to nothing (it is
    /// generic over the provider, not a `dyn` call or a flag tested per event).
    #[inline(always)]
    fn note<F: FnOnce() -> Decision>(&mut self, decision: F) {
        let _ = decision;
    }
}
