//! A spin lock that never allocates: the recorder's table and buffer sit behind it, and
//! it is taken inside `malloc`, where a lock that might allocate (or be interposed) could
//! recurse.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sys;

pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached through a guard, and at most one guard exists at a
// time (the `locked` flag), so sharing the lock between threads shares no `&mut T`.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> SpinLock<T> {
    pub const fn new(value: T) -> SpinLock<T> {
        SpinLock {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    #[inline]
    pub fn lock(&self) -> Guard<'_, T> {
        if self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_contended();
        }
        Guard { lock: self }
    }

    /// Spins briefly, then yields the CPU: a holder only formats a line or, rarely,
    /// writes a buffer out, so waits are short but may span a `write(2)`.
    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        let mut spins = 0u32;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                spins = spins.saturating_add(1);
                if spins < 100 {
                    std::hint::spin_loop();
                } else {
                    sys::yield_now();
                }
            }
            if self
                .locked
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Takes the lock and keeps it past the end of the caller's scope, for a fork
    /// handler that locks in the parent before `fork` and unlocks on both sides after.
    pub fn lock_forever(&self) {
        std::mem::forget(self.lock());
    }

    /// Reaches the value while the lock is held by [`SpinLock::lock_forever`].
    ///
    /// # Safety
    /// The caller must hold the lock through `lock_forever` and be the only one using the
    /// value until [`SpinLock::force_unlock`].
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn held(&self) -> &mut T {
        // SAFETY: the caller holds the lock, so no guard or other `held` reference exists.
        unsafe { &mut *self.value.get() }
    }

    /// Releases a lock taken by [`SpinLock::lock_forever`].
    ///
    /// # Safety
    /// The caller must hold the lock through `lock_forever`, and must not use any
    /// reference from [`SpinLock::held`] afterwards.
    pub unsafe fn force_unlock(&self) {
        self.locked.store(false, Ordering::Release);
    }
}

pub(crate) struct Guard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a guard exists only while `locked` is set by it, so no `&mut T` exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and `&mut self` makes this the only reference through the guard.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}
