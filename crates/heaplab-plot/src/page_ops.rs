//! Page operations over time: how many commits and decommits each configuration has asked
//! the OS for so far, as the core's [`heaplab_core::page_ops`] records them.

use heaplab_core::series::PageOpsCurve;
use heaplab_core::simulate::PhaseMark;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::timeline::{self, Curve, PlotFrame, Timeline, Track, ValueAxis};
use crate::PlotError;

/// One configuration's page operations over time: `commits[i]` and `decommits[i]` are the
/// provider calls made up to and including event `t[i]`, counted from the start of the
/// run. Slices of different lengths are drawn as far as all of them go.
#[derive(Clone, Copy, Debug)]
pub struct PageOpsRun<'a> {
    pub label: &'a str,
    pub t: &'a [u64],
    pub commits: &'a [u64],
    pub decommits: &'a [u64],
}

impl<'a> PageOpsRun<'a> {
    /// A recorded curve under `label`.
    pub fn from_curve(label: &'a str, curve: &'a PageOpsCurve) -> PageOpsRun<'a> {
        PageOpsRun {
            label,
            t: &curve.t,
            commits: &curve.commits,
            decommits: &curve.decommits,
        }
    }
}

/// Everything the page-operations chart shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct PageOpsChart<'a> {
    /// Drawn above the legend; empty for no title row.
    pub title: &'a str,
    pub runs: &'a [PageOpsRun<'a>],
    /// Where each phase ends, as in [`crate::MemoryChart::phases`].
    pub phases: &'a [PhaseMark],
    /// The first and last event shown, as in [`crate::MemoryChart::zoom`].
    pub zoom: Option<(u64, u64)>,
}

/// Draws cumulative commits (solid) and decommits (dashed) over events, one colour per
/// configuration, with the phases marked as on the memory chart: where a policy gives
/// memory back, its decommit curve climbs, and the steps show in which phase. Returns
/// where the plot landed, as [`crate::draw_memory`] does.
pub fn draw_page_ops<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &PageOpsChart,
) -> Result<PlotFrame, PlotError> {
    let tracks = chart
        .runs
        .iter()
        .map(|r| Track {
            label: r.label,
            solid: Curve {
                t: r.t,
                v: r.commits,
            },
            dashed: Curve {
                t: r.t,
                v: r.decommits,
            },
        })
        .collect();
    timeline::draw(
        root,
        &Timeline {
            title: chart.title,
            tracks,
            keys: ["commits", "decommits"],
            phases: chart.phases,
            zoom: chart.zoom,
            axis: ValueAxis::Count("page operations so far"),
        },
    )
}
