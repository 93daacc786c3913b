//! An allocator for heaplab in Rust, behind malloc lab's interface: a template to start
//! your own from.
//!
//! Build it and run it as heaplab runs a C `mm.c`:
//!
//! ```sh
//! rustup target add wasm32-unknown-unknown
//! cargo build --release --target wasm32-unknown-unknown --manifest-path examples/mm-rust/Cargo.toml
//! heaplab mm check examples/mm-rust/target/wasm32-unknown-unknown/release/mm_rust.wasm
//! ```
//!
//! The policy is simple segregated storage: requests are rounded up to a power of two
//! from 16 bytes to 1 MiB, and each size class keeps a list of freed blocks threaded
//! through their payloads, so a block is reused only by a request of its own class and
//! nothing is ever coalesced or given back. Larger requests get a block of their own
//! from `mem_sbrk`, kept on one list and reused by the first request it can hold. Every
//! block has an 8-byte header in front of its payload holding its class and its
//! capacity, so that payloads are 8-byte aligned. A large block at the end of the heap
//! grows in place when it is reallocated.
//!
//! No standard library: a module has none to call, and heaplab offers only malloc lab's
//! `memlib.h` calls and `heaplab.h`'s.

#![no_std]

use core::ptr::null_mut;

#[link(wasm_import_module = "env")]
extern "C" {
    /// memlib.h: grows the heap by `incr` bytes; the old break, or -1 cast to a pointer.
    fn mem_sbrk(incr: isize) -> *mut u8;
    /// heaplab.h: a free block, reported from the heap walk in `mm_checkheap`.
    fn hl_free_block(bp: *mut u8, size: usize);
}

/// Bytes in front of every payload: the class (or `LARGE`) and the capacity.
const HEADER: usize = 8;
/// Classes of 2^4 to 2^20 bytes of payload.
const MIN_SHIFT: u32 = 4;
const CLASSES: usize = 17;
/// The class of a block larger than the largest class.
const LARGE: u32 = u32::MAX;

/// The head of each class's list of free blocks, then the list of free large blocks.
/// A wasm module runs on one thread, and heaplab calls it one call at a time.
static mut FREE: [*mut u8; CLASSES + 1] = [null_mut(); CLASSES + 1];

/// The header of the block whose payload is `p`: its class and its capacity.
unsafe fn header(p: *mut u8) -> *mut [u32; 2] {
    p.sub(HEADER).cast()
}

/// The class a payload of `size` bytes is served from, or `None` if none holds it.
fn class_of(size: usize) -> Option<usize> {
    let need = size.max(1).next_power_of_two().max(1 << MIN_SHIFT);
    let class = (need.trailing_zeros() - MIN_SHIFT) as usize;
    (class < CLASSES).then_some(class)
}

/// A fresh block from `mem_sbrk` with room for `capacity` bytes of payload.
unsafe fn fresh(class: u32, capacity: usize) -> *mut u8 {
    let Ok(incr) = isize::try_from(HEADER + capacity) else {
        return null_mut();
    };
    let p = mem_sbrk(incr);
    if p as isize == -1 {
        return null_mut();
    }
    let payload = p.add(HEADER);
    *header(payload) = [class, capacity as u32];
    payload
}

#[no_mangle]
pub extern "C" fn mm_init() -> i32 {
    unsafe {
        FREE = [null_mut(); CLASSES + 1];
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn mm_malloc(size: usize) -> *mut u8 {
    if size == 0 {
        return null_mut();
    }
    match class_of(size) {
        Some(class) => {
            let head = FREE[class];
            if head.is_null() {
                fresh(class as u32, 1 << (class as u32 + MIN_SHIFT))
            } else {
                FREE[class] = *head.cast::<*mut u8>();
                head
            }
        }
        None => {
            // The first free large block that holds the request, unlinked.
            let mut link: *mut *mut u8 = &raw mut FREE[CLASSES];
            while !(*link).is_null() {
                let p = *link;
                if (*header(p))[1] as usize >= size {
                    *link = *p.cast::<*mut u8>();
                    return p;
                }
                link = p.cast();
            }
            fresh(LARGE, (size + 7) & !7)
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn mm_free(ptr: *mut u8) {
    if ptr.is_null() {
        return;
    }
    let class = match (*header(ptr))[0] {
        LARGE => CLASSES,
        c => c as usize,
    };
    *ptr.cast::<*mut u8>() = FREE[class];
    FREE[class] = ptr;
}

#[no_mangle]
pub unsafe extern "C" fn mm_realloc(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        return mm_malloc(size);
    }
    if size == 0 {
        mm_free(ptr);
        return null_mut();
    }
    let [class, capacity] = *header(ptr);
    let capacity = capacity as usize;
    if size <= capacity {
        return ptr;
    }
    // A large block at the end of the heap grows where it is: the break moves up.
    let grow = (size + 7) & !7;
    if class == LARGE && mem_sbrk(0) == ptr.add(capacity) {
        if let Ok(more) = isize::try_from(grow - capacity) {
            if mem_sbrk(more) as isize != -1 {
                (*header(ptr))[1] = grow as u32;
                return ptr;
            }
        }
    }
    let q = mm_malloc(size);
    if !q.is_null() {
        core::ptr::copy_nonoverlapping(ptr, q, capacity);
        mm_free(ptr);
    }
    q
}

/// Reports every free block to heaplab's block map; the lists are the whole check.
#[no_mangle]
pub unsafe extern "C" fn mm_checkheap(_verbose: i32) {
    for class in 0..=CLASSES {
        let mut p = FREE[class];
        while !p.is_null() {
            hl_free_block(p, (*header(p))[1] as usize);
            p = *p.cast::<*mut u8>();
        }
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
