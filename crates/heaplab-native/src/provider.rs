//! `MmapProvider`: the core's page provider over real mappings.
//!
//! reserve is `mmap(PROT_NONE)` (aligned by over-reserving and trimming), commit is
//! `mprotect(READ | WRITE)`, decommit is `madvise(MADV_DONTNEED)` then `mprotect(PROT_NONE)`,
//! release is `munmap`. The provider keeps its reservations so that residency can be
//! sampled with `mincore` and so that every address it is handed is checked to be its own
//! before memory is touched.

use std::collections::BTreeMap;

use heaplab_core::provider::{Addr, PageProvider, ProviderCaps, ProviderError};

use crate::{os, pattern};

/// A page provider over the process's own address space.
#[derive(Debug)]
pub struct MmapProvider {
    page_size: u64,
    /// Live reservations: start and length in bytes.
    regions: BTreeMap<Addr, u64>,
}

impl MmapProvider {
    /// A provider over real memory, or the platform's polite refusal.
    pub fn new() -> Result<MmapProvider, ProviderError> {
        if !os::SUPPORTED {
            return Err(ProviderError::Platform(
                "real memory needs Linux or macOS (mmap, mprotect, madvise, mincore)".into(),
            ));
        }
        Ok(MmapProvider {
            page_size: os::page_size(),
            regions: BTreeMap::new(),
        })
    }

    /// The operating system's page size, the only page size this provider has.
    pub fn os_page_size() -> u64 {
        os::page_size()
    }

    /// The live reservations, as (start, length) in bytes, in address order.
    pub fn regions(&self) -> impl Iterator<Item = (Addr, u64)> + '_ {
        self.regions.iter().map(|(&a, &l)| (a, l))
    }

    /// Whether `[addr, addr + bytes)` lies inside one live reservation.
    #[inline]
    fn owns(&self, addr: Addr, bytes: u64) -> bool {
        match self.regions.range(..=addr).next_back() {
            Some((&start, &len)) => addr
                .checked_add(bytes)
                .is_some_and(|end| end <= start + len),
            None => false,
        }
    }

    /// One byte per page of `[addr, addr + bytes)`, bit 0 set where the operating system
    /// has the page in RAM (`mincore`). The range must lie inside one reservation.
    pub fn residency(
        &self,
        addr: Addr,
        bytes: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), ProviderError> {
        if !self.owns(addr, bytes) || !addr.is_multiple_of(self.page_size) {
            return Err(ProviderError::BadRange {
                addr,
                bytes,
                why: "residency is asked of page-aligned ranges inside one reservation",
            });
        }
        // SAFETY: the range is inside a live reservation of ours.
        unsafe { os::residency(addr, bytes, out) }
    }

    /// How many pages of all reservations are resident, per `mincore`.
    pub fn resident_pages(&self) -> Result<u64, ProviderError> {
        let mut buf = Vec::new();
        let mut n = 0;
        for (addr, len) in self.regions() {
            self.residency(addr, len, &mut buf)?;
            n += buf.iter().filter(|&&b| b & 1 != 0).count() as u64;
        }
        Ok(n)
    }

    #[cold]
    #[inline(never)]
    fn not_ours(&self, what: &str, addr: Addr, bytes: u64) -> ! {
        // `Pages` checks every range against its reservations before the provider sees
        // it, so this is a bug in heaplab, and touching memory that is not ours would be
        // worse than stopping.
        panic!("MmapProvider::{what}({addr:#x}, {bytes}) outside its reservations")
    }
}

impl PageProvider for MmapProvider {
    fn caps(&self) -> ProviderCaps {
        ProviderCaps {
            page_size: self.page_size,
            can_decommit: true,
            can_release: true,
            zeroes_on_commit: true,
        }
    }

    fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        let at = os::reserve(bytes, align.max(self.page_size))?;
        self.regions.insert(at, bytes);
        Ok(at)
    }

    fn commit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if !self.owns(addr, bytes) {
            self.not_ours("commit", addr, bytes);
        }
        // SAFETY: the range is inside a live reservation of ours.
        unsafe { os::commit(addr, bytes) }
    }

    fn decommit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if !self.owns(addr, bytes) {
            self.not_ours("decommit", addr, bytes);
        }
        // SAFETY: ours, and the policy is done with what it held (the caller's contract).
        unsafe { os::decommit(addr, bytes) }
    }

    fn release(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if self.regions.get(&addr) != Some(&bytes) {
            self.not_ours("release", addr, bytes);
        }
        // SAFETY: exactly one live reservation of ours.
        unsafe { os::release(addr, bytes) }?;
        self.regions.remove(&addr);
        Ok(())
    }

    #[inline]
    fn write(&mut self, addr: Addr, bytes: u64) {
        if !self.owns(addr, bytes) {
            self.not_ours("write", addr, bytes);
        }
        // SAFETY: the range is inside our reservation and `Pages` only writes committed
        // pages; no Rust reference points into these mappings.
        unsafe { pattern::fill(addr, bytes) }
    }

    #[inline]
    fn verify(&self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if !self.owns(addr, bytes) {
            return Err(ProviderError::BadRange {
                addr,
                bytes,
                why: "verify outside the provider's reservations",
            });
        }
        // SAFETY: inside our reservation; a live block's pages are committed.
        if unsafe { pattern::holds(addr, bytes) } {
            Ok(())
        } else {
            Err(ProviderError::Clobbered { addr })
        }
    }
}

impl Drop for MmapProvider {
    /// Unmaps whatever the policy still holds, so repeated runs start from nothing.
    fn drop(&mut self) {
        for (addr, len) in std::mem::take(&mut self.regions) {
            // SAFETY: a live reservation of ours; nothing can use it after the drop.
            let _ = unsafe { os::release(addr, len) };
        }
    }
}
