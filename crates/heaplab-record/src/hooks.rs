//! The recorder's entry points for an allocator wrapper: one process-wide trace behind a
//! spin lock, reached only from threads not already inside it.
//!
//! [`crate::Recorder`] calls these from Rust's `GlobalAlloc`; `heaplab-preload` calls
//! them from its C `malloc` family. The order of calls around the real allocator is what
//! keeps the trace consistent when threads race: a free is recorded *before* the memory
//! goes back (so no other thread can be handed the address while the table still holds
//! it), an allocation *after* it is made, and a realloc takes its block out of the table
//! before and puts the result in after.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::counts::Counts;
use crate::lock::SpinLock;
use crate::log::{Log, StartError};
use crate::sys::{self, Fd};
use crate::table::Entry;
use crate::thread::{self, Busy};

static LOG: SpinLock<Log> = SpinLock::new(Log::new());
/// Mirrors `Log::active` so the hooks cost one load when nothing is recorded.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Enters the recorder if a trace is open and this thread is not inside it already.
#[inline]
fn enter() -> Option<Busy> {
    if ACTIVE.load(Ordering::Relaxed) {
        Busy::enter()
    } else {
        None
    }
}

/// Records a block of `size` bytes at `ptr` (not null), asked for with `align` from
/// call site `site` (the allocating call's return address; 0 when unknown), which the
/// trace carries when it records call sites ([`set_callers`]).
#[inline]
pub fn alloc(ptr: *mut u8, size: usize, align: usize, site: usize) {
    if let Some(_busy) = enter() {
        let align = align.max(1).next_power_of_two();
        LOG.lock()
            .alloc(ptr as usize, size as u64, align as u64, site);
    }
}

/// Whether the trace [`start_fd`] starts next writes each allocation's call site, and
/// ends with the mappings that symbolise them.
pub fn set_callers(callers: bool) {
    let _busy = Busy::enter();
    LOG.lock().set_callers(callers);
}

/// Records the free of `ptr`. Call before the memory goes back to the allocator.
#[inline]
pub fn free(ptr: *mut u8) {
    if let Some(_busy) = enter() {
        LOG.lock().free(ptr as usize);
    }
}

/// A realloc under way: what [`realloc_begin`] took out of the table.
#[derive(Debug)]
pub struct Pending(State);

#[derive(Debug)]
enum State {
    NotRecording,
    Unknown,
    Known(Entry),
}

/// Call before a realloc of `ptr` (not null).
#[inline]
pub fn realloc_begin(ptr: *mut u8) -> Pending {
    Pending(match enter() {
        None => State::NotRecording,
        Some(_busy) => match LOG.lock().take(ptr as usize) {
            Some(e) => State::Known(e),
            None => State::Unknown,
        },
    })
}

/// Call after the realloc returned `new` for `size` bytes. A null `new` means the block
/// stayed where it was, unless `null_frees` (glibc's `realloc(p, 0)` frees `p`). `site`
/// is the realloc call's return address, as for [`alloc`].
#[inline]
pub fn realloc_end(pending: Pending, new: *mut u8, size: usize, null_frees: bool, site: usize) {
    let known = match pending.0 {
        State::NotRecording => return,
        State::Unknown => None,
        State::Known(e) => Some(e),
    };
    let Some(_busy) = Busy::enter() else { return };
    let mut log = LOG.lock();
    // The trace may have ended (or a forked child started its own) in between.
    if !log.active() {
        return;
    }
    match (known, new.is_null()) {
        (Some(e), false) => log.realloc(e, new as usize, size as u64, site),
        (Some(e), true) if null_frees => log.realloc_freed(e),
        (Some(e), true) => log.restore(e),
        (None, false) => log.realloc_unknown(new as usize, size as u64, site),
        (None, true) => {}
    }
}

/// Records an arena line (`arena`, `reset` or `drop`, as `op` says) for the program's
/// arena `arena` (see `crate::arenas`).
pub fn arena_op(op: &[u8], arena: u32) {
    if let Some(_busy) = enter() {
        let mut log = LOG.lock();
        if log.active() {
            log.arena_op(op, arena);
        }
    }
}

/// Records an allocation the program made in its own arena `arena`.
pub fn arena_alloc(arena: u32, size: usize, align: usize) {
    if let Some(_busy) = enter() {
        let align = align.max(1).next_power_of_two();
        let mut log = LOG.lock();
        if log.active() {
            log.arena_alloc(arena, size as u64, align as u64);
        }
    }
}

/// Records the start of a phase named `name`.
pub fn phase(name: &[u8]) {
    if let Some(_busy) = enter() {
        let mut log = LOG.lock();
        if log.active() {
            log.phase(name);
        }
    }
}

/// Writes comment lines into a trace's header.
#[derive(Debug)]
pub struct Header<'a>(&'a mut Log);

impl Header<'_> {
    /// One `# ` line made of `parts` (line breaks in them become spaces).
    pub fn comment(&mut self, parts: &[&[u8]]) {
        self.0.comment(parts);
    }
}

/// Starts the process's trace on `fd`, which the recorder now owns and closes at
/// [`finish`]. `header` writes the opening comments.
pub fn start_fd(fd: Fd, header: impl FnOnce(&mut Header<'_>)) -> Result<(), StartError> {
    let _busy = Busy::enter();
    let mut log = LOG.lock();
    log.start(fd, sys::pid())?;
    header(&mut Header(&mut log));
    ACTIVE.store(true, Ordering::Release);
    Ok(())
}

/// Writes what is buffered to the trace file.
pub fn flush() {
    let _busy = Busy::enter();
    LOG.lock().write_out();
}

/// Ends the trace (trailer, last write, close) and returns its counts; `None` if this
/// process was not recording. Later events are not recorded.
pub fn finish() -> Option<Counts> {
    let _busy = Busy::enter();
    let mut log = LOG.lock();
    let counts = log.finish();
    ACTIVE.store(log.active(), Ordering::Release);
    counts
}

/// The counts so far.
pub fn counts() -> Counts {
    let _busy = Busy::enter();
    LOG.lock().counts()
}

/// Register with `pthread_atfork` as the prepare handler: holds the lock across `fork`
/// with the parent's events written out, so the child starts from a consistent table
/// and an empty buffer. Allocations made meanwhile (other fork handlers) go unrecorded.
pub fn fork_prepare() {
    thread::set_busy(true);
    LOG.lock_forever();
    // SAFETY: this thread holds the lock through `lock_forever` just above.
    unsafe { LOG.held() }.write_out();
}

/// The parent's side of [`fork_prepare`].
pub fn fork_parent() {
    // SAFETY: `fork_prepare` took the lock on this thread and nothing else released it.
    unsafe { LOG.force_unlock() };
    thread::set_busy(false);
}

/// The child's side of [`fork_prepare`]: if the parent was recording, `open` makes the
/// child's own trace file, which starts with the blocks inherited from the parent; if it
/// cannot, the child records nothing.
pub fn fork_child(open: impl FnOnce() -> Option<Fd>, header: impl FnOnce(&mut Header<'_>)) {
    // SAFETY: the thread that called `fork_prepare` is the one thread of the child, and
    // holds the lock it took there.
    let log = unsafe { LOG.held() };
    if log.active() {
        match open() {
            Some(fd) => log.restart_in_child(fd, sys::pid(), |log| header(&mut Header(log))),
            None => log.abandon(),
        }
    }
    ACTIVE.store(log.active(), Ordering::Release);
    // SAFETY: as above; `log` is not used after this.
    unsafe { LOG.force_unlock() };
    thread::set_busy(false);
}
