//! The one function that turns an event and its decisions into the plain-words line of
//! `heaplab explain`, which the page shows too, so the page's line k is the CLI's line k.

use heaplab_core::decision::Decision;
use heaplab_core::event::Event;
use heaplab_core::format::format_count;
use heaplab_core::policy::Block;

use super::heap_map::Pinner;

/// An exact size as people read it: "4,096 B".
fn bytes(n: u64) -> String {
    format!("{} B", format_count(i128::from(n)))
}

/// The event as its `.trace` line.
pub fn op_text(event: &Event) -> String {
    let mut out = Vec::new();
    // Writing into a vector cannot fail.
    let _ = heaplab_core::trace::write_event(&mut out, event);
    String::from_utf8_lossy(&out).trim_end().to_string()
}

/// The line for event `n`: what was asked, then each decision, then for a free the pages
/// that stay resident and the live block that keeps each (`pinned`).
pub fn line(
    n: u64,
    event: &Event,
    placed: Option<Block>,
    decisions: &[Decision],
    pinned: &[Pinner],
) -> String {
    let id = match event {
        Event::Alloc { id, .. } | Event::Realloc { id, .. } | Event::Free { id, .. } => Some(*id),
        _ => None,
    };
    let head = match event {
        Event::Alloc { id, size, .. } => format!("a {} (id {id})", bytes(*size)),
        Event::Realloc { id, size, .. } => format!("r id {id} to {}", bytes(*size)),
        Event::Free { id, .. } => format!("f id {id}"),
        Event::Phase(name) => format!("phase {name}"),
        Event::ArenaCreate(a) => format!("create arena {a}"),
        Event::ArenaReset(a) => format!("reset arena {a}"),
        Event::ArenaDrop(a) => format!("drop arena {a}"),
    };
    // A call into your own allocator heads its line, though it is noted once it has
    // returned: what the module did inside the call (mem_sbrk) follows it.
    let calls = decisions
        .iter()
        .filter(|d| matches!(d, Decision::Call { .. }));
    let rest = decisions
        .iter()
        .filter(|d| !matches!(d, Decision::Call { .. }));
    let mut parts: Vec<String> = calls.chain(rest).map(|d| describe(d, id)).collect();
    if let Some(b) = placed {
        parts.push(format!("placed at {:#x}", b.addr));
    }
    for p in pinned.iter().take(3) {
        parts.push(match &p.by {
            Some(by) => format!(
                "page {} stays resident: id {} ({}, allocated at event {}) still lives there",
                p.page,
                by.id,
                bytes(by.size),
                by.event
            ),
            None => format!(
                "page {} stays resident: nothing lives there, the policy keeps it",
                p.page
            ),
        });
    }
    if pinned.len() > 3 {
        parts.push(format!("{} more pages stay resident", pinned.len() - 3));
    }
    if parts.is_empty() {
        parts.push("nothing to decide".into());
    }
    format!("event {n}: {head}: {}", parts.join("; "))
}

/// A decision in words; `id` is the event's block, for a split's "48 B to id 9".
fn describe(d: &Decision, id: Option<u64>) -> String {
    match d {
        Decision::Search {
            structure,
            index,
            found,
        } => {
            let place = match *structure {
                "class" => format!("class {}", bytes(*index)),
                // First, next and best fit keep no bins: the search has no number.
                s @ ("free chunks by size" | "address-ordered free list") => format!("the {s}"),
                s => format!("{s} {index}"),
            };
            match found {
                Some(a) => format!("found a free block at {a:#x} in {place}"),
                None => format!("no free block in {place}"),
            }
        }
        Decision::Split {
            from,
            size,
            taken,
            rest,
            ..
        } => {
            let to = id.map(|i| format!(" to id {i}")).unwrap_or_default();
            let stays = if *from == "top" {
                "stays top"
            } else {
                "stays free"
            };
            format!(
                "split the {} {from}: {}{to}, {} {stays}",
                bytes(*size),
                bytes(*taken),
                bytes(*rest)
            )
        }
        Decision::Coalesce { with, addr, size } => {
            format!(
                "merged with the {with} free block into {} at {addr:#x}",
                bytes(*size)
            )
        }
        Decision::NewRegion {
            what,
            addr,
            bytes: n,
        } => {
            format!("new {what} of {} at {addr:#x}", bytes(*n))
        }
        Decision::CacheHit { cache, addr } => format!("taken from the {cache} at {addr:#x}"),
        Decision::Cached { cache, .. } => format!("kept in the {cache}"),
        Decision::RemoteFree { owner, thread } => {
            format!("freed by thread {thread}: queued for its owner, thread {owner}")
        }
        Decision::Reason { why } => why.to_string(),
        Decision::Call {
            call,
            ptr,
            size,
            returned,
        } => {
            let args: Vec<String> = ptr
                .map(|p| format!("{p:#x}"))
                .into_iter()
                .chain(size.map(|s| s.to_string()))
                .collect();
            match returned {
                Some(r) => format!("{call}({}) → {r:#x}", args.join(", ")),
                None => format!("{call}({})", args.join(", ")),
            }
        }
        Decision::PageOp {
            op,
            addr,
            bytes: n,
            reason,
        } => {
            let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
            format!("{op} {} at {addr:#x}{why}", bytes(*n))
        }
    }
}
