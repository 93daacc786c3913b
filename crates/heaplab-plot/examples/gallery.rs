//! Draws every chart from real runs, as PNG and SVG, to look at them as a reader would:
//! the `jit-arenas` seed scenario's three configurations (memory, page operations,
//! summary, a zoomed memory chart) and a sweep of the bump allocator's slab size.
//!
//! `cargo run -p heaplab-plot --example gallery [DIR]` writes to DIR (`/tmp/plots` unless
//! given), at 1280x500 and at 800x400.

use std::path::{Path, PathBuf};

use heaplab_app::scenario;
use heaplab_core::config::RunConfig;
use heaplab_plot::{
    write, Chart, PlotError, SummaryChart, SummaryRow, SweepChart, SweepLine, SweepScale,
    SweepValue, Track, TrackChart,
};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "/tmp/plots".into()),
    );
    std::fs::create_dir_all(&dir)?;

    let spec = scenario::find("jit-arenas")?;
    let workload = &spec.workloads[0];
    let mut runs = Vec::new();
    for c in &spec.configs {
        let mut config = RunConfig::new(&workload.id, "");
        config.workload = workload.clone();
        config.policy = c.policy.clone();
        config.series_points = 1000;
        let (out, ops) =
            heaplab_core::run::run_with_page_ops(&config, heaplab_core::run::Progress::none())?;
        runs.push((c.label.clone(), out, ops));
    }
    let phases = &runs[0].1.report.summary.phases;
    let memory: Vec<Track> = runs
        .iter()
        .map(|(l, o, _)| Track::memory(l, &o.series))
        .collect();
    let page_ops: Vec<Track> = runs.iter().map(|(l, _, p)| Track::page_ops(l, p)).collect();
    let rows: Vec<SummaryRow> = runs
        .iter()
        .map(|(l, o, _)| SummaryRow::from_summary(l, &o.report.summary))
        .collect();
    let events = runs[0].1.report.summary.events();

    // Page operations against the slab size, slabs from the heap and from the OS.
    let sizes: Vec<u64> = (12..=20).step_by(2).map(|e| 1u64 << e).collect();
    let mut sweep_points = Vec::new();
    for (backing, label) in [("heap", "slabs from malloc"), ("pages", "slabs from mmap")] {
        let mut points = Vec::new();
        for &size in &sizes {
            let mut config = RunConfig::new(&workload.id, "llvm-bump");
            config.workload = workload.clone();
            let params = json!({
                "backing": backing,
                "unscoped": "heap",
                "slab_size": size,
                "custom_threshold": size,
            });
            config.policy.params = serde_json::from_value(params)?;
            let out = heaplab_core::run::run(&config)?;
            points.push((size as f64, out.report.summary.page_ops() as f64));
        }
        sweep_points.push((label, points));
    }
    let sweep_lines: Vec<SweepLine> = sweep_points
        .iter()
        .map(|(l, p)| SweepLine {
            label: l,
            points: p,
        })
        .collect();

    let charts: Vec<(&str, Writer)> = vec![
        (
            "memory",
            boxed(TrackChart {
                title: &spec.title,
                phases,
                ..TrackChart::memory(&memory)
            }),
        ),
        (
            "memory-zoom",
            boxed(TrackChart {
                title: "The first compilation, zoomed in",
                phases,
                zoom: Some((0, events / 4)),
                ..TrackChart::memory(&memory)
            }),
        ),
        (
            "page-ops",
            boxed(TrackChart {
                title: "Commits and decommits over the run",
                phases,
                ..TrackChart::page_ops(&page_ops)
            }),
        ),
        (
            "summary",
            boxed(SummaryChart {
                title: &spec.title,
                rows: &rows,
            }),
        ),
        (
            "sweep",
            boxed(SweepChart {
                title: "Page operations against the bump allocator's slab size",
                parameter: "slab_size",
                scale: SweepScale::Log2Bytes,
                metric: "page operations",
                value: SweepValue::Count,
                lines: &sweep_lines,
            }),
        ),
    ];
    for (name, draw) in &charts {
        for (suffix, size) in [("", (1280, 500)), ("-800", (800, 400))] {
            for ext in ["png", "svg"] {
                let path = dir.join(format!("{name}{suffix}.{ext}"));
                draw(&path, size)?;
                println!("{}", path.display());
            }
        }
    }
    Ok(())
}

/// Writes one chart to a path at a size: charts of different types in one list.
type Writer<'a> = Box<dyn Fn(&Path, (u32, u32)) -> Result<(), PlotError> + 'a>;

/// A chart as a closure that writes it.
fn boxed<'a, C: Chart + 'a>(chart: C) -> Writer<'a> {
    Box::new(move |path, size| write(path, size, &chart))
}
