//! Charts as files: SVG or PNG, chosen by the file's extension.

use std::path::Path;

use plotters::prelude::{BitMapBackend, IntoDrawingArea};

use crate::{check_size, render_svg, Chart, PlotError};

/// The file formats a chart is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// The format a file name asks for by its extension, in any case; any other
    /// extension, or none, is an error that names the path.
    pub fn from_path(path: &Path) -> Result<Format, PlotError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        match ext.to_ascii_lowercase().as_str() {
            "svg" => Ok(Format::Svg),
            "png" => Ok(Format::Png),
            _ => Err(PlotError::UnsupportedFormat {
                path: path.to_path_buf(),
                extension: ext,
            }),
        }
    }
}

/// Draws `chart` into a bitmap of `size` pixels and returns it as PNG (8-bit RGB). Text
/// is drawn with the font the crate carries, so the picture is the same on any machine.
pub fn render_png<C: Chart + ?Sized>(chart: &C, size: (u32, u32)) -> Result<Vec<u8>, PlotError> {
    check_size(size)?;
    let (w, h) = size;
    let mut pixels = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
        chart.draw(&root)?;
        root.present()?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let encode = |e: png::EncodingError| PlotError::Encode(e.to_string());
    let mut writer = encoder.write_header().map_err(encode)?;
    writer.write_image_data(&pixels).map_err(encode)?;
    writer.finish().map_err(encode)?;
    Ok(out)
}

/// Writes `chart` to `path` as SVG or PNG, by the path's extension (`.svg`, `.png`),
/// at `size` pixels. Nothing is written when the extension is not one of those or the
/// chart cannot be drawn; errors name the path.
pub fn write<C: Chart + ?Sized>(path: &Path, size: (u32, u32), chart: &C) -> Result<(), PlotError> {
    let bytes = match Format::from_path(path)? {
        Format::Svg => render_svg(chart, size)?.into_bytes(),
        Format::Png => render_png(chart, size)?,
    };
    std::fs::write(path, bytes).map_err(|source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    })
}
