//! What heaplab gives a module: malloc lab's `memlib.c` (`mem_sbrk` and its queries),
//! `heaplab.h`'s calls, and WASI's `fd_write`, over the module's own memory, whichever
//! engine runs it (see [`crate::runtime`]); each engine's imports only call these.
//!
//! The heap is the module's memory from its initial end upwards: `mem_sbrk` moves a
//! break up from there and grows the memory under it, so nothing the module's data or
//! stack uses is ever handed out. Calls are recorded as [`PageOp`]s while the module runs
//! and passed on to heaplab's page map when the call returns; the module never calls back
//! into the simulator in the middle of a call.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::runtime::ModuleMemory;

/// A module page is 64 KiB.
pub(crate) const WASM_PAGE: u64 = 65536;

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
pub struct Host {
    /// The heap's first byte, a module address: the end of the memory the module started
    /// with.
    pub(crate) heap_lo: u64,
    /// Bytes between the heap's start and the break.
    pub(crate) brk: u64,
    pub(crate) max_heap: u64,
    pub(crate) page_size: u64,
    /// Page operations since they were last passed on.
    pub(crate) ops: Vec<PageOp>,
    /// The free blocks `hl_free_block` reported, as module addresses and sizes.
    pub(crate) reported: Vec<(u64, u64)>,
    /// What the module printed (the end of it, past `LOG_LIMIT`).
    pub(crate) log: String,
}

impl Host {
    pub(crate) fn new(heap_lo: u64, max_heap: u64, page_size: u64) -> Host {
        Host {
            heap_lo,
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
    pub(crate) fn page_range(&self, addr: u64, bytes: u64) -> Result<u64, String> {
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

impl Host {
    /// `mem_sbrk` as memlib.c has it: grows the heap by `incr` bytes and returns the old
    /// break, or `(void *)-1` (printing why, as memlib.c does) when it cannot.
    pub fn sbrk(&mut self, mem: &mut dyn ModuleMemory, incr: i32) -> i32 {
        if incr < 0 {
            self.print(
                "ERROR: mem_sbrk failed. Attempt to expand heap by a negative value; memlib's \
                 heap only grows\n",
            );
            return -1;
        }
        let new_brk = self.brk + incr as u64;
        if new_brk > self.max_heap {
            self.print(&format!(
                "ERROR: mem_sbrk failed. Ran out of memory: the heap would be {new_brk} bytes, \
                 more than max_heap ({})\n",
                self.max_heap
            ));
            return -1;
        }
        let have = mem.bytes();
        let need = self.heap_lo + new_brk;
        if need > have && !mem.grow((need - have).div_ceil(WASM_PAGE)) {
            self.print(&format!(
                "ERROR: mem_sbrk failed. The module's memory cannot grow to {need} bytes (its \
                 declared maximum)\n"
            ));
            return -1;
        }
        let old = self.heap_lo + self.brk;
        self.brk = new_brk;
        if incr > 0 {
            self.ops.push(PageOp::Grew(new_brk));
        }
        old as u32 as i32
    }

    pub fn heap_lo_addr(&self) -> i32 {
        self.heap_lo as u32 as i32
    }

    /// memlib.c's mem_heap_hi is the last byte of the heap, mem_brk - 1.
    pub fn heap_hi_addr(&self) -> i32 {
        (self.heap_lo + self.brk).wrapping_sub(1) as u32 as i32
    }

    pub fn heap_size(&self) -> i32 {
        self.brk as u32 as i32
    }

    pub fn page_size_of(&self) -> i32 {
        self.page_size as u32 as i32
    }

    /// `hl_free_block`: a free block the allocator's heap walk reported.
    pub fn free_block(&mut self, addr: i32, size: i32) {
        self.reported.push((addr as u32 as u64, size as u32 as u64));
    }

    /// `fd_write` for standard output and error: what the module prints goes to its log.
    pub fn fd_write(
        &mut self,
        mem: &mut dyn ModuleMemory,
        fd: i32,
        iovs: i32,
        count: i32,
        written: i32,
    ) -> i32 {
        const EBADF: i32 = 8;
        const EFAULT: i32 = 21;
        if fd != 1 && fd != 2 {
            return EBADF;
        }
        let word = |mem: &dyn ModuleMemory, at: u64| -> Option<u32> {
            let mut b = [0; 4];
            mem.read(at, &mut b).then(|| u32::from_le_bytes(b))
        };
        let mut text = Vec::new();
        let mut total: u32 = 0;
        for i in 0..count.max(0) as u64 {
            let at = iovs as u32 as u64 + 8 * i;
            let (Some(ptr), Some(len)) = (word(mem, at), word(mem, at + 4)) else {
                return EFAULT;
            };
            let from = text.len();
            text.resize(from + len as usize, 0);
            if !mem.read(ptr as u64, &mut text[from..]) {
                return EFAULT;
            }
            total = total.saturating_add(len);
        }
        if !mem.write(written as u32 as u64, &total.to_le_bytes()) {
            return EFAULT;
        }
        self.print(&String::from_utf8_lossy(&text));
        0
    }

    /// `hl_decommit` and `hl_commit`: the pages of a range below the break given back
    /// (read as zero afterwards, as the kernel's would) or taken back; 0, or -1 with the
    /// reason printed.
    pub fn page_call(
        &mut self,
        mem: &mut dyn ModuleMemory,
        addr: i32,
        bytes: i32,
        decommit: bool,
    ) -> i32 {
        let (addr, bytes) = (addr as u32 as u64, bytes as u32 as u64);
        let name = if decommit { "hl_decommit" } else { "hl_commit" };
        match self.page_range(addr, bytes) {
            Ok(off) => {
                if decommit {
                    mem.write(addr, &vec![0; bytes as usize]);
                    self.ops.push(PageOp::Decommit(off, bytes));
                } else {
                    self.ops.push(PageOp::Commit(off, bytes));
                }
                0
            }
            Err(why) => {
                self.print(&format!("ERROR: {name} failed: {why}\n"));
                -1
            }
        }
    }
}

/// The imports' state, shared between the runtime's imports and the checks: both are
/// never at work at once, since a module's imports run only inside a call.
pub type SharedHost = Arc<Mutex<Host>>;

pub fn lock(host: &SharedHost) -> MutexGuard<'_, Host> {
    host.lock().unwrap_or_else(|e| e.into_inner())
}
