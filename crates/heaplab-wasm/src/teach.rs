//! Teaching mode for the page: [`Teach`] holds the core's `Teaching` for one
//! configuration (a built-in workload or a trace's bytes) of at most
//! `MAX_TEACH_EVENTS` events, moves it to any event in slices the page shows progress
//! between, finds the events the jumps go to, and hands out the event's line (the core's
//! `explain::line`, the same text `heaplab explain` prints), the heap map, the block map
//! and blame at the event shown. The two maps are drawn on the page's canvases by
//! heaplab-plot's `draw_heap_map` and `draw_block_map`, the functions `heaplab blame
//! --heap-map/--block-map` write as SVG, and each drawing's layout is kept here so the
//! page asks which page or piece is under the pointer of the very picture it shows. A
//! trace file is pushed in chunks ([`TeachTrace`]), so reading stops where the run
//! passes teaching mode's limit. Bindings only: everything is the core's or the plot
//! crate's.

use heaplab_app::observe::block_map::BlockMap;
use heaplab_app::observe::teach::{trace_events, workload_events};
use heaplab_app::observe::{EventLog, Teaching};
use heaplab_core::config::RunConfig;
use heaplab_core::trace::sites::Sites;
use heaplab_core::trace::ImportOptions;
use heaplab_plot::{BlockMapChart, BlockMapLayout, ByteWindow, HeapMapChart, HeapMapLayout};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::convert::{from_js, to_js};

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The events `config` steps through: its built-in workload's, or the trace's in `trace`
/// for a trace config with the call sites it has, each stopped past `MAX_TEACH_EVENTS`
/// by the core.
fn events_of(
    config: &RunConfig,
    trace: Option<&[u8]>,
    lenient: bool,
) -> Result<(EventLog, Sites), String> {
    if !config.workload.is_trace() {
        return workload_events(config)
            .map(|events| (events, Sites::new()))
            .map_err(|e| e.to_string());
    }
    let bytes = trace.ok_or("teach: the trace's bytes are missing")?;
    let name = config.workload.path.clone().unwrap_or_default();
    let options = ImportOptions {
        lenient,
        ..ImportOptions::default()
    };
    trace_events(bytes, &name, &options).map_err(|e| e.to_string())
}

/// A trace file for teaching mode, pushed chunk by chunk as the page reads it: a bad line
/// or the event past `MAX_TEACH_EVENTS` throws at the chunk holding it, and the page stops
/// reading there.
#[wasm_bindgen]
#[derive(Debug)]
pub struct TeachTrace {
    /// `None` once finished or stopped.
    inner: Option<heaplab_app::observe::TeachTrace>,
}

#[wasm_bindgen]
impl TeachTrace {
    /// A trace named `name` (for messages and the format); `lenient` skips bad lines.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, lenient: bool) -> TeachTrace {
        let options = ImportOptions {
            lenient,
            ..ImportOptions::default()
        };
        TeachTrace {
            inner: Some(heaplab_app::observe::TeachTrace::new(name, &options)),
        }
    }

    /// The file's next bytes. Throws `NAME:line: …` for a bad line or a run too long to
    /// teach, and the trace ends.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        let t = self.inner.as_mut().ok_or_else(spent)?;
        t.push(chunk).map_err(|e| {
            self.inner = None;
            js_error(e)
        })
    }
}

fn spent() -> JsError {
    JsError::new("teach: this trace has ended; read it again")
}

/// How the page wants a map drawn: the zoom (pages for the heap map, a page's bytes for
/// the block map), the marks and the device pixel ratio.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct MapOptions {
    zoom: Option<[u64; 2]>,
    bytes: Option<[u64; 2]>,
    selected: Option<u64>,
    outlined: Vec<u64>,
    dragged: Option<[u64; 2]>,
    scale: Option<f64>,
}

fn map_options(options: JsValue) -> Result<MapOptions, JsError> {
    if options.is_undefined() || options.is_null() {
        return Ok(MapOptions::default());
    }
    from_js(options, "map options")
}

/// One configuration's run held for stepping through, with the layouts of the maps last
/// drawn.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Teach {
    inner: Teaching,
    heap_layout: Option<HeapMapLayout>,
    blocks: Option<(BlockMap, BlockMapLayout)>,
}

fn canvas_root(
    canvas: HtmlCanvasElement,
) -> Result<plotters::prelude::DrawingArea<CanvasBackend, plotters::coord::Shift>, JsError> {
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsError::new("teach: the canvas has no 2D context"))?;
    Ok(backend.into_drawing_area())
}

#[wasm_bindgen]
impl Teach {
    /// Holds `config`'s run for stepping, before its first event: its built-in workload,
    /// or for a trace config (`{"id": "trace", "path": NAME}`) the trace in `trace`.
    /// Throws an Error that names what is wrong: a bad field, a trace's `NAME:line`, or a
    /// run longer than teaching mode holds (`teach: the workload has more than
    /// 10,000,000 events …`).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, trace: Option<Vec<u8>>, lenient: bool) -> Result<Teach, JsError> {
        let config: RunConfig = from_js(config, "config")?;
        let (events, sites) =
            events_of(&config, trace.as_deref(), lenient).map_err(|e| JsError::new(&e))?;
        Teach::of(&config, events, sites)
    }

    /// Holds a trace config's run for stepping, the trace read into `trace` (which is
    /// used up).
    pub fn from_trace(config: JsValue, trace: &mut TeachTrace) -> Result<Teach, JsError> {
        let config: RunConfig = from_js(config, "config")?;
        let t = trace.inner.take().ok_or_else(spent)?;
        let (events, sites) = t.finish().map_err(js_error)?;
        Teach::of(&config, events, sites)
    }

    /// The same run under another configuration `config`, before its first event, for
    /// two configurations side by side: the events are shared, not read again.
    pub fn alongside(&self, config: JsValue) -> Result<Teach, JsError> {
        let config: RunConfig = from_js(config, "config")?;
        let inner = self.inner.alongside(&config).map_err(js_error)?;
        Ok(Teach {
            inner,
            heap_layout: None,
            blocks: None,
        })
    }

    /// How many events the run has.
    pub fn events(&self) -> usize {
        self.inner.len()
    }

    /// How many events are applied to the heap shown.
    pub fn position(&self) -> usize {
        self.inner.position()
    }

    /// Event `k`'s step (1-based) when it is the event shown: `{event, op, decisions,
    /// line}` as `heaplab explain --json` prints it, or null.
    pub fn step(&self, k: usize) -> Result<JsValue, JsError> {
        match self.inner.step(k) {
            Some(step) => to_js(step),
            None => Ok(JsValue::NULL),
        }
    }

    /// Shows the heap after event `k` (0: before the first).
    pub fn seek(&mut self, k: usize) -> Result<(), JsError> {
        self.inner.seek(k).map_err(js_error)
    }

    /// Moves toward event `k` by at most `budget` events; answers whether it is there.
    /// The page calls it in slices, showing `position()` between them.
    pub fn seek_some(&mut self, k: usize, budget: usize) -> Result<bool, JsError> {
        self.inner.seek_some(k, budget).map_err(js_error)
    }

    /// Reads the run's index (the kinds of each event and the peak) by at most `budget`
    /// events; answers whether it is read.
    pub fn read_index(&mut self, budget: usize) -> Result<bool, JsError> {
        self.inner.read_index(budget).map_err(js_error)
    }

    /// The first event after which resident memory is highest.
    pub fn peak(&mut self) -> Result<usize, JsError> {
        Ok(self.inner.index().map_err(js_error)?.peak())
    }

    /// The next (`forward`) or previous event of kind `kind` (one of `teach_kinds()`)
    /// from the event shown, or null when there is none.
    pub fn find(&mut self, kind: &str, forward: bool) -> Result<Option<usize>, JsError> {
        let kind = heaplab_app::observe::find::kind(kind).map_err(|e| JsError::new(&e))?;
        self.inner.find(kind, forward).map_err(js_error)
    }

    /// The heap map at the event shown: `{event, page_size, pages, reservations, counts}`.
    pub fn heap_map(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.heap_map())
    }

    /// Blame at the event shown, as `heaplab blame --json` prints it.
    pub fn blame(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.blame())
    }

    /// The block map of `count` map pages from page `first`, at the event shown.
    pub fn block_map(&self, first: f64, count: f64) -> Result<JsValue, JsError> {
        // Page numbers are small integers; the page passes them as numbers.
        to_js(&self.inner.block_map(first as u64, count as u64))
    }

    /// Draws the heap map at the event shown on `canvas`, as wide as the canvas is and
    /// as tall as the map needs (the canvas's height is set to it): `options` `{zoom:
    /// [first, last], selected, outlined: [pages], dragged: [first, last], scale}`, the
    /// scale being the device pixel ratio. Answers the height in canvas pixels.
    pub fn draw_heap_map(
        &mut self,
        canvas: HtmlCanvasElement,
        options: JsValue,
    ) -> Result<u32, JsError> {
        let o = map_options(options)?;
        let map = self.inner.heap_map();
        let chart = HeapMapChart {
            zoom: o.zoom.map(|[a, b]| (a, b)),
            selected: o.selected,
            outlined: &o.outlined,
            dragged: o.dragged.map(|[a, b]| (a, b)),
            scale: o.scale.unwrap_or(1.0),
            ..HeapMapChart::new(&map)
        };
        let laid = heaplab_plot::heap_map_layout(&chart, canvas.width().max(1));
        canvas.set_height(laid.height.clamp(1, heaplab_plot::MAX_SIDE));
        let laid = heaplab_plot::draw_heap_map(&canvas_root(canvas)?, &chart)
            .map_err(|e| JsError::new(&format!("teach: heap map: {e}")))?;
        let height = laid.height;
        self.heap_layout = Some(laid);
        Ok(height)
    }

    /// The page under canvas pixel `(x, y)` of the heap map last drawn, or null.
    pub fn heap_map_page_at(&self, x: f64, y: f64) -> Option<f64> {
        let page = self.heap_layout.as_ref()?.page_at(x, y)?;
        Some(page as f64)
    }

    /// Where page `page` is on the heap map last drawn, `{page, x, y, size}` in canvas
    /// pixels, or null when it is not shown.
    pub fn heap_map_cell(&self, page: f64) -> Result<JsValue, JsError> {
        match self.heap_layout.as_ref().and_then(|l| l.cell(page as u64)) {
            Some(cell) => to_js(&cell),
            None => Ok(JsValue::NULL),
        }
    }

    /// Draws the block map of `count` map pages from page `first` on `canvas` (its
    /// height set to what the rows need): `options` `{selected, scale, bytes: [from,
    /// to]}`, `bytes` zooming each page down to those offsets from its start. Answers
    /// `{rows, links, regions, height, page_size, bytes, bars, bar_left, bar_width,
    /// key}`: how many rows, list links and regions it drew, the bytes of each page shown
    /// (`{from, to}`, null for whole pages), where the bars are (each row's bar top, their
    /// left edge and width, in canvas pixels), and its key `[{label, fill, edge}]`.
    pub fn draw_block_map(
        &mut self,
        canvas: HtmlCanvasElement,
        first: f64,
        count: f64,
        options: JsValue,
    ) -> Result<JsValue, JsError> {
        let o = map_options(options)?;
        let blocks = self.inner.block_map(first as u64, count as u64);
        let chart = BlockMapChart {
            selected: o.selected,
            scale: o.scale.unwrap_or(1.0),
            bytes: o.bytes.map(|[from, to]| ByteWindow { from, to }),
            ..BlockMapChart::new(&blocks)
        };
        let laid = heaplab_plot::block_map_layout(&chart, canvas.width().max(1));
        canvas.set_height(laid.height.clamp(1, heaplab_plot::MAX_SIDE));
        let laid = heaplab_plot::draw_block_map(&canvas_root(canvas)?, &chart)
            .map_err(|e| JsError::new(&format!("teach: block map: {e}")))?;
        #[derive(serde::Serialize)]
        struct Drawn {
            rows: usize,
            links: usize,
            regions: usize,
            height: u32,
            page_size: u64,
            bytes: Option<ByteWindow>,
            bars: Vec<i32>,
            bar_left: i32,
            bar_width: i32,
            key: Vec<heaplab_plot::KeyEntry>,
        }
        let drawn = Drawn {
            rows: blocks.rows.len(),
            links: blocks.links.len(),
            regions: blocks.regions.len(),
            height: laid.height,
            page_size: blocks.page_size,
            bytes: laid.bytes,
            bars: laid.bars.clone(),
            bar_left: laid.bar_left,
            bar_width: laid.bar_width,
            key: heaplab_plot::block_map_key(&blocks),
        };
        self.blocks = Some((blocks, laid));
        to_js(&drawn)
    }

    /// The piece under canvas pixel `(x, y)` of the block map last drawn: `{page, piece,
    /// text}` (the piece as the block map gives it, and what it is in words), or null.
    pub fn block_map_piece_at(&self, x: f64, y: f64) -> Result<JsValue, JsError> {
        let Some((blocks, laid)) = &self.blocks else {
            return Ok(JsValue::NULL);
        };
        let Some((row, index)) = laid.piece_at(x, y) else {
            return Ok(JsValue::NULL);
        };
        let row = &blocks.rows[row];
        let piece = &row.pieces[index];
        #[derive(serde::Serialize)]
        struct Hit<'a> {
            page: u64,
            piece: &'a heaplab_app::observe::block_map::Piece,
            text: String,
        }
        to_js(&Hit {
            page: row.page,
            piece,
            text: heaplab_plot::piece_text(piece),
        })
    }
}

#[wasm_bindgen]
impl Teach {
    /// The zoom by `factor` (below 1: in) around canvas pixel `(x, y)` of the block map
    /// last drawn: `{page, from, to}`, the page of the row under the pointer and the
    /// offsets the map shows next, the byte under the pointer staying under it; null when
    /// the pointer is on no row. The zoom buttons pass the middle of the bar.
    pub fn block_map_zoom(&self, x: f64, y: f64, factor: f64) -> Result<JsValue, JsError> {
        let Some((blocks, laid)) = &self.blocks else {
            return Ok(JsValue::NULL);
        };
        let Some(row) = laid.row_at(y) else {
            return Ok(JsValue::NULL);
        };
        let window = laid.zoom_at(x, factor);
        to_js(&heaplab_app::link::TeachBytes {
            page: blocks.rows[row].page,
            from: window.from,
            to: window.to,
        })
    }
}

/// The bytes typed for the block map's zoom, `FROM..TO` (decimal or `0x` hexadecimal
/// offsets) within a page of `page_size` bytes: `{from, to}`, or an Error naming what was
/// typed.
#[wasm_bindgen]
pub fn block_map_bytes(text: &str, page_size: f64) -> Result<JsValue, JsError> {
    let window = ByteWindow::parse(text, page_size as u64).map_err(|e| JsError::new(&e))?;
    to_js(&window)
}

impl Teach {
    fn of(config: &RunConfig, events: EventLog, sites: Sites) -> Result<Teach, JsError> {
        let inner = Teaching::with_sites(config, events, sites).map_err(js_error)?;
        Ok(Teach {
            inner,
            heap_layout: None,
            blocks: None,
        })
    }
}

/// The kinds of event the page jumps to, `[{name, words}]`, in the order it offers them.
#[wasm_bindgen]
pub fn teach_kinds() -> Result<JsValue, JsError> {
    #[derive(serde::Serialize)]
    struct Kind {
        name: &'static str,
        words: &'static str,
    }
    let kinds: Vec<Kind> = heaplab_app::observe::find::KINDS
        .iter()
        .map(|k| Kind {
            name: k.name,
            words: k.words,
        })
        .collect();
    to_js(&kinds)
}

/// The heap map's key, `[{label, fill, edge}]`, for the page's swatches.
#[wasm_bindgen]
pub fn heap_map_key() -> Result<JsValue, JsError> {
    to_js(&heaplab_plot::heap_map_key())
}

#[cfg(test)]
mod tests {
    use super::*;
    use heaplab_core::config::WorkloadConfig;
    use heaplab_core::event::Event;

    #[test]
    fn a_trace_config_reads_its_bytes_and_a_workload_config_its_generator() {
        let mut config = RunConfig::new("churn", "buddy");
        config.workload = WorkloadConfig::trace("typed.trace");
        let (events, sites) = events_of(&config, Some(b"a 1 48\nf 1\n"), false).unwrap();
        assert_eq!(events.to_vec(), [Event::alloc(1, 48), Event::free(1)]);
        assert!(sites.is_empty());
        let (events, sites) =
            events_of(&config, Some(b"a 1 48 site=0x10\nsite 0x10 main\n"), false).unwrap();
        assert_eq!(events.to_vec(), [Event::alloc(1, 48)]);
        assert_eq!(sites.at(1).map(|a| sites.label(a)).as_deref(), Some("main"));
        assert_eq!(
            events_of(&config, None, false).unwrap_err(),
            "teach: the trace's bytes are missing"
        );
        let e = events_of(&config, Some(b"a 1 48\nx\n"), false).unwrap_err();
        assert!(e.starts_with("typed.trace:2: "), "{e}");
        // churn at full scale has 14 million events.
        let mut churn = RunConfig::new("churn", "buddy");
        churn.workload.params.insert("scale".into(), 1.0.into());
        let e = events_of(&churn, None, false).unwrap_err();
        assert!(
            e.starts_with("teach: the workload has more than 10,000,000 events"),
            "{e}"
        );
    }
}
