//! The bytes of a page the block map shows when it zooms in: a window of offsets from the
//! page's start, read from the text a person types ("64..320", "0x40..0x140"), moved by
//! the wheel or the zoom buttons around the byte under the pointer, and the ruler's
//! ticks under it. The page asks for all of it through the teaching bindings, so the
//! canvas, the SVG and the pointer agree on one window.

use serde::{Deserialize, Serialize};

/// The narrowest window: two of the smallest chunks any family hands out, so each one
/// is a quarter of the bar or more.
pub const MIN_WINDOW: u64 = 32;

/// Offsets `[from, to)` from the start of a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteWindow {
    pub from: u64,
    pub to: u64,
}

impl ByteWindow {
    /// The whole of a page of `page_size` bytes.
    pub fn whole(page_size: u64) -> ByteWindow {
        ByteWindow {
            from: 0,
            to: page_size.max(1),
        }
    }

    pub fn width(self) -> u64 {
        self.to - self.from
    }

    /// The window within a page of `page_size` bytes: cut at the page's end, and widened
    /// to [`MIN_WINDOW`] (or the page) where it is narrower, so a window kept from a
    /// larger page, or typed by hand, still draws.
    pub fn within(self, page_size: u64) -> ByteWindow {
        let page = page_size.max(1);
        let width = self
            .to
            .saturating_sub(self.from)
            .clamp(MIN_WINDOW.min(page), page);
        let from = self.from.min(page - width);
        ByteWindow {
            from,
            to: from + width,
        }
    }

    /// Whether the window is the whole page.
    pub fn is_whole(self, page_size: u64) -> bool {
        self.from == 0 && self.to >= page_size
    }

    /// Reads `FROM..TO`, two offsets in bytes (decimal or `0x` hexadecimal) within a page
    /// of `page_size` bytes, `TO` past `FROM` and at most the page's size. The error names
    /// what was typed and the offsets the page allows.
    pub fn parse(text: &str, page_size: u64) -> Result<ByteWindow, String> {
        let bad = || {
            format!(
                "bytes: {:?} is not FROM..TO, two offsets from the page's start within 0..{page_size} \
                 (decimal, or hexadecimal after 0x), the first before the second",
                text.trim()
            )
        };
        let (a, b) = text.split_once("..").ok_or_else(bad)?;
        let (from, to) = (offset(a).ok_or_else(bad)?, offset(b).ok_or_else(bad)?);
        if from >= to || to > page_size {
            return Err(bad());
        }
        Ok(ByteWindow { from, to })
    }

    /// The window `factor` times as wide (below 1: zoomed in), the byte at offset `at`
    /// staying where it is on the bar, kept within the page and no narrower than
    /// [`MIN_WINDOW`]. Its ends are whole multiples of 8 bytes, the alignment every
    /// family keeps, so a chunk starts on a window's edge rather than a byte into it.
    pub fn zoom(self, at: f64, factor: f64, page_size: u64) -> ByteWindow {
        let page = page_size.max(1);
        let factor = if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            1.0
        };
        let at = at.clamp(self.from as f64, self.to as f64);
        let width =
            ((self.width() as f64 * factor).round() as u64).clamp(MIN_WINDOW.min(page), page);
        let width = (width.div_ceil(8) * 8).min(page);
        let from = (at - (at - self.from as f64) * width as f64 / self.width() as f64).max(0.0);
        let from = ((from / 8.0).round() as u64 * 8).min(page - width);
        ByteWindow {
            from,
            to: from + width,
        }
    }

    /// The ruler's step: the smallest power of two, from 8 bytes, that leaves `min_px`
    /// pixels or more between two ticks on a bar `bar_px` pixels wide.
    pub fn tick_step(self, bar_px: f64, min_px: f64) -> u64 {
        let per_byte = bar_px / self.width().max(1) as f64;
        let mut step = 8u64;
        while (step as f64) * per_byte < min_px && step < self.width() {
            step *= 2;
        }
        step
    }

    /// The ticks of the ruler at `step`: each offset in the window that is a multiple of it.
    pub fn ticks(self, step: u64) -> impl Iterator<Item = u64> {
        let first = self.from.div_ceil(step) * step;
        (first..=self.to).step_by(step as usize)
    }
}

/// One offset: decimal, or hexadecimal after `0x`.
fn offset(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// A ruler tick's label: the offset from the page's start in hexadecimal, as addresses are
/// written, so `+0x40` on page 0x10000 is the chunk `heaplab explain` places at 0x10040.
pub fn tick_label(offset: u64) -> String {
    format!("+{offset:#x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_window_is_read_or_refused_by_what_was_typed() {
        assert_eq!(
            ByteWindow::parse("64..320", 4096),
            Ok(ByteWindow { from: 64, to: 320 })
        );
        assert_eq!(
            ByteWindow::parse(" 0x40 .. 0x140 ", 4096),
            Ok(ByteWindow { from: 64, to: 320 })
        );
        for bad in ["", "64", "320..64", "0..5000", "a..b", "-1..8", "8..8"] {
            let e = ByteWindow::parse(bad, 4096).unwrap_err();
            assert!(e.starts_with("bytes: "), "{bad}: {e}");
            assert!(e.contains("within 0..4096"), "{e}");
        }
    }

    #[test]
    fn zooming_keeps_the_byte_under_the_pointer_and_stays_in_the_page() {
        let whole = ByteWindow::whole(4096);
        let z = whole.zoom(1024.0, 0.25, 4096);
        assert_eq!(
            z,
            ByteWindow {
                from: 768,
                to: 1792
            }
        );
        // All the way in stops at the narrowest window; all the way out at the page.
        let mut w = z;
        for _ in 0..20 {
            w = w.zoom(1030.0, 0.5, 4096);
        }
        assert_eq!(w.width(), MIN_WINDOW);
        assert!(w.from <= 1030 && 1030 <= w.to, "{w:?}");
        for _ in 0..20 {
            w = w.zoom(1030.0, 2.0, 4096);
        }
        assert_eq!(w, whole);
        // Zoomed out near the page's end, the window slides back inside it.
        let end = ByteWindow {
            from: 3584,
            to: 4096,
        }
        .zoom(4000.0, 4.0, 4096);
        assert_eq!(
            end,
            ByteWindow {
                from: 2048,
                to: 4096
            }
        );
        assert_eq!(
            ByteWindow {
                from: 4000,
                to: 9000
            }
            .within(4096),
            ByteWindow { from: 0, to: 4096 }
        );
        assert_eq!(
            ByteWindow { from: 100, to: 101 }.within(4096),
            ByteWindow { from: 100, to: 132 }
        );
    }

    #[test]
    fn the_ruler_ticks_are_far_enough_apart_to_read() {
        let w = ByteWindow { from: 40, to: 296 };
        // 256 bytes over 1024 pixels: 4 pixels a byte, so 16 bytes make 64 pixels.
        let step = w.tick_step(1024.0, 50.0);
        assert_eq!(step, 16);
        let ticks: Vec<u64> = w.ticks(step).collect();
        assert_eq!(ticks.first(), Some(&48));
        assert_eq!(ticks.last(), Some(&288));
        assert_eq!(tick_label(64), "+0x40");
    }
}
