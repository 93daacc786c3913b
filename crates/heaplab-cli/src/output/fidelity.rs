//! `fidelity`'s report is defined here: a row per workload and preset, as a table or JSON.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::format::{format_bytes, format_count, format_counted};
use heaplab_native::baseline::{Spread, SPREAD_FLAG};
use heaplab_native::RealAllocator;
use serde::Serialize;

/// One preset against its allocator on one workload.
#[derive(Debug, Serialize)]
pub struct Row {
    pub workload: String,
    pub preset: String,
    pub allocator: RealAllocator,
    pub sim_peak_resident_bytes: u64,
    pub real_peak_rss_bytes: u64,
    /// Simulated over real.
    pub peak_ratio: f64,
    pub sim_end_resident_bytes: u64,
    /// Heap RSS after the last event, without a trim call: what the model's end is.
    pub real_end_rss_bytes: u64,
    pub end_ratio: f64,
    /// The largest relative error allowed on the peak and the end, where the preset has a
    /// target (`glibc-like`); `null` for presets reported without one.
    pub target: Option<[f64; 2]>,
    pub within_target: Option<bool>,
    /// The events each side replayed.
    pub events: u64,
    /// The real allocator's name and version, as it reports them.
    pub allocator_version: String,
    /// The real replay's pace: the median over the runs of wall time per event, of the
    /// runs whose memory is reported.
    pub real_ns_per_event: f64,
    /// The clock the model ran on: `real`, each real run's own, read as it went, so that
    /// time-driven delays saw as much time pass at the same events as the real allocator
    /// did. The model's figures are the medians over its runs on those clocks.
    pub clock: String,
    /// How many time marks a real run took (the median over the runs): one at the start,
    /// then at most one per 100 µs.
    pub real_time_marks: u64,
    /// How many real runs, each in a fresh process; the real figures above are medians.
    pub real_runs: usize,
    pub real_peak_rss_bytes_min: u64,
    pub real_peak_rss_bytes_max: u64,
    pub real_end_rss_bytes_min: u64,
    pub real_end_rss_bytes_max: u64,
    /// Largest less smallest over the median, for the pace, the peak and the end.
    pub real_spread: Spread,
    /// The real figures whose spread is above 10% (see `baseline`).
    pub real_wide_spread: Vec<String>,
}

/// The table of rows, then how many of the judged rows are within `glibc_target` (the
/// largest relative error allowed on the peak and the end) and how many of the default
/// recorded traces were `skipped`, not found.
pub fn print_rows(rows: &[Row], glibc_target: [f64; 2], skipped: usize) {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_header(vec![
        "workload",
        "preset",
        "allocator",
        "real ns/event",
        "peak: model",
        "real",
        "model/real",
        "end: model",
        "real",
        "model/real",
        "target",
    ]);
    let num = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
    for r in rows {
        let verdict = match (r.within_target, r.target) {
            (Some(ok), Some([p, e])) => format!(
                "{} (±{:.0}% / ±{:.0}%)",
                if ok { "✓" } else { "✗" },
                p * 100.0,
                e * 100.0
            ),
            _ => "reported".to_string(),
        };
        let flag = |name: &str, text: String| {
            if r.real_wide_spread.iter().any(|w| w == name) {
                format!("{text} ⚠")
            } else {
                text
            }
        };
        table.add_row(vec![
            Cell::new(&r.workload),
            Cell::new(&r.preset),
            Cell::new(format!("{} ({})", r.allocator.label(), r.allocator_version)),
            num(flag("ns_per_event", format!("{:.1}", r.real_ns_per_event))),
            num(format_bytes(r.sim_peak_resident_bytes)),
            num(flag("peak_rss_bytes", format_bytes(r.real_peak_rss_bytes))),
            num(format!("{:.2}", r.peak_ratio)),
            num(format_bytes(r.sim_end_resident_bytes)),
            num(flag("end_rss_bytes", format_bytes(r.real_end_rss_bytes))),
            num(format!("{:.2}", r.end_ratio)),
            Cell::new(verdict),
        ]);
    }
    println!("{table}");
    let judged: Vec<&Row> = rows.iter().filter(|r| r.within_target.is_some()).collect();
    let skipped = (skipped > 0).then(|| {
        format!(
            "{} skipped, not found",
            format_counted(skipped as i128, "recorded trace", "recorded traces")
        )
    });
    if !judged.is_empty() {
        let ok = judged
            .iter()
            .filter(|r| r.within_target == Some(true))
            .count();
        let [peak, end] = glibc_target;
        println!(
            "glibc-like within ±{:.0}% of glibc's peak and ±{:.0}% of its end on {} of {}{}",
            peak * 100.0,
            end * 100.0,
            format_count(ok as i128),
            format_counted(judged.len() as i128, "workload", "workloads"),
            skipped.map(|s| format!("; {s}")).unwrap_or_default()
        );
    } else if let Some(skipped) = skipped {
        println!("{skipped}");
    }
    println!(
        "real = heap RSS: the child's anonymous RSS minus that before the first event; end = after the \
         last event, no trim call"
    );
    if let Some(runs) = rows.first().map(|r| r.real_runs).filter(|&n| n > 1) {
        println!(
            "real figures: the median of {runs} runs, each in a fresh process; ⚠ marks a spread \
             above {:.0}% (see --json for each figure's smallest and largest)",
            SPREAD_FLAG * 100.0
        );
    }
    println!(
        "real ns/event: the real replay's pace, RSS sampling included; the model runs on each \
         real run's own clock (`--clock real`: the time it read as it went, every 100 µs at \
         most), so delays counted in time saw the same time pass at the same events"
    );
}
