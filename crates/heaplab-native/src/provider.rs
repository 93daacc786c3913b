//! `MmapProvider`: the core's page provider over real mappings.
//!
//! reserve is `mmap(PROT_NONE)`, commit is `mprotect(READ | WRITE)`, decommit is
//! `madvise(MADV_DONTNEED)` then `mprotect(PROT_NONE)`, release gives the mapping's memory
//! back. The provider keeps its reservations so that residency can be sampled with
//! `mincore` and so that every address it is handed is checked to be its own before memory
//! is touched.
//!
//! Where reservations go matters: policies break ties by address (best fit takes the
//! lowest of equal chunks) and align blocks by address, so a different layout can mean
//! different decisions. The kernel hands out mappings top-down, the simulated provider
//! bottom-up, and runs of the `browser` workload came out differently. So the provider
//! lays its reservations out exactly as the simulated provider would: a `SimProvider`
//! plans each address, and the reservation is mapped at that address plus a fixed offset
//! (a multiple of 1 TiB, so every alignment below that is the same) inside a window of
//! address space the provider holds for its lifetime. Reserve is then `mmap(MAP_FIXED,
//! PROT_NONE)` at the planned place and release maps `PROT_NONE` back over it (its memory
//! goes back as with `munmap`; the address space stays in the window, so no other mapping
//! of the process lands where a later reservation is planned). A reservation the window
//! cannot hold is mapped wherever the kernel likes (aligned by over-reserving and
//! trimming) and released with `munmap`, and counted in `unplanned_reservations`.

use std::collections::BTreeMap;

use heaplab_core::provider::{
    Addr, PageProvider, ProviderCaps, ProviderError, SimMode, SimProvider,
};

use crate::{os, pattern};

/// The window's size, and the modulus of its offset from the simulated addresses.
const WINDOW: u64 = 1 << 40;
/// A smaller window for address spaces without a free 2 TiB (alignment 64 GiB).
const SMALL_WINDOW: u64 = 1 << 36;

/// A page provider over the process's own address space.
#[derive(Debug)]
pub struct MmapProvider {
    page_size: u64,
    /// Live reservations: start and length in bytes.
    regions: BTreeMap<Addr, u64>,
    /// Plans every reservation's address as the simulated provider would place it.
    planner: SimProvider,
    /// The first address the planner hands out; planned `a` is mapped at
    /// `window.0 + (a - sim_base)`.
    sim_base: Addr,
    /// The address space held for planned reservations: start and length.
    window: Option<(Addr, u64)>,
    unplanned: u64,
}

impl MmapProvider {
    /// A provider over real memory, or the platform's polite refusal.
    pub fn new() -> Result<MmapProvider, ProviderError> {
        if !os::SUPPORTED {
            return Err(ProviderError::Platform(
                "real memory needs Linux or macOS (mmap, mprotect, madvise, mincore)".into(),
            ));
        }
        let page_size = os::page_size();
        let mut probe = SimProvider::new(SimMode::Os, page_size);
        let sim_base = probe.reserve(page_size, page_size)?;
        // The window starts where the simulated space starts, modulo its own size, so a
        // planned address and its real one agree in every bit below that.
        let window = [WINDOW, SMALL_WINDOW]
            .into_iter()
            .find_map(|len| os::reserve_window(len, len, sim_base % len).map(|at| (at, len)));
        Ok(MmapProvider {
            page_size,
            regions: BTreeMap::new(),
            planner: SimProvider::new(SimMode::Os, page_size),
            sim_base,
            window,
            unplanned: 0,
        })
    }

    /// How many reservations could not be placed where the simulated provider places them
    /// (outside the window): 0 means the layout, and so every decision, is the simulated one.
    pub fn unplanned_reservations(&self) -> u64 {
        self.unplanned
    }

    /// Whether a range lies in the window, where planned reservations live.
    fn in_window(&self, addr: Addr, bytes: u64) -> bool {
        self.window
            .is_some_and(|(at, len)| addr >= at && addr + bytes <= at + len)
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
            // The page map decides where huge pages would be and `populate` makes them
            // resident, so replays agree with the simulated provider on any machine.
            huge_page_size: ProviderCaps::linux_huge_page(self.page_size),
        }
    }

    fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        let align = align.max(self.page_size);
        let planned = self.planner.reserve(bytes, align)?;
        let at = self.window.map(|(w, _)| w + (planned - self.sim_base));
        let at = match at {
            Some(at) if self.in_window(at, bytes) => {
                // SAFETY: inside our window, where no live reservation overlaps (the
                // planner hands out disjoint ranges).
                unsafe { os::remap_inaccessible(at, bytes) }?;
                at
            }
            _ => {
                self.planner.release(planned, bytes)?;
                self.unplanned += 1;
                os::reserve(bytes, align)?
            }
        };
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
        if self.in_window(addr, bytes) {
            // SAFETY: exactly one live reservation of ours, inside our window.
            unsafe { os::remap_inaccessible(addr, bytes) }?;
            let (w, _) = self.window.expect("in the window");
            self.planner.release(self.sim_base + (addr - w), bytes)?;
        } else {
            // SAFETY: exactly one live reservation of ours, mapped on its own.
            unsafe { os::release(addr, bytes) }?;
        }
        self.regions.remove(&addr);
        Ok(())
    }

    fn populate(&mut self, addr: Addr, bytes: u64) {
        if !self.owns(addr, bytes) {
            self.not_ours("populate", addr, bytes);
        }
        // SAFETY: ours, committed, and none of it resident (the page map's promise). It
        // cannot fail where a provider can be made (the fallback writes each page).
        let _ = unsafe { os::populate(addr, bytes) };
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
    /// Unmaps whatever the policy still holds, and the window, so repeated runs start
    /// from nothing.
    fn drop(&mut self) {
        for (addr, len) in std::mem::take(&mut self.regions) {
            if !self.in_window(addr, len) {
                // SAFETY: a live reservation of ours; nothing can use it after the drop.
                let _ = unsafe { os::release(addr, len) };
            }
        }
        if let Some((at, len)) = self.window.take() {
            // SAFETY: the window and every reservation in it are ours and dead.
            let _ = unsafe { os::release(at, len) };
        }
    }
}
