//! What the heap map and the block map share: their keys (a colour and what it stands
//! for, which the page shows as HTML swatches and an SVG draws under the map, one entry a
//! line), the scale they are drawn at, and colours as text for the page.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::style::{font, TEXT};
use crate::PlotError;

/// One entry of a map's key: the swatch's fill and edge as `#rrggbb`, and what it means.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KeyEntry {
    pub label: String,
    pub fill: String,
    pub edge: String,
}

impl KeyEntry {
    pub(crate) fn new(label: impl Into<String>, fill: RGBColor, edge: RGBColor) -> KeyEntry {
        KeyEntry {
            label: label.into(),
            fill: hex(fill),
            edge: hex(edge),
        }
    }
}

/// A colour as the page's CSS writes it.
pub(crate) fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn parse_hex(text: &str) -> RGBColor {
    let byte = |i: usize| u8::from_str_radix(text.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0);
    RGBColor(byte(1), byte(3), byte(5))
}

/// Lengths of a map in pixels at `scale` backend pixels per CSS pixel (the device pixel
/// ratio on a canvas, 1 in SVG), so a page cell stays big enough to click on a dense
/// screen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale(pub f64);

impl Scale {
    pub(crate) fn of(scale: f64) -> Scale {
        Scale(if scale.is_finite() && scale > 0.0 {
            scale.clamp(0.5, 4.0)
        } else {
            1.0
        })
    }

    pub(crate) fn px(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }

    pub(crate) fn font(self, size: f64) -> TextStyle<'static> {
        font(self.px(size).max(6) as u32)
    }
}

/// The height of the title row, and of one key line.
pub(crate) const TITLE_H: f64 = 26.0;
pub(crate) const KEY_LINE_H: f64 = 18.0;

/// The height the title and the key take: nothing for the page, which shows its own.
pub(crate) fn frame_height(title: &str, key: &[KeyEntry], s: Scale) -> i32 {
    let title = if title.is_empty() { 0 } else { s.px(TITLE_H) };
    let key = if key.is_empty() {
        0
    } else {
        s.px(6.0 + KEY_LINE_H * key.len() as f64)
    };
    title + key
}

/// Draws the title at the top of `root` (if any); answers where the map starts.
pub(crate) fn draw_title<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    s: Scale,
) -> Result<i32, PlotError> {
    if title.is_empty() {
        return Ok(0);
    }
    root.draw_text(
        title,
        &s.font(15.0).pos(Pos::new(HPos::Left, VPos::Center)),
        (s.px(6.0), s.px(TITLE_H / 2.0)),
    )?;
    Ok(s.px(TITLE_H))
}

/// Draws the key from `top` down, one entry a line.
pub(crate) fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    key: &[KeyEntry],
    top: i32,
    s: Scale,
) -> Result<(), PlotError> {
    for (i, entry) in key.iter().enumerate() {
        let y = top + s.px(6.0 + KEY_LINE_H * i as f64);
        let (x0, x1) = (s.px(8.0), s.px(22.0));
        let box_ = [(x0, y + s.px(3.0)), (x1, y + s.px(15.0))];
        root.draw(&Rectangle::new(box_, parse_hex(&entry.fill).filled()))?;
        root.draw(&Rectangle::new(
            box_,
            parse_hex(&entry.edge).stroke_width(1),
        ))?;
        root.draw_text(
            &entry.label,
            &s.font(12.0)
                .color(&TEXT)
                .pos(Pos::new(HPos::Left, VPos::Center)),
            (s.px(30.0), y + s.px(9.0)),
        )?;
    }
    Ok(())
}
