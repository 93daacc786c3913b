//! The block map: the core's [`BlockMap`] (committed pages cut into live blocks with their
//! headers and padding, the free pieces the policy keeps and overhead) drawn to scale, a bar a page, with the policy's
//! structures over it: an arrow from each free piece on a list to the next one the policy
//! hands out (a free list, a bin, a tcache or fast bin, a span's free slots, a buddy
//! order), the head of each list marked, and a bracket under the bar for each region
//! the policy manages as a unit (a size-class span with its class, a pool's chunk).
//!
//! The map zooms into its pages down to bytes ([`BlockMapChart::bytes`], a
//! [`ByteWindow`] of offsets): each bar then holds only those bytes of its page, to that
//! scale, with a ruler of offsets under it and each piece's size written on it where it
//! fits, so a 32-byte chunk, its header and the links between free chunks read one by one.
//!
//! [`draw_block_map`] answers its [`BlockMapLayout`], whose [`BlockMapLayout::piece_at`]
//! finds the piece under the pointer in the boxes that were drawn, and whose
//! [`BlockMapLayout::zoom_at`] says the window a zoom around the pointer shows next.

use heaplab_app::observe::block_map::{BlockMap, BlockRow, Piece, PieceKind};
use heaplab_core::format::{format_bytes, format_count};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use crate::byte_window::{tick_label, ByteWindow};
use crate::map_key::{self, KeyEntry, Scale};
use crate::style::{MUTED, TEXT};
use crate::PlotError;

const BLOCK: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
/// A header is a darker shade of the block it fronts, padding a pale one: both read as
/// part of the block and apart from free memory and from the overhead grey.
const HEADER: RGBColor = RGBColor(0x1f, 0x3d, 0x63);
const PADDING: RGBColor = RGBColor(0xa9, 0xc4, 0xe3);
const OVERHEAD: RGBColor = RGBColor(0xc4, 0xc9, 0xd2);
const TOP: RGBColor = RGBColor(0xd9, 0xec, 0xd0);
const TCACHE: RGBColor = RGBColor(0xf2, 0xc1, 0x4e);
const FAST_BIN: RGBColor = RGBColor(0xe8, 0x9f, 0x5a);
const LINK: RGBColor = RGBColor(0x7a, 0x1f, 0x5c);
const SELECTED: RGBColor = RGBColor(0x1d, 0x24, 0x33);
const REGIONS: [RGBColor; 2] = [RGBColor(0x6b, 0x5b, 0x95), RGBColor(0xa3, 0x93, 0xc8)];
/// Free structures without a colour of their own get one from this list by their name,
/// so "bin 4" is the same colour at every event.
const FREE: [RGBColor; 8] = [
    RGBColor(0x7c, 0xc0, 0x8a),
    RGBColor(0x4f, 0xa8, 0x9a),
    RGBColor(0xa5, 0xd4, 0x6a),
    RGBColor(0x58, 0xb5, 0xc9),
    RGBColor(0x9b, 0xc7, 0xa2),
    RGBColor(0x6f, 0xbf, 0x73),
    RGBColor(0x3e, 0x9c, 0x7f),
    RGBColor(0xb4, 0xd9, 0x8c),
];

/// The label column, and a row's parts from its top: the zone the list arrows arc
/// through, the bar, the region bracket and the gap to the next row.
const LABEL: f64 = 74.0;
const ARC: f64 = 14.0;
const BAR: f64 = 18.0;
const BRACKET: f64 = 9.0;
const GAP: f64 = 5.0;
/// Zoomed into bytes, the bar is taller, to hold a piece's size under its name, and a
/// ruler of offsets lies under it.
const ZOOMED_BAR: f64 = 30.0;
const RULER: f64 = 16.0;
/// The fewest pixels between two of the ruler's ticks, so their labels never touch.
const TICK_SPACING: f64 = 56.0;

/// The block map as drawn.
#[derive(Clone, Debug)]
pub struct BlockMapChart<'a> {
    pub blocks: &'a BlockMap,
    /// The page (of the heap map) outlined as selected.
    pub selected: Option<u64>,
    /// Backend pixels per CSS pixel (the device pixel ratio; 1 for SVG).
    pub scale: f64,
    pub title: &'a str,
    /// Whether the key is drawn under the map (the page shows it as HTML instead).
    pub key: bool,
    /// The bytes of each page shown, as offsets from its start: a zoom down to bytes,
    /// with a ruler under each bar. `None` shows whole pages.
    pub bytes: Option<ByteWindow>,
}

impl<'a> BlockMapChart<'a> {
    pub fn new(blocks: &'a BlockMap) -> BlockMapChart<'a> {
        BlockMapChart {
            blocks,
            selected: None,
            scale: 1.0,
            title: "",
            key: false,
            bytes: None,
        }
    }
}

/// Where one piece landed: row `row`'s piece `index`, in the backend's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieceBox {
    pub row: usize,
    pub index: usize,
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

/// Where the block map's rows and pieces landed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockMapLayout {
    pub width: u32,
    pub height: u32,
    /// Each row's bar top, by row.
    pub bars: Vec<i32>,
    pub bar_left: i32,
    pub bar_width: i32,
    pub bar_height: i32,
    pub pieces: Vec<PieceBox>,
    pub key_top: i32,
    /// The pages' size in bytes.
    pub page_size: u64,
    /// The bytes of each page the bars show, offsets from its start; `None` when the
    /// map shows whole pages, unzoomed.
    pub bytes: Option<ByteWindow>,
    /// From a row's top (the top of its arc zone) to the next row's.
    pub row_height: i32,
    /// From a row's top to its bar's.
    pub arc: i32,
}

impl BlockMapLayout {
    /// The piece (row, index in the row) whose box holds pixel `(x, y)`.
    pub fn piece_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        // Boxes narrower than a pixel are widened to one, so the last drawn wins.
        self.pieces
            .iter()
            .rev()
            .find(|b| {
                let w = b.w.max(1);
                x >= f64::from(b.x)
                    && x < f64::from(b.x + w)
                    && y >= f64::from(b.y)
                    && y < f64::from(b.y + b.h)
            })
            .map(|b| (b.row, b.index))
    }

    /// The bytes each bar shows: the zoom's window, or the whole page.
    pub fn window(&self) -> ByteWindow {
        self.bytes
            .unwrap_or_else(|| ByteWindow::whole(self.page_size))
    }

    /// The row whose band (its arcs, its bar, its ruler and bracket) holds pixel row `y`.
    pub fn row_at(&self, y: f64) -> Option<usize> {
        self.bars.iter().position(|&bar| {
            let top = f64::from(bar - self.arc);
            y >= top && y < top + f64::from(self.row_height)
        })
    }

    /// The byte (an offset from the page's start, fractional) under pixel column `x`,
    /// the window's ends outside the bar.
    pub fn offset_at(&self, x: f64) -> f64 {
        let w = self.window();
        let t = ((x - f64::from(self.bar_left)) / f64::from(self.bar_width.max(1))).clamp(0.0, 1.0);
        w.from as f64 + t * w.width() as f64
    }

    /// The window a zoom by `factor` (below 1: in) around pixel column `x` shows: the
    /// byte under the pointer stays under it.
    pub fn zoom_at(&self, x: f64, factor: f64) -> ByteWindow {
        self.window()
            .zoom(self.offset_at(x), factor, self.page_size)
    }
}

/// The colour of a free structure, by its name.
fn free_colour(structure: &str) -> RGBColor {
    match structure {
        "top" => TOP,
        "tcache" | "thread cache" => TCACHE,
        "fast bin" => FAST_BIN,
        _ => {
            let hash = structure
                .bytes()
                .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
            FREE[hash as usize % FREE.len()]
        }
    }
}

fn colour(piece: &Piece) -> RGBColor {
    match &piece.kind {
        PieceKind::Block { .. } => BLOCK,
        PieceKind::Header { .. } => HEADER,
        PieceKind::Padding { .. } => PADDING,
        PieceKind::Free { structure, .. } => free_colour(structure),
        PieceKind::Overhead => OVERHEAD,
    }
}

/// A piece in words: what the page says when the pointer is on it.
pub fn piece_text(piece: &Piece) -> String {
    let at = format!("{} at {:#x}", format_bytes(piece.size), piece.addr);
    match &piece.kind {
        PieceKind::Block { id, event } => format!(
            "live block id {id} (allocated at event {}): {at} on this page",
            format_count(i128::from(*event))
        ),
        PieceKind::Free {
            structure,
            list,
            rank,
        } => match (list, rank) {
            (Some(list), Some(0)) => {
                format!("free, kept in the policy's {structure}: {at}; first out of {list}")
            }
            (Some(list), Some(r)) => format!(
                "free, kept in the policy's {structure}: {at}; number {} out of {list}",
                r + 1
            ),
            _ => format!("free, kept in the policy's {structure}: {at}"),
        },
        PieceKind::Header { id } => format!("header of block id {id}: {at}"),
        PieceKind::Padding { id } => {
            format!("padding of block id {id} (alignment or rounding up to its slot): {at}")
        }
        PieceKind::Overhead => format!(
            "overhead (bookkeeping, freed space the policy does not reuse yet, or bytes \
             around blocks it does not lay out for the map): {at}"
        ),
    }
}

/// What the colours and marks of `blocks`' map mean: live blocks, their headers and
/// padding where the map shows any, each free structure shown, overhead, the links and
/// the regions.
pub fn block_map_key(blocks: &BlockMap) -> Vec<KeyEntry> {
    let mut names = std::collections::BTreeSet::new();
    let (mut headers, mut padding) = (false, false);
    for row in &blocks.rows {
        for p in &row.pieces {
            match &p.kind {
                PieceKind::Free { structure, .. } => {
                    names.insert(structure.as_str());
                }
                PieceKind::Header { .. } => headers = true,
                PieceKind::Padding { .. } => padding = true,
                _ => {}
            }
        }
    }
    let mut out = vec![KeyEntry::new("live block (its id)", BLOCK, BLOCK)];
    if headers {
        out.push(KeyEntry::new(
            "header: the policy's bytes in front of a block",
            HEADER,
            HEADER,
        ));
    }
    if padding {
        out.push(KeyEntry::new(
            "padding: a block's slot past the bytes asked for (alignment, rounding)",
            PADDING,
            PADDING,
        ));
    }
    for name in names {
        let c = free_colour(name);
        out.push(KeyEntry::new(format!("free: {name}"), c, c));
    }
    out.push(KeyEntry::new(
        if blocks.reports_free {
            "overhead: bookkeeping, or freed space the policy does not reuse yet"
        } else {
            "not live: free, headers or padding (this family does not report its free \
             structures)"
        },
        OVERHEAD,
        OVERHEAD,
    ));
    if !blocks.links.is_empty() {
        out.push(KeyEntry::new(
            "arrow: a list's next free piece, in the order the policy hands them out \
             (▸ the first out)",
            WHITE,
            LINK,
        ));
    }
    if !blocks.regions.is_empty() {
        out.push(KeyEntry::new(
            "bracket: a region the policy manages as one unit (a span and its class, a chunk)",
            REGIONS[0],
            REGIONS[0],
        ));
    }
    out
}

/// A row's parts in CSS pixels: its bar's height and, zoomed into bytes, its ruler's.
fn row_parts(chart: &BlockMapChart) -> (f64, f64) {
    if chart.bytes.is_some() {
        (ZOOMED_BAR, RULER)
    } else {
        (BAR, 0.0)
    }
}

/// Lays the map out `width` pixels wide: a row per page, the pieces to scale, each cut to
/// the bytes the zoom shows.
pub fn block_map_layout(chart: &BlockMapChart, width: u32) -> BlockMapLayout {
    let s = Scale::of(chart.scale);
    let b = chart.blocks;
    let top = map_key::frame_height(chart.title, &[], s);
    let bar_left = s.px(LABEL);
    let bar_width = (width as i32 - bar_left - s.px(8.0)).max(s.px(40.0));
    let bytes = chart.bytes.map(|w| w.within(b.page_size));
    let window = bytes.unwrap_or_else(|| ByteWindow::whole(b.page_size));
    let per_byte = f64::from(bar_width) / window.width() as f64;
    let (bar, ruler) = row_parts(chart);
    let row = ARC + bar + ruler + BRACKET + GAP;
    let mut bars = Vec::with_capacity(b.rows.len());
    let mut pieces = Vec::new();
    for (r, page) in b.rows.iter().enumerate() {
        let y = top + s.px(row * r as f64 + ARC);
        bars.push(y);
        let (lo, hi) = (page.addr + window.from, page.addr + window.to);
        for (i, p) in page.pieces.iter().enumerate() {
            let (a, z) = (p.addr.max(lo), (p.addr + p.size).min(hi));
            if a >= z {
                continue;
            }
            let x0 = ((a - lo) as f64 * per_byte).round() as i32;
            let x1 = ((z - lo) as f64 * per_byte).round() as i32;
            pieces.push(PieceBox {
                row: r,
                index: i,
                x: bar_left + x0,
                y,
                w: (x1 - x0).max(0),
                h: s.px(bar),
            });
        }
    }
    let key_top = top + s.px(row * b.rows.len() as f64) + s.px(4.0);
    let key_h = if chart.key {
        map_key::frame_height("", &block_map_key(b), s)
    } else {
        0
    };
    BlockMapLayout {
        width,
        height: (key_top + key_h).max(s.px(30.0)) as u32,
        bars,
        bar_left,
        bar_width,
        bar_height: s.px(bar),
        pieces,
        key_top,
        page_size: b.page_size,
        bytes,
        row_height: s.px(row),
        arc: s.px(ARC),
    }
}

/// Where a link's end at `addr` is: the middle of the top of the piece starting there
/// (its first row), or `None` when that piece is not on the map.
fn anchor(chart: &BlockMapChart, laid: &BlockMapLayout, addr: u64) -> Option<(i32, i32)> {
    laid.pieces
        .iter()
        .find(|b| chart.blocks.rows[b.row].pieces[b.index].addr == addr)
        .map(|b| (b.x + b.w / 2, b.y))
}

/// Draws the block map over the whole of `root` and answers its layout.
pub fn draw_block_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &BlockMapChart,
) -> Result<BlockMapLayout, PlotError> {
    crate::font::ensure();
    let s = Scale::of(chart.scale);
    let (w, _) = root.dim_in_pixel();
    let laid = block_map_layout(chart, w);
    let b = chart.blocks;
    root.fill(&WHITE)?;
    map_key::draw_title(root, chart.title, s)?;
    let label = s.font(11.0).pos(Pos::new(HPos::Left, VPos::Center));
    for (r, row) in b.rows.iter().enumerate() {
        let y = laid.bars[r];
        let selected = Some(row.page) == chart.selected;
        let text = format!(
            "page {}{}",
            format_count(i128::from(row.page)),
            if row.resident { "" } else { " ○" }
        );
        root.draw_text(
            &text,
            &label.color(if selected { &SELECTED } else { &MUTED }),
            (s.px(2.0), y + laid.bar_height / 2),
        )?;
    }
    for pb in &laid.pieces {
        let row = &b.rows[pb.row];
        let p = &row.pieces[pb.index];
        let c = colour(p);
        let alpha = if row.resident { 1.0 } else { 0.45 };
        let right = pb.x + pb.w.max(1);
        root.draw(&Rectangle::new(
            [(pb.x, pb.y), (right, pb.y + pb.h)],
            c.mix(alpha).filled(),
        ))?;
        // A white edge where each piece starts, so neighbours stay apart, except inside
        // one block (its payload after its header, its padding after its payload), and
        // not where the zoom's window cuts a piece.
        let starts_here = p.addr >= row.addr + laid.window().from;
        if starts_here && !continues_block(row, pb.index) && pb.w > 2 {
            root.draw(&Rectangle::new(
                [(pb.x, pb.y), (pb.x + 1, pb.y + pb.h)],
                WHITE.filled(),
            ))?;
        }
        let style = s.font(10.0).color(
            if matches!(p.kind, PieceKind::Block { .. } | PieceKind::Header { .. }) {
                &WHITE
            } else {
                &TEXT
            },
        );
        for text in piece_labels(p, laid.bytes.is_some()) {
            let (tw, _) = root.estimate_text_size(&text, &style)?;
            if (tw as i32) + s.px(6.0) < pb.w {
                root.draw_text(
                    &text,
                    &style.pos(Pos::new(HPos::Left, VPos::Center)),
                    (pb.x + s.px(3.0), pb.y + pb.h / 2),
                )?;
                break;
            }
        }
        // The head of a list, the piece the policy hands out next, gets a mark.
        if let PieceKind::Free { rank: Some(0), .. } = p.kind {
            let (x, y) = (pb.x + pb.w / 2, pb.y);
            let d = s.px(4.0);
            root.draw(&Polygon::new(
                vec![
                    (x - d, y - d - s.px(2.0)),
                    (x + d, y - d - s.px(2.0)),
                    (x, y - s.px(1.0)),
                ],
                LINK.filled(),
            ))?;
        }
    }
    for (r, row) in b.rows.iter().enumerate() {
        if Some(row.page) == chart.selected {
            let y = laid.bars[r];
            root.draw(&Rectangle::new(
                [
                    (laid.bar_left - 1, y - 1),
                    (laid.bar_left + laid.bar_width + 1, y + laid.bar_height + 1),
                ],
                SELECTED.stroke_width(s.px(2.0).max(1) as u32),
            ))?;
        }
    }
    if laid.bytes.is_some() {
        draw_rulers(root, chart, &laid, s)?;
    }
    draw_regions(root, chart, &laid, s)?;
    draw_links(root, chart, &laid, s)?;
    if b.rows.is_empty() {
        root.draw_text(
            "no page is committed here",
            &label.color(&MUTED),
            (s.px(6.0), s.px(14.0)),
        )?;
    }
    if chart.key {
        map_key::draw_key(root, &block_map_key(b), laid.key_top, s)?;
    }
    Ok(laid)
}

/// Whether piece `index` of `row` goes on with the block before it: a block's payload after
/// its header, or its padding after its payload.
fn continues_block(row: &BlockRow, index: usize) -> bool {
    let Some(before) = index.checked_sub(1).map(|i| &row.pieces[i].kind) else {
        return false;
    };
    match (&row.pieces[index].kind, before) {
        (PieceKind::Block { id, .. }, PieceKind::Header { id: h }) => h == id,
        (PieceKind::Padding { id }, PieceKind::Block { id: b, .. }) => b == id,
        _ => false,
    }
}

/// What a piece's box may say, the longest first: the first that fits is drawn. Zoomed
/// into bytes, a piece also says its size, and a header and padding say what they are.
fn piece_labels(p: &Piece, zoomed: bool) -> Vec<String> {
    let size = format_bytes(p.size);
    match (&p.kind, zoomed) {
        (PieceKind::Block { id, .. }, false) => vec![id.to_string()],
        (PieceKind::Block { id, .. }, true) => vec![format!("id {id} · {size}"), id.to_string()],
        (PieceKind::Free { structure, .. }, false) => vec![structure.clone()],
        (PieceKind::Free { structure, .. }, true) => {
            vec![format!("{structure} · {size}"), structure.clone()]
        }
        (PieceKind::Header { .. }, true) => {
            vec![format!("header · {size}"), "header".into(), "hdr".into()]
        }
        (PieceKind::Padding { .. }, true) => vec![format!("padding · {size}"), "pad".into()],
        (PieceKind::Overhead, true) => vec![format!("overhead · {size}")],
        (PieceKind::Header { .. } | PieceKind::Padding { .. } | PieceKind::Overhead, false) => {
            Vec::new()
        }
    }
}

/// Under each bar zoomed into bytes, a ruler: a tick at each multiple of a step that
/// leaves room for its label, the offset from the page's start in hexadecimal, and the
/// page's address in the label column, so offset and address add up to what
/// `heaplab explain` prints.
fn draw_rulers<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &BlockMapChart,
    laid: &BlockMapLayout,
    s: Scale,
) -> Result<(), PlotError> {
    let window = laid.window();
    let per_byte = f64::from(laid.bar_width) / window.width() as f64;
    let step = window.tick_step(f64::from(laid.bar_width), f64::from(s.px(TICK_SPACING)));
    let line = MUTED.stroke_width(1);
    let font = s.font(9.0).color(&MUTED);
    let right = laid.bar_left + laid.bar_width;
    for (r, row) in chart.blocks.rows.iter().enumerate() {
        let y = laid.bars[r] + laid.bar_height + s.px(1.0);
        root.draw(&PathElement::new(
            vec![(laid.bar_left, y), (right, y)],
            line,
        ))?;
        root.draw_text(
            &format!("{:#x}", row.addr),
            &font.pos(Pos::new(HPos::Left, VPos::Top)),
            (s.px(2.0), y + s.px(4.0)),
        )?;
        for offset in window.ticks(step) {
            let x = laid.bar_left + ((offset - window.from) as f64 * per_byte).round() as i32;
            root.draw(&PathElement::new(vec![(x, y), (x, y + s.px(4.0))], line))?;
            // The ends' labels stay over the bar rather than past it.
            let h = if x - laid.bar_left < s.px(20.0) {
                HPos::Left
            } else if right - x < s.px(20.0) {
                HPos::Right
            } else {
                HPos::Center
            };
            root.draw_text(
                &tick_label(offset),
                &font.pos(Pos::new(h, VPos::Top)),
                (x, y + s.px(5.0)),
            )?;
        }
    }
    Ok(())
}

/// A bracket under each row's bar for the part of each region on that row, its label
/// where the region starts.
fn draw_regions<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &BlockMapChart,
    laid: &BlockMapLayout,
    s: Scale,
) -> Result<(), PlotError> {
    let b = chart.blocks;
    let window = laid.window();
    let per_byte = f64::from(laid.bar_width) / window.width() as f64;
    let ruler = if laid.bytes.is_some() { s.px(RULER) } else { 0 };
    for (k, region) in b.regions.iter().enumerate() {
        let c = REGIONS[k % REGIONS.len()];
        let end = region.addr + region.size;
        for (r, row) in b.rows.iter().enumerate() {
            let start = row.addr + window.from;
            let (lo, hi) = (region.addr.max(start), end.min(row.addr + window.to));
            if lo >= hi {
                continue;
            }
            let x0 = laid.bar_left + ((lo - start) as f64 * per_byte).round() as i32;
            let x1 = laid.bar_left + ((hi - start) as f64 * per_byte).round() as i32;
            let y = laid.bars[r] + laid.bar_height + ruler + s.px(2.0);
            let h = s.px(3.0);
            root.draw(&Rectangle::new(
                [(x0, y), (x1.max(x0 + 1), y + h)],
                c.filled(),
            ))?;
            if lo == region.addr {
                root.draw(&Rectangle::new(
                    [(x0, y - s.px(2.0)), (x0 + s.px(2.0), y + h)],
                    c.filled(),
                ))?;
                let style = s.font(9.0).color(&c);
                let (tw, _) = root.estimate_text_size(&region.label, &style)?;
                if (tw as i32) < x1 - x0 - s.px(4.0) {
                    root.draw_text(
                        &region.label,
                        &style.pos(Pos::new(HPos::Left, VPos::Top)),
                        (x0 + s.px(4.0), y + h),
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// The list links: an arc over the bar between two pieces of one row, a curve from row to
/// row, or a short dashed stub when the other end is off the map; an arrowhead at the
/// piece handed out next.
fn draw_links<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &BlockMapChart,
    laid: &BlockMapLayout,
    s: Scale,
) -> Result<(), PlotError> {
    let style = LINK.stroke_width(s.px(1.5).max(1) as u32);
    for link in &chart.blocks.links {
        let from = anchor(chart, laid, link.from);
        let to = anchor(chart, laid, link.to);
        match (from, to) {
            (Some(a), Some(b)) => {
                let path = curve(a, b, s);
                let tip = path[path.len() - 1];
                let before = path[path.len() - 2];
                root.draw(&PathElement::new(path, style))?;
                arrowhead(root, before, tip, s)?;
            }
            (Some((x, y)), None) => {
                // The next piece is off the map (on a page or at bytes not shown): a
                // stub leaving upwards on the side where it lies.
                let dx = if link.to < link.from { -12.0 } else { 12.0 };
                let end = (x + s.px(dx), y - s.px(ARC - 3.0));
                root.draw(&PathElement::new(vec![(x, y), end], style))?;
                arrowhead(root, (x, y), end, s)?;
            }
            (None, Some((x, y))) => {
                let dx = if link.from > link.to { 12.0 } else { -12.0 };
                let start = (x + s.px(dx), y - s.px(ARC - 3.0));
                root.draw(&PathElement::new(vec![start, (x, y)], style))?;
                arrowhead(root, start, (x, y), s)?;
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// Points along an arc from `a` to `b` (both on top of a bar): a quadratic curve whose
/// peak rises with the distance, within the arc zone of the higher end's row.
fn curve(a: (i32, i32), b: (i32, i32), s: Scale) -> Vec<(i32, i32)> {
    let (ax, ay) = (f64::from(a.0), f64::from(a.1));
    let (bx, by) = (f64::from(b.0), f64::from(b.1));
    let lift = f64::from(s.px(5.0)) + ((bx - ax).abs() / 6.0).min(f64::from(s.px(ARC - 6.0)));
    let (cx, cy) = ((ax + bx) / 2.0, ay.min(by) - lift);
    (0..=16)
        .map(|i| {
            let t = f64::from(i) / 16.0;
            let u = 1.0 - t;
            let x = u * u * ax + 2.0 * u * t * cx + t * t * bx;
            let y = u * u * ay + 2.0 * u * t * cy + t * t * by;
            (x.round() as i32, y.round() as i32)
        })
        .collect()
}

fn arrowhead<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    from: (i32, i32),
    tip: (i32, i32),
    s: Scale,
) -> Result<(), PlotError> {
    let (dx, dy) = (f64::from(tip.0 - from.0), f64::from(tip.1 - from.1));
    let len = dx.hypot(dy).max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let size = f64::from(s.px(5.0));
    let back = (f64::from(tip.0) - ux * size, f64::from(tip.1) - uy * size);
    let side = (-uy * size * 0.5, ux * size * 0.5);
    let pt = |x: f64, y: f64| (x.round() as i32, y.round() as i32);
    root.draw(&Polygon::new(
        vec![
            tip,
            pt(back.0 + side.0, back.1 + side.1),
            pt(back.0 - side.0, back.1 - side.1),
        ],
        LINK.filled(),
    ))?;
    Ok(())
}
