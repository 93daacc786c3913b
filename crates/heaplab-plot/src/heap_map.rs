//! The heap map: the core's [`HeapMap`] (every reservation's pages in address order, the
//! committed ones with their state and live bytes) as a grid of squares, one a page,
//! reserved pages pale, committed ones blue, resident ones orange filled from the bottom
//! in green as far as live blocks use them. A reservation starts a new row; a run of
//! pages only reserved longer than two rows folds into one labelled row, so a 64 MiB
//! segment with 30 pages in use does not fill the picture with grey.
//!
//! [`heap_map_layout`] is the geometry alone and [`draw_heap_map`] draws it and answers
//! it, so the page finds the page under the pointer ([`HeapMapLayout::page_at`]) in the
//! very squares that were drawn.

use heaplab_app::observe::heap_map::HeapMap;
use heaplab_core::format::{format_bytes, format_count};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use crate::map_key::{self, KeyEntry, Scale};
use crate::style::MUTED;
use crate::PlotError;

pub(crate) const RESERVED: RGBColor = RGBColor(0xee, 0xf1, 0xf5);
const RESERVED_EDGE: RGBColor = RGBColor(0xd3, 0xd9, 0xe2);
pub(crate) const COMMITTED: RGBColor = RGBColor(0xbc, 0xd3, 0xee);
pub(crate) const RESIDENT_FREE: RGBColor = RGBColor(0xfb, 0xd9, 0xb5);
pub(crate) const LIVE: RGBColor = RGBColor(0x2f, 0x6f, 0x4f);
const PINNED: RGBColor = RGBColor(0xa4, 0x16, 0x1a);
const SELECTED: RGBColor = RGBColor(0x1d, 0x24, 0x33);
const DRAG: RGBColor = RGBColor(31, 78, 121);

/// At most this many pages a row, and squares of at least `MIN_CELL` pixels so a page
/// can be clicked.
const MAX_COLUMNS: u64 = 64;
const MIN_CELL: f64 = 14.0;
const MAX_CELL: f64 = 40.0;
const GAP_ROW: f64 = 16.0;
const LEFT: f64 = 4.0;

/// The heap map as drawn: what is shown and how it is marked.
#[derive(Clone, Debug)]
pub struct HeapMapChart<'a> {
    pub map: &'a HeapMap,
    /// The pages shown, first and last (both included); the whole map when `None`.
    pub zoom: Option<(u64, u64)>,
    /// The page outlined as selected.
    pub selected: Option<u64>,
    /// Pages outlined in red: those the blocks that pin the most lie on.
    pub outlined: &'a [u64],
    /// Pages shaded as a zoom being chosen, first and last.
    pub dragged: Option<(u64, u64)>,
    /// Backend pixels per CSS pixel (the device pixel ratio; 1 for SVG).
    pub scale: f64,
    /// A title over the map; none on the page, which has its own heading.
    pub title: &'a str,
    /// Whether the key is drawn under the map (the page shows it as HTML instead).
    pub key: bool,
}

impl<'a> HeapMapChart<'a> {
    /// The map of `map` as a whole, unmarked, at scale 1.
    pub fn new(map: &'a HeapMap) -> HeapMapChart<'a> {
        HeapMapChart {
            map,
            zoom: None,
            selected: None,
            outlined: &[],
            dragged: None,
            scale: 1.0,
            title: "",
            key: false,
        }
    }
}

/// One row of the map: pages `first..first + count` in squares from the left, or a fold
/// of `count` pages only reserved from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapRow {
    pub y: i32,
    pub first: u64,
    pub count: u64,
    pub folded: bool,
}

/// Where every page of a heap map lands, in the backend's pixels.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapMapLayout {
    pub width: u32,
    /// The height the map, its title and its key need.
    pub height: u32,
    /// The squares' side and the left edge of each row's first square.
    pub cell: i32,
    pub left: i32,
    pub columns: u64,
    /// The first and last page shown.
    pub from: u64,
    pub to: u64,
    pub rows: Vec<MapRow>,
    /// Where the key starts, when it is drawn.
    pub key_top: i32,
}

/// A page's square: its left, top and side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub page: u64,
    pub x: i32,
    pub y: i32,
    pub size: i32,
}

impl HeapMapLayout {
    /// The page whose square holds pixel `(x, y)`, or `None` between squares, in a fold
    /// or off the map.
    pub fn page_at(&self, x: f64, y: f64) -> Option<u64> {
        let cell = f64::from(self.cell.max(1));
        let row = self
            .rows
            .iter()
            .find(|r| !r.folded && y >= f64::from(r.y) && y < f64::from(r.y) + cell)?;
        let col = ((x - f64::from(self.left)) / cell).floor();
        (col >= 0.0 && (col as u64) < row.count).then(|| row.first + col as u64)
    }

    /// The square of `page`, or `None` when it is folded away or not shown.
    pub fn cell(&self, page: u64) -> Option<Cell> {
        let row = self
            .rows
            .iter()
            .find(|r| !r.folded && page >= r.first && page < r.first + r.count)?;
        Some(Cell {
            page,
            x: self.left + (page - row.first) as i32 * self.cell,
            y: row.y,
            size: self.cell,
        })
    }

    /// Every square drawn, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.rows.iter().filter(|r| !r.folded).flat_map(move |r| {
            (0..r.count).map(move |i| Cell {
                page: r.first + i,
                x: self.left + i as i32 * self.cell,
                y: r.y,
                size: self.cell,
            })
        })
    }
}

/// What the map's squares mean, for the key.
pub fn heap_map_key() -> Vec<KeyEntry> {
    vec![
        KeyEntry::new("reserved only (address space)", RESERVED, RESERVED_EDGE),
        KeyEntry::new("committed, not resident (no RAM yet)", COMMITTED, COMMITTED),
        KeyEntry::new(
            "resident (needs RAM): free part",
            RESIDENT_FREE,
            RESIDENT_FREE,
        ),
        KeyEntry::new("resident: part used by live blocks", LIVE, LIVE),
        KeyEntry::new("kept resident by a pinning block", WHITE, PINNED),
    ]
}

/// Lays the map out `width` pixels wide: the pages of the zoom (or all), each
/// reservation from a new row, long runs of reserved pages folded.
pub fn heap_map_layout(chart: &HeapMapChart, width: u32) -> HeapMapLayout {
    let s = Scale::of(chart.scale);
    let map = chart.map;
    let total: u64 = map.reservations.iter().map(|&(_, n)| n).sum();
    let (from, to) = match chart.zoom {
        Some((a, b)) => (a.min(b), a.max(b)),
        None => (0, total.saturating_sub(1)),
    };
    let span = to - from + 1;
    let usable = f64::from(width) - 2.0 * f64::from(s.px(LEFT));
    let fit = ((usable / (MIN_CELL * s.0)).floor() as u64).clamp(8, MAX_COLUMNS);
    let columns = fit.min(span).max(1);
    let cell = ((usable / columns as f64).floor() as i32).clamp(s.px(6.0), s.px(MAX_CELL));
    let top = map_key::frame_height(chart.title, &[], s);
    let mut rows = Vec::new();
    let mut y = top + s.px(2.0);
    let committed: std::collections::BTreeSet<u64> = map.pages.iter().map(|p| p.page).collect();
    for &(first, n) in &map.reservations {
        let lo = first.max(from);
        let hi = (first + n).min(to + 1);
        if lo >= hi {
            continue;
        }
        if !rows.is_empty() {
            // A small gap between reservations.
            y += s.px(6.0);
        }
        // Runs of reserved pages two rows long or more fold; the rest are squares,
        // `columns` to a row.
        let mut p = lo;
        let mut row: Option<MapRow> = None;
        while p < hi {
            let next_committed = committed.range(p..hi).next().copied().unwrap_or(hi);
            if next_committed - p >= 2 * columns {
                if let Some(r) = row.take() {
                    rows.push(r);
                    y += cell;
                }
                rows.push(MapRow {
                    y,
                    first: p,
                    count: next_committed - p,
                    folded: true,
                });
                y += s.px(GAP_ROW);
                p = next_committed;
                continue;
            }
            // Squares up to the next committed page, and that page.
            let end = (next_committed + 1).min(hi);
            while p < end {
                let r = row.get_or_insert(MapRow {
                    y,
                    first: p,
                    count: 0,
                    folded: false,
                });
                let take = (columns - r.count).min(end - p);
                r.count += take;
                p += take;
                if r.count == columns {
                    rows.extend(row.take());
                    y += cell;
                }
            }
        }
        if let Some(r) = row.take() {
            rows.push(r);
            y += cell;
        }
    }
    let key_top = y + s.px(6.0);
    let key_h = if chart.key {
        map_key::frame_height("", &heap_map_key(), s)
    } else {
        0
    };
    HeapMapLayout {
        width,
        height: (key_top + key_h).max(s.px(40.0)) as u32,
        cell,
        left: s.px(LEFT),
        columns,
        from,
        to,
        rows,
        key_top,
    }
}

/// Draws the heap map over the whole of `root` and answers its layout.
pub fn draw_heap_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &HeapMapChart,
) -> Result<HeapMapLayout, PlotError> {
    crate::font::ensure();
    let s = Scale::of(chart.scale);
    let (w, _) = root.dim_in_pixel();
    let laid = heap_map_layout(chart, w);
    root.fill(&WHITE)?;
    map_key::draw_title(root, chart.title, s)?;
    let pages: std::collections::HashMap<u64, &heaplab_app::observe::heap_map::MapPage> =
        chart.map.pages.iter().map(|p| (p.page, p)).collect();
    let inset = if laid.cell >= s.px(10.0) {
        s.px(1.0)
    } else {
        0
    };
    for c in laid.cells() {
        let side = c.size - 2 * inset;
        let (x, y) = (c.x + inset, c.y + inset);
        let square = [(x, y), (x + side, y + side)];
        match pages.get(&c.page) {
            None => {
                root.draw(&Rectangle::new(square, RESERVED.filled()))?;
                root.draw(&Rectangle::new(square, RESERVED_EDGE.stroke_width(1)))?;
            }
            Some(p) if !p.resident => {
                root.draw(&Rectangle::new(square, COMMITTED.filled()))?;
            }
            Some(p) => {
                root.draw(&Rectangle::new(square, RESIDENT_FREE.filled()))?;
                let used = p.used.clamp(0.0, 1.0);
                if used > 0.0 {
                    // Even a page with a few live bytes shows a sliver, so "nothing" and
                    // "a little" look different.
                    let h = ((used * f64::from(side)).round() as i32).max(1);
                    root.draw(&Rectangle::new(
                        [(x, y + side - h), (x + side, y + side)],
                        LIVE.filled(),
                    ))?;
                }
            }
        }
        if let Some((a, b)) = chart.dragged {
            if c.page >= a.min(b) && c.page <= a.max(b) {
                root.draw(&Rectangle::new(
                    [(c.x, c.y), (c.x + c.size, c.y + c.size)],
                    DRAG.mix(0.18).filled(),
                ))?;
            }
        }
    }
    // Outlines last, over the neighbouring squares.
    for c in laid.cells() {
        let (colour, width) = if Some(c.page) == chart.selected {
            (SELECTED, s.px(2.5).max(2))
        } else if chart.outlined.contains(&c.page) {
            (PINNED, s.px(1.5).max(1))
        } else {
            continue;
        };
        let d = s.px(1.0);
        root.draw(&Rectangle::new(
            [(c.x + d, c.y + d), (c.x + c.size - d, c.y + c.size - d)],
            colour.stroke_width(width as u32),
        ))?;
    }
    let text = s
        .font(11.0)
        .color(&MUTED)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for r in laid.rows.iter().filter(|r| r.folded) {
        let bytes = format_bytes(r.count.saturating_mul(chart.map.page_size));
        root.draw_text(
            &format!(
                "… pages {}–{}: {} pages ({bytes}) only reserved …",
                format_count(i128::from(r.first)),
                format_count(i128::from(r.first + r.count - 1)),
                format_count(i128::from(r.count)),
            ),
            &text,
            (s.px(6.0), r.y + s.px(GAP_ROW / 2.0)),
        )?;
    }
    if laid.rows.is_empty() {
        root.draw_text("no page is reserved yet", &text, (s.px(6.0), s.px(14.0)))?;
    }
    if chart.key {
        map_key::draw_key(root, &heap_map_key(), laid.key_top, s)?;
    }
    Ok(laid)
}
