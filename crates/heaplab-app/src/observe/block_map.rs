//! The block map: a run of the heap map's pages, each cut into the pieces that lie on it
//! in address order, to scale — the live blocks (by id) and what lies between them, told
//! apart by what the policy reports of its own free structures
//! ([`heaplab_core::policy::Policy::free_pieces`]: a free chunk in a bin, a tcache entry, the
//! top, a buddy block of an order, a span's free slot). Around each live block, where the
//! policy says how it laid the block out ([`heaplab_core::policy::Policy::block_layout`]), the
//! bytes in front of the payload are its header and those past it up to the end of its
//! slot its padding (alignment, class or power-of-two rounding, a pool's block size).
//! Bytes none of these are the policy's overhead, as far as it tells. Over the
//! pieces lie the policy's structures: the links from each free piece on a list to the
//! next one it hands out ([`BlockLink`]), and the regions it manages as units (a
//! size-class span with its class, a pool's chunk).

use std::collections::BTreeMap;

use serde::Serialize;

use heaplab_core::policy::{FreePiece, Region};

use super::heap_map;
use super::moment::Moment;

/// What a piece of a page is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PieceKind {
    /// A live block's bytes.
    Block { id: u64, event: u64 },
    /// Free memory the policy keeps in a structure: `structure` names it ("bin 4",
    /// "tcache", "top", "order 3", "span free slot"); on a list, `list` names the list
    /// and `rank` is the piece's place on it (0: the next handed out).
    Free {
        structure: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        list: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rank: Option<u32>,
    },
    /// The policy's header in front of a live block's payload (a chunk's boundary tag).
    Header { id: u64 },
    /// The rest of a live block's slot past the bytes asked for: alignment, size-class or
    /// power-of-two rounding, a pool's block size.
    Padding { id: u64 },
    /// Neither live, nor a live block's header or padding, nor in a free structure: what
    /// the policy reports nothing about (its own bookkeeping, freed space it does not
    /// reuse yet, the bytes around blocks of a family that does not say how it laid them
    /// out).
    Overhead,
}

/// One piece of a page: its bytes on that page, from `addr`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub addr: u64,
    pub size: u64,
    #[serde(flatten)]
    pub kind: PieceKind,
}

/// One committed page of the block map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockRow {
    pub page: u64,
    pub addr: u64,
    pub resident: bool,
    /// The page's bytes in address order, covering it exactly.
    pub pieces: Vec<Piece>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockMap {
    pub event: u64,
    pub page_size: u64,
    /// Whether the policy reports its free structures (else every byte not live is
    /// overhead, as far as the map can tell).
    pub reports_free: bool,
    pub rows: Vec<BlockRow>,
    /// Each free piece on a list to the next on the same list, in the order the policy
    /// hands them out, where either end lies on the pages shown.
    pub links: Vec<BlockLink>,
    /// The regions the policy manages as units that overlap the pages shown.
    pub regions: Vec<MapRegion>,
}

/// A link of one of the policy's free lists: from the piece at `from` to the piece at `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockLink {
    pub list: String,
    pub from: u64,
    pub to: u64,
}

/// A region the policy manages as one unit, live blocks and free slots alike.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapRegion {
    pub addr: u64,
    pub size: u64,
    pub label: String,
}

/// The links of every list among `free`: each list's pieces in their order, one to the
/// next, kept where either end lies in `lo..hi`.
fn links(free: &[FreePiece], lo: u64, hi: u64) -> (Vec<BlockLink>, BTreeMap<u64, u32>) {
    let mut lists: BTreeMap<&str, Vec<(u64, u64)>> = BTreeMap::new();
    for f in free {
        if let Some(place) = &f.list {
            lists
                .entry(place.list.as_str())
                .or_default()
                .push((place.order, f.addr));
        }
    }
    let mut out = Vec::new();
    let mut ranks = BTreeMap::new();
    let shown = |a: u64| a >= lo && a < hi;
    for (list, mut pieces) in lists {
        pieces.sort_unstable();
        for (rank, &(_, addr)) in pieces.iter().enumerate() {
            if shown(addr) {
                ranks.insert(addr, rank as u32);
            }
        }
        for pair in pieces.windows(2) {
            let (from, to) = (pair[0].1, pair[1].1);
            if shown(from) || shown(to) {
                out.push(BlockLink {
                    list: list.to_string(),
                    from,
                    to,
                });
            }
        }
    }
    (out, ranks)
}

/// A span of bytes with what it is, before it is cut at page boundaries.
struct Span {
    addr: u64,
    end: u64,
    kind: PieceKind,
}

/// The pieces of `page` (of `ps` bytes), given the spans sorted by address; what no span
/// covers is overhead.
fn cut(page: u64, ps: u64, spans: &[Span]) -> Vec<Piece> {
    let end = page + ps;
    let first = spans.partition_point(|s| s.end <= page);
    let mut out = Vec::new();
    let mut at = page;
    for s in spans[first..].iter().take_while(|s| s.addr < end) {
        let from = s.addr.max(at);
        let to = s.end.min(end);
        if to <= from {
            continue;
        }
        if from > at {
            out.push(Piece {
                addr: at,
                size: from - at,
                kind: PieceKind::Overhead,
            });
        }
        out.push(Piece {
            addr: from,
            size: to - from,
            kind: s.kind.clone(),
        });
        at = to;
    }
    if at < end {
        out.push(Piece {
            addr: at,
            size: end - at,
            kind: PieceKind::Overhead,
        });
    }
    out
}

/// The block map of `count` pages of the heap map from page `first`, at the moment `at`.
/// Only committed pages have rows.
pub fn block_map(at: Moment<'_>, first: u64, count: u64) -> BlockMap {
    let map = heap_map::heap_map(at);
    let ps = map.page_size;
    let last = first.saturating_add(count);
    let rows_of: Vec<_> = map
        .pages
        .iter()
        .filter(|p| p.page >= first && p.page < last)
        .collect();
    let mut free: Vec<FreePiece> = Vec::new();
    let reports_free = at.simulation.free_pieces(&mut free);
    let lo = rows_of.first().map_or(0, |p| p.addr);
    let hi = rows_of.last().map_or(0, |p| p.addr + ps);
    let (links, ranks) = links(&free, lo, hi);
    let mut regions: Vec<Region> = Vec::new();
    at.simulation.regions(&mut regions);
    let mut regions: Vec<MapRegion> = regions
        .into_iter()
        .filter(|r| r.addr < hi && r.addr + r.size > lo && r.size > 0)
        .map(|r| MapRegion {
            addr: r.addr,
            size: r.size,
            label: r.label,
        })
        .collect();
    regions.sort_by_key(|r| r.addr);
    let mut spans: Vec<Span> = Vec::new();
    for (id, b) in at.simulation.live() {
        // A block of 0 bytes still has its header and slot.
        let layout = at.simulation.block_layout(b.addr, b.size);
        let (start, slot_end) = layout.map_or((b.addr, b.addr + b.size), |l| {
            (b.addr - l.header, b.addr - l.header + l.slot)
        });
        if start >= hi || slot_end <= lo {
            continue;
        }
        if start < b.addr {
            spans.push(Span {
                addr: start,
                end: b.addr,
                kind: PieceKind::Header { id },
            });
        }
        if b.size > 0 {
            let event = at.births.get(&id).map_or(0, |b| b.event);
            spans.push(Span {
                addr: b.addr,
                end: b.addr + b.size,
                kind: PieceKind::Block { id, event },
            });
        }
        if b.addr + b.size < slot_end {
            spans.push(Span {
                addr: b.addr + b.size,
                end: slot_end,
                kind: PieceKind::Padding { id },
            });
        }
    }
    for f in free {
        if f.addr < hi && f.addr + f.size > lo && f.size > 0 {
            spans.push(Span {
                addr: f.addr,
                end: f.addr + f.size,
                kind: PieceKind::Free {
                    rank: f.list.as_ref().and_then(|_| ranks.get(&f.addr).copied()),
                    list: f.list.map(|l| l.list),
                    structure: f.structure,
                },
            });
        }
    }
    // Live blocks' slots never overlap one another, and a policy's free piece never
    // overlaps a live block's slot, so sorting by address (a live block's parts first on
    // a tie) orders them all; should a policy's answers overlap, [`cut`] keeps the first.
    spans.sort_by_key(|s| {
        (
            s.addr,
            !matches!(
                s.kind,
                PieceKind::Block { .. } | PieceKind::Header { .. } | PieceKind::Padding { .. }
            ),
        )
    });
    let rows = rows_of
        .iter()
        .map(|p| BlockRow {
            page: p.page,
            addr: p.addr,
            resident: p.resident,
            pieces: cut(p.addr, ps, &spans),
        })
        .collect();
    BlockMap {
        event: map.event,
        page_size: ps,
        reports_free,
        rows,
        links,
        regions,
    }
}
