//! A chunk's address to its record: an open-addressing hash table with linear probing
//! whose slots hold the key and the value side by side.
//!
//! Every free asks it once, and with a hundred thousand chunks each probe is a cache miss.
//! A general-purpose map (hashbrown) keeps its control bytes apart from its slots, so one
//! lookup reads two distant cache lines; here a lookup nearly always reads one, four slots
//! to a line. Removal shifts the entries after the hole back (there are no tombstones), so
//! probe runs stay as short as the load allows, and the load stays at most three quarters.

use crate::provider::Addr;

/// No chunk starts here: chunk addresses are aligned, so never all ones.
const EMPTY: Addr = Addr::MAX;

/// Fibonacci hashing: the top bits of the key times 2^64 over the golden ratio.
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: Addr,
    value: u32,
}

const VACANT: Slot = Slot {
    key: EMPTY,
    value: 0,
};

/// Addresses to record indices.
#[derive(Clone, Debug)]
pub(super) struct AddrMap {
    /// A power of two of slots, at least 16.
    slots: Vec<Slot>,
    /// 64 minus log2 of the slot count: the shift that turns a hash into a slot.
    shift: u32,
    len: usize,
}

impl Default for AddrMap {
    fn default() -> AddrMap {
        AddrMap::with_slots(16)
    }
}

impl AddrMap {
    fn with_slots(n: usize) -> AddrMap {
        AddrMap {
            slots: vec![VACANT; n],
            shift: 64 - n.trailing_zeros(),
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The slot where the probe for `key` starts.
    #[inline(always)]
    fn home(&self, key: Addr) -> usize {
        (key.wrapping_mul(MULTIPLIER) >> self.shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Asks for the cache line where the probe for `key` starts.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: Addr) {
        crate::prefetch::prefetch(&self.slots[self.home(key)]);
    }

    #[inline]
    pub(super) fn get(&self, key: Addr) -> Option<u32> {
        // `EMPTY` is an address too (a free of `header - 1` asks for it), and would match
        // the first empty slot.
        if key == EMPTY {
            return None;
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot.key == key {
                return Some(slot.value);
            }
            if slot.key == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Maps `key` to `value`, replacing what it mapped to.
    #[inline]
    pub(super) fn insert(&mut self, key: Addr, value: u32) {
        debug_assert!(key != EMPTY);
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let slot = &mut self.slots[i];
            if slot.key == EMPTY {
                self.len += 1;
                *slot = Slot { key, value };
                return;
            }
            if slot.key == key {
                slot.value = value;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Removes `key`; returns what it mapped to.
    #[inline]
    pub(super) fn remove(&mut self, key: Addr) -> Option<u32> {
        // As in `get`: `EMPTY` must not match an empty slot.
        if key == EMPTY {
            return None;
        }
        let mask = self.mask();
        let mut hole = self.home(key);
        loop {
            let slot = self.slots[hole];
            if slot.key == key {
                break;
            }
            if slot.key == EMPTY {
                return None;
            }
            hole = (hole + 1) & mask;
        }
        let value = self.slots[hole].value;
        self.len -= 1;
        // Entries after the hole whose probe started at or before it move back into it,
        // so every entry stays reachable from its home without crossing an empty slot.
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let slot = self.slots[j];
            if slot.key == EMPTY {
                break;
            }
            // How far the entry at `j` is from its home, and from the hole, going forward.
            let from_home = j.wrapping_sub(self.home(slot.key)) & mask;
            let from_hole = j.wrapping_sub(hole) & mask;
            if from_home >= from_hole {
                self.slots[hole] = slot;
                hole = j;
            }
        }
        self.slots[hole] = VACANT;
        Some(value)
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::replace(self, AddrMap::with_slots(2 * self.slots.len()));
        for slot in old.slots {
            if slot.key != EMPTY {
                self.insert(slot.key, slot.value);
            }
        }
    }

    /// Every (address, value) pair, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (Addr, u32)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key != EMPTY)
            .map(|s| (s.key, s.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rustc_hash::FxHashMap;

    /// The empty-slot marker is an address too (a free of `header - 1` asks for it); it
    /// is never found, even in a map with empty slots to match it.
    #[test]
    fn the_empty_marker_is_never_a_key() {
        let mut map = AddrMap::default();
        assert_eq!(map.get(EMPTY), None);
        map.insert(0x1008, 3);
        assert_eq!((map.get(EMPTY), map.remove(EMPTY)), (None, None));
        assert_eq!(map.get(0x1008), Some(3));
    }

    proptest! {
        #[test]
        fn agrees_with_a_hash_map(ops in prop::collection::vec((0u64..400, any::<u32>(), 0u8..3), 1..2000)) {
            let mut map = AddrMap::default();
            let mut model = FxHashMap::default();
            for (k, v, op) in ops {
                // Few distinct keys, aligned as chunks are, so probe runs collide and wrap.
                let key = k * 16 + 8;
                match op {
                    0 | 1 => {
                        map.insert(key, v);
                        model.insert(key, v);
                    }
                    _ => prop_assert_eq!(map.remove(key), model.remove(&key)),
                }
                prop_assert_eq!(map.len(), model.len());
            }
            for k in 0..400u64 {
                let key = k * 16 + 8;
                prop_assert_eq!(map.get(key), model.get(&key).copied());
            }
            let mut pairs: Vec<_> = map.iter().collect();
            pairs.sort_unstable();
            let mut want: Vec<_> = model.into_iter().collect();
            want.sort_unstable();
            prop_assert_eq!(pairs, want);
        }
    }
}
