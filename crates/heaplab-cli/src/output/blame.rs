//! `heaplab blame`'s tables: the totals, what a block's figures mean (the core's one
//! sentence, which the page shows too), the blocks that pin the most, the pinned bytes by
//! size range and, for a trace with call sites, by call site.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
use heaplab_app::observe::blame::{Blame, Group};
use heaplab_core::format::{format_bytes, format_count};

/// The columns of a block's (or a group's) two figures, as the sentence above the tables
/// names them.
const PINS: &str = "pins";
const ALONE: &str = "freeing it alone unpins";
/// A group's sum of its blocks' `alone_unpins`: not what freeing them all would unpin,
/// which also counts the pages they share only with one another.
const EACH_ALONE: &str = "freeing each alone unpins";

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
    println!("{}", b.about_shares);
    let sited = !b.by_site.is_empty();
    let mut header = vec!["id", "size", "allocated at event", "phase"];
    if sited {
        header.push("call site");
    }
    header.extend([PINS, ALONE]);
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
        row.push(format_bytes(p.alone_unpins));
        pinners.add_row(row);
    }
    let columns = header.len();
    for c in columns - 2..columns {
        if let Some(c) = pinners.column_mut(c) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    println!("{pinners}");
    if !b.by_size.is_empty() {
        println!("by size");
        println!("{}", groups(&b.by_size, "size", top));
    }
    if sited {
        println!("by call site");
        println!("{}", groups(&b.by_site, "call site", top));
    }
}

/// A grouping of the pinned bytes, the `top` groups that pin most.
fn groups(groups: &[Group], what: &str, top: usize) -> Table {
    let mut t = table(&[what, "blocks", PINS, EACH_ALONE]);
    for g in groups.iter().take(top) {
        t.add_row(vec![
            g.key.clone(),
            format_count(i128::from(g.blocks)),
            format_bytes(g.pinned),
            format_bytes(g.alone_unpins),
        ]);
    }
    if groups.len() > top {
        let rest = &groups[top..];
        t.add_row(vec![
            format!("{} more", rest.len()),
            format_count(rest.iter().map(|g| i128::from(g.blocks)).sum()),
            format_bytes(rest.iter().map(|g| g.pinned).sum()),
            format_bytes(rest.iter().map(|g| g.alone_unpins).sum()),
        ]);
    }
    for c in 1..4 {
        if let Some(c) = t.column_mut(c) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}
