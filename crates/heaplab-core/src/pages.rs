//! The page map: the one place where page operations are checked and counted.
//!
//! Every policy talks to its provider through [`Pages`], which keeps a state byte per page
//! it has seen and the [`PageStats`]. Counting here, at the call sites, rather than inside
//! each provider is what lets the simulated and the real provider report the same figures.

use std::collections::BTreeMap;

use crate::page_dir::PageDir;
use crate::provider::{Addr, PageProvider, ProviderCaps, ProviderError};
use crate::ranges::{insert_coalesced, take_first_fit};
use crate::stats::PageStats;

const COMMITTED: u8 = 1;
const RESIDENT: u8 = 2;
const TOUCHED: u8 = 4;
/// The page lies in a range advised for transparent huge pages (`MADV_HUGEPAGE`).
const ADVISED: u8 = 8;

/// A provider with its page map and statistics.
#[derive(Clone, Debug)]
pub struct Pages<P> {
    provider: P,
    caps: ProviderCaps,
    shift: u32,
    dir: PageDir,
    /// Live reservations: start and length in bytes.
    reservations: BTreeMap<Addr, u64>,
    /// Reservations a policy released on a provider that cannot release. Their pages keep
    /// their state and are handed out again before the provider is asked for more, the way
    /// an allocator in WebAssembly reuses memory it can never return.
    retained: BTreeMap<Addr, u64>,
    stats: PageStats,
}

impl<P: PageProvider> Pages<P> {
    pub fn new(provider: P) -> Pages<P> {
        let caps = provider.caps();
        assert!(
            caps.page_size.is_power_of_two(),
            "page size must be a power of two"
        );
        Pages {
            provider,
            caps,
            shift: caps.page_size.trailing_zeros(),
            dir: PageDir::default(),
            reservations: BTreeMap::new(),
            retained: BTreeMap::new(),
            stats: PageStats::default(),
        }
    }

    pub fn caps(&self) -> ProviderCaps {
        self.caps
    }

    #[inline]
    pub fn page_size(&self) -> u64 {
        self.caps.page_size
    }

    /// Whether the bytes at `a` and `b` lie in one page: pages are aligned powers of two,
    /// so the addresses differ only below the page bits.
    #[inline]
    pub fn same_page(&self, a: Addr, b: Addr) -> bool {
        (a ^ b) < self.caps.page_size
    }

    /// Rounds `bytes` up to whole pages.
    #[inline]
    pub fn round_up(&self, bytes: u64) -> u64 {
        bytes.next_multiple_of(self.caps.page_size)
    }

    pub fn stats(&self) -> &PageStats {
        &self.stats
    }

    pub fn provider(&self) -> &P {
        &self.provider
    }

    pub fn provider_mut(&mut self) -> &mut P {
        &mut self.provider
    }

    /// Reserves address space for at least `bytes`, aligned to `align` (raised to a page).
    /// Returns the start; the length is `round_up(bytes)`.
    pub fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        if bytes == 0 || !align.is_power_of_two() {
            return Err(ProviderError::BadRange {
                addr: 0,
                bytes,
                why: "a reservation needs a non-zero size and a power-of-two alignment",
            });
        }
        let bytes = self.round_up(bytes);
        let align = align.max(self.caps.page_size);
        if !self.caps.can_release {
            if let Some(at) = take_first_fit(&mut self.retained, bytes, align) {
                self.reservations.insert(at, bytes);
                return Ok(at);
            }
        }
        let at = self.provider.reserve(bytes, align)?;
        self.reservations.insert(at, bytes);
        self.stats.reserve_ops += 1;
        self.stats.reserved_bytes.add(bytes);
        Ok(at)
    }

    /// Reserves and commits a range in one go, as `mmap` of read-write memory does: the
    /// mapping a policy gives a large block or a slab of its own. If the commit is refused
    /// the reservation is given back, so nothing leaks.
    pub fn map(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        let at = self.reserve(bytes, align)?;
        let len = self.round_up(bytes);
        if let Err(e) = self.commit(at, len) {
            self.release(at, len)?;
            return Err(e);
        }
        Ok(at)
    }

    /// Gives back a whole reservation made by [`Pages::reserve`].
    pub fn release(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        let bytes = self.round_up(bytes);
        if self.reservations.get(&addr) != Some(&bytes) {
            return Err(ProviderError::BadRange {
                addr,
                bytes,
                why: "release must name a whole reservation",
            });
        }
        self.reservations.remove(&addr);
        if !self.caps.can_release {
            insert_coalesced(&mut self.retained, addr, bytes);
            return Ok(());
        }
        self.provider.release(addr, bytes)?;
        // The next reservation there starts without advice.
        self.drop_pages(addr, bytes, ADVISED);
        self.stats.release_ops += 1;
        self.stats.reserved_bytes.sub(bytes);
        Ok(())
    }

    /// Commits a page-aligned range inside one reservation.
    pub fn commit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.check_range(addr, bytes)?;
        let (first, last) = self.page_span(addr, bytes);
        if !self.caps.can_decommit {
            // Memory that only grows has nothing to do for pages it already has, and a
            // real program would make no call for them.
            let fresh = (first..last)
                .filter(|&p| self.state(p) & COMMITTED == 0)
                .count();
            if fresh == 0 {
                return Ok(());
            }
        }
        self.provider.commit(addr, bytes)?;
        self.stats.commit_ops += 1;
        self.stats.committed_pages_total += last - first;
        let mut newly = 0;
        for page in first..last {
            let s = self.state_mut(page);
            if *s & COMMITTED == 0 {
                *s |= COMMITTED;
                newly += 1;
            }
        }
        self.stats.committed_pages.add(newly);
        Ok(())
    }

    /// Commits the pages of `[addr, addr + bytes)` that are not committed, one call per
    /// run of them; the range need not be page-aligned but must lie in one reservation.
    /// Policies that give back pages inside a heap use this before they reuse the space.
    pub fn commit_missing(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        for (at, len) in self.runs(addr, bytes, false) {
            self.commit(at, len)?;
        }
        Ok(())
    }

    /// Decommits the committed pages of the page-aligned range `[addr, addr + bytes)`, one
    /// call per run of them, so pages given back earlier are not counted twice.
    pub fn decommit_committed(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if !self.caps.can_decommit {
            return Ok(());
        }
        for (at, len) in self.runs(addr, bytes, true) {
            self.decommit(at, len)?;
        }
        Ok(())
    }

    /// How many bytes of the page-aligned range `[addr, addr + bytes)` lie in committed
    /// pages: what a [`Pages::decommit_committed`] of it would give back.
    pub fn committed_bytes(&self, addr: Addr, bytes: u64) -> u64 {
        self.runs(addr, bytes, true).iter().map(|r| r.1).sum()
    }

    /// The maximal runs of pages of `[addr, addr + bytes)` whose committed state is
    /// `committed`, as (start, length) in bytes.
    fn runs(&self, addr: Addr, bytes: u64, committed: bool) -> Vec<(Addr, u64)> {
        let mut out = Vec::new();
        if bytes == 0 {
            return out;
        }
        let (first, last) = self.page_span(addr, bytes);
        let wanted = |p: u64| (self.state(p) & COMMITTED != 0) == committed;
        let mut page = first;
        while page < last {
            if !wanted(page) {
                page += 1;
                continue;
            }
            let start = page;
            while page < last && wanted(page) {
                page += 1;
            }
            out.push((start << self.shift, (page - start) << self.shift));
        }
        out
    }

    /// Decommits a page-aligned range inside one reservation. On a provider that cannot
    /// decommit this does nothing and costs nothing: the memory stays resident.
    pub fn decommit(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.check_range(addr, bytes)?;
        if !self.caps.can_decommit {
            return Ok(());
        }
        self.provider.decommit(addr, bytes)?;
        self.stats.decommit_ops += 1;
        let (first, last) = self.page_span(addr, bytes);
        self.stats.decommitted_pages_total += last - first;
        self.drop_pages(addr, bytes, 0);
        Ok(())
    }

    /// Advises a page-aligned range inside one reservation for transparent huge pages, as
    /// `madvise(MADV_HUGEPAGE)` does. Under Linux's THP setting `madvise` the kernel then
    /// answers the first write into an aligned granule of `huge_page_size` bytes that
    /// lies wholly inside the advised, committed range, and of which nothing is resident,
    /// with a huge page: the whole granule becomes resident at once
    /// (`do_huge_pmd_anonymous_page`, mm/huge_memory.c). A granule that already holds
    /// small pages goes on faulting small pages: a decommit of part of a huge page splits
    /// it and keeps the rest resident. Once nothing of a granule is resident its empty
    /// page table is freed (`MADV_DONTNEED` reclaims empty page tables, mm/pt_reclaim.c,
    /// since Linux 6.14), so it takes a huge page again. The kernel's background
    /// collapse of small pages into huge ones (khugepaged) is left out, and a huge page
    /// is assumed to be at hand. Does nothing where the provider has no huge pages.
    pub fn advise_huge(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.check_range(addr, bytes)?;
        if self.caps.huge_page_size == 0 {
            return Ok(());
        }
        let (first, last) = self.page_span(addr, bytes);
        for page in first..last {
            *self.state_mut(page) |= ADVISED;
        }
        Ok(())
    }

    /// The first write into a page of an advised range: whether the kernel would back its
    /// granule with a huge page (see [`Pages::advise_huge`]), and if so makes the whole
    /// granule resident. The caller has checked that `page` is advised and not resident.
    #[cold]
    fn fault_huge(&mut self, page: u64) {
        let granule = self.caps.huge_page_size >> self.shift;
        let first = page / granule * granule;
        let eligible = (first..first + granule).all(|p| {
            let s = self.state(p);
            s & (ADVISED | COMMITTED) == (ADVISED | COMMITTED) && s & RESIDENT == 0
        });
        if !eligible {
            return;
        }
        for p in first..first + granule {
            let s = self.state_mut(p);
            let first_time = *s & TOUCHED == 0;
            *s |= RESIDENT | TOUCHED;
            self.stats.touched_pages += u64::from(first_time);
        }
        self.stats.resident_pages.add(granule);
        let (at, bytes) = (first << self.shift, self.caps.huge_page_size);
        self.provider.populate(at, bytes);
        self.provider.note(|| crate::decision::Decision::Rule {
            rule: "huge page",
            text: format!(
                "a first write made the {} KiB at {at:#x} resident whole: a transparent \
                 huge page",
                bytes >> 10
            ),
        });
    }

    /// Records that the program or the allocator writes `bytes` at `addr`. Every page of the
    /// range must be committed; pages written for the first time since their commit become
    /// resident.
    // Always inlined: it runs once or twice per event, and its fast path is a few
    // instructions that a call would double.
    #[inline(always)]
    pub fn touch(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if bytes == 0 {
            return Ok(());
        }
        let (first, last) = self.page_span(addr, bytes);
        if self.write_if_held(addr, bytes, first, last) {
            return Ok(());
        }
        self.touch_pages(addr, bytes, first, last)
    }

    /// The fast path of a write of pages `first..last`: nearly every write lands in one
    /// page that is already committed and resident, and then no state and no counter
    /// changes, only the provider sees the write. Whether it was that case.
    #[inline(always)]
    fn write_if_held(&mut self, addr: Addr, bytes: u64, first: u64, last: u64) -> bool {
        let held = last - first == 1
            && self.state(first) & (COMMITTED | RESIDENT) == (COMMITTED | RESIDENT);
        if held && bytes > 0 {
            self.provider.write(addr, bytes);
        }
        held
    }

    /// [`Pages::touch`] for a write the caller knows lands in committed, resident pages:
    /// it touched them a moment ago, or an invariant of its own keeps them so. Such a
    /// touch changes no state and no counter, so only the provider sees the write and the
    /// page map is not asked. Debug builds check the claim.
    #[inline(always)]
    pub fn write_resident(&mut self, addr: Addr, bytes: u64) {
        if bytes == 0 {
            return;
        }
        debug_assert!(
            {
                let (first, last) = self.page_span(addr, bytes);
                (first..last)
                    .all(|p| self.state(p) & (COMMITTED | RESIDENT) == (COMMITTED | RESIDENT))
            },
            "write_resident({addr:#x}, {bytes}) reaches a page that is not resident"
        );
        self.provider.write(addr, bytes);
    }

    /// [`Pages::touch`] for writes that span pages or reach a page not yet resident.
    #[cold]
    #[inline(never)]
    fn touch_pages(
        &mut self,
        addr: Addr,
        bytes: u64,
        first: u64,
        last: u64,
    ) -> Result<(), ProviderError> {
        for page in first..last {
            let s = self.state_mut(page);
            if *s & (COMMITTED | RESIDENT) == (COMMITTED | RESIDENT) {
                continue;
            }
            if *s & COMMITTED == 0 {
                return Err(ProviderError::NotCommitted {
                    addr: addr.max(page << self.shift),
                });
            }
            if *s & ADVISED != 0 {
                self.fault_huge(page);
                if self.state(page) & RESIDENT != 0 {
                    continue;
                }
            }
            let s = self.state_mut(page);
            let first_time = *s & TOUCHED == 0;
            *s |= RESIDENT | TOUCHED;
            self.stats.resident_pages.add(1);
            if first_time {
                self.stats.touched_pages += 1;
            }
        }
        self.provider.write(addr, bytes);
        Ok(())
    }

    /// Asks the provider whether the range still holds what was last written there; see
    /// [`PageProvider::verify`].
    #[inline]
    pub fn verify(&self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        if bytes == 0 {
            return Ok(());
        }
        self.provider.verify(addr, bytes)
    }

    /// [`Pages::touch`] if every byte of the range lies in committed pages, and whether it
    /// did: a policy writing a link into a free block whose pages it may have given back.
    /// The usual case, one page already resident, is one page lookup instead of two.
    #[inline]
    pub fn touch_if_committed(&mut self, addr: Addr, bytes: u64) -> Result<bool, ProviderError> {
        let (first, last) = self.page_span(addr, bytes.max(1));
        if self.write_if_held(addr, bytes, first, last) {
            return Ok(true);
        }
        self.touch_if_committed_slow(addr, bytes)
    }

    #[cold]
    #[inline(never)]
    fn touch_if_committed_slow(&mut self, addr: Addr, bytes: u64) -> Result<bool, ProviderError> {
        if !self.is_committed(addr, bytes) {
            return Ok(false);
        }
        self.touch(addr, bytes)?;
        Ok(true)
    }

    /// Whether every byte of the range lies in committed pages.
    #[inline]
    pub fn is_committed(&self, addr: Addr, bytes: u64) -> bool {
        let (first, last) = self.page_span(addr, bytes.max(1));
        // Policies mostly ask about a few bytes (a link, a header): one page.
        if last - first == 1 {
            return self.state(first) & COMMITTED != 0;
        }
        (first..last).all(|p| self.state(p) & COMMITTED != 0)
    }

    /// Whether the page holding `addr` is resident.
    pub fn is_resident(&self, addr: Addr) -> bool {
        self.state(addr >> self.shift) & RESIDENT != 0
    }

    /// Recounts the page map and compares it with the statistics.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (mut committed, mut resident, mut touched) = (0u64, 0u64, 0u64);
        for chunk in self.dir.chunks() {
            for &s in chunk.iter() {
                committed += u64::from(s & COMMITTED != 0);
                resident += u64::from(s & RESIDENT != 0);
                touched += u64::from(s & TOUCHED != 0);
                if s & RESIDENT != 0 && s & COMMITTED == 0 {
                    return Err("a page is resident but not committed".into());
                }
            }
        }
        let st = &self.stats;
        if committed != st.committed_pages.current {
            return Err(format!(
                "page map has {committed} committed pages, stats say {}",
                st.committed_pages.current
            ));
        }
        if resident != st.resident_pages.current {
            return Err(format!(
                "page map has {resident} resident pages, stats say {}",
                st.resident_pages.current
            ));
        }
        if touched != st.touched_pages {
            return Err(format!(
                "page map has {touched} touched pages, stats say {}",
                st.touched_pages
            ));
        }
        let held: u64 =
            self.reservations.values().sum::<u64>() + self.retained.values().sum::<u64>();
        if held != st.reserved_bytes.current {
            return Err(format!(
                "reservations hold {held} bytes, stats say {}",
                st.reserved_bytes.current
            ));
        }
        Ok(())
    }

    fn check_range(&self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        let mask = self.caps.page_size - 1;
        if bytes == 0 || addr & mask != 0 || bytes & mask != 0 {
            return Err(ProviderError::BadRange {
                addr,
                bytes,
                why: "not a non-empty page-aligned range",
            });
        }
        match self.reservations.range(..=addr).next_back() {
            Some((&start, &len)) if addr + bytes <= start + len => Ok(()),
            _ => Err(ProviderError::BadRange {
                addr,
                bytes,
                why: "not inside one reservation",
            }),
        }
    }

    /// Clears the committed and resident bits of a range, and the bits in `also`, keeping
    /// the gauges in step.
    fn drop_pages(&mut self, addr: Addr, bytes: u64, also: u8) {
        let (first, last) = self.page_span(addr, bytes);
        let (mut committed, mut resident) = (0, 0);
        for page in first..last {
            let Some(s) = self.dir.get_mut(page) else {
                continue;
            };
            committed += u64::from(*s & COMMITTED != 0);
            resident += u64::from(*s & RESIDENT != 0);
            *s &= !(COMMITTED | RESIDENT | also);
        }
        self.stats.committed_pages.sub(committed);
        self.stats.resident_pages.sub(resident);
    }

    /// Starts bringing the state of the page holding `addr` into the cache, for a write a
    /// few events later (a free that links the block into a list).
    #[inline]
    pub fn prefetch(&self, addr: Addr) {
        self.dir.prefetch(addr >> self.shift);
    }

    #[inline]
    fn page_span(&self, addr: Addr, bytes: u64) -> (u64, u64) {
        (addr >> self.shift, ((addr + bytes - 1) >> self.shift) + 1)
    }

    /// Hands a policy's decision to the provider (see [`PageProvider::note`]): nothing
    /// unless the provider watches.
    #[inline(always)]
    pub fn note<F: FnOnce() -> crate::decision::Decision>(&mut self, decision: F) {
        self.provider.note(decision);
    }

    /// Whether the provider keeps decisions right now (see [`PageProvider::watching`]).
    #[inline(always)]
    pub fn watching(&self) -> bool {
        self.provider.watching()
    }

    /// The reservations held, released ones a provider kept included, as (start, bytes)
    /// in address order: the address space a heap map draws.
    pub fn reservations(&self) -> Vec<(Addr, u64)> {
        let mut all: Vec<(Addr, u64)> = self
            .reservations
            .iter()
            .chain(self.retained.iter())
            .map(|(&a, &n)| (a, n))
            .collect();
        all.sort_unstable();
        all
    }

    /// Whether page number `page` (an address shifted by the page size) is committed and
    /// whether it is resident.
    pub fn page_flags(&self, page: u64) -> (bool, bool) {
        let s = self.state(page);
        (s & COMMITTED != 0, s & RESIDENT != 0)
    }

    #[inline]
    fn state(&self, page: u64) -> u8 {
        self.dir.get(page)
    }

    #[inline]
    fn state_mut(&mut self, page: u64) -> &mut u8 {
        self.dir.entry(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{SimMode, SimProvider};

    fn os() -> Pages<SimProvider> {
        Pages::new(SimProvider::new(SimMode::Os, 4096))
    }

    #[test]
    fn commit_write_decommit_recommit_counts_exactly() {
        let mut m = os();
        let a = m.reserve(4 * 4096, 4096).unwrap();
        m.commit(a, 4 * 4096).unwrap();
        // Committed but unwritten memory costs no RAM.
        assert_eq!(m.stats().committed_pages.current, 4);
        assert_eq!(m.stats().resident_pages.current, 0);
        // A write that straddles a page boundary makes both pages resident.
        m.touch(a + 4090, 10).unwrap();
        assert_eq!(m.stats().resident_pages.current, 2);
        assert_eq!(m.stats().touched_pages, 2);
        m.decommit(a, 2 * 4096).unwrap();
        assert_eq!(m.stats().committed_pages.current, 2);
        assert_eq!(m.stats().resident_pages.current, 0);
        assert_eq!(m.stats().resident_pages.peak, 2);
        // Writing a decommitted page is a policy bug, and it is reported.
        assert!(matches!(
            m.touch(a, 1),
            Err(ProviderError::NotCommitted { .. })
        ));
        m.commit(a, 4096).unwrap();
        m.touch(a, 1).unwrap();
        // The page was touched before, so touched does not grow; resident does.
        assert_eq!(m.stats().touched_pages, 2);
        assert_eq!(m.stats().resident_pages.current, 1);
        let s = *m.stats();
        assert_eq!((s.commit_ops, s.committed_pages_total), (2, 5));
        assert_eq!((s.decommit_ops, s.decommitted_pages_total), (1, 2));
        m.check_invariants().unwrap();
        m.release(a, 4 * 4096).unwrap();
        assert_eq!(m.stats().committed_pages.current, 0);
        assert_eq!(m.stats().reserved_bytes.current, 0);
        assert_eq!(m.stats().reserved_bytes.peak, 4 * 4096);
        m.check_invariants().unwrap();
    }

    const HUGE: u64 = 2 << 20;
    const PAGES_PER_HUGE: u64 = 512;

    #[test]
    fn an_advised_granule_becomes_resident_whole_at_its_first_write() {
        let mut m = os();
        assert_eq!(m.caps().huge_page_size, HUGE);
        let a = m.reserve(2 * HUGE, HUGE).unwrap();
        m.commit(a, 2 * HUGE).unwrap();
        m.advise_huge(a, 2 * HUGE).unwrap();
        m.touch(a + 12345, 8).unwrap();
        // The first write made its whole 2 MiB resident, and nothing of the next one.
        assert_eq!(m.stats().resident_pages.current, PAGES_PER_HUGE);
        assert_eq!(m.stats().touched_pages, PAGES_PER_HUGE);
        assert!(m.is_resident(a + HUGE - 1) && !m.is_resident(a + HUGE));
        // A decommit of part of it splits the huge page: the rest stays resident, and a
        // write into the part given back brings back one small page only.
        m.decommit(a, 64 << 10).unwrap();
        assert_eq!(m.stats().resident_pages.current, PAGES_PER_HUGE - 16);
        m.commit(a, 64 << 10).unwrap();
        m.touch(a, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, PAGES_PER_HUGE - 15);
        // Once none of the granule is resident, its next first write takes a huge page.
        m.decommit(a, HUGE).unwrap();
        m.commit(a, HUGE).unwrap();
        m.touch(a + HUGE - 1, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, PAGES_PER_HUGE);
        m.check_invariants().unwrap();
    }

    #[test]
    fn only_a_granule_advised_and_committed_whole_takes_a_huge_page() {
        let mut m = os();
        let a = m.reserve(3 * HUGE, HUGE).unwrap();
        // Not advised: small pages.
        m.commit(a, HUGE).unwrap();
        m.touch(a, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, 1);
        // Advised, but a page of the granule is not committed: small pages.
        m.advise_huge(a + HUGE, 2 * HUGE).unwrap();
        m.commit(a + HUGE, HUGE - 4096).unwrap();
        m.touch(a + HUGE, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, 2);
        // Advised and committed, but already holding a small page: small pages.
        m.commit(a + 2 * HUGE - 4096, 4096).unwrap();
        m.touch(a + HUGE + 4096, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, 3);
        // A released range forgets its advice.
        m.release(a, 3 * HUGE).unwrap();
        let b = m.reserve(HUGE, HUGE).unwrap();
        assert_eq!(b, a);
        m.commit(b, HUGE).unwrap();
        m.touch(b + HUGE / 2, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, 1);
        m.check_invariants().unwrap();
    }

    #[test]
    fn linear_memory_has_no_huge_pages() {
        let mut m = Pages::new(SimProvider::new(SimMode::WasmLinear, 65536));
        assert_eq!(m.caps().huge_page_size, 0);
        let a = m.reserve(1 << 30, 1 << 30).unwrap();
        m.commit(a, 1 << 30).unwrap();
        m.advise_huge(a, 1 << 30).unwrap();
        m.touch(a, 1).unwrap();
        assert_eq!(m.stats().resident_pages.current, 1);
    }

    #[test]
    fn ranges_outside_reservations_are_refused() {
        let mut m = os();
        let a = m.reserve(4096, 4096).unwrap();
        assert!(m.commit(a + 4096, 4096).is_err());
        assert!(m.commit(a + 1, 4096).is_err());
        assert!(m.release(a, 8192).is_err());
        assert_eq!(m.stats().commit_ops, 0);
    }

    #[test]
    fn wasm_linear_memory_keeps_everything() {
        let mut m = Pages::new(SimProvider::new(SimMode::WasmLinear, 65536));
        let a = m.reserve(65536, 65536).unwrap();
        m.commit(a, 65536).unwrap();
        m.touch(a, 100).unwrap();
        m.decommit(a, 65536).unwrap();
        assert_eq!(m.stats().resident_pages.current, 1);
        assert_eq!(m.stats().decommit_ops, 0);
        m.release(a, 65536).unwrap();
        assert_eq!(m.stats().reserved_bytes.current, 65536);
        // The released range comes back, still committed and resident, and committing it
        // again is free.
        let b = m.reserve(65536, 65536).unwrap();
        assert_eq!(a, b);
        m.commit(b, 65536).unwrap();
        assert_eq!(m.stats().commit_ops, 1);
        assert_eq!(m.stats().reserve_ops, 1);
        m.check_invariants().unwrap();
    }
}
