//! Free chunks ordered by address, each subtree knowing its largest chunk, so that
//! address-ordered first fit and next fit take O(log n) instead of a list walk.
//!
//! A treap: a binary search tree on addresses whose shape is fixed by priorities hashed
//! from the addresses, which keeps it balanced in expectation and deterministic.

use crate::provider::Addr;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    addr: Addr,
    size: u64,
    /// The largest `size` in this subtree.
    max: u64,
    prio: u64,
    left: u32,
    right: u32,
}

/// Free chunks by address with subtree maxima.
#[derive(Clone, Debug)]
pub(super) struct FitTree {
    nodes: Vec<Node>,
    spare: Vec<u32>,
    root: u32,
    len: usize,
}

/// SplitMix64's finaliser: a fixed, well-mixed priority per address.
fn priority(addr: Addr) -> u64 {
    let mut z = addr.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl FitTree {
    pub(super) fn new() -> FitTree {
        FitTree {
            nodes: Vec::new(),
            spare: Vec::new(),
            root: NIL,
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn max(&self, n: u32) -> u64 {
        if n == NIL {
            0
        } else {
            self.nodes[n as usize].max
        }
    }

    fn update(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        let m = node.size.max(self.max(node.left)).max(self.max(node.right));
        self.nodes[n as usize].max = m;
    }

    /// Splits `t` into addresses below `key` and addresses from `key` on.
    fn split(&mut self, t: u32, key: Addr) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        let node = self.nodes[t as usize];
        if node.addr < key {
            let (l, r) = self.split(node.right, key);
            self.nodes[t as usize].right = l;
            self.update(t);
            (t, r)
        } else {
            let (l, r) = self.split(node.left, key);
            self.nodes[t as usize].left = r;
            self.update(t);
            (l, t)
        }
    }

    /// Joins two trees where every address of `a` is below every address of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.nodes[a as usize].right;
            let m = self.merge(r, b);
            self.nodes[a as usize].right = m;
            self.update(a);
            a
        } else {
            let l = self.nodes[b as usize].left;
            let m = self.merge(a, l);
            self.nodes[b as usize].left = m;
            self.update(b);
            b
        }
    }

    pub(super) fn insert(&mut self, addr: Addr, size: u64) {
        let node = Node {
            addr,
            size,
            max: size,
            prio: priority(addr),
            left: NIL,
            right: NIL,
        };
        let n = match self.spare.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        };
        let (l, r) = self.split(self.root, addr);
        let left = self.merge(l, n);
        self.root = self.merge(left, r);
        self.len += 1;
    }

    /// Removes the chunk at `addr`; returns whether it was there.
    pub(super) fn remove(&mut self, addr: Addr) -> bool {
        let (l, r) = self.split(self.root, addr);
        let (m, r) = self.split(r, addr + 1);
        if m != NIL {
            self.spare.push(m);
            self.len -= 1;
        }
        self.root = self.merge(l, r);
        m != NIL
    }

    /// The lowest address at or after `from` whose chunk holds at least `size` bytes.
    pub(super) fn first_fit_from(&self, from: Addr, size: u64) -> Option<Addr> {
        self.find(self.root, from, size)
    }

    fn find(&self, t: u32, from: Addr, size: u64) -> Option<Addr> {
        if t == NIL || self.max(t) < size {
            return None;
        }
        let node = &self.nodes[t as usize];
        if node.addr < from {
            return self.find(node.right, from, size);
        }
        self.find(node.left, from, size)
            .or_else(|| (node.size >= size).then_some(node.addr))
            .or_else(|| self.find(node.right, from, size))
    }

    /// Whether a chunk at `addr` of `size` bytes is in the tree.
    pub(super) fn contains(&self, addr: Addr, size: u64) -> bool {
        let mut t = self.root;
        while t != NIL {
            let node = &self.nodes[t as usize];
            if node.addr == addr {
                return node.size == size;
            }
            t = if addr < node.addr {
                node.left
            } else {
                node.right
            };
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        #[test]
        fn agrees_with_a_linear_scan(ops in prop::collection::vec((0u64..200, 1u64..100, any::<bool>()), 1..300),
                                     queries in prop::collection::vec((0u64..220, 1u64..120), 1..50)) {
            let mut tree = FitTree::new();
            let mut model = BTreeMap::new();
            for (addr, size, insert) in ops {
                if insert && !model.contains_key(&addr) {
                    tree.insert(addr, size);
                    model.insert(addr, size);
                } else if !insert {
                    prop_assert_eq!(tree.remove(addr), model.remove(&addr).is_some());
                }
            }
            prop_assert_eq!(tree.len(), model.len());
            for (from, size) in queries {
                let want = model.range(from..).find(|(_, &s)| s >= size).map(|(&a, _)| a);
                prop_assert_eq!(tree.first_fit_from(from, size), want);
            }
            for (&a, &s) in &model {
                prop_assert!(tree.contains(a, s));
            }
        }
    }
}
