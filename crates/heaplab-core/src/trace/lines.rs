//! Numbered lines of a byte stream, one at a time.
//!
//! Every format reads through this, so line numbers mean the same thing everywhere
//! (1-based, counting blank and skipped lines). Lines are found with `memchr` in a buffer
//! of a quarter of a megabyte that is refilled in place, so a line costs no copy and no
//! allocation, and memory is the buffer whatever the trace's length (a single line longer
//! than the buffer grows it to that line).

use std::io::{ErrorKind, Read};

use flate2::read::MultiGzDecoder;

/// The longest line taken, by the whole-file reader here and by the page's pushed
/// reader ([`super::stream`]) alike: a "trace" with no line end in a megabyte is some
/// other file, and holding it whole is what streaming is for not doing.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The two bytes every gzip member starts with (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How much of the stream is read at a time: large reads make a system call or an inflate
/// call rare per line, and the buffer still fits a second-level cache.
const BUFFER: usize = 1 << 18;

/// Opens a byte stream as text, decompressing it on the fly when it starts with the gzip
/// magic bytes, whatever its name says. Returns the stream and whether it was gzip.
pub fn open<'a, R: Read + 'a>(mut input: R) -> std::io::Result<(Box<dyn Read + 'a>, bool)> {
    // Read the first two bytes by hand: a reader may hand them over one at a time.
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match input.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let stream = std::io::Cursor::new(magic[..got].to_vec()).chain(input);
    if got == 2 && magic == GZIP_MAGIC {
        // Multi-member, as `cat a.gz b.gz` and pigz produce.
        Ok((Box::new(MultiGzDecoder::new(stream)), true))
    } else {
        Ok((Box::new(stream), false))
    }
}

/// A line and its number, `None` at the end, or a read error with the line's number.
pub type Next<T> = Result<Option<(u64, T)>, (u64, String)>;

/// Lines of a byte stream, numbered from 1.
#[derive(Debug)]
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// The last line returned, as a range of `buf`.
    line: (usize, usize),
    number: u64,
    eof: bool,
}

impl<R: Read> Lines<R> {
    pub fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            line: (0, 0),
            number: 0,
            eof: false,
        }
    }

    /// The next line's bytes without its line ending, and its number; `None` at the
    /// end. A read error comes with the number of the line it stopped.
    #[inline]
    pub fn next_bytes(&mut self) -> Next<&[u8]> {
        {
            loop {
                let unread = &self.buf[self.start..self.end];
                if let Some(i) = memchr::memchr(b'\n', unread) {
                    if i > MAX_LINE_BYTES {
                        return Err((self.number + 1, too_long()));
                    }
                    self.line = (self.start, self.start + i);
                    self.start += i + 1;
                    break;
                }
                // A line longer than the page's reader takes is refused here too, with
                // its message, so the CLI and the page refuse the same files alike.
                if unread.len() > MAX_LINE_BYTES {
                    return Err((self.number + 1, too_long()));
                }
                if self.eof {
                    if self.start == self.end {
                        return Ok(None);
                    }
                    self.line = (self.start, self.end);
                    self.start = self.end;
                    break;
                }
                self.fill()
                    .map_err(|e| (self.number + 1, format!("cannot read: {e}")))?;
            }
            self.number += 1;
        }
        Ok(Some((
            self.number,
            trim_cr(&self.buf[self.line.0..self.line.1]),
        )))
    }

    /// The next line as text; a line that is not UTF-8 is an error at its number.
    #[cfg(test)]
    pub fn next_line(&mut self) -> Next<&str> {
        match self.next_bytes()? {
            None => Ok(None),
            Some((number, bytes)) => match std::str::from_utf8(bytes) {
                Ok(text) => Ok(Some((number, text))),
                Err(_) => Err((number, not_text())),
            },
        }
    }

    /// Moves the unread bytes to the front and reads more after them, growing the
    /// buffer only when one line fills it.
    #[cold]
    fn fill(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            self.buf.resize(BUFFER, 0);
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            let grown = self.buf.len() * 2;
            self.buf.resize(grown, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The bytes read from the stream and not yet taken as lines: a reader that can take
    /// many lines at once reads them here, then says how many with [`Lines::skip`].
    #[inline]
    pub fn unread(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Takes the first `bytes` of [`Lines::unread`] as `lines` lines read.
    #[inline]
    pub fn skip(&mut self, bytes: usize, lines: u64) {
        debug_assert!(self.start + bytes <= self.end);
        self.start += bytes;
        self.number += lines;
    }

    /// The number of lines read so far.
    pub fn count(&self) -> u64 {
        self.number
    }
}

/// A line without the carriage returns of a `\r\n` ending.
#[inline]
pub fn trim_cr(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., b'\r'] = bytes {
        bytes = rest;
    }
    bytes
}

/// The message for a line longer than [`MAX_LINE_BYTES`].
pub fn too_long() -> String {
    format!(
        "the line is longer than {} MiB: this is not a trace (a binary or compressed file \
         other than gzip?)",
        MAX_LINE_BYTES >> 20
    )
}

/// The message for a line that is not text.
pub fn not_text() -> String {
    "not text: the line is not UTF-8 (a binary or compressed file other than gzip?)".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered() {
        let mut lines = Lines::new("a 1 16\r\n\nf 1".as_bytes());
        assert_eq!(lines.next_line().unwrap(), Some((1, "a 1 16")));
        assert_eq!(lines.next_line().unwrap(), Some((2, "")));
        assert_eq!(lines.next_line().unwrap(), Some((3, "f 1")));
        assert_eq!(lines.next_line().unwrap(), None);
        assert_eq!(lines.next_line().unwrap(), None);
        assert_eq!(lines.count(), 3);
        let mut bad = Lines::new(&b"ok\n\xff\xfe\n"[..]);
        bad.next_line().unwrap();
        assert_eq!(bad.next_line().unwrap_err().0, 2);
    }

    /// A reader that hands over one byte per call.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((&b, rest)), Some(slot)) => {
                    *slot = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn lines_across_refills_and_longer_than_the_buffer_come_whole() {
        let long = "x".repeat(BUFFER + 17);
        let mut text = String::new();
        for i in 0..BUFFER / 4 {
            text.push_str(&format!("f {i}\n"));
        }
        text.push_str(&long);
        text.push_str("\nlast");
        let mut lines = Lines::new(text.as_bytes());
        for i in 0..BUFFER / 4 {
            let (n, line) = lines.next_line().unwrap().unwrap();
            assert_eq!((n, line), (i as u64 + 1, format!("f {i}").as_str()));
        }
        assert_eq!(lines.next_line().unwrap().unwrap().1, long);
        assert_eq!(lines.next_line().unwrap().unwrap().1, "last");
        assert_eq!(lines.next_line().unwrap(), None);
        // One byte a read, the same lines.
        let mut trickled = Lines::new(Trickle(b"a 1 16\r\nf 1\n"));
        assert_eq!(trickled.next_line().unwrap(), Some((1, "a 1 16")));
        assert_eq!(trickled.next_line().unwrap(), Some((2, "f 1")));
        assert_eq!(trickled.next_line().unwrap(), None);
    }

    #[test]
    fn gzip_is_found_by_its_magic_bytes_even_one_byte_at_a_time() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(b"a 1 16\nf 1\n").unwrap();
        let gz = enc.finish().unwrap();
        let (mut text, gzip) = open(Trickle(&gz)).unwrap();
        assert!(gzip);
        let mut s = String::new();
        text.read_to_string(&mut s).unwrap();
        assert_eq!(s, "a 1 16\nf 1\n");
        let (mut text, gzip) = open(Trickle(b"a")).unwrap();
        assert!(!gzip);
        s.clear();
        text.read_to_string(&mut s).unwrap();
        assert_eq!(s, "a");
    }
}
