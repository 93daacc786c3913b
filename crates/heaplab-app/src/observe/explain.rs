//! The one function that turns an event and its decisions into the plain-words line of
//! `heaplab explain`, which the page shows too, so the page's line k is the CLI's line k.

use heaplab_core::decision::Decision;
use heaplab_core::event::Event;
use heaplab_core::format::{format_count, format_counted};
use heaplab_core::policy::Block;

use super::heap_map::Pinner;

/// An exact size as people read it: "4,096 B".
fn bytes(n: u64) -> String {
    heaplab_core::format::format_exact_bytes(n)
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
        Event::Time(ns) => format!(
            "time mark {} ns",
            heaplab_core::format::format_count(i128::from(*ns))
        ),
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
        Decision::Halve { addr, size, taken } => halvings(*addr, *size, *taken, id),
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
        Decision::Rule { text, .. } => text.clone(),
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

/// A buddy split in words, each halving shown (`4,096 → 2,048 + 2,048 → … → 128 + 128`);
/// a split of more than six halvings shows the first three and the last two.
fn halvings(addr: u64, size: u64, taken: u64, id: Option<u64>) -> String {
    let mut steps = Vec::new();
    let mut half = size;
    while half > taken && half > 1 {
        half /= 2;
        steps.push(format!(
            "{} + {}",
            format_count(i128::from(half)),
            format_count(i128::from(half))
        ));
    }
    let shown = if steps.len() > 6 {
        let mut s = steps[..3].to_vec();
        s.push("…".into());
        s.extend_from_slice(&steps[steps.len() - 2..]);
        s
    } else {
        steps.clone()
    };
    let to = id.map(|i| format!(" to id {i}")).unwrap_or_default();
    format!(
        "halve the {} block at {addr:#x} {}: {} → {}; {}{to}, the upper half of each halving stays free",
        bytes(size),
        format_counted(steps.len() as i128, "time", "times"),
        format_count(i128::from(size)),
        shown.join(" → "),
        bytes(taken),
    )
}

#[cfg(test)]
mod tests {
    use super::halvings;

    #[test]
    fn a_buddy_split_shows_each_halving() {
        // 4,096 B down to 128 B is five halvings, each leaving its upper half free.
        assert_eq!(
            halvings(0x1000, 4096, 128, Some(1)),
            "halve the 4,096 B block at 0x1000 5 times: 4,096 → 2,048 + 2,048 → 1,024 + 1,024 \
             → 512 + 512 → 256 + 256 → 128 + 128; 128 B to id 1, the upper half of each \
             halving stays free"
        );
        // A long split shows its first three halvings and its last two.
        let long = halvings(0, 1 << 20, 16, None);
        assert!(
            long.contains(
                " 16 times: 1,048,576 → 524,288 + 524,288 → 262,144 + 262,144 → \
                 131,072 + 131,072 → … → 32 + 32 → 16 + 16; 16 B,"
            ),
            "{long}"
        );
    }
}
