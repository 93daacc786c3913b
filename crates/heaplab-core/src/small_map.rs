//! Values by integer key, for keys that are nearly always small numbers: thread ids, and
//! the chunk numbers of simulated addresses in the page map.
//!
//! A key below the map's `DENSE` bound indexes a vector, which costs a load where a hash map
//! cost a probe; a larger key goes to a hash map, so a trace with odd thread ids, or a page
//! map of a real mapping high in the address space, still costs memory only for the keys it
//! has.

use std::hash::Hash;
use std::ops::Index;

use rustc_hash::FxHashMap;

/// A `V` per key that has one; keys below `DENSE` are kept in a vector.
#[derive(Clone, Debug)]
pub(crate) struct SmallMap<K, V, const DENSE: usize> {
    dense: Vec<Option<V>>,
    sparse: FxHashMap<K, V>,
}

/// A `T` per thread that has one.
pub(crate) type ThreadMap<T> = SmallMap<u32, T, 1024>;

impl<K, V, const DENSE: usize> Default for SmallMap<K, V, DENSE> {
    fn default() -> SmallMap<K, V, DENSE> {
        SmallMap {
            dense: Vec::new(),
            sparse: FxHashMap::default(),
        }
    }
}

impl<K, V, const DENSE: usize> SmallMap<K, V, DENSE>
where
    K: Copy + Eq + Hash + Into<u64> + TryFrom<u64>,
{
    /// The place of `key` in the vector, if it is small enough to have one.
    #[inline(always)]
    fn dense_index(key: K) -> Option<usize> {
        let k: u64 = key.into();
        (k < DENSE as u64).then_some(k as usize)
    }

    #[inline]
    pub(crate) fn get(&self, key: K) -> Option<&V> {
        match Self::dense_index(key) {
            Some(k) => self.dense.get(k)?.as_ref(),
            None => self.sparse.get(&key),
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, key: K) -> Option<&mut V> {
        match Self::dense_index(key) {
            Some(k) => self.dense.get_mut(k)?.as_mut(),
            None => self.sparse.get_mut(&key),
        }
    }

    /// The value of `key`, made by `make` if it had none.
    #[inline]
    pub(crate) fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        match Self::dense_index(key) {
            Some(k) => self.dense_slot(k).get_or_insert_with(make),
            None => self.sparse.entry(key).or_insert_with(make),
        }
    }

    /// Sets the value of `key`.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        match Self::dense_index(key) {
            Some(k) => *self.dense_slot(k) = Some(value),
            None => {
                self.sparse.insert(key, value);
            }
        }
    }

    /// The vector's slot `k`, the vector grown to hold it.
    fn dense_slot(&mut self, k: usize) -> &mut Option<V> {
        if self.dense.len() <= k {
            self.dense.resize_with(k + 1, || None);
        }
        &mut self.dense[k]
    }

    /// Every key's value, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        let dense = self.dense.iter().enumerate().filter_map(|(k, v)| {
            let key = K::try_from(k as u64).ok()?;
            Some((key, v.as_ref()?))
        });
        dense.chain(self.sparse.iter().map(|(&k, v)| (k, v)))
    }
}

impl<K, V, const DENSE: usize> Index<&K> for SmallMap<K, V, DENSE>
where
    K: Copy + Eq + Hash + Into<u64> + TryFrom<u64>,
{
    type Output = V;

    fn index(&self, key: &K) -> &V {
        self.get(*key).expect("no entry for this key")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_ids_find_their_values() {
        let mut m = ThreadMap::default();
        for t in [0u32, 3, 1023, 1024, 70_000] {
            *m.get_or_insert_with(t, || 0) += t;
        }
        assert_eq!(m.get(3), Some(&3));
        assert_eq!(m.get(70_000), Some(&70_000));
        assert_eq!(m.get(2), None);
        assert_eq!(m.get(5000), None);
        *m.get_mut(1024).unwrap() += 1;
        assert_eq!(m[&1024], 1025);
        let mut all: Vec<_> = m.iter().map(|(t, &v)| (t, v)).collect();
        all.sort();
        assert_eq!(
            all,
            [(0, 0), (3, 3), (1023, 1023), (1024, 1025), (70_000, 70_000)]
        );
    }
}
