//! Chunks carved and merged: taking a free chunk and splitting off what it does not need,
//! cutting a chunk's tail, and freeing a chunk into its free neighbours or the top, with
//! the header, link and boundary-tag writes a real heap makes.

use super::chunks::{Chunk, NIL};
use super::params::Fit;
use super::{FreeList, Release, FASTBIN_CONSOLIDATION_THRESHOLD};
use crate::format::{format_bytes, format_count};
use crate::pages::Pages;
use crate::policy::AllocError;
use crate::provider::{Addr, PageProvider};

impl FreeList {
    /// Allocates a chunk of `csize` bytes from the free structures or the top.
    #[inline]
    pub(super) fn alloc_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        csize: u64,
    ) -> Result<Addr, AllocError> {
        let (structure, index) = self.searched(csize);
        if let Some(h) = self.take_fit(csize) {
            let Chunk { addr: c, size, .. } = self.chunks[h];
            mem.note(|| crate::decision::Decision::Search {
                structure,
                index,
                found: Some(c),
            });
            self.ready(mem, c, csize)?;
            if size - csize >= self.min_chunk {
                mem.note(|| crate::decision::Decision::Split {
                    from: "free chunk",
                    addr: c,
                    size,
                    taken: csize,
                    rest: size - csize,
                });
                self.split(mem, h, csize)?;
            }
            self.live_chunks += 1;
            // The front of a free chunk stays resident (see `check_invariants`), and the
            // header lies inside it.
            mem.write_resident(c, self.header);
            return Ok(c);
        }
        mem.note(|| crate::decision::Decision::Search {
            structure,
            index,
            found: None,
        });
        self.alloc_from_top(mem, csize)
    }

    /// What a request for a chunk of `csize` bytes searches, as teaching mode names it:
    /// glibc's bin for bins, numbered as glibc numbers them; the free chunks by size for
    /// best fit and in address order for first and next fit, which have no bins.
    fn searched(&self, csize: u64) -> (&'static str, u64) {
        match self.fit {
            Fit::Bins => ("bin", glibc_bin_index(csize)),
            Fit::Best => ("free chunks by size", 0),
            Fit::First | Fit::Next => ("address-ordered free list", 0),
        }
    }

    /// Cuts chunk `h` to `csize` bytes; the rest becomes a free chunk.
    #[inline]
    pub(super) fn split<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        h: u32,
        csize: u64,
    ) -> Result<(), AllocError> {
        let Chunk { addr: c, size, .. } = self.chunks[h];
        let rest = c + csize;
        let rest_size = size - csize;
        self.ready(mem, rest, (self.header + 16).min(rest_size))?;
        let r = self.cut_tail(h, csize);
        self.insert_free(r);
        // The remainder's header and free-list links are written into the heap.
        mem.touch(rest, (self.header + 16).min(rest_size))?;
        Ok(())
    }

    /// Shrinks chunk `h` to `keep` bytes and makes the rest a chunk of its own, linked
    /// after it in address order (and its segment's last if `h` was); returns the new
    /// chunk, which the caller lists as free or releases.
    #[inline(always)]
    pub(super) fn cut_tail(&mut self, h: u32, keep: u64) -> u32 {
        let Chunk {
            addr, size, next, ..
        } = self.chunks[h];
        self.chunks[h].size = keep;
        let r = self.chunks.add(Chunk {
            addr: addr + keep,
            size: size - keep,
            stamp: 0,
            prev: h,
            next,
        });
        self.chunks[h].next = r;
        if next != NIL {
            self.chunks[next].prev = r;
        } else {
            let seg = self.segment_of(addr);
            self.segments[seg].last = r;
        }
        r
    }

    /// Takes the free chunk `above`, the neighbour above chunk `cur` (at `start`), out of
    /// the bins and the records and links `cur` to what lies above it; returns the bytes
    /// `above` had, which the caller adds to `cur`'s size.
    #[inline(always)]
    pub(super) fn absorb_next(&mut self, cur: u32, above: u32, start: Addr) -> u64 {
        let next = self.chunks[above];
        self.remove_free(above);
        self.chunks.drop_chunk(above);
        self.chunks[cur].next = next.next;
        if next.next != NIL {
            self.chunks[next.next].prev = cur;
        } else {
            let seg = self.segment_of(start);
            self.segments[seg].last = cur;
        }
        next.size
    }

    /// An over-aligned request takes a chunk with room to slide the payload forward; the
    /// slack stays inside the chunk (dlmalloc would split it off, which we leave out).
    /// Rare, and out of line so that the common path has the only inlined copy of
    /// `alloc_chunk`.
    #[cold]
    #[inline(never)]
    pub(super) fn alloc_over_aligned<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        size: u64,
        align: u64,
    ) -> Result<Addr, AllocError> {
        let c = self.alloc_chunk(mem, self.chunk_size(size + align))?;
        let payload = (c + self.header).next_multiple_of(align);
        if payload != c + self.header {
            self.shifted.insert(payload, c);
        }
        Ok(payload)
    }

    /// Frees chunk `h` (in use): merges it and gives the top back if it grew past the trim
    /// threshold. `header_written` says whether the chunk's header was written while it
    /// was in use: every chunk handed out has had it, a tail that `realloc` cuts off has not.
    // Always inlined: every free runs it, and a call's register saves and stack frame were
    // about a tenth of its instructions in the steady-state bench. The other callers
    // (consolidation, realloc) are rare and have copies of their own.
    #[inline(always)]
    pub(super) fn release_chunk<P: PageProvider>(
        &mut self,
        mem: &mut Pages<P>,
        h: u32,
        header_written: bool,
    ) -> Result<(), AllocError> {
        let chunk = self.chunks[h];
        self.live_chunks -= 1;
        if !self.coalesce {
            self.insert_free(h);
            mem.touch(chunk.addr, (self.header + 16).min(chunk.size))?;
            return Ok(());
        }
        let mut cur = h;
        let mut start = chunk.addr;
        let mut size = chunk.size;
        let below = chunk.prev;
        if below != NIL && self.chunks.is_free(below) {
            // The lower neighbour absorbs this chunk and takes its place between the
            // neighbours.
            self.remove_free(below);
            self.chunks.drop_chunk(h);
            self.chunks[below].next = chunk.next;
            if chunk.next != NIL {
                self.chunks[chunk.next].prev = below;
            }
            cur = below;
            start = self.chunks[below].addr;
            size += self.chunks[below].size;
            mem.note(|| crate::decision::Decision::Coalesce {
                with: "previous",
                addr: start,
                size,
            });
        }
        let above = self.chunks[cur].next;
        if above == NIL {
            // The chunk borders the top: it becomes part of it.
            let seg = self.segment_of(start);
            debug_assert_eq!(start + size, self.segments[seg].top);
            let lower = self.chunks[cur].prev;
            self.chunks.drop_chunk(cur);
            if lower != NIL {
                self.chunks[lower].next = NIL;
            }
            mem.note(|| crate::decision::Decision::Coalesce {
                with: "top",
                addr: start,
                size: self.segments[seg].committed_end - start,
            });
            let s = &mut self.segments[seg];
            s.top = start;
            s.last = lower;
            if self.header > 0 && start + self.header <= s.committed_end {
                mem.touch(start, self.header)?;
            }
            let merged = s.committed_end - start;
            if merged >= FASTBIN_CONSOLIDATION_THRESHOLD {
                self.note_consolidation(mem, merged);
                self.consolidate(mem)?;
            }
            return self.trim(mem, seg);
        }
        if self.chunks.is_free(above) {
            size += self.absorb_next(cur, above, start);
            mem.note(|| crate::decision::Decision::Coalesce {
                with: "next",
                addr: start,
                size,
            });
        }
        self.chunks[cur].size = size;
        mem.note(|| crate::decision::Decision::Cached {
            cache: "free chunks",
            addr: start,
        });
        self.insert_free(cur);
        // Header and links at the front, the boundary tag at the back. The front is
        // nearly always known resident, so the page map need not be asked: a free chunk's
        // is, and this one's if it absorbed the free chunk below; otherwise the first page
        // of a chunk whose header was written is, and the front mostly lies in that page
        // (see `check_invariants` for both). Most chunks are smaller than a page, and then
        // the tag lies in the front's page too.
        let front = (self.header + 16).min(size);
        let in_first_page = mem.same_page(start, start + front - 1);
        if cur != h || header_written && self.header > 0 && in_first_page {
            mem.write_resident(start, front);
        } else {
            mem.touch(start, front)?;
        }
        let tag = start + size - 8;
        if mem.same_page(tag, start) {
            mem.write_resident(tag, 8);
        } else {
            mem.touch(tag, 8)?;
        }
        if size >= FASTBIN_CONSOLIDATION_THRESHOLD {
            self.note_consolidation(mem, size);
            self.consolidate(mem)?;
        }
        match self.release {
            Release::Never => Ok(()),
            Release::Immediate => {
                mem.note(|| crate::decision::Decision::Reason {
                    why: "free pages inside a free chunk given back",
                });
                self.purge(mem, start, size)
            }
            Release::Delay => {
                let due = self.now + 1 + self.release_delay;
                let bytes = self.purgeable(mem, start, size);
                if bytes > 0 {
                    let delay = self.release_delay;
                    mem.note(|| crate::decision::Decision::Rule {
                        rule: "purge",
                        text: format!(
                            "purge of this free chunk's {} of whole pages due at event {} (release_delay {} events)",
                            format_bytes(bytes),
                            format_count(i128::from(due)),
                            format_count(i128::from(delay))
                        ),
                    });
                }
                self.purge_queue.push_back((due, start));
                Ok(())
            }
        }
    }

    /// The record of a live payload's chunk.
    // Always inlined into the free, of which it is the first step.
    #[inline(always)]
    pub(super) fn chunk_of(&self, payload: Addr) -> Result<u32, AllocError> {
        // Over-aligned blocks are rare, and an empty map needs no probe.
        let shifted = if self.shifted.is_empty() {
            None
        } else {
            self.shifted.get(&payload).copied()
        };
        let c = shifted.unwrap_or(payload.wrapping_sub(self.header));
        match self.chunks.find(c) {
            Some(h) if !self.chunks[h].is_free() => Ok(h),
            Some(_) => Err(AllocError::Invalid(format!("double free of {payload:#x}"))),
            None => Err(AllocError::Invalid(format!(
                "free of {payload:#x}, which this heap never handed out"
            ))),
        }
    }
}

/// The bin glibc's malloc files a free chunk of `csize` bytes in on a 64-bit machine, as
/// glibc's `malloc/malloc.c` numbers its 128 bins: bin 1 is the unsorted bin, the small
/// bins 2 to 63 hold one size each, 16 bytes apart, up to 1,008 B (`smallbin_index`,
/// `SMALLBIN_WIDTH` 16, `MIN_LARGE_SIZE` 1,024), and the large bins above them are spaced
/// logarithmically (`largebin_index_64`): 32 bins 64 bytes apart, 16 of 512 bytes, 8 of
/// 4 KiB, 4 of 32 KiB, 2 of 256 KiB, and bin 126 for the rest.
pub(super) fn glibc_bin_index(csize: u64) -> u64 {
    if csize < 1024 {
        return csize >> 4;
    }
    if csize >> 6 <= 48 {
        48 + (csize >> 6)
    } else if csize >> 9 <= 20 {
        91 + (csize >> 9)
    } else if csize >> 12 <= 10 {
        110 + (csize >> 12)
    } else if csize >> 15 <= 4 {
        119 + (csize >> 15)
    } else if csize >> 18 <= 2 {
        124 + (csize >> 18)
    } else {
        126
    }
}

#[cfg(test)]
mod tests {
    use super::glibc_bin_index;

    #[test]
    fn bins_are_numbered_as_glibc_numbers_them() {
        // Worked from malloc.c's macros by hand: small bins 16 bytes apart up to 1,008 B.
        assert_eq!(glibc_bin_index(32), 2);
        assert_eq!(glibc_bin_index(64), 4);
        assert_eq!(glibc_bin_index(1008), 63);
        // The first large bin starts at 1,024 B: 1,024 >> 6 = 16, and 48 + 16 = 64.
        assert_eq!(glibc_bin_index(1024), 64);
        assert_eq!(glibc_bin_index(1087), 64);
        assert_eq!(glibc_bin_index(1088), 65);
        // 3,135 >> 6 = 48 is the last of the 64-byte bins: bin 96.
        assert_eq!(glibc_bin_index(3135), 96);
        // 5,008 >> 9 = 9: bin 100.
        assert_eq!(glibc_bin_index(5008), 100);
        assert_eq!(glibc_bin_index(10 * 4096 + 4095), 120);
        assert_eq!(glibc_bin_index(4 << 15), 123);
        assert_eq!(glibc_bin_index(2 << 18), 126);
        assert_eq!(glibc_bin_index(u64::MAX), 126);
        // Every size lands in one of the 128 bins, and a larger size never in a lower bin.
        let mut last = 0;
        for size in (32..4 << 20).step_by(16) {
            let bin = glibc_bin_index(size);
            assert!((2..128).contains(&bin) && bin >= last, "{size}: bin {bin}");
            last = bin;
        }
    }
}
