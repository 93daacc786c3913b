//! Platforms without the calls heaplab needs: everything compiles, nothing maps.

use heaplab_core::provider::{Addr, ProviderError};

/// Whether this platform can run heaplab over real memory.
pub const SUPPORTED: bool = false;

pub(crate) fn refusal() -> ProviderError {
    ProviderError::Platform(
        "real memory needs Linux or macOS (mmap, mprotect, madvise, mincore); this build has none"
            .into(),
    )
}

pub fn page_size() -> u64 {
    4096
}

pub fn reserve(_bytes: u64, _align: u64) -> Result<Addr, ProviderError> {
    Err(refusal())
}

pub fn reserve_window(_len: u64, _modulus: u64, _offset: u64) -> Option<Addr> {
    None
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn remap_inaccessible(_at: Addr, _bytes: u64) -> Result<(), ProviderError> {
    Err(refusal())
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn commit(_addr: Addr, _bytes: u64) -> Result<(), ProviderError> {
    Err(refusal())
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn decommit(_addr: Addr, _bytes: u64) -> Result<(), ProviderError> {
    Err(refusal())
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn populate(_addr: Addr, _bytes: u64) -> Result<(), ProviderError> {
    Err(refusal())
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn release(_addr: Addr, _bytes: u64) -> Result<(), ProviderError> {
    Err(refusal())
}

/// # Safety
/// Never maps anything, so there is nothing to assume.
pub unsafe fn residency(_addr: Addr, _bytes: u64, _out: &mut Vec<u8>) -> Result<(), ProviderError> {
    Err(refusal())
}

pub fn rss_bytes() -> Option<u64> {
    None
}

pub fn anon_rss_bytes() -> Option<u64> {
    None
}

pub fn reset_peak_rss() -> bool {
    false
}

pub fn peak_anon_rss_bytes() -> Option<u64> {
    None
}
