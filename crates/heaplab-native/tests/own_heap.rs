//! heaplab's own heap as a baseline's process has it: the global allocator moves new
//! allocations to a private mapping once entered, frees and resizes earlier ones where they
//! came from, and counts its resident pages; and reading the process's memory figures
//! allocates nothing.

#![cfg(target_os = "linux")]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

use heaplab_native::os;
use heaplab_native::own_heap::{self, OwnHeap};

thread_local! {
    /// Allocations made by this thread, so that tests running beside it do not count.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// `OwnHeap`, counting each allocation of the calling thread.
struct Counting;

// SAFETY: every call is passed on to `OwnHeap` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: passed on.
        unsafe { OwnHeap.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: passed on.
        unsafe { OwnHeap.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: passed on.
        unsafe { OwnHeap.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

#[test]
fn memory_figures_are_read_without_allocating() {
    let before = allocations();
    assert!(os::anon_rss_bytes().unwrap() > 0);
    assert!(os::rss_bytes().unwrap() > 0);
    assert!(os::reset_peak_rss());
    assert!(os::peak_anon_rss_bytes().unwrap() > 0);
    assert_eq!(allocations(), before, "reading /proc/self allocated");
}

#[test]
fn the_peak_covers_memory_given_back_since_the_reset() {
    assert!(os::reset_peak_rss());
    let start = os::peak_anon_rss_bytes().unwrap();
    let bytes = 64 << 20;
    let at = os::reserve(bytes, 4096).unwrap();
    // SAFETY: the reservation just made, committed, written and given back whole.
    unsafe {
        os::commit(at, bytes).unwrap();
        std::ptr::write_bytes(at as *mut u8, 1, bytes as usize);
        os::release(at, bytes).unwrap();
    }
    let peak = os::peak_anon_rss_bytes().unwrap();
    assert!(peak >= start + (60 << 20), "{start} then {peak}");
}

#[test]
fn entered_allocations_come_from_the_private_heap() {
    let early: Vec<u8> = vec![7; 1000];
    let mut grown: Vec<u8> = vec![9; 100];
    own_heap::enter().unwrap();
    let resident = own_heap::resident_bytes();
    let late: Vec<u8> = vec![1; 16 << 20];
    assert!(
        own_heap::resident_bytes() >= resident + (15 << 20),
        "{resident} then {}",
        own_heap::resident_bytes()
    );
    // A block from before moves into the private heap when it grows, intact.
    let before = grown.as_ptr();
    grown.resize(1 << 20, 9);
    assert_ne!(before, grown.as_ptr());
    assert!(grown.iter().all(|&b| b == 9));
    assert!(early.iter().all(|&b| b == 7) && late.iter().all(|&b| b == 1));
    drop(early);
}
