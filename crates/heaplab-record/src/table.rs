//! The live blocks by address: an open-addressing hash table (linear probing,
//! backward-shift deletion, no tombstones) in memory mapped straight from the kernel, so
//! keeping it never calls the allocator being recorded. It doubles at half full.

use crate::sys;

/// A live block as the trace knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub addr: usize,
    pub id: u64,
    pub size: u64,
    pub align: u64,
}

/// A slot: the address (0 = empty: no allocator returns null for a live block), the id
/// with log2(align) in its top byte, and the size.
#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    addr: usize,
    id_align: u64,
    size: u64,
}

const ID_BITS: u32 = 56;
const INITIAL_SLOTS: usize = 1 << 16;

impl Slot {
    const EMPTY: Slot = Slot {
        addr: 0,
        id_align: 0,
        size: 0,
    };

    fn entry(self) -> Entry {
        Entry {
            addr: self.addr,
            id: self.id_align & ((1 << ID_BITS) - 1),
            size: self.size,
            align: 1 << (self.id_align >> ID_BITS),
        }
    }

    fn of(e: Entry) -> Slot {
        Slot {
            addr: e.addr,
            id_align: e.id | (u64::from(e.align.trailing_zeros()) << ID_BITS),
            size: e.size,
        }
    }
}

#[derive(Debug)]
pub struct Table {
    slots: *mut Slot,
    /// A power of two, or 0 before the first insert.
    cap: usize,
    len: usize,
}

// SAFETY: the table owns its mapping outright; moving it to another thread moves that
// ownership, and the recorder only reaches it under its lock.
unsafe impl Send for Table {}

/// The mapping could not be made or grown.
#[derive(Debug)]
pub struct OutOfMemory;

impl Table {
    pub const fn new() -> Table {
        Table {
            slots: std::ptr::null_mut(),
            cap: 0,
            len: 0,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn home(&self, addr: usize) -> usize {
        // Fibonacci hashing of the address without its always-zero low bits.
        let h = ((addr >> 4) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.cap.trailing_zeros())) as usize
    }

    #[inline]
    fn get(&self, i: usize) -> Slot {
        debug_assert!(i < self.cap);
        // SAFETY: every caller passes an index masked by `cap - 1`, so `i < cap`; and `slots` maps `cap` initialised (zeroed or written) slots.
        unsafe { self.slots.add(i).read() }
    }

    #[inline]
    fn set(&mut self, i: usize, slot: Slot) {
        debug_assert!(i < self.cap);
        // SAFETY: `i < cap` as in `get`; `&mut self` makes this the only access to the mapping.
        unsafe { self.slots.add(i).write(slot) }
    }

    /// Index of `addr`'s slot, or of the empty slot where it would go.
    #[inline]
    fn find(&self, addr: usize) -> usize {
        let mask = self.cap - 1;
        let mut i = self.home(addr);
        loop {
            let a = self.get(i).addr;
            if a == addr || a == 0 {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `e`; if its address was already live (its free went unseen), returns the
    /// entry it replaces.
    pub fn insert(&mut self, e: Entry) -> Result<Option<Entry>, OutOfMemory> {
        debug_assert!(e.addr != 0 && e.id < 1 << ID_BITS && e.align.is_power_of_two());
        if (self.len + 1) * 2 > self.cap {
            self.grow()?;
        }
        let i = self.find(e.addr);
        let old = self.get(i);
        self.set(i, Slot::of(e));
        if old.addr == 0 {
            self.len += 1;
            Ok(None)
        } else {
            Ok(Some(old.entry()))
        }
    }

    pub fn remove(&mut self, addr: usize) -> Option<Entry> {
        if self.len == 0 || addr == 0 {
            return None;
        }
        let mut hole = self.find(addr);
        let found = self.get(hole);
        if found.addr == 0 {
            return None;
        }
        // Backward-shift: pull later members of the probe run into the hole whenever the
        // hole lies between their home slot and where they sit, so lookups never stop
        // early at a gap.
        let mask = self.cap - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.get(j);
            if s.addr == 0 {
                break;
            }
            let home = self.home(s.addr);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.set(hole, s);
                hole = j;
            }
        }
        self.set(hole, Slot::EMPTY);
        self.len -= 1;
        Some(found.entry())
    }

    /// Calls `f` on every live entry, in slot order.
    pub fn for_each(&self, mut f: impl FnMut(Entry)) {
        for i in 0..self.cap {
            let s = self.get(i);
            if s.addr != 0 {
                f(s.entry());
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let cap = if self.cap == 0 {
            INITIAL_SLOTS
        } else {
            self.cap * 2
        };
        let slots = sys::map(cap * size_of::<Slot>()).cast::<Slot>();
        if slots.is_null() {
            return Err(OutOfMemory);
        }
        let old = std::mem::replace(self, Table { slots, cap, len: 0 });
        // The new mapping is zeroed, which is every slot empty.
        old.for_each(|e| {
            let i = self.find(e.addr);
            self.set(i, Slot::of(e));
            self.len += 1;
        });
        drop(old);
        Ok(())
    }

    /// Empties the table and gives its memory back.
    pub fn clear(&mut self) {
        *self = Table::new();
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if self.cap != 0 {
            // SAFETY: `slots` is the whole mapping of `cap` slots made in `grow`, and the
            // table is going away.
            unsafe { sys::unmap(self.slots.cast(), self.cap * size_of::<Slot>()) };
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// An op-program against a `HashMap` model: inserts, removals and re-inserts of
    /// clustered addresses, across growth, checking every lookup.
    #[test]
    fn table_agrees_with_a_hash_map() {
        let mut t = Table::new();
        let mut model = HashMap::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for step in 0..400_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Addresses in a small range so probe runs collide and wrap.
            let addr = 0x1000 + ((x % 50_000) as usize) * 16;
            if x.is_multiple_of(3) {
                assert_eq!(t.remove(addr).map(|e| e.id), model.remove(&addr), "{step}");
            } else {
                let e = Entry {
                    addr,
                    id: step,
                    size: x % 1000,
                    align: 1 << (x % 13),
                };
                let old = t.insert(e).unwrap();
                assert_eq!(old.map(|e| e.id), model.insert(addr, step), "{step}");
            }
            assert_eq!(t.len(), model.len());
        }
        let mut seen = 0;
        t.for_each(|e| {
            assert_eq!(model.get(&e.addr), Some(&e.id));
            seen += 1;
        });
        assert_eq!(seen, model.len());
    }
}
