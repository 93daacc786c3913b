//! Per-thread state by thread id, for the maps asked on every allocation and free.
//!
//! Thread ids of workloads and traces are small numbers, so they index a vector, which
//! costs a load where a hash map cost a probe; an id of `DENSE_THREADS` or more goes to a
//! map, so a trace with odd thread ids still costs memory only for the threads it has.

use std::ops::Index;

use rustc_hash::FxHashMap;

const DENSE_THREADS: u32 = 1024;

/// A `T` per thread that has one.
#[derive(Debug)]
pub(crate) struct ThreadMap<T> {
    dense: Vec<Option<T>>,
    sparse: FxHashMap<u32, T>,
}

impl<T> Default for ThreadMap<T> {
    fn default() -> ThreadMap<T> {
        ThreadMap {
            dense: Vec::new(),
            sparse: FxHashMap::default(),
        }
    }
}

impl<T> ThreadMap<T> {
    #[inline]
    pub(crate) fn get(&self, thread: u32) -> Option<&T> {
        if thread < DENSE_THREADS {
            self.dense.get(thread as usize)?.as_ref()
        } else {
            self.sparse.get(&thread)
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, thread: u32) -> Option<&mut T> {
        if thread < DENSE_THREADS {
            self.dense.get_mut(thread as usize)?.as_mut()
        } else {
            self.sparse.get_mut(&thread)
        }
    }

    /// The value of `thread`, made by `make` if it had none.
    #[inline]
    pub(crate) fn get_or_insert_with(&mut self, thread: u32, make: impl FnOnce() -> T) -> &mut T {
        if thread >= DENSE_THREADS {
            return self.sparse.entry(thread).or_insert_with(make);
        }
        let t = thread as usize;
        if self.dense.len() <= t {
            self.dense.resize_with(t + 1, || None);
        }
        self.dense[t].get_or_insert_with(make)
    }

    /// Every thread's value, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter_map(|(t, v)| Some((t as u32, v.as_ref()?)));
        dense.chain(self.sparse.iter().map(|(&t, v)| (t, v)))
    }
}

impl<T> Index<&u32> for ThreadMap<T> {
    type Output = T;

    fn index(&self, thread: &u32) -> &T {
        self.get(*thread).expect("no entry for this thread")
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
