//! A chart with a title over it and notes under it, for a picture that travels without
//! the page around it: the page's exports put what ran (the workload, the provider, the
//! page size, heaplab's version and the link) under the chart, so a PNG in a slide still
//! says where its numbers come from.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::style::{self, font, MUTED};
use crate::{Chart, PlotError};

const TITLE_FONT: u32 = 18;
const TITLE_H: u32 = 32;
const NOTE_FONT: u32 = 11;
const NOTE_H: u32 = 15;
const MARGIN: i32 = 10;

/// `chart` under `title` (none when empty) and over `notes`, one line each; a note too
/// long for the width (a link) goes on over as many lines as it needs, unabridged.
#[derive(Debug)]
pub struct Captioned<'a, C: ?Sized> {
    pub title: &'a str,
    pub notes: &'a [String],
    pub chart: &'a C,
}

impl<C: Chart + ?Sized> Chart for Captioned<'_, C> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        crate::font::ensure();
        root.fill(&WHITE)?;
        let (w, h) = root.dim_in_pixel();
        let mut rest = root.clone();
        if !self.title.is_empty() {
            let (top, below) = rest.split_vertically(TITLE_H.min(h / 4));
            let shown = style::fit(&top, self.title, &font(TITLE_FONT), w.saturating_sub(16))?;
            top.draw_text(
                &shown,
                &font(TITLE_FONT).pos(Pos::new(HPos::Center, VPos::Center)),
                (w as i32 / 2, TITLE_H as i32 / 2),
            )?;
            rest = below;
        }
        let style = font(NOTE_FONT).color(&MUTED);
        let max_w = w.saturating_sub(2 * MARGIN as u32).max(1);
        let mut lines = Vec::new();
        for note in self.notes {
            lines.extend(wrap(&rest, note, &style, max_w)?);
        }
        if !lines.is_empty() {
            let notes_h = (lines.len() as u32 * NOTE_H + 8).min(rest.dim_in_pixel().1 / 2);
            let rest_h = rest.dim_in_pixel().1;
            let (above, under) = rest.split_vertically(rest_h - notes_h);
            for (i, line) in lines.iter().enumerate() {
                under.draw_text(
                    line,
                    &style.pos(Pos::new(HPos::Left, VPos::Top)),
                    (MARGIN, 4 + i as i32 * NOTE_H as i32),
                )?;
            }
            rest = above;
        }
        self.chart.draw(&rest)
    }
}

/// `text` cut into lines that each fit in `max_w` pixels, at spaces where a line has one
/// and anywhere in a word longer than the line (a link has no spaces).
fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max_w: u32,
) -> Result<Vec<String>, PlotError> {
    let fits = |s: &str| area.estimate_text_size(s, style).map(|(w, _)| w <= max_w);
    let mut lines = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    while !rest.is_empty() {
        let whole: String = rest.iter().collect();
        if fits(&whole)? {
            lines.push(whole);
            break;
        }
        // The longest prefix that fits, by bisection since measuring is the costly part;
        // at least one character, so a line always moves on.
        let (mut lo, mut hi) = (1, rest.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(&rest[..mid].iter().collect::<String>())? {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let cut = match rest[..lo].iter().rposition(|c| *c == ' ') {
            Some(space) if space > lo / 2 => space + 1,
            _ => lo,
        };
        lines.push(
            rest[..cut]
                .iter()
                .collect::<String>()
                .trim_end()
                .to_string(),
        );
        rest.drain(..cut);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{render_svg, SummaryChart};

    #[test]
    fn the_title_and_every_note_are_in_the_picture_and_a_long_link_is_whole() {
        let link = format!("http://127.0.0.1:8000/#2.{}", "x".repeat(400));
        let notes = ["heaplab: 0.1.0".to_string(), format!("link: {link}")];
        let chart = SummaryChart::default();
        let svg = render_svg(
            &Captioned {
                title: "Summary of jit",
                notes: &notes,
                chart: &chart,
            },
            (800, 500),
        )
        .unwrap();
        assert!(svg.contains("Summary of jit"));
        assert!(svg.contains("heaplab: 0.1.0"));
        // The link is cut into lines, and its pieces put back together are the link.
        let text: String = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split('>').nth(1)?.split('<').next())
            .map(str::trim)
            .collect();
        assert!(text.contains(&link), "{text}");
    }
}
