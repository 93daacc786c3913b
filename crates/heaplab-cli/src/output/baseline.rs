//! `baseline`'s report is printed here as text, a column per real allocator.

use heaplab_core::config::WorkloadConfig;
use heaplab_core::format::{format_bytes, format_count};
use heaplab_native::baseline::{RunFigures, SPREAD_FLAG};
use heaplab_native::BaselineReport;

use super::table::grid;
use super::workload_line;

/// The workload, then a column per allocator: its version, time per event and heap RSS,
/// each as the smallest / median / largest over the runs, a wide spread flagged.
pub fn print_baselines(workload: &WorkloadConfig, reports: &[BaselineReport]) {
    println!("{}", workload_line(workload));
    let mut header = vec![String::new()];
    header.extend(reports.iter().map(|r| r.allocator.label()));
    let col = |f: &dyn Fn(&BaselineReport) -> String| reports.iter().map(f).collect::<Vec<_>>();
    let bytes = |name: &'static str, f: fn(&RunFigures) -> u64| {
        move |r: &BaselineReport| {
            spread_cell(r, name, &|x| f(x) as f64, &|v| format_bytes(v as u64))
        }
    };
    let runs = reports.first().map_or(0, |r| r.runs.len());
    let rows = vec![
        ("version", col(&|r| r.version.clone())),
        ("events", col(&|r| format_count(i128::from(r.events)))),
        ("runs", col(&|r| format_count(r.runs.len() as i128))),
        (
            "ns per event",
            col(&|r| {
                spread_cell(r, "ns_per_event", &|x| x.ns_per_event, &|v| {
                    format!("{v:.1}")
                })
            }),
        ),
        (
            "peak heap RSS",
            col(&bytes("peak_rss_bytes", |x| x.peak_rss_bytes)),
        ),
        (
            "end heap RSS (blocks live)",
            col(&bytes("end_rss_bytes", |x| x.end_rss_bytes)),
        ),
        (
            "end heap RSS after trim",
            col(&bytes("end_rss_after_trim_bytes", |x| {
                x.end_rss_after_trim_bytes
            })),
        ),
        ("trim call", col(&|r| r.trim_call.clone())),
        (
            "process RSS before events",
            col(&|r| format_bytes(r.rss_before_bytes)),
        ),
    ];
    println!("{}", grid(header, rows));
    if runs > 1 {
        println!(
            "each figure: smallest / median / largest of {runs} runs, each in a fresh process; \
             ⚠ marks a spread above {:.0}%",
            SPREAD_FLAG * 100.0
        );
    }
    println!(
        "ns per event: wall time of the replay whose memory is reported, RSS sampling included"
    );
    println!("heap RSS = the process's anonymous resident memory (/proc/self/statm: resident less file-backed) minus that just before the first event, heaplab's own heap (a private mapping) left out; the peak also covers spikes between samples (the kernel's high water mark, VmHWM, less file-backed pages)");
}

/// A figure over the runs: the median alone for one run, else "min / median / max", with
/// a ⚠ and the spread when the report flags the figure `name`.
fn spread_cell(
    r: &BaselineReport,
    name: &str,
    f: &dyn Fn(&RunFigures) -> f64,
    show: &dyn Fn(f64) -> String,
) -> String {
    let [min, median, max] = r.min_median_max(f);
    if r.runs.len() < 2 {
        return show(median);
    }
    let text = format!("{} / {} / {}", show(min), show(median), show(max));
    // The report's own flags decide, so the table and the JSON agree.
    let flagged = r.wide_spread.iter().any(|w| w == name);
    if flagged && median > 0.0 {
        format!("{text} ⚠ {:.0}%", (max - min) / median * 100.0)
    } else {
        text
    }
}
