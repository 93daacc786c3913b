//! `baseline`'s report is printed here as text, a column per real allocator.

use heaplab_core::config::WorkloadConfig;
use heaplab_core::format::{format_bytes, format_count};
use heaplab_native::BaselineReport;

use super::table::grid;
use super::workload_line;

/// The workload, then a column per allocator: time per event and heap RSS.
pub fn print_baselines(workload: &WorkloadConfig, reports: &[BaselineReport]) {
    println!("{}", workload_line(workload));
    let mut header = vec![String::new()];
    header.extend(reports.iter().map(|r| r.allocator.to_string()));
    let col = |f: &dyn Fn(&BaselineReport) -> String| reports.iter().map(f).collect::<Vec<_>>();
    let rows = vec![
        ("events", col(&|r| format_count(i128::from(r.events)))),
        (
            "ns per event (median)",
            col(&|r| format!("{:.1}", r.ns_per_event)),
        ),
        ("peak heap RSS", col(&|r| format_bytes(r.peak_rss_bytes))),
        (
            "end heap RSS (blocks live)",
            col(&|r| format_bytes(r.end_rss_bytes)),
        ),
        (
            "end heap RSS after trim",
            col(&|r| format_bytes(r.end_rss_after_trim_bytes)),
        ),
        ("trim call", col(&|r| r.trim_call.clone())),
        (
            "process RSS before events",
            col(&|r| format_bytes(r.rss_before_bytes)),
        ),
    ];
    println!("{}", grid(header, rows));
    println!("heap RSS = the process's anonymous resident memory (/proc/self/statm: resident less file-backed) minus that just before the first event (the decoded events and heaplab itself)");
}
