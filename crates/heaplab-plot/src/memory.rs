//! Memory over time: what each configuration's process holds in RAM (resident) against
//! what the program asked for and still uses (live), across the workload's phases.

use heaplab_core::series::Series;
use heaplab_core::simulate::PhaseMark;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::timeline::{self, Curve, PlotFrame, Timeline, Track, ValueAxis};
use crate::PlotError;

/// One configuration's memory over time: `resident[i]` and `live[i]` are bytes after
/// event `t[i]` (the maxima since the previous point, as [`Series`] keeps them). Slices of
/// different lengths are drawn as far as all of them go.
#[derive(Clone, Copy, Debug)]
pub struct MemoryRun<'a> {
    pub label: &'a str,
    pub t: &'a [u64],
    pub resident: &'a [u64],
    pub live: &'a [u64],
}

impl<'a> MemoryRun<'a> {
    /// A run's series as the core records it, under `label`.
    pub fn from_series(label: &'a str, series: &'a Series) -> MemoryRun<'a> {
        MemoryRun {
            label,
            t: &series.t,
            resident: &series.resident,
            live: &series.live,
        }
    }
}

/// Everything the memory chart shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryChart<'a> {
    /// Drawn above the legend; empty for no title row (the page has its own heading).
    pub title: &'a str,
    pub runs: &'a [MemoryRun<'a>],
    /// Where each phase ends, from the report's `phases`. Every run of a comparison
    /// replays the same workload, so one run's phases mark the chart for all.
    pub phases: &'a [PhaseMark],
    /// The first and last event shown; `None` shows the whole run. A reversed window is
    /// put in order and an empty one widened to one event.
    pub zoom: Option<(u64, u64)>,
}

/// Draws resident bytes (solid) and live bytes (dashed) over events, one colour per
/// configuration, with each phase's boundary and name, axes in KiB, MiB or GiB as the
/// data calls for, and the legend above the plot.
///
/// Generic over the backend so that the browser draws it on a canvas and the CLI writes
/// the same picture as SVG or PNG (see [`crate::write`]). Returns where the plot landed,
/// for mapping a pointer back to an event.
pub fn draw_memory<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &MemoryChart,
) -> Result<PlotFrame, PlotError> {
    let tracks = chart
        .runs
        .iter()
        .map(|r| Track {
            label: r.label,
            solid: Curve {
                t: r.t,
                v: r.resident,
            },
            dashed: Curve { t: r.t, v: r.live },
        })
        .collect();
    timeline::draw(
        root,
        &Timeline {
            title: chart.title,
            tracks,
            keys: ["resident", "live"],
            phases: chart.phases,
            zoom: chart.zoom,
            axis: ValueAxis::Bytes("memory"),
        },
    )
}
