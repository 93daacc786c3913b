//! The trace being written: its file, an output buffer, the live-block table, and the
//! counts that end up in the trailer. Plain `&mut self` code; the lock, the thread-local
//! state and the allocator hooks live in `hooks.rs`.

use crate::counts::Counts;
use crate::sys::{self, Fd};
use crate::table::{Entry, Table};
use crate::thread;

/// The output buffer. Big enough that writes are rare, small enough not to matter; a
/// trace is written as it goes, never held whole.
const BUF_BYTES: usize = 1 << 20;
/// The longest event line is under 100 bytes: write the buffer out before less is left.
const LINE_ROOM: usize = 128;

/// The least time between two time marks (`t <ns>` lines), in nanoseconds. A mark comes
/// before the first call after this much time, so a busy program pays one line per
/// hundreds of calls, an idle one a line per spell, and the model still sees a delay of
/// a millisecond (mimalloc's purge delay is ten) to within a tenth of it.
pub const MARK_EVERY_NS: u64 = 100_000;

/// The default alignment: `a` lines leave it out.
const DEFAULT_ALIGN: u64 = 16;

#[derive(Debug)]
pub struct Log {
    /// The trace file; `None` when not recording.
    fd: Option<Fd>,
    /// The process the trace belongs to. A child that did not set up its own trace (a
    /// `vfork` child, say) shares this memory and must not write here.
    pid: u32,
    buf: *mut u8,
    len: usize,
    table: Table,
    next_id: u64,
    counts: Counts,
    /// Thread numbering starts over with each trace; see `thread.rs`.
    generation: u32,
    next_thread: u32,
    /// Whether `a` and `r` lines carry their call site (`site=0x…`), and the trace ends
    /// with the executable mappings that symbolise them.
    callers: bool,
    /// The monotonic clock when the trace began, and when the next mark is due.
    started_ns: u64,
    next_mark_ns: u64,
    /// The least time between two marks: [`MARK_EVERY_NS`], but for the tests.
    mark_every_ns: u64,
}

// SAFETY: the buffer pointer is a mapping the log owns; the log is only used under the
// recorder's lock.
unsafe impl Send for Log {}

/// Why a trace could not start.
#[derive(Debug)]
pub enum StartError {
    AlreadyRecording,
    /// The buffer could not be mapped.
    OutOfMemory,
}

impl Log {
    pub const fn new() -> Log {
        Log {
            fd: None,
            pid: 0,
            buf: std::ptr::null_mut(),
            len: 0,
            table: Table::new(),
            next_id: 1,
            counts: Counts::ZERO,
            generation: 0,
            next_thread: 1,
            callers: false,
            started_ns: 0,
            next_mark_ns: 0,
            mark_every_ns: MARK_EVERY_NS,
        }
    }

    /// Whether the next trace started writes call sites; a forked child keeps its
    /// parent's choice.
    pub fn set_callers(&mut self, callers: bool) {
        self.callers = callers;
    }

    #[inline]
    pub fn active(&self) -> bool {
        self.fd.is_some()
    }

    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Starts a trace on `fd` (which the log now owns) for process `pid`.
    pub fn start(&mut self, fd: Fd, pid: u32) -> Result<(), StartError> {
        if self.active() {
            return Err(StartError::AlreadyRecording);
        }
        if self.buf.is_null() {
            self.buf = sys::map(BUF_BYTES);
            if self.buf.is_null() {
                return Err(StartError::OutOfMemory);
            }
        }
        self.fd = Some(fd);
        self.pid = pid;
        self.len = 0;
        self.table.clear();
        self.next_id = 1;
        self.counts = Counts::ZERO;
        self.new_thread_numbering();
        self.start_clock();
        Ok(())
    }

    /// The trace's time starts now, and the first call gets a mark: a trace that opens
    /// with one gives every event a time, which a replay's time-driven presets need to
    /// count their delays in time rather than in events. (`u64::MAX` between marks, for
    /// the tests, writes none.)
    fn start_clock(&mut self) {
        self.started_ns = sys::monotonic_ns();
        self.next_mark_ns = if self.mark_every_ns == u64::MAX {
            u64::MAX
        } else {
            self.started_ns
        };
    }

    /// Writes a time mark before the line about to be written, when one is due.
    #[inline]
    fn time_mark(&mut self) {
        let now = sys::monotonic_ns();
        if now >= self.next_mark_ns {
            self.next_mark_ns = now.saturating_add(self.mark_every_ns);
            self.word(b"t ");
            self.number(now - self.started_ns);
            self.end_line();
        }
    }

    /// In a forked child: the parent's trace is the parent's. Starts a new one on `fd`
    /// that begins with the blocks the child inherited, as allocations, then `p fork`;
    /// `header` writes the comment lines in between.
    pub fn restart_in_child(&mut self, fd: Fd, pid: u32, header: impl FnOnce(&mut Log)) {
        // The parent wrote its buffer out before forking; what is left is a copy.
        self.len = 0;
        if let Some(old) = self.fd.replace(fd) {
            sys::close(old);
        }
        self.pid = pid;
        self.counts = Counts::ZERO;
        self.new_thread_numbering();
        self.start_clock();
        header(self);
        let inherited = std::mem::replace(&mut self.table, Table::new());
        let mut n = 0u64;
        // Where the inherited blocks were asked for is the parent's business: no site.
        inherited.for_each(|e| {
            n += 1;
            self.line_alloc(e, 0, 0);
        });
        self.table = inherited;
        self.counts.allocs = n;
        self.line(&[b"p fork"]);
    }

    /// Stops recording without a trailer: a forked child that could not open its own
    /// trace lets go of the parent's.
    pub fn abandon(&mut self) {
        if let Some(fd) = self.fd.take() {
            sys::close(fd);
        }
        self.len = 0;
        self.table.clear();
    }

    fn new_thread_numbering(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
        self.next_thread = 1;
        self.counts.threads = 0;
    }

    /// The calling thread's number: 0 for the main thread, then 1, 2, … in the order
    /// threads first allocate.
    #[inline]
    pub fn thread(&mut self) -> u32 {
        if let Some(n) = thread::number(self.generation) {
            return n;
        }
        let n = if sys::tid() == sys::pid() {
            0
        } else {
            let n = self.next_thread;
            self.next_thread += 1;
            n
        };
        thread::set_number(self.generation, n);
        self.counts.threads = self.counts.threads.max(n + 1);
        n
    }

    /// Records an allocation; `site` is the return address of the allocating call, or
    /// 0 when unknown (written only when the trace has call sites).
    pub fn alloc(&mut self, addr: usize, size: u64, align: u64, site: usize) {
        let thread = self.thread();
        let e = Entry {
            addr,
            id: self.next_id,
            size,
            align,
        };
        self.next_id += 1;
        if self.insert(e, thread) {
            self.counts.allocs += 1;
            self.line_alloc(e, thread, site);
        }
    }

    /// Puts `e` in the table; false when the table is out of memory and recording stopped.
    /// If the address is live in the table, the allocator reused it: its free came by a
    /// path the hooks do not see, so the trace frees the old block here to stay
    /// replayable. An allocation, a realloc's new block and a block put back after a
    /// failed realloc can all land on such an address.
    fn insert(&mut self, e: Entry, thread: u32) -> bool {
        match self.table.insert(e) {
            Ok(None) => true,
            Ok(Some(old)) => {
                self.counts.missed_frees += 1;
                self.line_free(old, thread);
                true
            }
            Err(_) => {
                self.out_of_memory();
                false
            }
        }
    }

    pub fn free(&mut self, addr: usize) {
        match self.table.remove(addr) {
            Some(e) => {
                let thread = self.thread();
                self.line_free(e, thread);
            }
            None => self.counts.skipped_frees += 1,
        }
    }

    /// Takes `addr` out of the table before a `realloc` hands its memory back, so that
    /// another thread may get the address at once without a clash.
    pub fn take(&mut self, addr: usize) -> Option<Entry> {
        self.table.remove(addr)
    }

    /// The realloc failed: the block is still where it was.
    pub fn restore(&mut self, e: Entry) {
        let thread = self.thread();
        self.insert(e, thread);
    }

    /// The block `e` now lives at `addr` with `size` bytes; `site` as for `alloc`.
    pub fn realloc(&mut self, e: Entry, addr: usize, size: u64, site: usize) {
        let thread = self.thread();
        if !self.insert(Entry { addr, size, ..e }, thread) {
            return;
        }
        self.counts.reallocs += 1;
        self.counts.live_bytes = self.counts.live_bytes.saturating_sub(e.size);
        self.counts.add_live(size);
        self.time_mark();
        self.word(b"r ");
        self.number(e.id);
        self.word(b" ");
        self.number(size);
        self.thread_suffix(thread);
        self.site_suffix(site);
        self.end_line();
    }

    /// A realloc freed its block (`realloc(p, 0)` in glibc).
    pub fn realloc_freed(&mut self, e: Entry) {
        let thread = self.thread();
        self.line_free(e, thread);
    }

    /// A realloc of a block the trace never saw allocated: the new block is an
    /// allocation, the old one is as unknown as before.
    pub fn realloc_unknown(&mut self, addr: usize, size: u64, site: usize) {
        self.counts.unknown_reallocs += 1;
        self.alloc(addr, size, DEFAULT_ALIGN, site);
    }

    fn line_alloc(&mut self, e: Entry, thread: u32, site: usize) {
        self.counts.add_live(e.size);
        self.time_mark();
        self.word(b"a ");
        self.number(e.id);
        self.word(b" ");
        self.number(e.size);
        if e.align != DEFAULT_ALIGN {
            self.word(b" ");
            self.number(e.align);
        }
        // A block the thread allocates between the program's `slab_begin` and
        // `slab_end` backs that arena.
        if let Some(arena) = thread::slab() {
            self.counts.slabs += 1;
            self.word(b" slab=");
            self.number(u64::from(arena));
        }
        self.thread_suffix(thread);
        self.site_suffix(site);
        self.end_line();
    }

    fn line_free(&mut self, e: Entry, thread: u32) {
        self.counts.frees += 1;
        self.counts.live_bytes = self.counts.live_bytes.saturating_sub(e.size);
        self.time_mark();
        self.word(b"f ");
        self.number(e.id);
        self.thread_suffix(thread);
        self.end_line();
    }

    /// An allocation of `size` bytes aligned to `align` in the program's own arena
    /// `arena`: a block under a fresh id that no malloc made, so the table does not hold
    /// it; it dies with the arena's `reset` or `drop` line.
    pub fn arena_alloc(&mut self, arena: u32, size: u64, align: u64) {
        let thread = self.thread();
        let id = self.next_id;
        self.next_id += 1;
        self.counts.arena_allocs += 1;
        self.time_mark();
        self.word(b"a ");
        self.number(id);
        self.word(b" ");
        self.number(size);
        if align != DEFAULT_ALIGN {
            self.word(b" ");
            self.number(align);
        }
        self.word(b" arena=");
        self.number(u64::from(arena));
        self.thread_suffix(thread);
        self.end_line();
    }

    /// An arena line: `arena <n>`, `reset <n>` or `drop <n>` as `op` says.
    pub fn arena_op(&mut self, op: &[u8], arena: u32) {
        self.time_mark();
        self.word(op);
        self.word(b" ");
        self.number(u64::from(arena));
        self.end_line();
    }

    /// A phase mark, `p <name>`. The name is one line without the comment sign: line
    /// breaks and other control bytes become spaces and `#` becomes `?`, and a name
    /// left empty is written `unnamed`, so the line always reads back as a phase.
    pub fn phase(&mut self, name: &[u8]) {
        let name = name.trim_ascii();
        self.word(b"p ");
        if name.is_empty() {
            self.word(b"unnamed");
        }
        // Cleaned a piece at a time: the name may be longer than the room a line keeps.
        let mut piece = [0u8; 64];
        for chunk in name.chunks(piece.len()) {
            for (out, &b) in piece.iter_mut().zip(chunk) {
                *out = match b {
                    b'#' => b'?',
                    b if b.is_ascii_control() => b' ',
                    b => b,
                };
            }
            self.bytes(&piece[..chunk.len()]);
        }
        self.end_line();
    }

    #[inline]
    fn thread_suffix(&mut self, thread: u32) {
        if thread != 0 {
            self.word(b" thread=");
            self.number(u64::from(thread));
        }
    }

    /// ` site=0x…` when the trace has call sites and this one is known. One test of a
    /// flag when it has not, so a trace without sites costs what it did.
    #[inline]
    fn site_suffix(&mut self, site: usize) {
        if self.callers && site != 0 {
            self.word(b" site=0x");
            self.hex(site as u64);
        }
    }

    /// Lower-case hex digits of `n`, no leading zeros.
    #[inline]
    fn hex(&mut self, n: u64) {
        let mut digits = [0u8; 16];
        let len = (16 - n.leading_zeros() as usize / 4).max(1);
        for (i, d) in digits[..len].iter_mut().rev().enumerate() {
            *d = b"0123456789abcdef"[((n >> (4 * i)) & 0xf) as usize];
        }
        self.word(&digits[..len]);
    }

    /// The executable mappings, as `# heaplab-record: map` comments (see `maps.rs`).
    fn mappings(&mut self) {
        crate::maps::each_line(|line| {
            if crate::maps::is_executable(line) {
                self.word(b"# ");
                self.bytes(&crate::maps::PREFIX.as_bytes()[2..]);
                self.bytes(line);
                self.end_line();
            }
        });
    }

    /// Writes a `# ` comment line made of `parts`; line breaks inside them become spaces
    /// so the comment stays one line.
    pub fn comment(&mut self, parts: &[&[u8]]) {
        self.word(b"# ");
        for part in parts {
            for (i, chunk) in part.split(|&b| b == b'\n' || b == b'\r').enumerate() {
                if i > 0 {
                    self.bytes(b" ");
                }
                self.bytes(chunk);
            }
        }
        self.end_line();
    }

    /// Writes a whole line made of `parts`.
    pub fn line(&mut self, parts: &[&[u8]]) {
        for part in parts {
            self.bytes(part);
        }
        self.end_line();
    }

    /// Appends a short piece that fits in the room `end_line` keeps free.
    #[inline]
    fn word(&mut self, w: &[u8]) {
        debug_assert!(self.len + w.len() <= BUF_BYTES);
        // SAFETY: `end_line` keeps `LINE_ROOM` bytes free after every line and an event
        // line is shorter than that, so `len + w.len() <= BUF_BYTES`, the mapping's size;
        // `w` cannot overlap the log's own mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(w.as_ptr(), self.buf.add(self.len), w.len());
        }
        self.len += w.len();
    }

    /// Appends bytes of any length, writing the buffer out as it fills.
    fn bytes(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            if self.len == BUF_BYTES {
                self.write_out();
            }
            let n = b.len().min(BUF_BYTES - self.len);
            self.word(&b[..n]);
            b = &b[n..];
        }
    }

    #[inline]
    fn number(&mut self, n: u64) {
        self.word(itoa::Buffer::new().format(n).as_bytes());
    }

    #[inline]
    fn end_line(&mut self) {
        if self.len == BUF_BYTES {
            self.write_out();
        }
        self.word(b"\n");
        if BUF_BYTES - self.len < LINE_ROOM {
            self.write_out();
        }
    }

    /// Writes the buffer to the file. Only the process that owns the trace writes: a
    /// child sharing or copying this memory without a trace of its own drops it.
    #[cold]
    pub fn write_out(&mut self) {
        let Some(fd) = self.fd else {
            self.len = 0;
            return;
        };
        if self.len > 0 && sys::pid() == self.pid && !sys::write_all(fd, self.slice()) {
            self.fd = None;
            sys::close(fd);
            const MSG: &[u8] = b"heaplab-record: cannot write the trace; recording stopped\n";
            sys::write_all(2, MSG);
        }
        self.len = 0;
    }

    fn slice(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the mapping were written by `word`.
        unsafe { std::slice::from_raw_parts(self.buf, self.len) }
    }

    /// Ends the trace: the trailer with the counts, the last write, the file closed.
    /// Returns the counts; `None` if no trace was being written by this process.
    pub fn finish(&mut self) -> Option<Counts> {
        if !self.active() || sys::pid() != self.pid {
            return None;
        }
        let counts = self.counts;
        if self.callers {
            self.mappings();
        }
        self.trailer(&counts);
        self.write_out();
        if let Some(fd) = self.fd.take() {
            sys::close(fd);
        }
        self.table.clear();
        Some(counts)
    }

    /// The trailer is longer than an event line, so it goes through `bytes`.
    fn trailer(&mut self, c: &Counts) {
        self.word(b"# ");
        self.bytes(crate::counts::TRAILER.as_bytes());
        for (name, value) in c.fields() {
            self.bytes(b" ");
            self.bytes(name.as_bytes());
            self.bytes(b"=");
            self.bytes(itoa::Buffer::new().format(value).as_bytes());
        }
        self.end_line();
    }

    #[cold]
    fn out_of_memory(&mut self) {
        self.comment(&[b"heaplab-record: out of memory for the address table; recording stopped"]);
        self.finish();
        const MSG: &[u8] =
            b"heaplab-record: out of memory for the address table; recording stopped\n";
        sys::write_all(2, MSG);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The lines a log writes for `events`, run on a fresh log over a temporary file.
    /// The lines `events` write, without time marks: how long a test takes is no part
    /// of what it checks.
    fn lines_of(events: impl FnOnce(&mut Log)) -> (Vec<String>, Counts) {
        marked_lines_of(u64::MAX, events)
    }

    /// The lines `events` write, with a mark once `every` nanoseconds have passed.
    fn marked_lines_of(every: u64, events: impl FnOnce(&mut Log)) -> (Vec<String>, Counts) {
        let path = std::env::temp_dir().join(format!(
            "heaplab-log-test-{}-{:?}.trace",
            std::process::id(),
            std::thread::current().id()
        ));
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let fd = sys::open(&c_path, sys::Create::Truncate).unwrap();
        let mut log = Log::new();
        log.mark_every_ns = every;
        log.start(fd, sys::pid()).unwrap();
        events(&mut log);
        let counts = log.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let lines = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                // The test's thread is not the process's main thread: drop its number.
                l.split(' ')
                    .filter(|w| !w.starts_with("thread="))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        (lines, counts)
    }

    #[test]
    fn an_allocation_on_a_live_address_frees_the_old_block_first() {
        let (lines, counts) = lines_of(|log| {
            log.alloc(0x1000, 32, 16, 0);
            log.alloc(0x1000, 48, 16, 0);
        });
        assert_eq!(lines, ["a 1 32", "f 1", "a 2 48"]);
        assert_eq!((counts.missed_frees, counts.frees), (1, 1));
    }

    #[test]
    fn a_realloc_onto_a_live_address_frees_the_old_block_first() {
        let (lines, counts) = lines_of(|log| {
            log.alloc(0x1000, 32, 16, 0);
            log.alloc(0x2000, 32, 16, 0);
            let e = log.take(0x2000).unwrap();
            log.realloc(e, 0x1000, 64, 0);
            log.free(0x1000);
        });
        assert_eq!(lines, ["a 1 32", "a 2 32", "f 1", "r 2 64", "f 2"]);
        assert_eq!(
            (counts.missed_frees, counts.frees, counts.reallocs),
            (1, 2, 1)
        );
        assert_eq!(counts.live_bytes, 0);
    }

    #[test]
    fn call_sites_are_written_only_when_asked_for() {
        let (lines, _) = lines_of(|log| {
            log.alloc(0x1000, 32, 16, 0x55d0_c0a1_b2c3);
            let e = log.take(0x1000).unwrap();
            log.realloc(e, 0x2000, 64, 0xf);
        });
        assert_eq!(lines, ["a 1 32", "r 1 64"]);
        let (lines, _) = lines_of(|log| {
            log.set_callers(true);
            log.alloc(0x1000, 32, 16, 0x55d0_c0a1_b2c3);
            log.alloc(0x3000, 32, 64, 0);
            let e = log.take(0x1000).unwrap();
            log.realloc(e, 0x2000, 64, 0xf);
        });
        assert_eq!(
            lines,
            ["a 1 32 site=0x55d0c0a1b2c3", "a 2 32 64", "r 1 64 site=0xf"]
        );
    }

    #[test]
    fn arenas_their_blocks_slabs_and_phases_are_written_as_trace_lines() {
        let (lines, counts) = lines_of(|log| {
            log.phase(b"compile #1\n");
            log.arena_op(b"arena", 3);
            thread::set_slab(Some(3));
            log.alloc(0x1000, 4096, 16, 0);
            thread::set_slab(None);
            log.arena_alloc(3, 100, 8);
            log.arena_alloc(3, 24, 16);
            log.alloc(0x9000, 32, 16, 0);
            log.arena_op(b"reset", 3);
            log.free(0x1000);
            log.arena_op(b"drop", 3);
            log.phase(b"  ");
        });
        assert_eq!(
            lines,
            [
                "p compile ?1",
                "arena 3",
                "a 1 4096 slab=3",
                "a 2 100 8 arena=3",
                "a 3 24 arena=3",
                "a 4 32",
                "reset 3",
                "f 1",
                "drop 3",
                "p unnamed"
            ]
        );
        assert_eq!(
            (counts.allocs, counts.slabs, counts.arena_allocs),
            (2, 1, 2)
        );
    }

    #[test]
    fn a_block_put_back_onto_a_live_address_frees_the_other_first() {
        let (lines, counts) = lines_of(|log| {
            log.alloc(0x3000, 32, 16, 0);
            let e = log.take(0x3000).unwrap();
            log.alloc(0x3000, 16, 16, 0);
            log.restore(e);
            log.free(0x3000);
        });
        assert_eq!(lines, ["a 1 32", "a 2 16", "f 2", "f 1"]);
        assert_eq!((counts.missed_frees, counts.frees), (1, 2));
        assert_eq!(counts.live_bytes, 0);
    }

    /// With marks due at once, every call's line follows a mark, and the marks count up
    /// from the trace's start.
    #[test]
    fn a_recording_opens_with_a_mark() {
        let (lines, _) = marked_lines_of(MARK_EVERY_NS, |log| {
            log.alloc(0x1000, 32, 16, 0);
        });
        assert!(lines[0].starts_with("t "), "{lines:?}");
        assert_eq!(lines[1], "a 1 32", "{lines:?}");
    }

    #[test]
    fn a_mark_comes_before_a_call_once_its_time_has_passed() {
        let (lines, counts) = marked_lines_of(0, |log| {
            log.alloc(0x1000, 32, 16, 0);
            log.free(0x1000);
        });
        assert_eq!(lines.len(), 4, "{lines:?}");
        let marks: Vec<u64> = [&lines[0], &lines[2]]
            .iter()
            .map(|l| l.strip_prefix("t ").unwrap().parse().unwrap())
            .collect();
        assert!(marks[0] <= marks[1], "{marks:?}");
        assert_eq!((lines[1].as_str(), lines[3].as_str()), ("a 1 32", "f 1"));
        assert_eq!((counts.allocs, counts.frees), (1, 1));
    }
}
