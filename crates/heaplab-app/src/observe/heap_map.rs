//! The heap map at the event a at reached: the pages of every reservation in
//! address order, numbered from 0, with their state, the live bytes on each and the
//! blocks there. Its counts are read off the page map and the live table, so they equal
//! the simulation's counters (tested for every family).

use std::collections::BTreeMap;

use serde::Serialize;

use heaplab_core::policy::Block;

use super::moment::Moment;

/// A live block as the map shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapBlock {
    pub id: u64,
    pub addr: u64,
    pub size: u64,
    /// The event that allocated it (0 when the at does not know).
    pub event: u64,
    pub phase: Option<String>,
    /// Where it was asked for: the call site's name, or its address in hex when it has
    /// none; absent when the trace has no call sites.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

/// One page of the map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapPage {
    /// The page's number on the map.
    pub page: u64,
    pub addr: u64,
    pub committed: bool,
    pub resident: bool,
    /// Bytes of live blocks on this page.
    pub live_bytes: u64,
    /// `live_bytes` over the page size.
    pub used: f64,
    /// The live blocks on the page, by address.
    pub blocks: Vec<MapBlock>,
    /// For a resident page that is mostly free: why it stays resident.
    pub why_resident: Option<String>,
}

/// The counts a map gives, which equal the simulation's counters at the same event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MapCounts {
    pub reserved_pages: u64,
    pub committed_pages: u64,
    pub resident_pages: u64,
    pub live_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeapMap {
    /// The events applied: the map shows the heap after event `event`.
    pub event: u64,
    pub page_size: u64,
    /// Pages that are committed; pages only reserved are in `reservations`.
    pub pages: Vec<MapPage>,
    /// Every reservation as (first page number, pages).
    pub reservations: Vec<(u64, u64)>,
    pub counts: MapCounts,
}

/// A page that stays resident after a free, and the live block that keeps it, if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pinner {
    pub page: u64,
    pub by: Option<MapBlock>,
}

/// Page numbers: each reservation's start address with the number of its first page.
struct Numbering {
    starts: Vec<(u64, u64, u64)>,
    shift: u32,
}

impl Numbering {
    fn of(at: Moment<'_>) -> Numbering {
        let pages = at.simulation.pages();
        let shift = pages.page_size().trailing_zeros();
        let mut next = 0;
        let starts = pages
            .reservations()
            .into_iter()
            .map(|(addr, bytes)| {
                let n = bytes.div_ceil(1 << shift);
                let s = (addr, n, next);
                next += n;
                s
            })
            .collect();
        Numbering { starts, shift }
    }

    /// The map's number of the page holding `addr`.
    fn page(&self, addr: u64) -> Option<u64> {
        let i = self.starts.partition_point(|&(a, _, _)| a <= addr);
        let &(start, n, first) = self.starts.get(i.checked_sub(1)?)?;
        let off = (addr - start) >> self.shift;
        (off < n).then_some(first + off)
    }
}

fn map_block(at: Moment<'_>, id: u64, b: Block) -> MapBlock {
    let birth = at.births.get(&id);
    MapBlock {
        id,
        addr: b.addr,
        size: b.size,
        event: birth.map_or(0, |b| b.event),
        phase: birth.and_then(|b| b.phase.as_deref().map(str::to_string)),
        site: birth.and_then(|b| b.site).map(|addr| at.sites.label(addr)),
    }
}

/// Live blocks by the address of each page they touch, with the bytes on that page.
fn blocks_by_page(at: Moment<'_>) -> BTreeMap<u64, Vec<(MapBlock, u64)>> {
    let ps = at.simulation.pages().page_size();
    let mut by_page: BTreeMap<u64, Vec<(MapBlock, u64)>> = BTreeMap::new();
    for (id, b) in at.simulation.live() {
        let mb = map_block(at, id, b);
        let end = b.addr + b.size;
        let mut page = b.addr & !(ps - 1);
        while page < end {
            let on = end.min(page + ps) - b.addr.max(page);
            by_page.entry(page).or_default().push((mb.clone(), on));
            page += ps;
        }
    }
    for v in by_page.values_mut() {
        v.sort_by_key(|(b, _)| b.addr);
    }
    by_page
}

/// The heap map at the moment `at`: every committed page with its state and blocks.
pub fn heap_map(at: Moment<'_>) -> HeapMap {
    let pages = at.simulation.pages();
    let ps = pages.page_size();
    let shift = ps.trailing_zeros();
    let numbering = Numbering::of(at);
    let by_page = blocks_by_page(at);
    let mut out = Vec::new();
    let mut counts = MapCounts {
        reserved_pages: 0,
        committed_pages: 0,
        resident_pages: 0,
        live_bytes: at.simulation.live_bytes(),
    };
    let mut reservations = Vec::new();
    for &(start, n, first) in &numbering.starts {
        reservations.push((first, n));
        counts.reserved_pages += n;
        for k in 0..n {
            let addr = start + (k << shift);
            let (committed, resident) = pages.page_flags(addr >> shift);
            if !committed {
                continue;
            }
            counts.committed_pages += 1;
            counts.resident_pages += u64::from(resident);
            let here = by_page.get(&addr).map(Vec::as_slice).unwrap_or(&[]);
            let live: u64 = here.iter().map(|(_, on)| on).sum();
            let blocks: Vec<MapBlock> = here.iter().map(|(b, _)| b.clone()).collect();
            let why_resident = (resident && live * 2 < ps).then(|| why(&blocks));
            out.push(MapPage {
                page: first + k,
                addr,
                committed,
                resident,
                live_bytes: live,
                used: live as f64 / ps as f64,
                blocks,
                why_resident,
            });
        }
    }
    HeapMap {
        event: at.position as u64,
        page_size: ps,
        pages: out,
        reservations,
        counts,
    }
}

/// Why a mostly free resident page stays resident, in words.
fn why(blocks: &[MapBlock]) -> String {
    match blocks.first() {
        Some(b) => {
            let others = match blocks.len() - 1 {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "id {} ({} B, allocated at event {}){others} still lives there",
                b.id, b.size, b.event
            )
        }
        None => "nothing lives there: the policy keeps it resident".into(),
    }
}

/// After `freed` was freed: the pages it lay on that are still resident, each with the
/// live block (the lowest) that keeps it, or none when the policy keeps it.
pub fn pinners_of(at: Moment<'_>, freed: Block) -> Vec<Pinner> {
    let pages = at.simulation.pages();
    let ps = pages.page_size();
    let numbering = Numbering::of(at);
    let end = freed.addr + freed.size.max(1);
    let mut page = freed.addr & !(ps - 1);
    let mut out = Vec::new();
    while page < end {
        if pages.is_resident(page) {
            let by = lowest_on(at, page, ps).map(|(id, b)| map_block(at, id, b));
            if let Some(n) = numbering.page(page) {
                out.push(Pinner { page: n, by });
            }
        }
        page += ps;
    }
    out
}

/// The live block with the lowest address among those on the page at `page`: from the
/// address index when the moment has one (blocks never overlap, so only the last block
/// starting below the page can reach into it), else by a look at every live block.
pub(crate) fn lowest_on(at: Moment<'_>, page: u64, ps: u64) -> Option<(u64, Block)> {
    let on = |b: &Block| b.addr < page + ps && b.addr + b.size > page;
    let Some(index) = at.by_addr else {
        return at
            .simulation
            .live()
            .filter(|(_, b)| on(b))
            .min_by_key(|(_, b)| b.addr);
    };
    let below = index.range(..(page, 0)).next_back();
    let from = index.range((page, 0)..(page + ps, 0)).next();
    below
        .into_iter()
        .chain(from)
        .filter_map(|&(_, id)| Some((id, at.simulation.block(id)?)))
        .find(|(_, b)| on(b))
}
