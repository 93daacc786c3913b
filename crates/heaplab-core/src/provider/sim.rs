//! The simulated page provider: address space as integers, no memory behind it.

use std::collections::BTreeMap;

use super::{Addr, PageProvider, ProviderCaps, ProviderError};
use crate::ranges::{insert_coalesced, take_first_fit};

/// Which operating-system behaviour the simulated provider imitates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimMode {
    /// A virtual-memory OS: reserve, commit, decommit and release all work (mmap/madvise).
    Os,
    /// WebAssembly linear memory: it can only grow, so decommit and release give nothing
    /// back and the memory a program once had stays resident.
    WasmLinear,
}

/// The address space the simulated operating system hands out: 64 TiB, within the 47
/// bits of user space of x86-64 and AArch64 processes, and more than any simulation
/// needs. A configuration that reserves more at once is refused before it runs.
pub const OS_ADDRESS_SPACE: u64 = 1 << 46;

/// The address space of WebAssembly linear memory: wasm32 addresses stop at 4 GiB.
pub const WASM_ADDRESS_SPACE: u64 = 1 << 32;

impl SimMode {
    /// The bytes of address space a provider in this mode has, in all.
    pub const fn address_space(self) -> u64 {
        match self {
            SimMode::Os => OS_ADDRESS_SPACE,
            SimMode::WasmLinear => WASM_ADDRESS_SPACE,
        }
    }
}

/// Address space starts here so that address zero is never handed out.
const SIM_BASE: Addr = 1 << 32;

/// A provider that hands out simulated addresses and keeps no memory.
#[derive(Clone, Debug)]
pub struct SimProvider {
    mode: SimMode,
    page_size: u64,
    next: Addr,
    limit: Addr,
    /// Released ranges, coalesced, reused first-fit by later reservations the way an
    /// operating system reuses unmapped address space.
    free: BTreeMap<Addr, u64>,
    commits: u64,
    fail_commit_at: Option<u64>,
}

impl SimProvider {
    /// A provider with the given page size (a power of two) in the given mode.
    pub fn new(mode: SimMode, page_size: u64) -> SimProvider {
        debug_assert!(page_size.is_power_of_two());
        let span = mode.address_space();
        SimProvider {
            mode,
            page_size,
            next: SIM_BASE,
            limit: SIM_BASE + span,
            free: BTreeMap::new(),
            commits: 0,
            fail_commit_at: None,
        }
    }

    /// Makes the `n`th commit call from now on (1-based) fail with out-of-memory, so tests
    /// can check that policies report exhaustion instead of panicking.
    pub fn fail_commit_at(&mut self, n: u64) {
        self.fail_commit_at = Some(self.commits + n);
    }

    /// The mode this provider imitates.
    pub fn mode(&self) -> SimMode {
        self.mode
    }
}

impl PageProvider for SimProvider {
    fn caps(&self) -> ProviderCaps {
        let os = self.mode == SimMode::Os;
        ProviderCaps {
            page_size: self.page_size,
            can_decommit: os,
            can_release: os,
            zeroes_on_commit: true,
            // Linux backs ranges advised MADV_HUGEPAGE with huge pages (its THP setting
            // `madvise`, the default of Debian and most distributions); linear memory
            // has nothing of the kind.
            huge_page_size: if os {
                ProviderCaps::linux_huge_page(self.page_size)
            } else {
                0
            },
        }
    }

    fn reserve(&mut self, bytes: u64, align: u64) -> Result<Addr, ProviderError> {
        if let Some(at) = take_first_fit(&mut self.free, bytes, align) {
            return Ok(at);
        }
        let at = self.next.next_multiple_of(align);
        if at.checked_add(bytes).is_none_or(|end| end > self.limit) {
            return Err(ProviderError::OutOfMemory { bytes });
        }
        if at > self.next {
            // Keep the alignment gap usable for smaller reservations.
            self.free.insert(self.next, at - self.next);
        }
        self.next = at + bytes;
        Ok(at)
    }

    fn commit(&mut self, _addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        self.commits += 1;
        if self.fail_commit_at == Some(self.commits) {
            return Err(ProviderError::OutOfMemory { bytes });
        }
        Ok(())
    }

    fn decommit(&mut self, _addr: Addr, _bytes: u64) -> Result<(), ProviderError> {
        Ok(())
    }

    fn release(&mut self, addr: Addr, bytes: u64) -> Result<(), ProviderError> {
        insert_coalesced(&mut self.free, addr, bytes);
        // Space released at the top goes back to the untouched tail.
        if let Some((&start, &len)) = self.free.last_key_value() {
            if start + len == self.next {
                self.free.remove(&start);
                self.next = start;
            }
        }
        Ok(())
    }

    fn write(&mut self, _addr: Addr, _bytes: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_space_is_reused_and_coalesced() {
        let mut p = SimProvider::new(SimMode::Os, 4096);
        let a = p.reserve(8192, 4096).unwrap();
        let b = p.reserve(8192, 4096).unwrap();
        let c = p.reserve(4096, 4096).unwrap();
        assert_eq!((b - a, c - b), (8192, 8192));
        p.release(a, 8192).unwrap();
        p.release(b, 8192).unwrap();
        // The two released neighbours merged, so a 16 KiB reservation fits where they were.
        assert_eq!(p.reserve(16384, 4096).unwrap(), a);
        p.release(c, 4096).unwrap();
        assert_eq!(p.reserve(4096, 4096).unwrap(), c);
    }

    #[test]
    fn alignment_is_honoured_and_gaps_reused() {
        let mut p = SimProvider::new(SimMode::Os, 4096);
        let small = p.reserve(4096, 4096).unwrap();
        let big = p.reserve(1 << 22, 1 << 22).unwrap();
        assert_eq!(big % (1 << 22), 0);
        let gap = p.reserve(4096, 4096).unwrap();
        assert_eq!(gap, small + 4096);
    }

    #[test]
    fn wasm_linear_memory_stops_at_four_gib() {
        let mut p = SimProvider::new(SimMode::WasmLinear, 65536);
        assert!(p.reserve(1 << 31, 65536).is_ok());
        assert!(matches!(
            p.reserve(1 << 32, 65536),
            Err(ProviderError::OutOfMemory { .. })
        ));
    }

    #[test]
    fn the_nth_commit_can_be_refused() {
        let mut p = SimProvider::new(SimMode::Os, 4096);
        p.fail_commit_at(2);
        assert!(p.commit(SIM_BASE, 4096).is_ok());
        assert!(p.commit(SIM_BASE, 4096).is_err());
        assert!(p.commit(SIM_BASE, 4096).is_ok());
    }
}
