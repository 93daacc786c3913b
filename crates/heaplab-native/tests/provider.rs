//! `MmapProvider` through the core's `Pages`, checked against the kernel with `mincore`.

use heaplab_core::pages::Pages;
use heaplab_core::provider::{PageProvider, ProviderError};
use heaplab_native::MmapProvider;

fn pages() -> Pages<MmapProvider> {
    Pages::new(MmapProvider::new().expect("Linux or macOS"))
}

/// The kernel's residency of each page of a range, as booleans.
fn resident(m: &Pages<MmapProvider>, addr: u64, bytes: u64) -> Vec<bool> {
    let mut buf = Vec::new();
    m.provider().residency(addr, bytes, &mut buf).unwrap();
    buf.iter().map(|&b| b & 1 != 0).collect()
}

#[test]
fn caps_are_the_operating_systems() {
    let p = MmapProvider::new().unwrap();
    let caps = p.caps();
    assert_eq!(caps.page_size, MmapProvider::os_page_size());
    assert!(caps.page_size.is_power_of_two() && caps.page_size >= 4096);
    assert!(caps.can_decommit && caps.can_release && caps.zeroes_on_commit);
}

#[test]
fn reserve_commit_write_verify_decommit_release() {
    let mut m = pages();
    let page = m.page_size();
    let a = m.reserve(8 * page, 4 << 20).unwrap();
    assert_eq!(a % (4 << 20), 0, "aligned by over-reserving and trimming");
    assert_eq!(
        m.provider().regions().collect::<Vec<_>>(),
        vec![(a, 8 * page)]
    );
    // Reserved and committed memory costs nothing until written.
    m.commit(a, 8 * page).unwrap();
    assert_eq!(resident(&m, a, 8 * page), vec![false; 8]);
    // A write straddling pages 1 and 2 makes exactly those resident, in the model and in
    // the kernel.
    let block = a + page + page / 2;
    m.touch(block, page).unwrap();
    let want = [false, true, true, false, false, false, false, false];
    assert_eq!(resident(&m, a, 8 * page), want);
    for (i, &w) in want.iter().enumerate() {
        assert_eq!(m.is_resident(a + i as u64 * page), w);
    }
    assert_eq!(m.provider().resident_pages().unwrap(), 2);
    m.verify(block, page).unwrap();
    // Decommit gives the pages back: not resident, and zero when committed again, so the
    // block's bytes are gone.
    m.decommit(a, 4 * page).unwrap();
    assert_eq!(resident(&m, a, 8 * page), vec![false; 8]);
    m.commit(a, 4 * page).unwrap();
    assert!(matches!(
        m.verify(block, page),
        Err(ProviderError::Clobbered { addr }) if addr == block
    ));
    m.release(a, 8 * page).unwrap();
    assert_eq!(m.provider().regions().count(), 0);
    assert_eq!(m.provider().resident_pages().unwrap(), 0);
    m.check_invariants().unwrap();
}

#[test]
fn overlapping_blocks_are_caught() {
    let mut m = pages();
    let page = m.page_size();
    let a = m.map(4 * page, page).unwrap();
    // Two "blocks" of 256 bytes that overlap by 64: writing the second clobbers the first.
    m.touch(a + 1000, 256).unwrap();
    m.touch(a + 1192, 256).unwrap();
    assert_eq!(
        m.verify(a + 1000, 256),
        Err(ProviderError::Clobbered { addr: a + 1000 })
    );
    m.verify(a + 1192, 256).unwrap();
    // Blocks side by side do not disturb each other.
    m.touch(a + 8192, 100).unwrap();
    m.touch(a + 8292, 100).unwrap();
    m.verify(a + 8192, 100).unwrap();
    m.verify(a + 8292, 100).unwrap();
}

#[test]
fn dropping_the_provider_unmaps_what_is_left() {
    let mut m = pages();
    let page = m.page_size();
    let a = m.map(16 * page, page).unwrap();
    m.touch(a, 16 * page).unwrap();
    drop(m);
    // The range is unmapped: mincore fails on it (ENOMEM). Another test's thread may have
    // mapped part of it since, but not written all sixteen pages back in.
    let mut buf = Vec::new();
    // SAFETY: mincore only reads the page tables; an unmapped range is an error, not UB.
    match unsafe { heaplab_native::os::residency(a, 16 * page, &mut buf) } {
        Err(_) => {}
        Ok(()) => assert!(buf.iter().any(|&b| b & 1 == 0), "still resident after drop"),
    }
}

#[test]
fn reservations_are_laid_out_as_the_simulated_provider_lays_them_out() {
    use heaplab_core::provider::{SimMode, SimProvider};
    let mut real = pages();
    let page = real.page_size();
    let mut sim = Pages::new(SimProvider::new(SimMode::Os, page));
    // Reservations of mixed sizes and alignments, some released and reused: the kernel
    // would place these top-down, the simulated provider bottom-up, and policies break
    // ties by address.
    let mut live = Vec::new();
    for (i, (bytes, align)) in [
        (3 * page, page),
        (64 << 10, 64 << 10),
        (4 << 20, 4 << 20),
        (page, page),
        (1 << 20, 2 << 20),
        (5 * page, page),
    ]
    .into_iter()
    .enumerate()
    {
        let r = real.reserve(bytes, align).unwrap();
        let s = sim.reserve(bytes, align).unwrap();
        assert_eq!(r % align, 0);
        live.push((r, s, bytes));
        if i % 2 == 1 {
            let (r, s, b) = live.remove(0);
            real.release(r, b).unwrap();
            sim.release(s, b).unwrap();
        }
    }
    let offset = live[0].0.wrapping_sub(live[0].1);
    assert_eq!(
        offset % (1 << 36),
        0,
        "an offset that keeps every alignment"
    );
    for &(r, s, _) in &live {
        assert_eq!(r.wrapping_sub(s), offset, "same layout, shifted");
    }
    assert_eq!(real.provider().unplanned_reservations(), 0);
    // Planned reservations are real mappings: commit, write and read back.
    let (r, _, b) = live[1];
    real.commit(r, b).unwrap();
    real.touch(r, b).unwrap();
    real.verify(r, b).unwrap();
    assert_eq!(real.provider().resident_pages().unwrap(), b / page);
}
