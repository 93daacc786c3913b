//! `--plot FILE`: memory over time drawn by heaplab-plot, the same function the page draws
//! on its canvas, and `compare`'s summary bars, as SVG or PNG by the file's extension,
//! each file written whole or not at all.

use std::path::Path;

use heaplab_core::run::RunOutput;
use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use heaplab_plot::{Chart, PlotError, SummaryChart, SummaryRow, Track, TrackChart};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};

use crate::error::CliError;

/// The size a plot is written at: the width of a wide screen, and per panel a height
/// that leaves the curves room under the legend.
const WIDTH: u32 = 1280;
const PANEL_HEIGHT: u32 = 560;

/// One chart of memory over time: its title and its lines.
pub struct Panel<'a> {
    pub title: String,
    pub runs: Vec<(&'a str, &'a Series)>,
    pub phases: &'a [PhaseMark],
}

/// Panels stacked top to bottom in one picture.
struct Stack<'a>(&'a [Panel<'a>]);

impl Chart for Stack<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let areas = root.split_evenly((self.0.len().max(1), 1));
        for (panel, area) in self.0.iter().zip(&areas) {
            let tracks: Vec<Track> = panel
                .runs
                .iter()
                .map(|(label, series)| Track::memory(label, series))
                .collect();
            let chart = TrackChart {
                title: &panel.title,
                phases: panel.phases,
                ..TrackChart::memory(&tracks)
            };
            heaplab_plot::draw_track(area, &chart)?;
        }
        Ok(())
    }
}

/// Writes the panels to `path`; an extension other than `.svg` or `.png` is an input
/// error that names it, found before anything runs when checked with [`check_path`].
pub fn write(path: &Path, panels: &[Panel<'_>]) -> Result<(), CliError> {
    let height = PANEL_HEIGHT * panels.len().max(1) as u32;
    write_chart(
        path,
        (WIDTH, height.min(heaplab_plot::MAX_SIDE)),
        &Stack(panels),
    )
}

/// Draws `chart` as the file's extension asks and writes it whole or not at all, so
/// Ctrl-C never leaves half a picture (`interrupt::write_whole`).
pub fn write_chart<C: Chart>(path: &Path, size: (u32, u32), chart: &C) -> Result<(), CliError> {
    write_chart_for("--plot", path, size, chart)
}

/// [`write_chart`] for the picture a flag other than `--plot` names, which its errors
/// name.
pub fn write_chart_for<C: Chart>(
    flag: &str,
    path: &Path,
    size: (u32, u32),
    chart: &C,
) -> Result<(), CliError> {
    let drawn = match heaplab_plot::Format::from_path(path) {
        Ok(heaplab_plot::Format::Svg) => {
            heaplab_plot::render_svg(chart, size).map(String::into_bytes)
        }
        Ok(heaplab_plot::Format::Png) => heaplab_plot::render_png(chart, size),
        Err(e) => Err(e),
    };
    let bytes = drawn.map_err(|e| match e {
        PlotError::UnsupportedFormat { .. } => CliError::input(format!("{flag}: {e}")),
        other => CliError::failed(format!("{flag}: {other}")),
    })?;
    crate::interrupt::write_whole(path, &bytes)
        .map_err(|e| CliError::failed(format!("{flag}: {}: {e}", path.display())))
}

/// A summary chart per workload, stacked: the bars of `compare --plot`.
struct Summaries<'a>(Vec<(String, Vec<SummaryRow<'a>>)>);

impl Chart for Summaries<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let areas = root.split_evenly((self.0.len().max(1), 1));
        for ((title, rows), area) in self.0.iter().zip(&areas) {
            let chart = SummaryChart { title, rows };
            heaplab_plot::draw_summary_bars(area, &chart)?;
        }
        Ok(())
    }
}

/// `compare --plot FILE`: for each workload, the summary's bars, one per column of the
/// comparison, real allocators included: their peak and end resident are the RSS that
/// `heaplab baseline` measures, and the figures nothing counted for them (page calls,
/// touched bytes, utilization) read `n/a`.
pub fn write_summaries(path: &Path, cmp: &super::compare::Comparison) -> Result<(), CliError> {
    let columns = cmp.columns.len();
    let panels: Vec<(String, Vec<SummaryRow>)> = cmp
        .rows
        .iter()
        .enumerate()
        .map(|(w, row)| {
            let bars = cmp
                .columns
                .iter()
                .zip(&cmp.runs[w * columns..(w + 1) * columns])
                .map(|(column, run)| {
                    let f = |key: &str| run.figures.get(key).copied();
                    let whole = |key: &str| f(key).map(|v| v.max(0.0) as u64);
                    SummaryRow {
                        label: &column.label,
                        peak_resident_bytes: whole("peak_resident_bytes").unwrap_or(0),
                        end_resident_bytes: whole("end_resident_bytes").unwrap_or(0),
                        page_ops: whole("page_ops"),
                        touched_bytes: whole("touched_bytes"),
                        utilization: f("utilization").unwrap_or(f64::NAN),
                    }
                })
                .collect();
            (format!("{}: summary", row.label), bars)
        })
        .collect();
    // A title row, and a bar's row for each column, per workload.
    let per_panel = 76 + 34 * columns.max(1) as u32;
    let height = (per_panel * panels.len().max(1) as u32).min(heaplab_plot::MAX_SIDE);
    write_chart(path, (WIDTH, height), &Summaries(panels))
}

/// Refuses a plot file heaplab cannot write before the runs, not after them.
pub fn check_path(path: &Path) -> Result<(), CliError> {
    heaplab_plot::Format::from_path(path)
        .map(|_| ())
        .map_err(|e| CliError::input(format!("--plot: {e}")))
}

/// The panel of one `run`: every configuration's line on the same workload.
pub fn runs_panel<'a>(outputs: &'a [RunOutput], labels: &[&'a str]) -> Panel<'a> {
    let first = &outputs[0].report;
    let title = match &first.config.workload.path {
        Some(path) => format!("trace {path}: memory over time"),
        None => format!("{}: memory over time", first.config.workload.id),
    };
    Panel {
        title,
        runs: labels
            .iter()
            .zip(outputs)
            .map(|(label, o)| (*label, &o.series))
            .collect(),
        phases: &first.summary.phases,
    }
}
