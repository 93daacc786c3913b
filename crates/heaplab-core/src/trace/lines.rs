//! Numbered lines of a byte stream, one at a time, with one line of look-back.
//!
//! Every format reads through this, so line numbers mean the same thing everywhere
//! (1-based, counting blank and skipped lines) and only one line is ever held.

use std::io::{BufRead, Read};

use flate2::read::MultiGzDecoder;

/// The two bytes every gzip member starts with (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens a byte stream as text, decompressing it on the fly when it starts with the gzip
/// magic bytes, whatever its name says. Returns the stream and whether it was gzip.
pub fn open<'a, R: Read + 'a>(mut input: R) -> std::io::Result<(Box<dyn BufRead + 'a>, bool)> {
    // Read the first two bytes by hand: a reader may hand them over one at a time.
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match input.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let stream = std::io::Cursor::new(magic[..got].to_vec()).chain(input);
    // Buffers of 64 KiB keep the per-line cost of the boxed reader small.
    const BUFFER: usize = 1 << 16;
    if got == 2 && magic == GZIP_MAGIC {
        // Multi-member, as `cat a.gz b.gz` and pigz produce.
        let decoder = MultiGzDecoder::new(stream);
        Ok((
            Box::new(std::io::BufReader::with_capacity(BUFFER, decoder)),
            true,
        ))
    } else {
        Ok((
            Box::new(std::io::BufReader::with_capacity(BUFFER, stream)),
            false,
        ))
    }
}

/// Lines of a text stream, numbered from 1.
#[derive(Debug)]
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    number: u64,
    /// Whether the next call returns the current line again.
    again: bool,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            buf: Vec::new(),
            number: 0,
            again: false,
            done: false,
        }
    }

    /// The next line without its line ending, and its number; `None` at the end. An
    /// error (unreadable input, text that is not UTF-8) comes with the line's number.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>, (u64, String)> {
        if self.again {
            self.again = false;
        } else {
            self.buf.clear();
            if self.done {
                return Ok(None);
            }
            let n = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| (self.number + 1, format!("cannot read: {e}")))?;
            if n == 0 {
                self.done = true;
                return Ok(None);
            }
            self.number += 1;
        }
        let mut bytes = &self.buf[..];
        while let [rest @ .., b'\n' | b'\r'] = bytes {
            bytes = rest;
        }
        let text = std::str::from_utf8(bytes).map_err(|_| {
            (
                self.number,
                "not text: the line is not UTF-8 (a binary or compressed file other than gzip?)"
                    .to_string(),
            )
        })?;
        Ok(Some((self.number, text)))
    }

    /// Makes the next [`Lines::next_line`] return the line it returned last, so a reader
    /// can look at a line and leave it to the next one.
    pub fn unread(&mut self) {
        self.again = true;
    }

    /// The number of lines read so far.
    pub fn count(&self) -> u64 {
        self.number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_can_be_read_again() {
        let mut lines = Lines::new("a 1 16\r\n\nf 1".as_bytes());
        assert_eq!(lines.next_line().unwrap(), Some((1, "a 1 16")));
        lines.unread();
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
