//! Ports of MallocBench's allocation patterns (WebKit PerformanceTests/MallocBench), as
//! event generators. Sizes are the 64-bit ones. The patterns follow the benchmarks'
//! descriptions; counts are MallocBench's at `scale = 1`.

use rand::Rng;

use super::{rng, scaled, seed_and_scale, SeedScale, Sink};
use crate::event::{BlockId, Event};
use crate::params::{ParamSpec, Params};

// Each port's knobs are the seed and the scale, read as `SeedScale`; the lists differ
// only in the scale each port runs at by default.

/// The knobs of `churn`.
pub(super) const CHURN: &[ParamSpec] = &seed_and_scale("0.1");

/// The knobs of `tree_churn`.
pub(super) const TREE_CHURN: &[ParamSpec] = &seed_and_scale("0.05");

/// The knobs of `medium`.
pub(super) const MEDIUM: &[ParamSpec] = &seed_and_scale("0.05");

/// The knobs of `list_allocate`.
pub(super) const LIST_ALLOCATE: &[ParamSpec] = &seed_and_scale("0.05");

/// The knobs of `tree_allocate`.
pub(super) const TREE_ALLOCATE: &[ParamSpec] = &seed_and_scale("0.1");

/// The knobs of `fragment`.
pub(super) const FRAGMENT: &[ParamSpec] = &seed_and_scale("0.1");

/// The knobs of `fragment_iterate`.
pub(super) const FRAGMENT_ITERATE: &[ParamSpec] = &seed_and_scale("0.25");

/// The knobs of `big`.
pub(super) const BIG: &[ParamSpec] = &seed_and_scale("0.05");

/// The knobs of `message_one` and `message_many`, which differ only in their number of
/// consumers.
pub(super) const MESSAGE: &[ParamSpec] = &seed_and_scale("0.05");

/// The knobs of `balloon`.
pub(super) const BALLOON: &[ParamSpec] = &seed_and_scale("0.1");

/// `churn`: one long-lived 8-byte object, then allocate-use-free of 8 bytes in a loop.
pub(super) fn churn<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let n = scaled(SeedScale::read(params).scale, 7_000_000.0);
    sink(Event::alloc(0, 8))?;
    for id in 1..=n {
        sink(Event::alloc(id, 8))?;
        sink(Event::free(id))?;
    }
    sink(Event::free(0))
}

/// `medium`: objects of max(1 KiB, rand % 8 KiB) until 1 GiB (scaled) is live, then all
/// freed in allocation order.
pub(super) fn medium<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    fill_then_free(knobs.seed, knobs.scale, sink, 1024, 8192)
}

/// Objects of max(`min`, rand % `below`) bytes until 1 GiB (scaled) is live, then all
/// freed in allocation order: `medium` and `big`.
fn fill_then_free<E>(
    seed: u64,
    scale: f64,
    sink: &mut Sink<'_, E>,
    min: u64,
    below: u64,
) -> Result<(), E> {
    let total = scaled(scale, (1u64 << 30) as f64);
    let mut rng = rng(seed);
    let mut allocated = 0;
    let mut n: BlockId = 0;
    sink(Event::Phase("allocate".into()))?;
    while allocated < total {
        let size = rng.random_range(0..below).max(min);
        sink(Event::alloc(n, size))?;
        allocated += size;
        n += 1;
    }
    sink(Event::Phase("free".into()))?;
    for id in 0..n {
        sink(Event::free(id))?;
    }
    Ok(())
}

const NODE: u64 = 48;
const TREE_DEPTH: u32 = 15;

/// A tree node: its own block and a payload block (`id + 1`).
#[derive(Clone, Copy)]
struct Node {
    id: BlockId,
    left: u32,
    right: u32,
}

const LEAF: u32 = u32::MAX;

struct Tree<'s, 'a, E> {
    nodes: Vec<Node>,
    spare: Vec<u32>,
    next_id: BlockId,
    counter: u64,
    sink: &'s mut Sink<'a, E>,
}

impl<E> Tree<'_, '_, E> {
    /// Builds a complete tree of `height` levels in pre-order; `payload` sizes each node's
    /// payload from its depth.
    fn build(&mut self, height: u32, depth: u32, payload: &dyn Fn(u32) -> u64) -> Result<u32, E> {
        if height == 0 {
            return Ok(LEAF);
        }
        let id = self.next_id;
        self.next_id += 2;
        (self.sink)(Event::alloc(id, NODE))?;
        (self.sink)(Event::alloc(id + 1, payload(depth)))?;
        let left = self.build(height - 1, depth + 1, payload)?;
        let right = self.build(height - 1, depth + 1, payload)?;
        let node = Node { id, left, right };
        Ok(match self.spare.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        })
    }

    fn destroy(&mut self, n: u32) -> Result<(), E> {
        if n == LEAF {
            return Ok(());
        }
        let node = self.nodes[n as usize];
        self.destroy(node.left)?;
        self.destroy(node.right)?;
        (self.sink)(Event::free(node.id + 1))?;
        (self.sink)(Event::free(node.id))?;
        self.spare.push(n);
        Ok(())
    }

    /// One in-order pass; every 8th node visited gets new subtrees of the same height.
    fn churn(&mut self, n: u32, height: u32, depth: u32) -> Result<(), E> {
        if n == LEAF {
            return Ok(());
        }
        self.churn(self.nodes[n as usize].left, height - 1, depth + 1)?;
        self.counter += 1;
        if self.counter.is_multiple_of(8) && height > 1 {
            let size = (self.counter & 63) | 1;
            let old = self.nodes[n as usize];
            let left = self.build(height - 1, depth + 1, &|_| size)?;
            let right = self.build(height - 1, depth + 1, &|_| size)?;
            self.destroy(old.left)?;
            self.destroy(old.right)?;
            let node = &mut self.nodes[n as usize];
            node.left = left;
            node.right = right;
        }
        self.churn(self.nodes[n as usize].right, height - 1, depth + 1)
    }
}

/// `tree_churn`: a depth-15 tree of 48-byte nodes with payloads, churned by in-order passes.
pub(super) fn tree_churn<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    let passes = scaled(knobs.scale, 160.0);
    let mut tree = Tree {
        nodes: Vec::new(),
        spare: Vec::new(),
        next_id: 0,
        counter: 0,
        sink,
    };
    (tree.sink)(Event::Phase("build".into()))?;
    let root = tree.build(TREE_DEPTH, 0, &|depth| ((u64::from(depth) * 8) & 63) | 1)?;
    // The random seed decides where the counter starts, so seeds give different churn.
    tree.counter = rng(knobs.seed).random_range(0..8);
    (tree.sink)(Event::Phase("churn".into()))?;
    for _ in 0..passes {
        tree.churn(root, TREE_DEPTH, 0)?;
    }
    (tree.sink)(Event::Phase("destroy".into()))?;
    tree.destroy(root)
}

/// `list_allocate`: build a 32K-node singly linked list (32-byte node, 1-byte payload)
/// and free it from the head, 70 times.
pub(super) fn list_allocate<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    const NODES: u64 = 32 * 1024;
    let rounds = scaled(SeedScale::read(params).scale, 70.0);
    for round in 0..rounds {
        let base = round * NODES * 2;
        for i in 0..NODES {
            sink(Event::alloc(base + 2 * i, 32))?;
            sink(Event::alloc(base + 2 * i + 1, 1))?;
        }
        for i in 0..NODES {
            sink(Event::free(base + 2 * i + 1))?;
            sink(Event::free(base + 2 * i))?;
        }
    }
    Ok(())
}

/// `tree_allocate`: build and free a complete binary tree of depth 16 (48-byte nodes with
/// payloads sized by depth), 24 times.
pub(super) fn tree_allocate<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let rounds = scaled(SeedScale::read(params).scale, 24.0);
    let mut tree = Tree {
        nodes: Vec::new(),
        spare: Vec::new(),
        next_id: 0,
        counter: 0,
        sink,
    };
    for _ in 0..rounds {
        let root = tree.build(16, 0, &|depth| ((u64::from(depth) * 8) & 63) | 1)?;
        tree.destroy(root)?;
    }
    Ok(())
}

/// `fragment`: 25 rounds of allocating 128K 32-byte objects, replacing 32K random ones,
/// and freeing all in index order: how well holes are reused.
pub(super) fn fragment<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    const OBJECTS: usize = 128 * 1024;
    let knobs = SeedScale::read(params);
    let rounds = scaled(knobs.scale, 25.0);
    let mut rng = rng(knobs.seed);
    let mut next: BlockId = 0;
    let mut slots = vec![0; OBJECTS];
    for _ in 0..rounds {
        for slot in slots.iter_mut() {
            sink(Event::alloc(next, 32))?;
            *slot = next;
            next += 1;
        }
        for _ in 0..OBJECTS / 4 {
            let i = rng.random_range(0..OBJECTS);
            sink(Event::free(slots[i]))?;
            sink(Event::alloc(next, 32))?;
            slots[i] = next;
            next += 1;
        }
        for &id in &slots {
            sink(Event::free(id))?;
        }
    }
    Ok(())
}

/// `fragment_iterate`: allocate 512K 32-byte objects, free 128K at random, allocate 128K
/// more as a list (they land in the holes), then free everything.
pub(super) fn fragment_iterate<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    let n = scaled(knobs.scale, (512 * 1024) as f64) as usize;
    let mut rng = rng(knobs.seed);
    let mut live: Vec<BlockId> = (0..n as u64).collect();
    sink(Event::Phase("allocate".into()))?;
    for &id in &live {
        sink(Event::alloc(id, 32))?;
    }
    sink(Event::Phase("punch holes".into()))?;
    for _ in 0..n / 4 {
        let i = rng.random_range(0..live.len());
        sink(Event::free(live.swap_remove(i)))?;
    }
    sink(Event::Phase("refill".into()))?;
    for id in n as u64..(n + n / 4) as u64 {
        sink(Event::alloc(id, 32))?;
        live.push(id);
    }
    sink(Event::Phase("free".into()))?;
    live.sort_unstable();
    for id in live {
        sink(Event::free(id))?;
    }
    Ok(())
}

/// `big`: as `medium`, with objects of 8 to 128 KiB.
pub(super) fn big<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    fill_then_free(knobs.seed, knobs.scale, sink, 8 * 1024, 128 * 1024)
}

/// `message_one` and `message_many`: a producer (thread 0) builds messages of an 8 KiB
/// pointer array and 1024 nodes of 256 bytes; consumers on other threads free them, a few
/// messages behind. Every free is a cross-thread free.
pub(super) fn message<E>(params: &Params, consumers: u32, sink: &mut Sink<'_, E>) -> Result<(), E> {
    const NODES: u64 = 1024;
    const IN_FLIGHT: u64 = 4;
    let messages = scaled(SeedScale::read(params).scale, 1000.0);
    let per_message = NODES + 1;
    let consume = |m: u64, sink: &mut Sink<'_, E>| -> Result<(), E> {
        let thread = 1 + (m % u64::from(consumers)) as u32;
        for i in (0..per_message).rev() {
            sink(Event::Free {
                id: m * per_message + i,
                thread,
            })?;
        }
        Ok(())
    };
    for m in 0..messages {
        let base = m * per_message;
        sink(Event::Alloc {
            id: base,
            size: 8192,
            align: 16,
            arena: None,
            thread: 0,
        })?;
        for i in 1..per_message {
            sink(Event::Alloc {
                id: base + i,
                size: 256,
                align: 16,
                arena: None,
                thread: 0,
            })?;
        }
        if m >= IN_FLIGHT {
            consume(m - IN_FLIGHT, sink)?;
        }
    }
    for m in messages.saturating_sub(IN_FLIGHT)..messages {
        consume(m, sink)?;
    }
    Ok(())
}

/// `balloon`: inflate to 100 MiB of 1 KiB chunks, free them all, then hold a 10 MiB
/// steady state with churn, to see how fast memory goes back after the drain.
pub(super) fn balloon<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    const CHUNK: u64 = 1024;
    let knobs = SeedScale::read(params);
    let big = scaled(knobs.scale, (100 << 20) as f64) / CHUNK;
    let steady = (big / 10).max(1);
    let mut rng = rng(knobs.seed);
    sink(Event::Phase("inflate".into()))?;
    for id in 0..big {
        sink(Event::alloc(id, CHUNK))?;
    }
    sink(Event::Phase("deflate".into()))?;
    for id in 0..big {
        sink(Event::free(id))?;
    }
    sink(Event::Phase("steady".into()))?;
    let mut live: Vec<BlockId> = (big..big + steady).collect();
    for &id in &live {
        sink(Event::alloc(id, CHUNK))?;
    }
    for next in big + steady..big + 5 * steady {
        let i = rng.random_range(0..live.len());
        sink(Event::free(live[i]))?;
        sink(Event::alloc(next, CHUNK))?;
        live[i] = next;
    }
    for id in live {
        sink(Event::free(id))?;
    }
    Ok(())
}
