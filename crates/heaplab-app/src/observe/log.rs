//! `EventLog`: a run's events held compactly, so that teaching mode keeps a ten-million
//! event trace in tens of megabytes rather than the 400 MB the events take as values.
//!
//! Each event is a tag byte and a few LEB128 numbers. A block id is written as the
//! zigzagged difference from the id of the event before, because a program's
//! allocations are mostly numbered in order and its frees name recent blocks, so most
//! ids take one or two bytes; a size takes one to three. The thread, an alignment other
//! than malloc's and an arena are written only when an event has them, as the tag's bits
//! say. Phase names are kept once each in a table. A typical event takes four to six
//! bytes. The bytes are kept in chunks of 1 MiB that are never moved once written, so a
//! growing log never holds a second copy of itself (in a page's WebAssembly memory,
//! which never shrinks, a doubling vector would leave every smaller copy behind). The
//! log is read front to back by a [`LogReader`], which is cheap to clone, so a session
//! moved to any event keeps its place in the log with it.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use heaplab_core::event::{BlockId, Event, DEFAULT_ALIGN};

const ALLOC: u8 = 0;
const FREE: u8 = 1;
const REALLOC: u8 = 2;
const PHASE: u8 = 3;
const ARENA_CREATE: u8 = 4;
const ARENA_RESET: u8 = 5;
const ARENA_DROP: u8 = 6;
/// A time mark: written in its place, but not counted or numbered as an event.
const TIME: u8 = 7;
const KIND: u8 = 0b111;
/// The event names a thread other than 0.
const THREAD: u8 = 1 << 3;
/// The allocation asks for an alignment other than [`DEFAULT_ALIGN`].
const ALIGN: u8 = 1 << 4;
/// The allocation is made in an arena.
const ARENA: u8 = 1 << 5;

/// The bytes of a chunk; an event is never split between two.
const CHUNK: usize = 1 << 20;
/// The most bytes one event takes: a tag, three numbers of up to 64 bits and two of 32.
const MAX_EVENT: usize = 1 + 3 * 10 + 2 * 5;

#[derive(Debug, Default)]
struct Data {
    chunks: Vec<Vec<u8>>,
    len: usize,
    phases: Vec<String>,
}

/// A run's events, encoded; cloning shares them.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    data: Arc<Data>,
}

/// Writes events into an [`EventLog`] one at a time, as a trace is read.
#[derive(Debug, Default)]
pub struct LogBuilder {
    data: Data,
    phase_ids: FxHashMap<String, u32>,
    last_id: BlockId,
}

fn put(bytes: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        bytes.push((v as u8) | 0x80);
        v >>= 7;
    }
    bytes.push(v as u8);
}

fn zigzag(delta: i64) -> u64 {
    ((delta << 1) ^ (delta >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

impl LogBuilder {
    pub fn new() -> LogBuilder {
        LogBuilder::default()
    }

    /// How many events are written.
    pub fn len(&self) -> usize {
        self.data.len
    }

    pub fn is_empty(&self) -> bool {
        self.data.len == 0
    }

    /// The chunk being written, which has room for an event.
    fn out(&mut self) -> &mut Vec<u8> {
        self.data
            .chunks
            .last_mut()
            .expect("a chunk is opened before each event")
    }

    fn number(&mut self, v: u64) {
        put(self.out(), v);
    }

    fn id(&mut self, id: BlockId) {
        let delta = id.wrapping_sub(self.last_id) as i64;
        self.number(zigzag(delta));
        self.last_id = id;
    }

    fn thread(&mut self, thread: u32) {
        if thread != 0 {
            self.number(u64::from(thread));
        }
    }

    /// Opens a new chunk unless the last has room for any event, then writes the tag.
    fn tag(&mut self, kind: u8, flags: u8) {
        let full = self
            .data
            .chunks
            .last()
            .is_none_or(|c| c.len() + MAX_EVENT > CHUNK);
        if full {
            self.data.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.out().push(kind | flags);
    }

    /// Appends one event. A time mark is kept in its place but not counted: the log
    /// numbers its entries as the simulator numbers events, which marks are not, and the
    /// reader hands the marks before an event over with it ([`LogReader::take_marks`]),
    /// so a replay's time-driven delays see the time the run saw.
    pub fn push(&mut self, event: &Event) {
        let threaded = |t: &u32| if *t != 0 { THREAD } else { 0 };
        match event {
            Event::Alloc {
                id,
                size,
                align,
                arena,
                thread,
            } => {
                let mut flags = threaded(thread);
                if *align != DEFAULT_ALIGN {
                    flags |= ALIGN;
                }
                if arena.is_some() {
                    flags |= ARENA;
                }
                self.tag(ALLOC, flags);
                self.id(*id);
                self.number(*size);
                if *align != DEFAULT_ALIGN {
                    self.number(*align);
                }
                if let Some(a) = arena {
                    self.number(u64::from(*a));
                }
                self.thread(*thread);
            }
            Event::Free { id, thread } => {
                self.tag(FREE, threaded(thread));
                self.id(*id);
                self.thread(*thread);
            }
            Event::Realloc { id, size, thread } => {
                self.tag(REALLOC, threaded(thread));
                self.id(*id);
                self.number(*size);
                self.thread(*thread);
            }
            Event::Phase(name) => {
                let next = self.data.phases.len() as u32;
                let k = *self.phase_ids.entry(name.clone()).or_insert(next);
                if k == next {
                    self.data.phases.push(name.clone());
                }
                self.tag(PHASE, 0);
                self.number(u64::from(k));
            }
            Event::ArenaCreate(a) | Event::ArenaReset(a) | Event::ArenaDrop(a) => {
                let kind = match event {
                    Event::ArenaCreate(_) => ARENA_CREATE,
                    Event::ArenaReset(_) => ARENA_RESET,
                    _ => ARENA_DROP,
                };
                self.tag(kind, 0);
                self.number(u64::from(*a));
            }
            Event::Time(ns) => {
                self.tag(TIME, 0);
                self.number(*ns);
                return;
            }
        }
        self.data.len += 1;
    }

    /// The log of the events written. The last chunk keeps its unused room: shrinking it
    /// would copy it, and room never written takes no memory.
    pub fn finish(self) -> EventLog {
        EventLog {
            data: Arc::new(self.data),
        }
    }
}

impl EventLog {
    /// How many events the log holds.
    pub fn len(&self) -> usize {
        self.data.len
    }

    pub fn is_empty(&self) -> bool {
        self.data.len == 0
    }

    /// How many bytes the encoded events take.
    pub fn bytes(&self) -> usize {
        self.data.chunks.iter().map(Vec::len).sum()
    }

    /// A reader standing before the first event.
    pub fn reader(&self) -> LogReader {
        LogReader {
            log: self.clone(),
            read: 0,
            chunk: 0,
            offset: 0,
            last_id: 0,
            marks: (0, 0),
        }
    }

    /// Every event, in order.
    pub fn iter(&self) -> LogReader {
        self.reader()
    }

    /// The events as values, for tests and short runs.
    pub fn to_vec(&self) -> Vec<Event> {
        self.iter().collect()
    }
}

impl From<&[Event]> for EventLog {
    fn from(events: &[Event]) -> EventLog {
        let mut b = LogBuilder::new();
        for e in events {
            b.push(e);
        }
        b.finish()
    }
}

impl From<Vec<Event>> for EventLog {
    fn from(events: Vec<Event>) -> EventLog {
        EventLog::from(events.as_slice())
    }
}

impl From<&Vec<Event>> for EventLog {
    fn from(events: &Vec<Event>) -> EventLog {
        EventLog::from(events.as_slice())
    }
}

/// A place in an [`EventLog`], reading its events in order; a clone reads on from the
/// same place.
#[derive(Clone, Debug)]
pub struct LogReader {
    log: EventLog,
    /// How many events are read.
    read: usize,
    /// The chunk and the offset in it of the next event.
    chunk: usize,
    offset: usize,
    last_id: BlockId,
    /// The time marks read before the event last read: the latest, and how many.
    marks: (u64, u32),
}

/// A reader's place, kept to go back to it ([`LogReader::rewind`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    read: usize,
    chunk: usize,
    offset: usize,
    last_id: BlockId,
}

impl LogReader {
    /// Where the reader stands.
    pub fn mark(&self) -> Mark {
        Mark {
            read: self.read,
            chunk: self.chunk,
            offset: self.offset,
            last_id: self.last_id,
        }
    }

    /// Goes back to a place this reader stood at; the marks after it are read again.
    pub fn rewind(&mut self, mark: Mark) {
        (self.read, self.chunk, self.offset, self.last_id) =
            (mark.read, mark.chunk, mark.offset, mark.last_id);
        self.marks.1 = 0;
    }

    /// The time marks read on the way to the event last read, once: the latest mark's
    /// time and how many there were, or `None` when none came between it and the one
    /// before.
    pub fn take_marks(&mut self) -> Option<(u64, u32)> {
        let (ns, n) = std::mem::take(&mut self.marks);
        (n > 0).then_some((ns, n))
    }

    /// How many events are read.
    pub fn position(&self) -> usize {
        self.read
    }

    /// The log read.
    pub fn log(&self) -> &EventLog {
        &self.log
    }

    fn number(&mut self) -> u64 {
        let bytes = &self.log.data.chunks[self.chunk];
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = bytes[self.offset];
            self.offset += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }

    fn id(&mut self) -> BlockId {
        let delta = unzigzag(self.number());
        self.last_id = self.last_id.wrapping_add(delta as u64);
        self.last_id
    }

    fn thread(&mut self, tag: u8) -> u32 {
        if tag & THREAD != 0 {
            self.number() as u32
        } else {
            0
        }
    }
}

impl Iterator for LogReader {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        if self.read == self.log.data.len {
            return None;
        }
        // The builder wrote every byte read here, and each event within one chunk, so an
        // index past the end cannot occur. Marks after the last event are never read.
        let tag = loop {
            if self.offset == self.log.data.chunks[self.chunk].len() {
                (self.chunk, self.offset) = (self.chunk + 1, 0);
            }
            let tag = self.log.data.chunks[self.chunk][self.offset];
            self.offset += 1;
            if tag & KIND != TIME {
                break tag;
            }
            self.marks = (self.number(), self.marks.1 + 1);
        };
        self.read += 1;
        Some(match tag & KIND {
            ALLOC => {
                let id = self.id();
                let size = self.number();
                let align = if tag & ALIGN != 0 {
                    self.number()
                } else {
                    DEFAULT_ALIGN
                };
                let arena = (tag & ARENA != 0).then(|| self.number() as u32);
                let thread = self.thread(tag);
                Event::Alloc {
                    id,
                    size,
                    align,
                    arena,
                    thread,
                }
            }
            FREE => {
                let id = self.id();
                Event::Free {
                    id,
                    thread: self.thread(tag),
                }
            }
            REALLOC => {
                let id = self.id();
                let size = self.number();
                Event::Realloc {
                    id,
                    size,
                    thread: self.thread(tag),
                }
            }
            PHASE => {
                let k = self.number() as usize;
                Event::Phase(self.log.data.phases[k].clone())
            }
            ARENA_CREATE => Event::ArenaCreate(self.number() as u32),
            ARENA_RESET => Event::ArenaReset(self.number() as u32),
            _ => Event::ArenaDrop(self.number() as u32),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.log.data.len - self.read;
        (left, Some(left))
    }
}

impl ExactSizeIterator for LogReader {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            (
                any::<u64>(),
                any::<u64>(),
                prop_oneof![Just(16u64), any::<u64>()],
                proptest::option::of(any::<u32>()),
                prop_oneof![Just(0u32), any::<u32>()],
            )
                .prop_map(|(id, size, align, arena, thread)| Event::Alloc {
                    id,
                    size,
                    align,
                    arena,
                    thread
                }),
            (any::<u64>(), prop_oneof![Just(0u32), any::<u32>()])
                .prop_map(|(id, thread)| Event::Free { id, thread }),
            (any::<u64>(), any::<u64>(), any::<u32>())
                .prop_map(|(id, size, thread)| Event::Realloc { id, size, thread }),
            "[a-z]{0,6}".prop_map(Event::Phase),
            any::<u32>().prop_map(Event::ArenaCreate),
            any::<u32>().prop_map(Event::ArenaReset),
            any::<u32>().prop_map(Event::ArenaDrop),
        ]
    }

    proptest! {
        /// Whatever the events, the log reads back exactly what was written.
        #[test]
        fn a_log_reads_back_its_events(events in proptest::collection::vec(event(), 0..200)) {
            let log = EventLog::from(&events);
            prop_assert_eq!(log.len(), events.len());
            prop_assert_eq!(log.to_vec(), events);
        }
    }

    /// Marks are kept in their places without being counted: the reader hands those
    /// before an event over once, the latest with how many; those after the last event
    /// are never read; a rewind reads them again.
    #[test]
    fn marks_come_with_the_event_after_them() {
        let events = vec![
            Event::Time(0),
            Event::alloc(1, 64),
            Event::free(1),
            Event::Time(150_000),
            Event::Time(400_000),
            Event::alloc(2, 32),
            Event::Time(900_000),
        ];
        let log = EventLog::from(&events);
        assert_eq!(log.len(), 3);
        let mut r = log.reader();
        assert_eq!(r.next(), Some(Event::alloc(1, 64)));
        assert_eq!(r.take_marks(), Some((0, 1)));
        assert_eq!(r.take_marks(), None);
        assert_eq!(r.next(), Some(Event::free(1)));
        assert_eq!(r.take_marks(), None);
        let before = r.mark();
        assert_eq!(r.next(), Some(Event::alloc(2, 32)));
        r.rewind(before);
        assert_eq!(r.next(), Some(Event::alloc(2, 32)));
        assert_eq!(r.take_marks(), Some((400_000, 2)));
        assert_eq!((r.next(), r.take_marks()), (None, None));
    }

    #[test]
    fn a_clone_of_a_reader_reads_on_from_its_place() {
        let events = vec![
            Event::alloc(7, 48),
            Event::Phase("load".into()),
            Event::free(7),
            Event::Phase("load".into()),
        ];
        let log = EventLog::from(&events);
        let mut r = log.reader();
        r.next();
        let mut fork = r.clone();
        assert_eq!(fork.position(), 1);
        assert_eq!(fork.by_ref().collect::<Vec<_>>(), events[1..].to_vec());
        assert_eq!(r.next(), Some(events[1].clone()));
    }

    #[test]
    fn events_read_across_chunks() {
        // Enough events for several chunks, each with the largest numbers.
        let events: Vec<Event> = (0..3 * CHUNK as u64 / 20)
            .map(|i| Event::Alloc {
                id: u64::MAX - i,
                size: u64::MAX - i,
                align: 1 << 40,
                arena: Some(u32::MAX),
                thread: u32::MAX,
            })
            .collect();
        let log = EventLog::from(&events);
        assert!(
            log.data.chunks.len() > 3,
            "{} chunks",
            log.data.chunks.len()
        );
        assert!(log.data.chunks.iter().all(|c| c.len() <= CHUNK));
        assert_eq!(log.to_vec(), events);
    }

    #[test]
    fn a_plain_workload_takes_a_few_bytes_an_event() {
        // Ids in order, frees of recent blocks, sizes under 16 KiB: the shape of most runs.
        let mut events = Vec::new();
        for id in 0..10_000u64 {
            events.push(Event::alloc(id, 16 + (id * 37) % 16_000));
            if id >= 3 {
                events.push(Event::free(id - 3));
            }
        }
        let log = EventLog::from(&events);
        let per_event = log.bytes() as f64 / log.len() as f64;
        assert!(
            per_event < 4.0,
            "{per_event:.2} bytes an event against the 40 an Event takes"
        );
    }
}
