//! The real allocator: the next definitions of the malloc family after this library, as
//! `dlsym(RTLD_NEXT, …)` finds them (glibc's, or another preloaded allocator's).
//!
//! They are looked up on the first call of any hook. `dlsym` itself may allocate (glibc
//! `calloc`s its error buffer), and those calls reach our hooks before there is a real
//! allocator to forward to: while this thread is resolving, [`fns`] returns `None` and
//! the hooks serve the call from the bootstrap arena (`boot.rs`).

use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void, CStr};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};

pub type Malloc = unsafe extern "C" fn(usize) -> *mut c_void;
pub type Calloc = unsafe extern "C" fn(usize, usize) -> *mut c_void;
pub type Realloc = unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void;
pub type Free = unsafe extern "C" fn(*mut c_void);
pub type PosixMemalign = unsafe extern "C" fn(*mut *mut c_void, usize, usize) -> c_int;
pub type Memalign = unsafe extern "C" fn(usize, usize) -> *mut c_void;
pub type UsableSize = unsafe extern "C" fn(*mut c_void) -> usize;
pub type Exit = unsafe extern "C" fn(c_int) -> !;

#[derive(Debug)]
pub struct Fns {
    pub malloc: Malloc,
    pub calloc: Calloc,
    pub realloc: Realloc,
    pub free: Free,
    pub posix_memalign: PosixMemalign,
    /// The rest are not in every C library; a hook without its real function fails the
    /// way the C library would if it lacked it (null, `ENOMEM`).
    pub aligned_alloc: Option<Memalign>,
    pub memalign: Option<Memalign>,
    pub valloc: Option<Malloc>,
    pub pvalloc: Option<Malloc>,
    pub malloc_usable_size: Option<UsableSize>,
    pub exit: Option<Exit>,
}

const UNRESOLVED: u8 = 0;
const RESOLVING: u8 = 1;
const READY: u8 = 2;

static STATE: AtomicU8 = AtomicU8::new(UNRESOLVED);

struct Slot(UnsafeCell<MaybeUninit<Fns>>);
// SAFETY: written once by the resolving thread before `STATE` becomes READY (Release),
// and only read after observing READY (Acquire).
unsafe impl Sync for Slot {}
static FNS: Slot = Slot(UnsafeCell::new(MaybeUninit::uninit()));

thread_local! {
    /// This thread is inside `dlsym` for the lookups.
    static RESOLVER: Cell<bool> = const { Cell::new(false) };
}

/// The real functions, or `None` while this thread is still looking them up.
#[inline]
pub fn fns() -> Option<&'static Fns> {
    if STATE.load(Ordering::Acquire) == READY {
        // SAFETY: READY is stored (Release) only after FNS is written, and FNS is never
        // written again.
        return Some(unsafe { (*FNS.0.get()).assume_init_ref() });
    }
    resolve()
}

#[cold]
#[inline(never)]
fn resolve() -> Option<&'static Fns> {
    match STATE.compare_exchange(UNRESOLVED, RESOLVING, Ordering::Acquire, Ordering::Acquire) {
        Ok(_) => {
            RESOLVER.set(true);
            let fns = lookup();
            // SAFETY: this thread won the RESOLVING state, so it is the only writer, and
            // no reader looks before READY.
            unsafe { (*FNS.0.get()).write(fns) };
            STATE.store(READY, Ordering::Release);
            RESOLVER.set(false);
        }
        // `dlsym` allocating on the resolving thread: the bootstrap arena serves it.
        Err(RESOLVING) if RESOLVER.get() => return None,
        Err(_) => {
            while STATE.load(Ordering::Acquire) != READY {
                std::hint::spin_loop();
            }
        }
    }
    fns()
}

fn lookup() -> Fns {
    /// `dlsym(RTLD_NEXT, name)`: a symbol after this library in lookup order.
    fn next(name: &CStr) -> *mut c_void {
        // SAFETY: `name` is NUL-terminated; RTLD_NEXT asks about the objects after ours.
        unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) }
    }
    fn required(name: &CStr) -> *mut c_void {
        let p = next(name);
        if p.is_null() {
            heaplab_record::sys::write_all(2, b"heaplab-preload: no next definition of ");
            heaplab_record::sys::write_all(2, name.to_bytes());
            heaplab_record::sys::write_all(2, b"; is the library loaded with LD_PRELOAD?\n");
            // SAFETY: abort has no preconditions; there is no allocator to run on.
            unsafe { libc::abort() };
        }
        p
    }
    // SAFETY (all transmutes below): each symbol is the C library's function of that
    // name, whose C signature is the fn-pointer type it is turned into; a null pointer
    // becomes `None` (Option<fn> has the null niche) or aborted on above.
    unsafe {
        Fns {
            malloc: std::mem::transmute::<*mut c_void, Malloc>(required(c"malloc")),
            calloc: std::mem::transmute::<*mut c_void, Calloc>(required(c"calloc")),
            realloc: std::mem::transmute::<*mut c_void, Realloc>(required(c"realloc")),
            free: std::mem::transmute::<*mut c_void, Free>(required(c"free")),
            posix_memalign: std::mem::transmute::<*mut c_void, PosixMemalign>(required(
                c"posix_memalign",
            )),
            aligned_alloc: std::mem::transmute::<*mut c_void, Option<Memalign>>(next(
                c"aligned_alloc",
            )),
            memalign: std::mem::transmute::<*mut c_void, Option<Memalign>>(next(c"memalign")),
            valloc: std::mem::transmute::<*mut c_void, Option<Malloc>>(next(c"valloc")),
            pvalloc: std::mem::transmute::<*mut c_void, Option<Malloc>>(next(c"pvalloc")),
            malloc_usable_size: std::mem::transmute::<*mut c_void, Option<UsableSize>>(next(
                c"malloc_usable_size",
            )),
            exit: std::mem::transmute::<*mut c_void, Option<Exit>>(next(c"_exit")),
        }
    }
}
