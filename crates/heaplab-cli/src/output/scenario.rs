//! A seed scenario's report is printed here as text, with its finding claim by claim.

use comfy_table::{Cell, CellAlignment};
use heaplab_app::scenario::{ScenarioOutput, ScenarioSpec};
use heaplab_core::format::format_bytes;
use heaplab_core::simulate::Summary;

use super::table::summary_table;
use super::workload_line;

/// The scenario `spec` as it ran (`out`): a table per workload, a column per compared
/// configuration, then the finding claim by claim.
pub fn print_scenario(spec: &ScenarioSpec, out: &ScenarioOutput) {
    println!("{}\n\n{}\n", out.title, out.question);
    // The runs are each workload's configurations in turn.
    let per_workload = spec.configs.len().max(1);
    for (w, runs) in spec.workloads.iter().zip(out.runs.chunks(per_workload)) {
        println!("{}", workload_line(w));
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        let summaries: Vec<&Summary> = runs.iter().map(|r| &r.report.summary).collect();
        let mut table = summary_table(&labels, &summaries);
        if let Some(first) = runs.first() {
            for (i, phase) in first.report.summary.phases.iter().enumerate() {
                let mut row = vec![Cell::new(format!("resident after {}", phase.label))];
                row.extend(runs.iter().map(|r| {
                    let v = r
                        .report
                        .summary
                        .phases
                        .get(i)
                        .map_or(0, |p| p.resident_bytes);
                    Cell::new(format_bytes(v)).set_alignment(CellAlignment::Right)
                }));
                table.add_row(row);
            }
        }
        println!("{table}\n");
    }
    println!("Expected: {}\n", out.expected);
    println!("Finding:");
    for c in &out.finding.checks {
        println!("  {} {}", if c.holds { "✓" } else { "✗" }, c.claim);
    }
}
