//! `mm check`'s report: mdriver's table, then heaplab's figures for the same traces.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::format::{format_bytes, format_count, format_counted};
use heaplab_mm::score::Score;

fn right(text: String) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

pub fn print_score(score: &Score) {
    println!("Results for {} (mdriver's table):", score.module);
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec!["trace", "valid", "util", "ops", "secs", "Kops"]);
    for (i, tr) in score.traces.iter().enumerate() {
        t.add_row(vec![
            Cell::new(format!("{i} {}", tr.trace)),
            Cell::new(if tr.valid { "yes" } else { "no" }),
            right(format!("{:.0}%", tr.util * 100.0)),
            right(tr.ops.to_string()),
            right(format!("{:.6}", tr.secs)),
            right(format!("{:.0}", tr.kops)),
        ]);
    }
    t.add_row(vec![
        Cell::new("Total"),
        Cell::new(format!("{}/{}", score.valid_traces, score.traces.len())),
        right(format!("{:.0}%", score.util * 100.0)),
        right(score.ops.to_string()),
        right(format!("{:.6}", score.secs)),
        right(format!("{:.0}", score.kops)),
    ]);
    println!("{t}");
    for (i, tr) in score.traces.iter().enumerate() {
        if let Some(e) = &tr.error {
            println!("trace {i} ({}): {e}", tr.trace);
        }
    }
    match &score.perf_index {
        Some(p) => println!(
            "Perf index = {:.0} (util) + {:.0} (thru) = {:.0}/100",
            p.util_points, p.throughput_points, p.total
        ),
        None => println!("No perf index: {}.", invalid_traces(score)),
    }
    println!(
        "  util counts {:.0}%: the mean of peak live payload / mem_heapsize() at the end; \
         throughput {:.0}%, in full at {:.0} Kops/s (--reference-kops, mdriver's \
         AVG_LIBC_THRUPUT). Seconds are the run's in heaplab's interpreter and simulator, without the \
         checks.",
        score.util_weight * 100.0,
        (1.0 - score.util_weight) * 100.0,
        score.reference_kops
    );
    println!();
    println!("heaplab's figures for the same runs:");
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "trace",
        "peak live",
        "heap at end",
        "peak resident",
        "resident at end",
    ]);
    for tr in score.traces.iter().filter(|t| t.valid) {
        t.add_row(vec![
            Cell::new(&tr.trace),
            right(format_bytes(tr.peak_live_bytes)),
            right(format_bytes(tr.heap_bytes)),
            right(format_bytes(tr.peak_resident_bytes)),
            right(format_bytes(tr.end_resident_bytes)),
        ]);
    }
    println!("{t}");
}

/// How many of the score's traces are not valid: "1 of 11 traces is not valid".
pub fn invalid_traces(score: &Score) -> String {
    let bad = score.traces.len() - score.valid_traces;
    format!(
        "{} of {} {} not valid",
        format_count(bad as i128),
        format_counted(score.traces.len() as i128, "trace", "traces"),
        if bad == 1 { "is" } else { "are" }
    )
}
