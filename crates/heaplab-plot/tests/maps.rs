//! Teaching mode's two maps drawn from real runs: an SVG snapshot of each
//! (`UPDATE_EXPECT=1 cargo test -p heaplab-plot` rewrites them when a change is meant),
//! and what a person relies on: the page or piece found under a pixel is the one drawn
//! there, a zoom shows only its pages, and first fit and best fit leave different holes
//! with the free list's links drawn between them.

#[path = "support/svg.rs"]
mod svg_check;

use expect_test::expect_file;
use heaplab_app::observe::block_map::PieceKind;
use heaplab_app::observe::Teaching;
use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_plot::{
    block_map_layout, block_map_svg, heap_map_layout, heap_map_svg, BlockMapChart, BlockMapLayout,
    ByteWindow, HeapMapChart,
};

/// The heap map as SVG, which must parse as one XML document.
fn heap_svg(chart: &HeapMapChart, width: u32) -> Result<String, heaplab_plot::PlotError> {
    let svg = heap_map_svg(chart, width)?;
    svg_check::parse("the heap map", &svg);
    Ok(svg)
}

/// The block map as SVG, which must parse as one XML document.
fn block_svg(chart: &BlockMapChart, width: u32) -> Result<String, heaplab_plot::PlotError> {
    let svg = block_map_svg(chart, width)?;
    svg_check::parse("the block map", &svg);
    Ok(svg)
}

/// A free-list heap under `fit` after two holes (200 and 80 bytes, kept apart by live
/// blocks) were made and 64 bytes asked for, then one more 48-byte hole made.
fn fits(fit: &str) -> Teaching {
    let mut config = RunConfig::new("churn", "free-list");
    config.policy.params.insert("fit".into(), fit.into());
    let events = vec![
        Event::alloc(1, 200),
        Event::alloc(2, 16),
        Event::alloc(3, 80),
        Event::alloc(4, 16),
        Event::alloc(6, 48),
        Event::alloc(7, 16),
        Event::free(1),
        Event::free(3),
        Event::free(6),
        Event::alloc(5, 64),
    ];
    let n = events.len();
    let mut t = Teaching::new(&config, events).unwrap();
    t.seek(n).unwrap();
    t
}

/// A size-class run spread over several pages, half way through.
fn spread() -> Teaching {
    let config = RunConfig::new("churn", "size-class");
    let mut events = Vec::new();
    for id in 0..600u64 {
        events.push(Event::alloc(id, 32 + (id % 7) * 96));
    }
    for id in (0..600u64).filter(|id| id % 3 != 0) {
        events.push(Event::free(id));
    }
    let n = events.len();
    let mut t = Teaching::new(&config, events).unwrap();
    t.seek(n).unwrap();
    t
}

#[test]
fn the_heap_map_snapshot() {
    let t = spread();
    let map = t.heap_map();
    let chart = HeapMapChart {
        title: "size-class after 1,000 events",
        key: true,
        selected: map.pages.first().map(|p| p.page),
        ..HeapMapChart::new(&map)
    };
    let svg = heap_svg(&chart, 640).unwrap();
    expect_file!["snapshots/heap-map.svg"].assert_eq(&svg);
    assert!(svg.contains("only reserved"), "a long reserved run folds");
    assert!(
        svg.contains("kept resident by a pinning block"),
        "the key is drawn"
    );
}

#[test]
fn the_page_under_a_pixel_is_the_page_drawn_there() {
    let t = spread();
    let map = t.heap_map();
    let chart = HeapMapChart::new(&map);
    let laid = heap_map_layout(&chart, 800);
    let cells: Vec<_> = laid.cells().collect();
    assert!(cells.len() > 8, "{}", cells.len());
    for c in &cells {
        let (x, y) = (f64::from(c.x) + 2.0, f64::from(c.y) + 2.0);
        assert_eq!(laid.page_at(x, y), Some(c.page));
        assert_eq!(laid.cell(c.page), Some(*c));
    }
    // Every committed page has a square; a point left of the grid or below it has none.
    for p in &map.pages {
        assert!(laid.cell(p.page).is_some(), "page {}", p.page);
    }
    assert_eq!(laid.page_at(-5.0, 10.0), None);
    assert_eq!(laid.page_at(10.0, f64::from(laid.height) + 50.0), None);
}

#[test]
fn a_zoom_shows_its_pages_only_in_bigger_squares() {
    let t = spread();
    let map = t.heap_map();
    let first = map.pages[0].page;
    let whole = heap_map_layout(&HeapMapChart::new(&map), 800);
    let zoomed = heap_map_layout(
        &HeapMapChart {
            zoom: Some((first + 3, first)),
            ..HeapMapChart::new(&map)
        },
        800,
    );
    let pages: Vec<u64> = zoomed.cells().map(|c| c.page).collect();
    assert_eq!(pages, (first..=first + 3).collect::<Vec<_>>());
    assert!(
        zoomed.cell > whole.cell,
        "{} vs {}",
        zoomed.cell,
        whole.cell
    );
    assert_eq!((zoomed.from, zoomed.to), (first, first + 3));
}

#[test]
fn first_fit_and_best_fit_draw_different_holes_and_the_lists_links() {
    let holes = |t: &Teaching| -> Vec<(u64, u64)> {
        t.block_map(0, 1).rows[0]
            .pieces
            .iter()
            .filter(|p| matches!(&p.kind, PieceKind::Free { structure, .. } if structure != "top"))
            .map(|p| (p.addr, p.size))
            .collect()
    };
    let (first, best) = (fits("first"), fits("best"));
    assert_ne!(holes(&first), holes(&best));
    let blocks = first.block_map(0, 1);
    // First fit keeps one address-ordered list: three holes, two links.
    assert_eq!(blocks.links.len(), 2, "{:?}", blocks.links);
    let chart = BlockMapChart {
        title: "first fit",
        key: true,
        ..BlockMapChart::new(&blocks)
    };
    let svg = block_svg(&chart, 720).unwrap();
    expect_file!["snapshots/block-map-first-fit.svg"].assert_eq(&svg);
    assert!(svg.contains("free list"));
    assert!(svg.contains("arrow: a list"), "the key names the links");
    // Each chunk's 8-byte header, and the 16-byte chunks' rounding, in colours of their
    // own, each in the key.
    assert!(svg.contains("header: the policy"), "the key names headers");
    assert!(svg.contains("padding: a block"), "the key names padding");
    assert!(svg.contains("fill=\"#1F3D63\""), "a header is drawn");
    assert!(svg.contains("fill=\"#A9C4E3\""), "padding is drawn");
    // Two arrowheads and the head's mark, in the links' colour.
    assert_eq!(svg.matches("fill=\"#7A1F5C\"").count(), 3, "{svg}");
    let best_blocks = best.block_map(0, 1);
    let best_svg = block_svg(&BlockMapChart::new(&best_blocks), 720).unwrap();
    assert_ne!(svg, best_svg);
}

#[test]
fn the_piece_under_a_pixel_is_the_piece_drawn_there() {
    let t = spread();
    let map = t.heap_map();
    let first = map.pages[0].page;
    let blocks = t.block_map(first, 4);
    let chart = BlockMapChart::new(&blocks);
    let laid = block_map_layout(&chart, 900);
    assert_eq!(laid.bars.len(), blocks.rows.len());
    let mut hit = 0;
    for b in laid.pieces.iter().filter(|b| b.w >= 3) {
        let at = laid.piece_at(f64::from(b.x) + 1.0, f64::from(b.y) + 1.0);
        assert_eq!(at, Some((b.row, b.index)));
        hit += 1;
    }
    assert!(hit > 10, "{hit}");
    assert_eq!(
        laid.piece_at(2.0, 2.0),
        None,
        "the label column holds no piece"
    );
    // The size-class spans are bracketed and their free slots linked.
    assert!(!blocks.regions.is_empty());
    let svg = block_svg(&chart, 900).unwrap();
    assert!(svg.contains("span "), "a span's label is drawn");
}

#[test]
fn empty_maps_say_so() {
    let config = RunConfig::new("churn", "free-list");
    let t = Teaching::new(&config, vec![Event::alloc(1, 8)]).unwrap();
    let map = t.heap_map();
    let svg = heap_svg(&HeapMapChart::new(&map), 300).unwrap();
    assert!(svg.contains("no page is reserved yet"), "{svg}");
    let blocks = t.block_map(0, 4);
    let svg = block_svg(&BlockMapChart::new(&blocks), 300).unwrap();
    assert!(svg.contains("no page is committed here"), "{svg}");
}

#[test]
fn zoomed_into_bytes_a_32_byte_chunk_is_wide_and_the_piece_under_a_pixel_is_still_right() {
    let t = fits("first");
    let blocks = t.block_map(0, 1);
    let row = &blocks.rows[0];
    // Block 2 asked for 16 bytes: its chunk is its header, its payload and its padding.
    let chunk: Vec<usize> = (0..row.pieces.len())
        .filter(|&i| {
            matches!(
                row.pieces[i].kind,
                PieceKind::Header { id: 2 }
                    | PieceKind::Block { id: 2, .. }
                    | PieceKind::Padding { id: 2 }
            )
        })
        .collect();
    let start = row.pieces[chunk[0]].addr;
    let bytes: u64 = chunk.iter().map(|&i| row.pieces[i].size).sum();
    assert_eq!(bytes, 32, "{:?}", row.pieces);
    let width_of = |laid: &BlockMapLayout| -> i32 {
        laid.pieces
            .iter()
            .filter(|b| chunk.contains(&b.index))
            .map(|b| b.w)
            .sum()
    };
    let whole = block_map_layout(&BlockMapChart::new(&blocks), 900);
    assert!(
        width_of(&whole) < 10,
        "unzoomed, {} pixels",
        width_of(&whole)
    );
    // 256 bytes around the chunk, on the same 900 pixels.
    let from = (start - row.addr).saturating_sub(64) / 8 * 8;
    let chart = BlockMapChart {
        bytes: Some(ByteWindow {
            from,
            to: from + 256,
        }),
        ..BlockMapChart::new(&blocks)
    };
    let laid = block_map_layout(&chart, 900);
    assert!(
        width_of(&laid) >= 80,
        "zoomed, the 32-byte chunk is {} pixels wide",
        width_of(&laid)
    );
    // Every box lies on the bar, and the piece under each box's middle is that piece.
    for b in &laid.pieces {
        assert!(b.x >= laid.bar_left && b.x + b.w <= laid.bar_left + laid.bar_width + 1);
        let at = laid.piece_at(f64::from(b.x) + f64::from(b.w) / 2.0, f64::from(b.y + 2));
        assert_eq!(at, Some((b.row, b.index)), "{b:?}");
    }
    let payload = laid
        .pieces
        .iter()
        .find(|b| matches!(row.pieces[b.index].kind, PieceKind::Block { id: 2, .. }))
        .unwrap();
    let x = f64::from(payload.x) + f64::from(payload.w) / 2.0;
    let (_, index) = laid.piece_at(x, f64::from(payload.y + 3)).unwrap();
    assert!(matches!(
        row.pieces[index].kind,
        PieceKind::Block { id: 2, .. }
    ));
    // The byte under the pointer is the payload's, and a zoom around it keeps it shown.
    let at = laid.offset_at(x);
    let p = &row.pieces[index];
    assert!((p.addr - row.addr) as f64 <= at && at <= (p.addr + p.size - row.addr) as f64);
    let closer = laid.zoom_at(x, 0.5);
    assert_eq!(closer.width(), 128);
    assert!(
        closer.from as f64 <= at && at <= closer.to as f64,
        "{closer:?}"
    );
    assert_eq!(laid.row_at(f64::from(payload.y + 3)), Some(0));
    let svg = block_svg(&chart, 900).unwrap();
    // Text is written a line of its own between its tags.
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(
        texts.contains(&"id 2 · 16 B"),
        "a block says its id and size"
    );
    // An 8-byte header is 28 pixels wide here: room for its short name.
    assert!(texts.contains(&"hdr"), "a header says so");
    // The ruler: offsets at even steps across the window.
    let ticks: Vec<u64> = texts
        .iter()
        .filter_map(|t| t.strip_prefix("+0x"))
        .map(|hex| u64::from_str_radix(hex, 16).unwrap())
        .collect();
    assert!(ticks.len() >= 4, "{ticks:?}");
    assert!(ticks.windows(2).all(|w| w[1] - w[0] == ticks[1] - ticks[0]));
    assert!(
        ticks[0] >= from && *ticks.last().unwrap() <= from + 256,
        "{ticks:?}"
    );
    assert!(
        svg.contains(&format!("{:#x}", row.addr)),
        "the page's address"
    );
}
