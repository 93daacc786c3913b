//! Where a format sends what it reads: op lines are checked and go on to the sink in
//! batches, problems stop the import or, when lenient, are counted.

use rustc_hash::FxHashSet;

use super::check::{Checker, Naming, Problem, ReallocOf};
use super::{lines, EventSink, Format, ImportOptions, Imported, RepHeader, Skipped, TraceError};
use crate::event::{ArenaId, BlockId, Event};

/// Events held before they are checked and go to the sink together: enough that the
/// sink's cost per call and the parser's, the checker's and the simulator's code taking
/// turns in the caches are spread thin, few enough that the batch stays in the
/// second-level cache.
const BATCH: usize = 512;

/// The state of one import between its reader and its sink.
///
/// Events are held in `batch` and sent on together ([`EventSink::events`]), each with
/// its line kept for a refusal's message. Op lines of the formats that name blocks by id
/// (`.trace`, `.rep`) join the batch unchecked ([`Feed::op`]) and are checked in place
/// just before it goes: the parser, the checker and the simulator each run through the
/// batch in turn, each with its own code and data in the caches. (Fetching the
/// checker's slots a few ops ahead was tried here, and made the import slower.) Whatever stops the import first flushes both ([`Feed::settle`]): a problem
/// with an op held there, or a refusal of one, is on an earlier line than the problem
/// found after it, and is the error reported, as it would have been had each line been
/// checked and sent on as soon as it was read.
#[derive(Debug)]
pub(super) struct Feed<S> {
    pub name: String,
    lenient: bool,
    pub strict: bool,
    skipped: Skipped,
    pub null_frees: u64,
    pub null_reallocs: u64,
    sink: S,
    /// The checker of blocks named by id. mtrace, which names them by address, keeps its
    /// own and hands its events over already checked ([`Feed::emit`]).
    checker: Checker,
    batch: Vec<Event>,
    /// How many of the first events in `batch` are checked; the rest are ops to check.
    checked: usize,
    /// The line of each event in `batch`.
    batch_lines: Vec<u64>,
    /// The live blocks that back the program's own arenas (`slab=`): their frees and
    /// reallocs are left out with them unless the sink keeps slabs.
    slabs: FxHashSet<BlockId>,
    /// Slab lines left out.
    slab_lines: u64,
}

impl<S: EventSink> Feed<S> {
    pub fn new(name: &str, options: &ImportOptions, sink: S) -> Feed<S> {
        Feed {
            name: name.to_string(),
            lenient: options.lenient,
            strict: options.strict,
            skipped: Skipped::new(),
            null_frees: 0,
            null_reallocs: 0,
            sink,
            checker: Checker::new(Naming::Id),
            checked: 0,
            batch: Vec::with_capacity(BATCH),
            batch_lines: Vec::with_capacity(BATCH),
            slabs: FxHashSet::default(),
            slab_lines: 0,
        }
    }

    /// The sink, once the import is over.
    pub fn into_sink(self) -> S {
        self.sink
    }

    /// Sends a checked event on, in the next batch; an event the simulator refuses stops
    /// the import at its line.
    #[inline]
    pub fn emit(&mut self, line: u64, event: Event) -> Result<(), TraceError> {
        debug_assert_eq!(self.checked, self.batch.len(), "one import, one checker");
        self.batch.push(event);
        self.batch_lines.push(line);
        self.checked += 1;
        if self.batch.len() >= BATCH {
            return self.send();
        }
        Ok(())
    }

    /// An event of a trace whose blocks are named by id (`.trace`, `.rep`), to be checked
    /// with the next batch and sent on.
    #[inline]
    pub fn op(&mut self, line: u64, event: Event) -> Result<(), TraceError> {
        self.batch.push(event);
        self.batch_lines.push(line);
        if self.batch.len() >= BATCH {
            return self.flush();
        }
        Ok(())
    }

    /// [`Feed::op`] for an event whose line named its call site. It is checked and goes
    /// on by itself, after the ops before it, so that the sink sees every event in the
    /// trace's order and can number them.
    pub fn op_at(&mut self, line: u64, event: Event, site: u64) -> Result<(), TraceError> {
        self.flush()?;
        let mut event = event;
        if !self.check(line, &mut event)? || self.left_out(&event) {
            return Ok(());
        }
        match self.sink.sited_event(event, site) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(line, e.to_string())),
        }
    }

    /// An allocation that backs the program's arena `arena` (`slab=`), checked like any
    /// other and then, by itself after the ops before it, sent to a sink that keeps
    /// slabs, or left out and counted.
    pub fn slab(
        &mut self,
        line: u64,
        event: Event,
        arena: ArenaId,
        site: Option<u64>,
    ) -> Result<(), TraceError> {
        self.flush()?;
        let mut event = event;
        if !self.check(line, &mut event)? {
            return Ok(());
        }
        if let Some(id) = event.block() {
            self.slabs.insert(id);
        }
        if !S::KEEPS_SLABS {
            self.slab_lines += 1;
            return Ok(());
        }
        match self.sink.slab_event(event, arena, site) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(line, e.to_string())),
        }
    }

    /// Whether a checked event is the free or realloc of a slab (see [`Feed::slab`]) that
    /// the sink does not take; a freed slab's id is no longer one. One test of an empty
    /// set for a trace without slabs.
    #[inline]
    fn left_out(&mut self, event: &Event) -> bool {
        if self.slabs.is_empty() {
            return false;
        }
        let slab = match *event {
            Event::Free { id, .. } => self.slabs.remove(&id),
            Event::Realloc { id, .. } => self.slabs.contains(&id),
            _ => false,
        };
        if slab && !S::KEEPS_SLABS {
            self.slab_lines += 1;
            return true;
        }
        false
    }

    /// A `site` line, after the events before it, so that a sink that writes the trace
    /// out again (`heaplab convert`) keeps the lines in their order.
    pub fn site_name(&mut self, addr: u64, name: &str) -> Result<(), TraceError> {
        self.flush()?;
        self.sink.site_name(addr, name);
        Ok(())
    }

    /// Checks the ops held and sends every event held to the sink. A refusal by the sink
    /// is on an earlier line than a problem the checker found in the same batch (the
    /// checker stops at its first), so it is the error when there are both.
    pub fn flush(&mut self) -> Result<(), TraceError> {
        let checked = self.check_ops();
        self.send()?;
        checked
    }

    /// Checks the ops held, in order and in place: a bad one skipped (lenient) leaves
    /// the batch, and the first bad one ends it unless lenient.
    fn check_ops(&mut self) -> Result<(), TraceError> {
        // Taken out for the loop, so that `check` may borrow the rest of the feed.
        let mut batch = std::mem::take(&mut self.batch);
        let (mut kept, n) = (self.checked, batch.len());
        let mut result = Ok(());
        for i in self.checked..n {
            let line = self.batch_lines[i];
            match self.check(line, &mut batch[i]) {
                Ok(true) if self.left_out(&batch[i]) => {}
                Ok(true) => {
                    if kept != i {
                        batch.swap(kept, i);
                        self.batch_lines[kept] = line;
                    }
                    kept += 1;
                }
                Ok(false) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        batch.truncate(kept);
        self.batch = batch;
        self.batch_lines.truncate(kept);
        self.checked = kept;
        result
    }

    /// One op checked: whether it goes on (a realloc of an id never allocated becomes,
    /// unless strict, the allocation `realloc(NULL, n)` makes, and is counted), or is a
    /// bad one skipped.
    #[inline]
    fn check(&mut self, line: u64, event: &mut Event) -> Result<bool, TraceError> {
        if let Event::Alloc { size, .. } | Event::Realloc { size, .. } = *event {
            if let Err(problem) = super::check::request(size) {
                return self.problem(line, problem).map(|()| false);
            }
        }
        if let Event::Realloc { id, size, thread } = *event {
            if !self.strict {
                return match self.checker.realloc_or_alloc(id) {
                    Ok(ReallocOf::Live) => Ok(true),
                    Ok(ReallocOf::Nothing) => {
                        self.null_reallocs += 1;
                        *event = Event::Alloc {
                            id,
                            size,
                            align: crate::event::DEFAULT_ALIGN,
                            arena: None,
                            thread,
                        };
                        Ok(true)
                    }
                    Err(problem) => self.problem(line, problem).map(|()| false),
                };
            }
        }
        match self.checker.event(line, event) {
            Ok(()) => Ok(true),
            Err(problem) => self.problem(line, problem).map(|()| false),
        }
    }

    /// Sends the batch of checked events to the sink.
    fn send(&mut self) -> Result<(), TraceError> {
        let result = self.sink.events(&mut self.batch);
        self.batch.clear();
        self.checked = 0;
        match result {
            Ok(()) => {
                self.batch_lines.clear();
                Ok(())
            }
            Err((i, e)) => {
                let line = self.batch_lines[i];
                self.batch_lines.clear();
                Err(self.fail(line, e.to_string()))
            }
        }
    }

    /// What reading up to here comes to: an error stops the import only once the lines
    /// read before it have been checked and gone to the sink, and a problem with one of
    /// those is the error.
    #[inline]
    pub fn settle<T>(&mut self, result: Result<T, TraceError>) -> Result<T, TraceError> {
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                self.flush()?;
                Err(e)
            }
        }
    }

    /// A bad line or event: an error, or one more of its kind skipped.
    #[cold]
    pub fn problem(&mut self, line: u64, problem: Problem) -> Result<(), TraceError> {
        if self.lenient {
            *self.skipped.entry(problem.kind).or_default() += 1;
            Ok(())
        } else {
            Err(self.fail(line, problem.message))
        }
    }

    /// A `free(NULL)`: nothing happens to memory, and it is counted; when strict, it is
    /// the bad line it was before recorders' conventions were taken in, `refusal`.
    #[inline]
    pub fn null_free(
        &mut self,
        line: u64,
        refusal: impl FnOnce() -> Problem,
    ) -> Result<(), TraceError> {
        if self.strict {
            return self.problem(line, refusal());
        }
        self.null_frees += 1;
        Ok(())
    }

    #[cold]
    pub fn fail(&self, line: u64, message: String) -> TraceError {
        TraceError {
            name: self.name.clone(),
            line,
            message,
        }
    }

    /// Bytes as text, or an error at their line.
    #[inline]
    pub fn text<'b>(&self, line: u64, bytes: &'b [u8]) -> Result<&'b str, TraceError> {
        std::str::from_utf8(bytes).map_err(|_| self.fail(line, lines::not_text()))
    }

    /// What the import found, once the last line is read.
    pub fn imported(
        &self,
        format: Format,
        rep_header: Option<RepHeader>,
        gzip: bool,
        lines: u64,
    ) -> Imported {
        Imported {
            format,
            rep_header,
            gzip,
            lines,
            null_frees: self.null_frees,
            null_reallocs: self.null_reallocs,
            slab_lines: self.slab_lines,
            skipped: self.lenient.then(|| self.skipped.clone()),
        }
    }
}
