//! The font text is measured and drawn with outside the browser.
//!
//! Natively plotters measures text (for SVG too, to lay out axes and labels) and draws it
//! into bitmaps with `ab_glyph` and a font registered by name. System fonts would need
//! fontconfig and freetype, which a build machine may lack, so the crate carries DejaVu
//! Sans (`fonts/`, with its licence) and registers it as `sans-serif` before anything is
//! drawn. In the browser the canvas draws text with the page's fonts, and the wasm build
//! carries no font at all.

/// The family every chart's text names: SVG keeps it as `font-family`, the canvas asks the
/// browser for it, and natively the embedded font is registered under it.
pub(crate) const FAMILY: &str = "sans-serif";

/// Registers the embedded font, once per process; every chart calls it before drawing,
/// so callers never need to.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn ensure() {
    use std::sync::Once;
    static REGISTER: Once = Once::new();
    static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
    REGISTER.call_once(|| {
        // The font is compiled in and known good; were it refused, measuring text would
        // fail and every chart would return that error rather than panic.
        let _ =
            plotters::style::register_font(FAMILY, plotters::style::FontStyle::Normal, DEJAVU_SANS);
    });
}

/// The browser's canvas has its own fonts: nothing to register.
#[cfg(target_arch = "wasm32")]
pub(crate) fn ensure() {}
