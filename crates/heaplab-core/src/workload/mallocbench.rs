//! Ports of MallocBench's allocation patterns (WebKit PerformanceTests/MallocBench), as
//! event generators. Sizes are the 64-bit ones.

use rand::Rng;

use super::{rng, scaled, Sink};
use crate::event::{BlockId, Event};
use crate::params::Params;

/// `churn`: one long-lived 8-byte object, then allocate-use-free of 8 bytes in a loop.
pub(super) fn churn<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let n = scaled(params, 7_000_000.0);
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
    let total = scaled(params, (1u64 << 30) as f64);
    let mut rng = rng(params);
    let mut allocated = 0;
    let mut n: BlockId = 0;
    sink(Event::Phase("allocate".into()))?;
    while allocated < total {
        let size = rng.random_range(0..8192u64).max(1024);
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
    let passes = scaled(params, 160.0);
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
    tree.counter = rng(params).random_range(0..8);
    (tree.sink)(Event::Phase("churn".into()))?;
    for _ in 0..passes {
        tree.churn(root, TREE_DEPTH, 0)?;
    }
    (tree.sink)(Event::Phase("destroy".into()))?;
    tree.destroy(root)
}
