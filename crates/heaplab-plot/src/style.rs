//! What every chart shares: the palette, the fonts, the title, the legend strip and the
//! message drawn where there is no data.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::font::FAMILY;
use crate::PlotError;

/// Colours for up to eight configurations; readable on white and distinct for common
/// colour blindness (the Okabe-Ito palette). Past eight they repeat.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// The colour of the `i`th configuration, the same in every chart.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

pub(crate) const TEXT: RGBColor = RGBColor(40, 40, 40);
pub(crate) const MUTED: RGBColor = RGBColor(110, 110, 110);
/// The grid: light enough that curves stand out, dark enough to show on a projector.
pub(crate) const GRID: RGBColor = RGBColor(226, 226, 226);

pub(crate) fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&TEXT)
}

/// The height of a title row, when there is a title.
const TITLE_H: u32 = 30;
/// The height of one row of the legend strip.
const LEGEND_ROW_H: u32 = 20;
/// The swatch drawn before each legend label.
const SWATCH_W: i32 = 24;
const LEGEND_FONT: u32 = 13;

/// How a legend entry shows what it names.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Swatch {
    /// A filled box: a configuration's colour.
    Box(RGBColor),
    /// A line, solid or dashed, in the muted text colour: which of a configuration's
    /// curves is which.
    Line { dashed: bool },
    /// A line with a point marker, for curves whose points are samples.
    Marked(RGBColor),
}

#[derive(Clone, Debug)]
pub(crate) struct LegendItem {
    pub label: String,
    pub swatch: Swatch,
}

/// Splits `root` into the title row, the legend strip and what is left for the plot, and
/// draws the first two. The legend sits above the plot, not inside it, so that it never
/// covers a curve and never runs off the side: entries that do not fit in a row wrap to
/// the next.
pub(crate) fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendItem],
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    crate::font::ensure();
    root.fill(&WHITE)?;
    let (w, h) = root.dim_in_pixel();
    let mut rest = root.clone();
    if !title.is_empty() {
        let (top, below) = rest.split_vertically(TITLE_H.min(h / 3));
        let shown = fit(&top, title, &font(18), w.saturating_sub(16))?;
        top.draw_text(
            &shown,
            &font(18).pos(Pos::new(HPos::Center, VPos::Center)),
            (w as i32 / 2, TITLE_H as i32 / 2),
        )?;
        rest = below;
    }
    if !legend.is_empty() {
        let rows = layout_legend(&rest, legend, w)?;
        let n_rows = rows.iter().map(|r| r.1).max().map_or(0, |r| r + 1);
        let strip_h = (n_rows as u32 * LEGEND_ROW_H + 6).min(rest.dim_in_pixel().1 / 2);
        let (strip, below) = rest.split_vertically(strip_h);
        for (item, (x, row)) in legend.iter().zip(rows) {
            let y = 3 + row as i32 * LEGEND_ROW_H as i32 + LEGEND_ROW_H as i32 / 2;
            draw_swatch(&strip, item.swatch, x, y)?;
            strip.draw_text(
                &item.label,
                &font(LEGEND_FONT).pos(Pos::new(HPos::Left, VPos::Center)),
                (x + SWATCH_W + 6, y),
            )?;
        }
        rest = below;
    }
    Ok(rest)
}

/// Where each legend entry goes: its left edge and its row. Rows are centred in `width`.
fn layout_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &[LegendItem],
    width: u32,
) -> Result<Vec<(i32, usize)>, PlotError> {
    const GAP: i32 = 18;
    let margin = 12;
    let avail = width as i32 - 2 * margin;
    let mut widths = Vec::with_capacity(legend.len());
    for item in legend {
        let (tw, _) = area.estimate_text_size(&item.label, &font(LEGEND_FONT))?;
        widths.push(SWATCH_W + 6 + tw as i32);
    }
    // Rows first, then each row centred.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut x = 0;
    for (i, &iw) in widths.iter().enumerate() {
        let last = rows.last_mut().expect("there is always a row");
        if !last.is_empty() && x + iw > avail {
            rows.push(vec![i]);
            x = iw + GAP;
        } else {
            last.push(i);
            x += iw + GAP;
        }
    }
    let mut out = vec![(0, 0); legend.len()];
    for (r, row) in rows.iter().enumerate() {
        let row_w: i32 = row.iter().map(|&i| widths[i] + GAP).sum::<i32>() - GAP;
        let mut x = margin + ((avail - row_w) / 2).max(0);
        for &i in row {
            out[i] = (x, r);
            x += widths[i] + GAP;
        }
    }
    Ok(out)
}

fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    x: i32,
    y: i32,
) -> Result<(), PlotError> {
    match swatch {
        Swatch::Box(c) => {
            area.draw(&Rectangle::new(
                [(x + 4, y - 6), (x + SWATCH_W - 4, y + 6)],
                c.filled(),
            ))?;
        }
        Swatch::Line { dashed: false } => {
            area.draw(&PathElement::new(
                vec![(x, y), (x + SWATCH_W, y)],
                MUTED.stroke_width(2),
            ))?;
        }
        Swatch::Line { dashed: true } => {
            for dx in [0, 9, 18] {
                area.draw(&PathElement::new(
                    vec![(x + dx, y), (x + dx + 5, y)],
                    MUTED.stroke_width(1),
                ))?;
            }
        }
        Swatch::Marked(c) => {
            area.draw(&PathElement::new(
                vec![(x, y), (x + SWATCH_W, y)],
                c.stroke_width(2),
            ))?;
            area.draw(&Circle::new((x + SWATCH_W / 2, y), 3, c.filled()))?;
        }
    }
    Ok(())
}

/// `text` as it fits in `max_w` pixels: whole, or cut with an ellipsis, or empty when
/// not even the ellipsis fits.
pub(crate) fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max_w: u32,
) -> Result<String, PlotError> {
    if area.estimate_text_size(text, style)?.0 <= max_w {
        return Ok(text.to_string());
    }
    let chars: Vec<char> = text.chars().collect();
    // The longest prefix that fits with the ellipsis, found by bisection since measuring
    // is the costly part.
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let cut: String = chars[..mid].iter().collect::<String>() + "…";
        if area.estimate_text_size(&cut, style)?.0 <= max_w {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return Ok(String::new());
    }
    Ok(chars[..lo]
        .iter()
        .collect::<String>()
        .trim_end()
        .to_string()
        + "…")
}

/// A message in the middle of `area`, for a chart that has nothing to show, so that an
/// empty input draws a readable explanation rather than a blank or an error.
pub(crate) fn no_data<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    message: &str,
) -> Result<(), PlotError> {
    let (w, h) = area.dim_in_pixel();
    area.draw_text(
        message,
        &font(14)
            .color(&MUTED)
            .pos(Pos::new(HPos::Center, VPos::Center)),
        (w as i32 / 2, h as i32 / 2),
    )?;
    Ok(())
}
