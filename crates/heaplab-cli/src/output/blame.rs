//! `heaplab blame`'s tables: the totals, the blocks that pin the most, and, for a trace
//! with call sites, the pinned bytes by call site.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use heaplab_app::observe::blame::{Blame, Group};
use heaplab_core::format::{format_bytes, format_count};

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
    let sited = !b.by_site.is_empty();
    let mut header = vec!["id", "size", "allocated at event", "phase"];
    if sited {
        header.push("call site");
    }
    header.push("pins");
    let mut pinners = table(&header);
    for p in b.pinners.iter().take(top) {
        let mut row = vec![
            p.block.id.to_string(),
            format_bytes(p.block.size),
            format_count(i128::from(p.block.event)),
            p.block.phase.clone().unwrap_or_default(),
        ];
        if sited {
            row.push(p.block.site.clone().unwrap_or_default());
        }
        row.push(format_bytes(p.pinned));
        pinners.add_row(row);
    }
    println!("{pinners}");
    if sited {
        println!("by call site");
        println!("{}", groups(&b.by_site, "call site", top));
    }
}

/// A grouping of the pinned bytes, the `top` groups that pin most.
fn groups(groups: &[Group], what: &str, top: usize) -> Table {
    let mut t = table(&[what, "blocks", "pins"]);
    for g in groups.iter().take(top) {
        t.add_row(vec![
            g.key.clone(),
            format_count(i128::from(g.blocks)),
            format_bytes(g.pinned),
        ]);
    }
    if groups.len() > top {
        let rest = &groups[top..];
        t.add_row(vec![
            format!("{} more", rest.len()),
            format_count(rest.iter().map(|g| i128::from(g.blocks)).sum()),
            format_bytes(rest.iter().map(|g| g.pinned).sum()),
        ]);
    }
    for c in 1..3 {
        if let Some(c) = t.column_mut(c) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}
