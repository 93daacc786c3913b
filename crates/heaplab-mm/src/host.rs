//! What heaplab gives a module: malloc lab's `memlib.c` (`mem_sbrk` and its queries),
//! `heaplab.h`'s calls, and WASI's `fd_write` and `proc_exit`, over the module's own
//! memory.
//!
//! The heap is the module's memory from its initial end upwards: `mem_sbrk` moves a
//! break up from there and grows the memory under it, so nothing the module's data or
//! stack uses is ever handed out. Calls are recorded as [`PageOp`]s while the module runs
//! and passed on to heaplab's page map when the call returns; the module cannot call back
//! into the simulator in the middle of a call, and does not need to.

use wasmi::{Caller, Error, Extern, Linker, Memory};

/// A module page is 64 KiB.
const WASM_PAGE: u64 = 65536;

/// At most this much of what a module prints is kept, for messages about it.
const LOG_LIMIT: usize = 64 << 10;

/// What a call did to the heap, in bytes from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageOp {
    /// The break moved up to here.
    Grew(u64),
    Decommit(u64, u64),
    Commit(u64, u64),
}

/// The state the imports work on.
#[derive(Debug)]
pub(crate) struct Host {
    /// The heap's first byte, a module address: the end of the memory the module started
    /// with.
    pub heap_lo: u64,
    /// Bytes between the heap's start and the break.
    pub brk: u64,
    pub max_heap: u64,
    pub page_size: u64,
    /// Page operations since they were last passed on.
    pub ops: Vec<PageOp>,
    /// The free blocks `hl_free_block` reported, as module addresses and sizes.
    pub reported: Vec<(u64, u64)>,
    /// What the module printed (the end of it, past `LOG_LIMIT`).
    pub log: String,
}

impl Host {
    pub fn new(max_heap: u64, page_size: u64) -> Host {
        Host {
            heap_lo: 0,
            brk: 0,
            max_heap,
            page_size,
            ops: Vec::new(),
            reported: Vec::new(),
            log: String::new(),
        }
    }

    fn print(&mut self, text: &str) {
        self.log.push_str(text);
        if self.log.len() > LOG_LIMIT {
            let mut cut = self.log.len() - LOG_LIMIT / 2;
            while !self.log.is_char_boundary(cut) {
                cut += 1;
            }
            self.log.drain(..cut);
        }
    }

    /// The last line the module printed, for a message about a failed call.
    pub fn last_line(&self) -> Option<&str> {
        self.log
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
    }

    /// Whether `[addr, addr + bytes)` is whole heap pages below the break, as
    /// `hl_decommit` and `hl_commit` take them; the offset from the heap's start if so.
    fn page_range(&self, addr: u64, bytes: u64) -> Result<u64, String> {
        let off = addr
            .checked_sub(self.heap_lo)
            .ok_or_else(|| format!("{addr:#x} lies below the heap"))?;
        if !off.is_multiple_of(self.page_size) || !bytes.is_multiple_of(self.page_size) {
            return Err(format!(
                "[{addr:#x}, +{bytes}) is not whole pages of {} bytes from mem_heap_lo",
                self.page_size
            ));
        }
        if off + bytes > self.brk.div_ceil(self.page_size) * self.page_size {
            return Err(format!("[{addr:#x}, +{bytes}) reaches past the break"));
        }
        Ok(off)
    }
}

/// The module's memory. Looked up through the caller rather than kept, so that a
/// module's start function, which runs before heaplab holds the instance, gets it too.
fn memory(caller: &Caller<'_, Host>) -> Option<Memory> {
    caller.get_export("memory").and_then(Extern::into_memory)
}

/// `mem_sbrk` as memlib.c has it: grows the heap by `incr` bytes and returns the old
/// break, or `(void *)-1` (printing why, as memlib.c does) when it cannot.
fn sbrk(mut caller: Caller<'_, Host>, incr: i32) -> i32 {
    let host = caller.data();
    let (lo, brk, max) = (host.heap_lo, host.brk, host.max_heap);
    if incr < 0 {
        caller.data_mut().print(
            "ERROR: mem_sbrk failed. Attempt to expand heap by a negative value; memlib's \
             heap only grows\n",
        );
        return -1;
    }
    let new_brk = brk + incr as u64;
    if new_brk > max {
        caller.data_mut().print(&format!(
            "ERROR: mem_sbrk failed. Ran out of memory: the heap would be {new_brk} bytes, \
             more than max_heap ({max})\n"
        ));
        return -1;
    }
    let Some(mem) = memory(&caller) else {
        return -1;
    };
    let have = mem.size(&caller) * WASM_PAGE;
    let need = lo + new_brk;
    if need > have
        && mem
            .grow(&mut caller, (need - have).div_ceil(WASM_PAGE))
            .is_err()
    {
        caller.data_mut().print(&format!(
            "ERROR: mem_sbrk failed. The module's memory cannot grow to {need} bytes (its \
             declared maximum)\n"
        ));
        return -1;
    }
    let host = caller.data_mut();
    host.brk = new_brk;
    if incr > 0 {
        host.ops.push(PageOp::Grew(new_brk));
    }
    (lo + brk) as u32 as i32
}

/// `fd_write` for standard output and error: what the module prints goes to its log.
fn fd_write(mut caller: Caller<'_, Host>, fd: i32, iovs: i32, count: i32, written: i32) -> i32 {
    const EBADF: i32 = 8;
    const EFAULT: i32 = 21;
    if fd != 1 && fd != 2 {
        return EBADF;
    }
    let Some(mem) = memory(&caller) else {
        return EFAULT;
    };
    let data = mem.data(&caller);
    let word = |at: u64| -> Option<u32> {
        let at = usize::try_from(at).ok()?;
        let b = data.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut text = String::new();
    let mut total: u32 = 0;
    for i in 0..count.max(0) as u64 {
        let at = iovs as u32 as u64 + 8 * i;
        let (Some(ptr), Some(len)) = (word(at), word(at + 4)) else {
            return EFAULT;
        };
        let Some(bytes) = data.get(ptr as usize..(ptr as usize).saturating_add(len as usize))
        else {
            return EFAULT;
        };
        text.push_str(&String::from_utf8_lossy(bytes));
        total = total.saturating_add(len);
    }
    let Some(out) = mem
        .data_mut(&mut caller)
        .get_mut(written as u32 as usize..(written as u32 as usize).saturating_add(4))
    else {
        return EFAULT;
    };
    out.copy_from_slice(&total.to_le_bytes());
    caller.data_mut().print(&text);
    0
}

/// `hl_decommit` and `hl_commit`: the pages of a range below the break given back (read
/// as zero afterwards, as the kernel's would) or taken back; 0, or -1 with the reason
/// printed.
fn page_call(mut caller: Caller<'_, Host>, addr: i32, bytes: i32, decommit: bool) -> i32 {
    let (addr, bytes) = (addr as u32 as u64, bytes as u32 as u64);
    let name = if decommit { "hl_decommit" } else { "hl_commit" };
    match caller.data().page_range(addr, bytes) {
        Ok(off) => {
            if decommit {
                if let Some(mem) = memory(&caller) {
                    let data = mem.data_mut(&mut caller);
                    data[addr as usize..(addr + bytes) as usize].fill(0);
                }
                caller.data_mut().ops.push(PageOp::Decommit(off, bytes));
            } else {
                caller.data_mut().ops.push(PageOp::Commit(off, bytes));
            }
            0
        }
        Err(why) => {
            caller
                .data_mut()
                .print(&format!("ERROR: {name} failed: {why}\n"));
            -1
        }
    }
}

/// Defines every import of [`crate::module::IMPORTS`].
pub(crate) fn link(linker: &mut Linker<Host>) -> Result<(), wasmi::errors::LinkerError> {
    linker.func_wrap("env", "mem_sbrk", sbrk)?;
    linker.func_wrap("env", "mem_heap_lo", |c: Caller<'_, Host>| {
        c.data().heap_lo as u32 as i32
    })?;
    linker.func_wrap("env", "mem_heap_hi", |c: Caller<'_, Host>| {
        // memlib.c's mem_heap_hi is the last byte of the heap, mem_brk - 1.
        (c.data().heap_lo + c.data().brk).wrapping_sub(1) as u32 as i32
    })?;
    linker.func_wrap("env", "mem_heapsize", |c: Caller<'_, Host>| {
        c.data().brk as u32 as i32
    })?;
    linker.func_wrap("env", "mem_pagesize", |c: Caller<'_, Host>| {
        c.data().page_size as u32 as i32
    })?;
    linker.func_wrap(
        "env",
        "hl_free_block",
        |mut c: Caller<'_, Host>, addr: i32, size: i32| {
            c.data_mut()
                .reported
                .push((addr as u32 as u64, size as u32 as u64));
        },
    )?;
    linker.func_wrap(
        "env",
        "hl_decommit",
        |c: Caller<'_, Host>, a: i32, n: i32| page_call(c, a, n, true),
    )?;
    linker.func_wrap("env", "hl_commit", |c: Caller<'_, Host>, a: i32, n: i32| {
        page_call(c, a, n, false)
    })?;
    linker.func_wrap("wasi_snapshot_preview1", "fd_write", fd_write)?;
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "proc_exit",
        |_: Caller<'_, Host>, code: i32| -> Result<(), Error> { Err(Error::i32_exit(code)) },
    )?;
    Ok(())
}
