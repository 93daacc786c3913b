//! Fragmentation blame: the resident bytes at an event split into bytes of live blocks,
//! free bytes on pages a live block keeps resident (pinned, attributed to those blocks)
//! and resident pages with nothing live on them (kept by the policy). The three add up to
//! the resident bytes exactly. The pinned bytes are grouped by the pinning blocks' size
//! (in power-of-two ranges), phase and, when the trace has call sites, call site; each
//! grouping adds up to the pinned bytes.
//!
//! A block's pinned bytes are a share: a page's free bytes split among its live blocks.
//! What freeing one block would change is another figure, `alone_unpins`: the resident
//! pages on which it is the only live block, which freeing it leaves with nothing live.
//! Whether those pages then go back to the system is the policy's decision (a free list
//! keeps them until it trims, a buddy heap unless `decommit_merged`), so it is named for
//! what it is sure of.

use std::collections::BTreeMap;

use serde::Serialize;

use heaplab_core::format::format_count;

use super::heap_map::{HeapMap, MapBlock};

/// What a block's pinned bytes mean, said once for the CLI and the page alike.
pub const ABOUT_SHARES: &str = "Pinned bytes are a share, not a promise: a page's free \
     bytes split among the live blocks on it by their bytes there, so freeing one block gives \
     nothing back while another keeps its page. \"Freeing it alone unpins\" counts the \
     resident pages a block is the only live block on; whether they then go back to the \
     system is the policy's decision.";

/// A live block, the resident free bytes it pins, and the resident pages only it keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pinning {
    #[serde(flatten)]
    pub block: MapBlock,
    pub pinned: u64,
    /// Bytes of the resident pages on which this block is the only live block: freeing it
    /// alone leaves them with nothing live (they go back only if the policy gives them
    /// back).
    pub alone_unpins: u64,
}

/// Pinned bytes grouped by a property of the pinning blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub key: String,
    pub blocks: u64,
    pub pinned: u64,
    /// The group's blocks' `alone_unpins`, summed ("freeing each alone unpins"): no page
    /// counts twice, since each has one live block. Freeing the whole group could unpin
    /// more, the pages its blocks share only with one another.
    pub alone_unpins: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blame {
    pub event: u64,
    pub resident: u64,
    /// Bytes of live blocks on resident pages.
    pub live: u64,
    pub pinned: u64,
    pub kept_by_policy: u64,
    /// `resident - live`.
    pub not_live: u64,
    /// The pinning blocks, most pinned first.
    pub pinners: Vec<Pinning>,
    pub by_size: Vec<Group>,
    pub by_phase: Vec<Group>,
    /// By call site, when some pinning block has one (a trace recorded with
    /// `--callers`); pinners without one are `(no site)`. Empty otherwise.
    pub by_site: Vec<Group>,
    /// What `pinned` and `alone_unpins` mean, in a sentence ([`ABOUT_SHARES`]).
    pub about_shares: &'static str,
}

/// The power-of-two range a size falls in, as the size grouping names it: "257–512 B"
/// (sizes above 256 and up to 512); 0, 1 and 2 B alone.
pub fn size_range(size: u64) -> String {
    if size <= 2 {
        return format!("{size} B");
    }
    let Some(hi) = size.checked_next_power_of_two() else {
        return format!("over {} B", format_count(1 << 63));
    };
    format!(
        "{}–{} B",
        format_count(i128::from(hi / 2 + 1)),
        format_count(i128::from(hi))
    )
}

/// Blame at the map's event. A page's free bytes are shared among the blocks on it in
/// proportion to their bytes there, the remainder to the lowest, so the shares add up.
pub fn blame(map: &HeapMap) -> Blame {
    let ps = map.page_size;
    let (mut resident, mut live, mut pinned, mut kept) = (0, 0, 0, 0);
    // Each block with its pinned bytes and the bytes of the pages it is alone on.
    let mut per_block: BTreeMap<u64, (MapBlock, u64, u64)> = BTreeMap::new();
    for page in map.pages.iter().filter(|p| p.resident) {
        resident += ps;
        let on_page = page.live_bytes.min(ps);
        live += on_page;
        if page.blocks.is_empty() {
            kept += ps;
            continue;
        }
        let free = ps - on_page;
        pinned += free;
        let mut given = 0;
        let alone = page.blocks.len() == 1;
        for b in &page.blocks {
            let bytes_here = (b.addr + b.size).min(page.addr + ps) - b.addr.max(page.addr);
            let share = (free * bytes_here).checked_div(on_page).unwrap_or(0);
            given += share;
            let e = per_block.entry(b.id).or_insert_with(|| (b.clone(), 0, 0));
            e.1 += share;
            if alone {
                e.2 += ps;
            }
        }
        if let Some(first) = page.blocks.first() {
            if let Some(e) = per_block.get_mut(&first.id) {
                e.1 += free - given;
            }
        }
    }
    let mut pinners: Vec<Pinning> = per_block
        .into_values()
        .filter(|(_, p, _)| *p > 0)
        .map(|(block, pinned, alone_unpins)| Pinning {
            block,
            pinned,
            alone_unpins,
        })
        .collect();
    pinners.sort_by(|a, b| b.pinned.cmp(&a.pinned).then(a.block.id.cmp(&b.block.id)));
    let group = |key: &dyn Fn(&MapBlock) -> String| {
        let mut g: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
        for p in &pinners {
            let e = g.entry(key(&p.block)).or_default();
            e.0 += 1;
            e.1 += p.pinned;
            e.2 += p.alone_unpins;
        }
        let mut v: Vec<Group> = g
            .into_iter()
            .map(|(key, (blocks, pinned, alone_unpins))| Group {
                key,
                blocks,
                pinned,
                alone_unpins,
            })
            .collect();
        v.sort_by(|a, b| b.pinned.cmp(&a.pinned).then(a.key.cmp(&b.key)));
        v
    };
    let by_size = group(&|b| size_range(b.size));
    let by_phase = group(&|b| b.phase.clone().unwrap_or_else(|| "(no phase)".into()));
    let by_site = if pinners.iter().any(|p| p.block.site.is_some()) {
        group(&|b| b.site.clone().unwrap_or_else(|| "(no site)".into()))
    } else {
        Vec::new()
    };
    Blame {
        event: map.event,
        resident,
        live,
        pinned,
        kept_by_policy: kept,
        not_live: resident - live,
        pinners,
        by_size,
        by_phase,
        by_site,
        about_shares: ABOUT_SHARES,
    }
}

#[cfg(test)]
mod tests {
    use super::size_range;

    #[test]
    fn sizes_fall_in_power_of_two_ranges() {
        let ranges: Vec<String> = [0, 1, 2, 3, 4, 5, 300, 512, 513, u64::MAX]
            .into_iter()
            .map(size_range)
            .collect();
        assert_eq!(
            ranges,
            [
                "0 B",
                "1 B",
                "2 B",
                "3–4 B",
                "3–4 B",
                "5–8 B",
                "257–512 B",
                "257–512 B",
                "513–1,024 B",
                "over 9,223,372,036,854,775,808 B"
            ]
        );
    }
}
