//! heaplab's charts, each one function generic over plotters' [`DrawingBackend`], so the
//! browser draws a chart on a canvas and the CLI writes the same picture as SVG or PNG:
//!
//! - [`draw_track`]: each configuration's two curves over the events of a run, with the
//!   phases: memory over time (resident and live bytes, [`TrackChart::memory`]) or page
//!   operations over time (cumulative commits and decommits, [`TrackChart::page_ops`]),
//!   over events or, for a run with a clock, over model time ([`XAxis`]);
//! - [`draw_summary_bars`]: the summary's figures, one panel per metric;
//! - [`draw_sweep`]: a metric against the values of a swept parameter;
//! - [`draw_heap_map`] and [`draw_block_map`]: teaching mode's maps of a heap at one
//!   event, which answer their layout so a pointer is mapped to the page or the piece
//!   under it in what was drawn.
//!
//! [`Captioned`] puts a title over any of them and notes under it, for a picture that
//! leaves the page.
//!
//! Each takes a plain input struct of slices and labels ([`TrackChart`], ...), with
//! constructors from the core's types where the core has the data, so a caller can chart
//! anything it has the numbers for. Every chart also implements [`Chart`], which
//! [`render_svg`], [`render_png`] and [`write`] take. Bad input (no runs, an empty series,
//! a zoom window of no width, NaN values) draws a readable chart or a message saying what
//! is missing; nothing here panics on it.

mod block_map;
mod byte_window;
mod caption;
mod font;
mod heap_map;
mod map_key;
#[cfg(not(target_arch = "wasm32"))]
mod output;
mod style;
mod summary;
mod sweep;
mod sweep_plot;
mod track;
pub mod units;

use std::fmt;
use std::path::PathBuf;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, DrawingBackend};

pub use block_map::{
    block_map_key, block_map_layout, draw_block_map, piece_text, BlockMapChart, BlockMapLayout,
    PieceBox,
};
pub use byte_window::{tick_label, ByteWindow, MIN_WINDOW};
pub use caption::Captioned;
pub use heap_map::{
    draw_heap_map, heap_map_key, heap_map_layout, Cell, HeapMapChart, HeapMapLayout, MapRow,
};
pub use map_key::KeyEntry;
#[cfg(not(target_arch = "wasm32"))]
pub use output::{render_png, write, Format};
pub use style::{color, PALETTE};
pub use summary::{draw_summary_bars, SummaryChart, SummaryRow};
pub use sweep::{draw_sweep, SweepChart, SweepLine, SweepMarks, SweepScale, SweepValue};
pub use sweep_plot::{sweep_plot_size, PointMark, SweepPlot};
pub use track::{draw_track, sample_at, PlotFrame, Track, TrackChart, TrackKind, ValueAxis, XAxis};

/// The largest width or height drawn, in pixels: a bitmap takes three bytes a pixel, and
/// a size typed wrong should be an error, not an allocation of many gigabytes.
pub const MAX_SIDE: u32 = 8192;

/// A chart that can be drawn on any backend: what the file writers take, so one call
/// writes any of the charts in either format.
///
/// Neither a chart nor a drawing function presents its area: SVG's `present` closes the
/// document, so a chart drawn as one panel of several would leave the next panel's
/// elements after `</svg>`. Whoever owns the backend presents it once, after every panel
/// ([`render_svg`], [`render_png`]; a canvas draws as it goes and needs nothing).
pub trait Chart {
    /// Draws the chart over the whole of `root`, without presenting it.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>;
}

impl Chart for TrackChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_track(root, self).map(|_| ())
    }
}

impl Chart for SummaryChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_summary_bars(root, self)
    }
}

impl Chart for SweepChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_sweep(root, self).map(|_| ())
    }
}

impl Chart for HeapMapChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_heap_map(root, self).map(|_| ())
    }
}

impl Chart for BlockMapChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_block_map(root, self).map(|_| ())
    }
}

/// The heap map as an SVG document `width` pixels wide and as tall as it needs.
pub fn heap_map_svg(chart: &HeapMapChart, width: u32) -> Result<String, PlotError> {
    let height = heap_map_layout(chart, width).height;
    render_svg(chart, (width, height.min(MAX_SIDE)))
}

/// The block map as an SVG document `width` pixels wide and as tall as it needs.
pub fn block_map_svg(chart: &BlockMapChart, width: u32) -> Result<String, PlotError> {
    let height = block_map_layout(chart, width).height;
    render_svg(chart, (width, height.min(MAX_SIDE)))
}

/// Draws `chart` as an SVG document of `size` pixels. Text stays text, in the
/// `sans-serif` family, so it can be searched and is drawn in the viewer's own font.
pub fn render_svg<C: Chart + ?Sized>(chart: &C, size: (u32, u32)) -> Result<String, PlotError> {
    use plotters::prelude::IntoDrawingArea;
    check_size(size)?;
    let mut out = String::new();
    {
        let root = plotters_svg::SVGBackend::with_string(&mut out, size).into_drawing_area();
        chart.draw(&root)?;
        root.present()?;
    }
    Ok(out)
}

fn check_size((w, h): (u32, u32)) -> Result<(), PlotError> {
    if (1..=MAX_SIDE).contains(&w) && (1..=MAX_SIDE).contains(&h) {
        Ok(())
    } else {
        Err(PlotError::Size {
            width: w,
            height: h,
        })
    }
}

/// Why a chart was not drawn or written.
#[derive(Debug)]
pub enum PlotError {
    /// The backend refused to draw (for text, the font could not be used).
    Draw(String),
    /// A width or height of zero or above [`MAX_SIDE`].
    Size { width: u32, height: u32 },
    /// The file's name ends in something other than `.svg` or `.png`; `extension` is
    /// empty when it has none.
    UnsupportedFormat { path: PathBuf, extension: String },
    /// The file could not be written.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    Encode(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Draw(msg) => write!(f, "drawing the chart failed: {msg}"),
            PlotError::Size { width, height } => write!(
                f,
                "a chart of {width}x{height} pixels cannot be drawn: width and height must be \
                 1 to {MAX_SIDE}"
            ),
            PlotError::UnsupportedFormat { path, extension } if extension.is_empty() => write!(
                f,
                "{}: the file name has no extension; name it .svg or .png",
                path.display()
            ),
            PlotError::UnsupportedFormat { path, extension } => write!(
                f,
                "{}: charts cannot be written as .{extension}; name the file .svg or .png",
                path.display()
            ),
            PlotError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PlotError::Encode(msg) => write!(f, "encoding the PNG failed: {msg}"),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> PlotError {
        PlotError::Draw(e.to_string())
    }
}
