//! Heaps and threads: the span queues a heap allocates from, which heap each thread uses
//! under per-thread heaps, the blocks other threads freed to a heap's spans (collected by
//! the owner before it allocates in their class, as mimalloc collects `xthread_free`), and
//! each thread's cache of freed blocks.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::{SizeClass, NONE};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::PageProvider;
use crate::small_map::ThreadMap;

/// What a thread allocates from: span queues per class, spans with remote frees per class,
/// and the cache of empty spans.
#[derive(Clone, Debug)]
pub(super) struct Heap {
    pub(super) queues: Vec<Vec<u32>>,
    pub(super) remote: Vec<Vec<u32>>,
    /// Cached empty spans by slot count.
    pub(super) cache: FxHashMap<u32, Vec<u32>>,
    /// Cached spans oldest first, as (span, stamp); entries whose stamp no longer matches
    /// are stale and skipped.
    pub(super) cache_age: VecDeque<(u32, u64)>,
    pub(super) cache_bytes: u64,
    pub(super) cached_spans: u32,
}

impl Heap {
    pub(super) fn new(classes: usize) -> Heap {
        Heap {
            queues: vec![Vec::new(); classes],
            remote: vec![Vec::new(); classes],
            cache: FxHashMap::default(),
            cache_age: VecDeque::new(),
            cache_bytes: 0,
            cached_spans: 0,
        }
    }
}

/// The heap of each thread seen, under per-thread heaps, numbered in order of first
/// allocation.
#[derive(Clone, Debug, Default)]
pub(super) struct ThreadHeaps {
    heaps: ThreadMap<u32>,
    len: u32,
}

impl ThreadHeaps {
    #[inline]
    pub(super) fn get(&self, thread: u32) -> Option<u32> {
        self.heaps.get(thread).copied()
    }

    /// The heap of `thread`, numbered next in order of first allocation if it had none.
    #[inline]
    pub(super) fn get_or_insert(&mut self, thread: u32) -> u32 {
        match self.get(thread) {
            Some(h) => h,
            None => self.insert_next(thread),
        }
    }

    #[cold]
    #[inline(never)]
    fn insert_next(&mut self, thread: u32) -> u32 {
        let h = self.len;
        self.heaps.get_or_insert_with(thread, || h);
        self.len += 1;
        h
    }
}

/// A thread's cache of freed blocks, as (span, block index) per class.
#[derive(Clone, Debug)]
pub(super) struct ThreadCache {
    pub(super) lists: Vec<Vec<(u32, u32)>>,
    pub(super) bytes: u64,
}

impl SizeClass {
    /// The heap a thread allocates from, made on its first allocation.
    #[inline]
    pub(super) fn heap_of(&mut self, thread: u32) -> u32 {
        if !self.per_thread {
            return 0;
        }
        let h = self.thread_heaps.get_or_insert(thread);
        // A thread numbered just now has no heap yet.
        if h as usize == self.heaps.len() {
            self.heaps.push(Heap::new(self.classes.len()));
        }
        h
    }

    /// Whether `thread` allocates from heap `h`; a thread that never allocated has no heap.
    #[inline]
    pub(super) fn is_local(&self, thread: u32, h: u32) -> bool {
        !self.per_thread || self.thread_heaps.get(thread) == Some(h)
    }

    /// Returns the blocks other threads freed to this heap's spans of `class` to their free
    /// lists (`local_free` when sharded), as mimalloc collects a page's `xthread_free` list
    /// before allocating from it.
    #[cold]
    #[inline(never)]
    pub(super) fn collect_remote<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        heap: u32,
        class: u32,
    ) -> Result<(), AllocError> {
        while let Some(id) = self.heaps[heap as usize].remote[class as usize].pop() {
            let span = &mut self.spans[id as usize];
            span.in_remote = false;
            let was_full = span.qpos == NONE;
            span.used -= span.remote.len() as u32;
            let mut remote = std::mem::take(&mut span.remote);
            // mimalloc puts the collected `thread_free` blocks at the head of
            // `local_free`, the end of the stack here.
            if self.sharded {
                span.local_free.append(&mut remote);
            } else {
                span.free.append(&mut remote);
            }
            span.remote = remote;
            self.settle(mem, id, was_full)?;
        }
        Ok(())
    }
}
