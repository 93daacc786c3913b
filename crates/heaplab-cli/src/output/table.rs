//! The comfy-table tables that reports are built from are made here.
//!
//! One has a column per run and a row per summary figure; the other is a plain grid of
//! named rows.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::params::human_bytes;
use heaplab_core::simulate::Summary;

/// A row of the run table: its label and how to read it from a summary.
type Row = (&'static str, fn(&Summary) -> String);

const ROWS: &[Row] = &[
    ("events", |s| s.events.to_string()),
    ("allocs / frees / reallocs", |s| {
        format!("{} / {} / {}", s.allocs, s.frees, s.reallocs)
    }),
    ("peak live", |s| human_bytes(s.peak_live_bytes)),
    ("end live", |s| human_bytes(s.end_live_bytes)),
    ("peak resident", |s| human_bytes(s.peak_resident_bytes)),
    ("end resident", |s| human_bytes(s.end_resident_bytes)),
    ("peak committed", |s| human_bytes(s.peak_committed_bytes)),
    ("end committed", |s| human_bytes(s.end_committed_bytes)),
    ("peak reserved", |s| human_bytes(s.peak_reserved_bytes)),
    ("touched", |s| human_bytes(s.touched_bytes)),
    ("page ops (all calls)", |s| s.page_ops.to_string()),
    ("commit ops / pages", |s| {
        format!("{} / {}", s.commit_ops, s.committed_pages_total)
    }),
    ("decommit ops / pages", |s| {
        format!("{} / {}", s.decommit_ops, s.decommitted_pages_total)
    }),
    ("metadata", |s| human_bytes(s.metadata_bytes)),
    ("utilization", |s| format!("{:.1}%", s.utilization * 100.0)),
];

/// A table with a column per run and a row per entry of `ROWS`.
pub(super) fn summary_table(labels: &[&str], summaries: &[&Summary]) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("")];
    header.extend(labels.iter().map(Cell::new));
    table.set_header(header);
    for (label, get) in ROWS {
        let mut row = vec![Cell::new(label)];
        row.extend(
            summaries
                .iter()
                .map(|s| Cell::new(get(s)).set_alignment(CellAlignment::Right)),
        );
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
