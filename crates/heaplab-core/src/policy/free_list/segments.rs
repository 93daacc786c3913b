//! Segments: the reserved heaps that chunks are carved from, each with a top chunk that
//! grows like `brk` as it is committed and is trimmed from above; and requests large
//! enough to get a mapping of their own.

use super::chunks::{Chunk, NIL};
use super::FreeList;
use crate::format::format_bytes;
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    pub(super) base: Addr,
    pub(super) end: Addr,
    /// Where the first chunk starts: far enough into the segment that payloads align.
    pub(super) first: Addr,
    /// The top chunk, from here to `end`, is not in the chunk table.
    pub(super) top: Addr,
    /// Pages below this are committed; the break of a `brk` heap.
    pub(super) committed_end: Addr,
    /// The record of the chunk just below the top, `NIL` if none.
    pub(super) last: u32,
}

impl FreeList {
    #[inline]
    pub(super) fn segment_of(&self, addr: Addr) -> usize {
        self.segments
            .iter()
            .position(|s| addr >= s.base && addr < s.end)
            .expect("every chunk lies in a segment")
    }

    /// Makes `from..to` of segment `seg`'s top usable for a chunk that takes it: the part
    /// already committed is readied, and the rest is committed with `top_pad` to spare,
    /// as sbrk grows glibc's heap. The caller moves the segment's top. Inlined: a heap
    /// that frees into its top takes every allocation from there.
    #[inline(always)]
    pub(super) fn extend_into_top<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        seg: usize,
        from: Addr,
        to: Addr,
    ) -> Result<(), AllocError> {
        let s = self.segments[seg];
        self.ready(mem, from, to.min(s.committed_end).saturating_sub(from))?;
        if to > s.committed_end {
            let want = (to + self.top_pad).next_multiple_of(self.page).min(s.end);
            mem.note(|| crate::decision::Decision::Reason {
                why: "first use: the top grows",
            });
            mem.commit(s.committed_end, want - s.committed_end)?;
            self.segments[seg].committed_end = want;
        }
        Ok(())
    }

    pub(super) fn alloc_from_top<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<Addr, AllocError> {
        // The newest segment first, then older ones with room left at their top.
        let n = self.segments.len();
        let fits = (0..n)
            .rev()
            .find(|&i| self.segments[i].top + csize <= self.segments[i].end);
        let i = match fits {
            Some(i) => i,
            None => self.new_segment(mem, csize)?,
        };
        let seg = self.segments[i];
        let c = seg.top;
        let new_top = c + csize;
        self.extend_into_top(mem, i, c, new_top)?;
        let top_end = self.segments[i].committed_end;
        mem.note(|| crate::decision::Decision::Split {
            from: "top",
            addr: c,
            size: top_end - c,
            taken: csize,
            rest: top_end.saturating_sub(new_top),
        });
        let h = self.chunks.add(Chunk {
            addr: c,
            size: csize,
            stamp: 0,
            prev: seg.last,
            next: NIL,
        });
        if seg.last != NIL {
            self.chunks[seg.last].next = h;
        }
        let s = &mut self.segments[i];
        s.last = h;
        s.top = new_top;
        let committed_end = s.committed_end;
        self.live_chunks += 1;
        mem.touch(c, self.header)?;
        // dlmalloc writes the new top's header right after the chunk.
        if self.header > 0 && new_top + self.header <= committed_end {
            mem.touch(new_top, self.header)?;
        }
        Ok(c)
    }

    pub(super) fn new_segment<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<usize, AllocError> {
        let pad = (self.align - self.header % self.align) % self.align;
        let len = self
            .segment_size
            .max((pad + csize + self.min_chunk).next_multiple_of(self.page));
        let base = mem.reserve(len, self.page)?;
        mem.note(|| crate::decision::Decision::NewRegion {
            what: "segment",
            addr: base,
            bytes: len,
        });
        self.segments.push(Segment {
            base,
            end: base + len,
            first: base + pad,
            top: base + pad,
            committed_end: base,
            last: NIL,
        });
        Ok(self.segments.len() - 1)
    }

    /// Gives committed memory above the top back once there is more than the threshold,
    /// keeping `top_pad`; drops a later segment that became empty.
    pub(super) fn trim<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        seg: usize,
    ) -> Result<(), AllocError> {
        let s = self.segments[seg];
        if seg > 0 && s.top == s.first {
            mem.note(|| crate::decision::Decision::Reason {
                why: "a later segment became empty",
            });
            mem.release(s.base, s.end - s.base)?;
            self.segments.remove(seg);
            return Ok(());
        }
        let top = s.committed_end - s.top;
        let can_decommit = mem.caps().can_decommit;
        if top <= self.trim_threshold || !can_decommit {
            mem.note(|| self.trim_declined(top, can_decommit));
            return Ok(());
        }
        let keep = (s.top + self.header + self.top_pad).next_multiple_of(self.page);
        if keep < s.committed_end {
            let (threshold, pad) = (self.trim_threshold, self.top_pad);
            mem.note(|| crate::decision::Decision::Rule {
                rule: "trim",
                text: format!(
                    "trim: top chunk {} > trim_threshold {}, keeping top_pad {}",
                    format_bytes(top),
                    format_bytes(threshold),
                    format_bytes(pad)
                ),
            });
            mem.note(|| crate::decision::Decision::Reason {
                why: "trim of the top",
            });
            mem.decommit_committed(keep, s.committed_end - keep)?;
            self.segments[seg].committed_end = keep;
        }
        Ok(())
    }

    pub(super) fn alloc_mapped<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let offset = self.header.max(1).next_multiple_of(align.max(self.align));
        let len = mem.round_up(offset + size);
        let base = mem.map(len, self.page.max(align))?;
        let payload = base + offset;
        if self.header > 0 {
            mem.touch(payload - self.header, self.header)?;
        }
        self.mapped.insert(payload, (base, len));
        Ok(payload)
    }

    /// Why a free that reached the top gave nothing back: the top is not above the trim
    /// threshold (and where that threshold came from, if the dynamic threshold moved it),
    /// or the provider cannot decommit.
    #[cold]
    fn trim_declined(&self, top: u64, can_decommit: bool) -> crate::decision::Decision {
        let text = if !can_decommit {
            format!(
                "no trim: top chunk {}, but these pages cannot be decommitted",
                format_bytes(top)
            )
        } else {
            let sign = if top < self.trim_threshold { "<" } else { "=" };
            let origin = self.raised.map_or(String::new(), |r| {
                format!(
                    " (raised from {} at event {}, when a mapped chunk of {} was freed)",
                    format_bytes(r.from_trim),
                    crate::format::format_count(i128::from(r.event)),
                    crate::format::format_exact_bytes(r.len)
                )
            });
            format!(
                "no trim: top chunk {} {sign} trim_threshold {}{origin}",
                format_bytes(top),
                format_bytes(self.trim_threshold)
            )
        };
        crate::decision::Decision::Rule { rule: "trim", text }
    }
}
