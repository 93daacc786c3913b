//! `heaplab map`: teaching mode's heap map and block map of the heap at an event, drawn by
//! heaplab-plot's `draw_heap_map` and `draw_block_map` (the functions the page draws its
//! canvases with) and written as SVG or PNG; `--bytes` zooms the block map into each
//! page's bytes as the panel's zoom does.

use heaplab_plot::{BlockMapChart, ByteWindow, HeapMapChart};

use crate::cli::MapArgs;
use crate::error::CliError;
use crate::input::session_at;
use crate::output::plot::write_chart_for;

/// The block map's pages when `--pages` does not say: as many committed pages as the
/// panel shows, from the first resident one.
const BLOCK_ROWS: usize = 12;

pub fn run(args: MapArgs) -> Result<(), CliError> {
    if args.heap_map.is_none() && args.block_map.is_none() {
        return Err(CliError::input(
            "map: name a picture to write with --heap-map FILE or --block-map FILE (or both)",
        ));
    }
    if !(200..=heaplab_plot::MAX_SIDE).contains(&args.width) {
        return Err(CliError::input(format!(
            "--width: {} pixels cannot be drawn; give 200 to {}",
            args.width,
            heaplab_plot::MAX_SIDE
        )));
    }
    let pages = args.pages.as_deref().map(parse_pages).transpose()?;
    let (config, session, at) = session_at(&args.input, args.trace.lenient, &args.at)?;
    let map = session.heap_map();
    // The label tables use: a preset or family with the settings it changes, a module by
    // its file.
    let policy = config.policy.label();
    if let Some(path) = &args.heap_map {
        let title = format!("{policy}: the heap after event {at}");
        let chart = HeapMapChart {
            zoom: pages,
            title: &title,
            key: true,
            ..HeapMapChart::new(&map)
        };
        let height = heaplab_plot::heap_map_layout(&chart, args.width).height;
        write_chart_for(
            "--heap-map",
            path,
            (args.width, height.min(heaplab_plot::MAX_SIDE)),
            &chart,
        )?;
    }
    if let Some(path) = &args.block_map {
        let (first, count) = match pages {
            Some((a, b)) => (a, b - a + 1),
            None => default_rows(&map),
        };
        let blocks = session.block_map(first, count);
        let bytes = args
            .bytes
            .as_deref()
            .map(|text| ByteWindow::parse(text, map.page_size))
            .transpose()
            .map_err(|e| CliError::input(format!("--{e}")))?;
        let title = format!("{policy}: blocks after event {at}");
        let chart = BlockMapChart {
            title: &title,
            key: true,
            bytes,
            ..BlockMapChart::new(&blocks)
        };
        let height = heaplab_plot::block_map_layout(&chart, args.width).height;
        write_chart_for(
            "--block-map",
            path,
            (args.width, height.min(heaplab_plot::MAX_SIDE)),
            &chart,
        )?;
    }
    Ok(())
}

/// `FIRST..LAST` page numbers, both included.
fn parse_pages(text: &str) -> Result<(u64, u64), CliError> {
    let bad = || {
        CliError::input(format!(
            "--pages: {text:?} is not FIRST..LAST, two page numbers with the first not after the last"
        ))
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let (a, b): (u64, u64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a > b {
        return Err(bad());
    }
    Ok((a, b))
}

/// The panel's default rows: committed pages from the first resident one.
fn default_rows(map: &heaplab_app::observe::heap_map::HeapMap) -> (u64, u64) {
    let at = map.pages.iter().position(|p| p.resident).unwrap_or(0);
    let shown = &map.pages[at.min(map.pages.len())..];
    match (shown.first(), shown[..shown.len().min(BLOCK_ROWS)].last()) {
        (Some(a), Some(b)) => (a.page, b.page - a.page + 1),
        _ => (0, 0),
    }
}
