//! The heap map's counts against the simulation's counters, blame's sum, and the
//! observer leaving results unchanged, for every family.

use super::blame::blame;
use super::moment::Moment;
use super::session::Session;
use heaplab_core::config::RunConfig;
use heaplab_core::policy::FAMILIES;
use heaplab_core::run::run;

fn churn(family: &str) -> RunConfig {
    let mut c = RunConfig::new("churn", family);
    c.workload.params.insert("scale".into(), 0.0005.into());
    c
}

#[test]
fn map_counts_equal_the_counters_at_several_events() {
    for f in FAMILIES {
        let config = churn(f.id);
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        for at in [1, n / 7, n / 3, n / 2, n - 1, n] {
            s.run_to(at).unwrap();
            let map = s.heap_map();
            let st = s.simulation().pages().stats();
            assert_eq!(
                map.counts.resident_pages, st.resident_pages.current,
                "{} {at}",
                f.id
            );
            assert_eq!(
                map.counts.committed_pages, st.committed_pages.current,
                "{} {at}",
                f.id
            );
            assert_eq!(
                map.counts.live_bytes,
                s.simulation().live_bytes(),
                "{} {at}",
                f.id
            );
            let on_pages: u64 = map.pages.iter().map(|p| p.live_bytes).sum();
            assert!(on_pages <= map.counts.live_bytes, "{} {at}", f.id);
            let b = blame(&map);
            assert_eq!(
                b.live + b.pinned + b.kept_by_policy,
                b.resident,
                "{} {at}",
                f.id
            );
            assert_eq!(b.resident, st.resident_pages.current * map.page_size);
            let shares: u64 = b.pinners.iter().map(|p| p.pinned).sum();
            assert_eq!(shares, b.pinned, "{} {at}", f.id);
            // Every grouping adds up to the pinned bytes and counts each pinner once; the
            // run has no call sites, so no grouping by site.
            let alone: u64 = b.pinners.iter().map(|p| p.alone_unpins).sum();
            assert!(b.by_site.is_empty(), "{} {at}", f.id);
            for (what, groups) in [("size", &b.by_size), ("phase", &b.by_phase)] {
                let sum: u64 = groups.iter().map(|g| g.pinned).sum();
                assert_eq!(sum, b.pinned, "{} {at}: by {what}", f.id);
                let blocks: u64 = groups.iter().map(|g| g.blocks).sum();
                assert_eq!(blocks, b.pinners.len() as u64, "{} {at}: by {what}", f.id);
                let each: u64 = groups.iter().map(|g| g.alone_unpins).sum();
                assert_eq!(each, alone, "{} {at}: by {what}", f.id);
            }
            // What freeing a pinner alone unpins is whole resident pages it is alone on.
            let ps = map.page_size;
            let one_block_pages = map
                .pages
                .iter()
                .filter(|p| p.resident && p.blocks.len() == 1)
                .count() as u64;
            assert!(alone <= one_block_pages * ps, "{} {at}", f.id);
            assert!(
                b.pinners.iter().all(|p| p.alone_unpins % ps == 0),
                "{} {at}",
                f.id
            );
        }
    }
}

#[test]
fn watching_changes_no_result() {
    for f in FAMILIES {
        let config = churn(f.id);
        let plain = run(&config).unwrap().report.summary;
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        s.run_to(n).unwrap();
        let st = s.simulation().pages().stats();
        assert_eq!(
            st.resident_pages.peak * s.heap_map().page_size,
            plain.peak_resident_bytes()
        );
        assert!(s.step().unwrap().is_none());
    }
}

#[test]
fn every_event_has_a_line_numbered_from_one() {
    let config = churn("free-list");
    let events = Session::workload_events(&config).unwrap();
    let steps = super::explain_range(&config, events, 3, 6).unwrap();
    let numbers: Vec<u64> = steps.iter().map(|s| s.event).collect();
    assert_eq!(numbers, [3, 4, 5, 6]);
    for s in &steps {
        assert!(
            s.line.starts_with(&format!("event {}: ", s.event)),
            "{}",
            s.line
        );
    }
}

#[test]
fn block_map_rows_cover_their_pages_and_agree_with_the_heap_map() {
    for f in FAMILIES {
        let config = churn(f.id);
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        s.run_to(n / 2).unwrap();
        let map = s.heap_map();
        let blocks = s.block_map(0, u64::MAX);
        assert_eq!(blocks.rows.len(), map.pages.len(), "{}", f.id);
        let (mut padded, mut headed) = (false, false);
        for (row, page) in blocks.rows.iter().zip(&map.pages) {
            assert_eq!((row.page, row.addr), (page.page, page.addr));
            use super::block_map::PieceKind;
            let mut at = row.addr;
            // Bytes of each kind: live, header, padding, free, overhead.
            let mut sums = [0u64; 5];
            for p in &row.pieces {
                assert_eq!(p.addr, at, "{} page {}", f.id, row.page);
                assert!(p.size > 0);
                at += p.size;
                let k = match p.kind {
                    PieceKind::Block { .. } => 0,
                    PieceKind::Header { .. } => 1,
                    PieceKind::Padding { .. } => 2,
                    PieceKind::Free { .. } => 3,
                    PieceKind::Overhead => 4,
                };
                sums[k] += p.size;
            }
            assert_eq!(at, row.addr + map.page_size, "{} page {}", f.id, row.page);
            assert_eq!(
                sums.iter().sum::<u64>(),
                map.page_size,
                "{} page {}",
                f.id,
                row.page
            );
            assert_eq!(sums[0], page.live_bytes, "{} page {}", f.id, row.page);
            padded |= sums[2] > 0;
            headed |= sums[1] > 0;
        }
        // Churn's sizes are not all multiples of any slot, so every family that lays its
        // blocks out pads some; the free-list heap puts a header before every block.
        if f.id != "bump" {
            assert!(padded, "{} shows no padding", f.id);
        }
        assert_eq!(headed, f.id == "free-list", "{}", f.id);
    }
}

#[test]
fn the_free_lists_block_map_shows_a_freed_chunk_on_its_list() {
    use super::block_map::PieceKind;
    use heaplab_core::event::Event;
    let config = RunConfig::new("churn", "free-list");
    let events = vec![Event::alloc(1, 48), Event::alloc(2, 100), Event::free(1)];
    let mut s = Session::new(&config, events).unwrap();
    s.run_to(3).unwrap();
    let blocks = s.block_map(0, 1);
    assert!(blocks.reports_free);
    let kinds: Vec<&PieceKind> = blocks.rows[0].pieces.iter().map(|p| &p.kind).collect();
    assert!(
        matches!(
            kinds[..],
            [
                PieceKind::Overhead,
                PieceKind::Free { .. },
                PieceKind::Header { id: 2 },
                PieceKind::Block { id: 2, event: 2 },
                PieceKind::Padding { id: 2 },
                PieceKind::Free { .. }
            ]
        ),
        "{kinds:?}"
    );
    let structures: Vec<&str> = kinds
        .iter()
        .filter_map(|k| match k {
            PieceKind::Free { structure, .. } => Some(structure.as_str()),
            _ => None,
        })
        .collect();
    // Best fit, the family's default, keeps no bins: its chunks are listed by size.
    assert_eq!(structures, ["free chunks of 64 B", "top"]);
}

#[test]
fn every_familys_free_pieces_miss_the_live_blocks_and_each_other() {
    for f in FAMILIES {
        let config = churn(f.id);
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        s.run_to(n / 2).unwrap();
        let mut free = Vec::new();
        assert!(s.simulation().free_pieces(&mut free), "{}", f.id);
        assert!(!free.is_empty(), "{} reports no free piece", f.id);
        let mut spans: Vec<(u64, u64, String)> = s
            .simulation()
            .live()
            .map(|(id, b)| {
                // A block's whole slot, header and padding too, where the policy says.
                let (start, end) = s
                    .simulation()
                    .block_layout(b.addr, b.size)
                    .map_or((b.addr, b.addr + b.size), |l| {
                        (b.addr - l.header, b.addr - l.header + l.slot)
                    });
                (start, end, format!("block {id}"))
            })
            .filter(|&(start, end, _)| end > start)
            .chain(
                free.iter()
                    .map(|p| (p.addr, p.addr + p.size, p.structure.clone())),
            )
            .collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(
                w[0].1 <= w[1].0,
                "{}: {} {:#x}..{:#x} overlaps {} at {:#x}",
                f.id,
                w[0].2,
                w[0].0,
                w[0].1,
                w[1].2,
                w[1].0
            );
        }
    }
}

/// The sizes of the header, payload and padding of block 1, alone in the heap of `family`
/// with `params` after it asked for `size` bytes, as page 0 of the block map shows them.
fn block_parts(family: &str, params: &[(&str, &str)], size: u64) -> [u64; 3] {
    use super::block_map::PieceKind;
    use heaplab_core::event::Event;
    let mut config = RunConfig::new("churn", family);
    for &(k, v) in params {
        config.policy.params.insert(k.into(), v.into());
    }
    let mut s = Session::new(&config, vec![Event::alloc(1, size)]).unwrap();
    s.run_to(1).unwrap();
    let blocks = s.block_map(0, u64::MAX);
    let mut parts = [0; 3];
    for p in blocks.rows.iter().flat_map(|r| &r.pieces) {
        match p.kind {
            PieceKind::Header { id: 1 } => parts[0] += p.size,
            PieceKind::Block { id: 1, .. } => parts[1] += p.size,
            PieceKind::Padding { id: 1 } => parts[2] += p.size,
            _ => {}
        }
    }
    parts
}

#[test]
fn the_block_map_shows_each_familys_headers_and_padding() {
    // A free-list chunk: an 8-byte header, the payload, and rounding up to 16 bytes.
    let fl = [("header_size", "8"), ("alignment", "16")];
    assert_eq!(block_parts("free-list", &fl, 40), [8, 40, 0]);
    assert_eq!(block_parts("free-list", &fl, 44), [8, 44, 12]);
    // A 40-byte block in the 48-byte class.
    assert_eq!(block_parts("size-class", &[], 40), [0, 40, 8]);
    // A 100-byte block in a 128-byte buddy block; with a 16-byte header it still fits
    // one, and with a 32-byte header it needs the next order.
    assert_eq!(block_parts("buddy", &[], 100), [0, 100, 28]);
    assert_eq!(
        block_parts("buddy", &[("header_size", "16")], 100),
        [16, 100, 12]
    );
    assert_eq!(
        block_parts("buddy", &[("header_size", "32")], 100),
        [32, 100, 124]
    );
    // A pool block of the pool's block size.
    assert_eq!(
        block_parts("pool", &[("block_size", "64")], 40),
        [0, 40, 24]
    );
    // A bump arena does not say how it laid its blocks out.
    assert_eq!(block_parts("bump", &[], 40)[0], 0);
    assert_eq!(block_parts("bump", &[], 40)[2], 0);
}

/// The holes (free pieces other than the top) and the links of the free-list heap after
/// two holes were made, of 200 and 80 bytes, and 64 bytes were asked for, under `fit`;
/// with the address block 5 got and those blocks 1 and 3 had.
fn holes_after_a_fit(fit: &str) -> (Vec<u64>, usize, [u64; 3]) {
    use heaplab_core::event::Event;
    let mut config = RunConfig::new("churn", "free-list");
    config.policy.params.insert("fit".into(), fit.into());
    let events = vec![
        Event::alloc(1, 200),
        Event::alloc(2, 16),
        Event::alloc(3, 80),
        Event::alloc(4, 16),
        Event::free(1),
        Event::free(3),
    ];
    let addr = |s: &Session, id| {
        s.simulation()
            .live()
            .find(|&(i, _)| i == id)
            .unwrap()
            .1
            .addr
    };
    let mut s1 = Session::new(&config, events[..4].to_vec()).unwrap();
    s1.run_to(4).unwrap();
    let (a1, a3) = (addr(&s1, 1), addr(&s1, 3));
    let mut all = events;
    all.push(Event::alloc(5, 64));
    let mut s = Session::new(&config, all).unwrap();
    s.run_to(7).unwrap();
    let blocks = s.block_map(0, 1);
    let holes = blocks.rows[0]
        .pieces
        .iter()
        .filter_map(|p| match &p.kind {
            super::block_map::PieceKind::Free { structure, .. } if structure != "top" => {
                Some(p.size)
            }
            _ => None,
        })
        .collect();
    (holes, blocks.links.len(), [addr(&s, 5), a1, a3])
}

#[test]
fn first_fit_and_best_fit_leave_different_holes_and_the_list_links_them() {
    let (first, first_links, [a5, a1, _]) = holes_after_a_fit("first");
    // First fit takes the lowest hole that fits, the 200-byte one, and leaves its rest.
    assert_eq!(a5, a1);
    let (best, best_links, [b5, _, b3]) = holes_after_a_fit("best");
    // Best fit takes the smallest that fits, the 80-byte one.
    assert_eq!(b5, b3);
    assert_ne!(first, best);
    assert_eq!(first.len(), 2, "{first:?}");
    // First fit's one address-ordered list links its two holes; best fit's holes are
    // of different sizes, so each is alone in its bin.
    assert_eq!(first_links, 1);
    assert_eq!(best_links, 0);
}

#[test]
fn a_lists_links_follow_the_order_it_hands_pieces_out() {
    use super::block_map::PieceKind;
    use heaplab_core::event::Event;
    // Three chunks of one size freed into one best-fit bin, highest address first: the
    // bin hands out the lowest address first, so its links run upwards in address.
    let config = RunConfig::new("churn", "free-list");
    let mut events = Vec::new();
    for id in 1..=6 {
        events.push(Event::alloc(id, 48));
    }
    for id in [5, 3, 1] {
        events.push(Event::free(id));
    }
    let n = events.len();
    let mut s = Session::new(&config, events).unwrap();
    s.run_to(n).unwrap();
    let blocks = s.block_map(0, 1);
    assert_eq!(blocks.links.len(), 2, "{:?}", blocks.links);
    for l in &blocks.links {
        assert!(l.from < l.to, "{l:?}");
        assert_eq!(l.list, blocks.links[0].list);
    }
    let ranks: Vec<u32> = blocks.rows[0]
        .pieces
        .iter()
        .filter_map(|p| match &p.kind {
            PieceKind::Free { rank, .. } => *rank,
            _ => None,
        })
        .collect();
    assert_eq!(ranks, [0, 1, 2]);
}

#[test]
fn a_size_class_block_map_brackets_its_spans() {
    let config = churn("size-class");
    let events = Session::workload_events(&config).unwrap();
    let n = events.len();
    let mut s = Session::new(&config, events).unwrap();
    s.run_to(n / 2).unwrap();
    let map = s.heap_map();
    let first = map.pages.iter().find(|p| p.resident).unwrap().page;
    let blocks = s.block_map(first, 8);
    assert!(!blocks.regions.is_empty());
    assert!(
        blocks.regions.iter().any(|r| r.label.contains("class")),
        "{:?}",
        blocks.regions
    );
    // Slots freed in one span go on its free list, linked in the order it reuses them.
    use heaplab_core::event::Event;
    let mut events: Vec<Event> = (1..=8).map(|id| Event::alloc(id, 48)).collect();
    events.extend([2, 4, 6].map(Event::free));
    let mut s = Session::new(&config, events).unwrap();
    s.run_to(11).unwrap();
    let blocks = s.block_map(0, 1);
    assert_eq!(blocks.links.len(), 2, "{:?}", blocks.links);
    assert!(blocks.links[0].list.contains("free slots"));
}

#[test]
fn the_address_index_finds_the_block_a_look_at_every_block_finds() {
    // Every family, stepping (which keeps the index) through a run with frees and
    // reallocs: on every committed page, the lowest live block found through the index is
    // the one found by looking at every live block.
    for f in FAMILIES {
        let family = f.id;
        let config = churn(family);
        let events = Session::workload_events(&config).unwrap();
        let mut s = Session::new(&config, events).unwrap();
        let mut checked = 0;
        while s.step().unwrap().is_some() {
            if !s.position().is_multiple_of(97) {
                continue;
            }
            let at = s.moment();
            assert!(at.by_addr.is_some(), "{family}: stepping keeps the index");
            let scan = Moment {
                by_addr: None,
                ..at
            };
            let ps = at.simulation.pages().page_size();
            for page in s.heap_map().pages {
                let a = super::heap_map::lowest_on(at, page.addr, ps);
                let b = super::heap_map::lowest_on(scan, page.addr, ps);
                assert_eq!(
                    a,
                    b,
                    "{family}: page {} at event {}",
                    page.page,
                    s.position()
                );
                checked += usize::from(a.is_some());
            }
        }
        assert!(checked > 20, "{family}: only {checked} pages with a block");
    }
}
