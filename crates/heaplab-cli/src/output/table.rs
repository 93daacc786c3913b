//! The comfy-table tables that reports are built from are made here.
//!
//! One has a column per run and a row per summary figure; the other is a plain grid of
//! named rows.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, Cell, CellAlignment, Table};
use heaplab_core::metrics::{Group, METRICS};
use heaplab_core::simulate::Summary;

/// A table with a column per run and a row per metric of the core's one list, under a
/// heading row for each of its groups, so the CLI shows what the page shows in the same
/// order and the same units.
pub(super) fn summary_table(labels: &[&str], summaries: &[&Summary]) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("")];
    header.extend(labels.iter().map(Cell::new));
    table.set_header(header);
    let mut group: Option<Group> = None;
    for metric in METRICS {
        if group != Some(metric.group) {
            group = Some(metric.group);
            table.add_row(vec![
                Cell::new(metric.group.title()).add_attribute(Attribute::Bold)
            ]);
        }
        let mut row = vec![Cell::new(format!("  {}", metric.label))];
        row.extend(summaries.iter().map(|s| {
            Cell::new(metric.format(metric.value(s))).set_alignment(CellAlignment::Right)
        }));
        table.add_row(row);
    }
    table
}

/// A table of named rows: the name on the left, the figures aligned right.
pub(super) fn grid(header: Vec<String>, rows: Vec<(&str, Vec<String>)>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(header);
    for (name, cells) in rows {
        let mut row = vec![Cell::new(name)];
        row.extend(
            cells
                .into_iter()
                .map(|c| Cell::new(c).set_alignment(CellAlignment::Right)),
        );
        t.add_row(row);
    }
    t
}
