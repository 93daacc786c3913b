//! `heaplab blame`'s tables: the totals, then the blocks that pin the most.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use heaplab_core::format::{format_bytes, format_count};
use heaplab_core::observe::blame::Blame;

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    t
}

pub fn print_blame(b: &Blame, top: usize) {
    println!("at event {}", format_count(i128::from(b.event)));
    let mut totals = table(&["", "bytes"]);
    for (name, v) in [
        ("resident", b.resident),
        ("live", b.live),
        ("pinned by live blocks", b.pinned),
        ("kept by the policy", b.kept_by_policy),
        ("not live", b.not_live),
    ] {
        totals.add_row(vec![name.to_string(), format_bytes(v)]);
    }
    if let Some(c) = totals.column_mut(1) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    println!("{totals}");
    let mut pinners = table(&["id", "size", "allocated at event", "phase", "pins"]);
    for p in b.pinners.iter().take(top) {
        pinners.add_row(vec![
            p.block.id.to_string(),
            format_bytes(p.block.size),
            format_count(i128::from(p.block.event)),
            p.block.phase.clone().unwrap_or_default(),
            format_bytes(p.pinned),
        ]);
    }
    println!("{pinners}");
}
