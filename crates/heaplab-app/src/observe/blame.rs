//! Fragmentation blame: the resident bytes at an event split into bytes of live blocks,
//! free bytes on pages a live block keeps resident (pinned, attributed to those blocks)
//! and resident pages with nothing live on them (kept by the policy). The three add up to
//! the resident bytes exactly. The pinned bytes are grouped by the pinning blocks' size,
//! phase and, when the trace has call sites, call site; each grouping adds up to the
//! pinned bytes.

use std::collections::BTreeMap;

use serde::Serialize;

use super::heap_map::{HeapMap, MapBlock};

/// A live block and the resident free bytes it pins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pinning {
    #[serde(flatten)]
    pub block: MapBlock,
    pub pinned: u64,
}

/// Pinned bytes grouped by a property of the pinning blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub key: String,
    pub blocks: u64,
    pub pinned: u64,
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
}

/// Blame at the map's event. A page's free bytes are shared among the blocks on it in
/// proportion to their bytes there, the remainder to the lowest, so the shares add up.
pub fn blame(map: &HeapMap) -> Blame {
    let ps = map.page_size;
    let (mut resident, mut live, mut pinned, mut kept) = (0, 0, 0, 0);
    let mut per_block: BTreeMap<u64, (MapBlock, u64)> = BTreeMap::new();
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
        for b in &page.blocks {
            let bytes_here = (b.addr + b.size).min(page.addr + ps) - b.addr.max(page.addr);
            let share = (free * bytes_here).checked_div(on_page).unwrap_or(0);
            given += share;
            per_block.entry(b.id).or_insert_with(|| (b.clone(), 0)).1 += share;
        }
        if let Some(first) = page.blocks.first() {
            if let Some(e) = per_block.get_mut(&first.id) {
                e.1 += free - given;
            }
        }
    }
    let mut pinners: Vec<Pinning> = per_block
        .into_values()
        .filter(|(_, p)| *p > 0)
        .map(|(block, pinned)| Pinning { block, pinned })
        .collect();
    pinners.sort_by(|a, b| b.pinned.cmp(&a.pinned).then(a.block.id.cmp(&b.block.id)));
    let group = |key: &dyn Fn(&MapBlock) -> String| {
        let mut g: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for p in &pinners {
            let e = g.entry(key(&p.block)).or_default();
            e.0 += 1;
            e.1 += p.pinned;
        }
        let mut v: Vec<Group> = g
            .into_iter()
            .map(|(key, (blocks, pinned))| Group {
                key,
                blocks,
                pinned,
            })
            .collect();
        v.sort_by(|a, b| b.pinned.cmp(&a.pinned).then(a.key.cmp(&b.key)));
        v
    };
    let by_size = group(&|b| format!("{} B", b.size));
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
    }
}
