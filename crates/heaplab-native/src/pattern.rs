//! The bytes a block holds: a pattern that depends on where the write started and on each
//! byte's offset from there, so a block that another block overwrote no longer matches.
//!
//! Word `k` of a write at `addr` is `seed(addr) + k * STEP`, stored little-endian at
//! `addr + 8k`; a tail shorter than a word holds that word's first bytes. Writing whole
//! words keeps a write of every allocated byte close to `memset` speed.

/// An odd multiplier from splitmix64: consecutive words differ in every byte.
const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// The first word of a write at `addr`: a cheap hash of the address, so two blocks that
/// overlap at any offset write different bytes there.
#[inline]
fn seed(addr: u64) -> u64 {
    let x = (addr ^ (addr >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 27)
}

/// Writes the pattern of a write at `addr` over `[addr, addr + bytes)`.
///
/// # Safety
/// The range is writable memory that nothing else borrows.
#[inline]
pub unsafe fn fill(addr: u64, bytes: u64) {
    let p = addr as *mut u8;
    let words = (bytes / 8) as usize;
    let mut w = seed(addr);
    for k in 0..words {
        // SAFETY: word k lies inside the range; blocks need not be 8-aligned.
        unsafe { p.add(8 * k).cast::<u64>().write_unaligned(w.to_le()) };
        w = w.wrapping_add(STEP);
    }
    let tail = (bytes % 8) as usize;
    if tail > 0 {
        let b = w.to_le_bytes();
        // SAFETY: the tail lies inside the range.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p.add(8 * words), tail) };
    }
}

/// Whether `[addr, addr + bytes)` still holds what [`fill`] wrote there.
///
/// # Safety
/// The range is readable memory that nothing writes meanwhile.
#[inline]
pub unsafe fn holds(addr: u64, bytes: u64) -> bool {
    let p = addr as *const u8;
    let words = (bytes / 8) as usize;
    let mut w = seed(addr);
    // One flag for the whole block rather than an early exit keeps the loop simple enough
    // to vectorise; a clobbered block is a bug, not the case to optimise.
    let mut diff = 0u64;
    for k in 0..words {
        // SAFETY: word k lies inside the range.
        diff |= unsafe { p.add(8 * k).cast::<u64>().read_unaligned() } ^ w.to_le();
        w = w.wrapping_add(STEP);
    }
    let tail = (bytes % 8) as usize;
    if tail > 0 {
        let want = w.to_le_bytes();
        for (i, &b) in want.iter().enumerate().take(tail) {
            // SAFETY: the tail lies inside the range.
            diff |= u64::from(unsafe { *p.add(8 * words + i) } ^ b);
        }
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_reads_back_and_an_overlapping_write_breaks_it() {
        let mut buf = vec![0u64; 64];
        let base = buf.as_mut_ptr() as u64;
        for (off, len) in [(0, 1), (3, 13), (8, 200), (1, 7)] {
            // SAFETY: every range lies inside `buf`.
            unsafe {
                fill(base + off, len);
                assert!(holds(base + off, len));
            }
        }
        // SAFETY: as above.
        unsafe {
            fill(base, 128);
            fill(base + 64, 128);
            assert!(!holds(base, 128), "the second write clobbered the first");
            assert!(holds(base + 64, 128));
            // The same bytes read from another start do not match: the pattern depends
            // on where the write began.
            assert!(!holds(base + 72, 64));
        }
    }
}
