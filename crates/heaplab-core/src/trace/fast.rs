//! The op lines nearly every trace is made of, read from bytes without a detour.
//!
//! `a <id> <size>`, `f <id>` and `r <id> <size>`, single spaces and decimal digits only:
//! the lines `heaplab export`, `heaplab record` (main thread) and malloc-lab's drivers
//! write. Anything else — another op, options such as `thread=`, more fields, extra
//! spaces, a number too large, a `\r\n` ending — is left to the format's full parser,
//! which knows every form and names what is wrong, so this path decides no message and
//! no error.
//!
//! [`ops`] reads a run of such lines straight out of the reader's buffer, finding each
//! line's end as it reads the line's last number, rather than splitting the lines first
//! and reading each again.

use crate::event::Event;

/// The event of a plain op line, or `None` to have the full parser read it.
#[inline]
pub fn op(line: &[u8]) -> Option<Event> {
    match fields(line)? {
        (event, []) => Some(event),
        _ => None,
    }
}

/// Reads the plain op lines at the start of `bytes`, each ended by `\n`, handing each
/// event to `each` with the line's index among them (0 for the first); stops before the
/// first line that is not plain or not ended, or at an error of `each`. Returns the bytes
/// and the lines read.
#[inline]
pub fn ops<E>(
    bytes: &[u8],
    mut each: impl FnMut(u64, Event) -> Result<(), E>,
) -> Result<(usize, u64), E> {
    let (mut at, mut lines) = (0, 0);
    while let Some((event, len)) = ended_op(&bytes[at..]) {
        each(lines, event)?;
        at += len;
        lines += 1;
    }
    Ok((at, lines))
}

/// The plain op line at the start of `bytes` when a `\n` ends it: its event, and its
/// length with the `\n`.
#[inline(always)]
fn ended_op(bytes: &[u8]) -> Option<(Event, usize)> {
    match fields(bytes)? {
        (event, [b'\n', next @ ..]) => Some((event, bytes.len() - next.len())),
        _ => None,
    }
}

/// The op and numbers of a plain op line at the start of `bytes`, and what follows its
/// last number (the line's end, for a plain line).
#[inline(always)]
fn fields(bytes: &[u8]) -> Option<(Event, &[u8])> {
    let [op, b' ', rest @ ..] = bytes else {
        return None;
    };
    let (id, after) = number(rest)?;
    match (*op, after) {
        (b'f', _) => Some((Event::free(id), after)),
        (b'a' | b'r', [b' ', sized @ ..]) => {
            let (size, after) = number(sized)?;
            let event = if *op == b'a' {
                Event::alloc(id, size)
            } else {
                Event::realloc(id, size)
            };
            Some((event, after))
        }
        _ => None,
    }
}

/// A run of decimal digits at the start of `bytes`, and what follows it; `None` when
/// there is none or it does not fit in a `u64`.
#[inline(always)]
fn number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    if let Some(eight) = bytes.first_chunk::<8>() {
        let word = u64::from_le_bytes(*eight);
        let digits = leading_digits(word);
        if digits < 8 {
            if digits == 0 {
                return None;
            }
            return Some((eight_digits(word << (8 * (8 - digits))), &bytes[digits..]));
        }
    }
    number_by_bytes(bytes)
}

/// How many of the eight bytes of `word`, read little-endian, are decimal digits before
/// the first that is not (8 when all are).
///
/// A byte is a digit when it is `'0'` to `'9'`, that is when its value xor `0x30` is
/// below ten. The test is made on all eight bytes at once: adding `0x76` to the low seven
/// bits sets a byte's top bit exactly when they make ten or more, without a carry into
/// the next byte, and a byte whose own top bit is set is no digit either.
#[inline(always)]
fn leading_digits(word: u64) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const TOP: u64 = 0x8080_8080_8080_8080;
    let x = word ^ 0x3030_3030_3030_3030;
    let not_digit = ((x & LOW7).wrapping_add(0x7676_7676_7676_7676) | x) & TOP;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of eight ASCII digits read little-endian, the first digit in the lowest
/// byte; zero bytes count as `'0'`s, so a shorter run shifted up to the top reads too.
/// Neighbouring digits are combined into pairs, pairs into fours, fours into the eight,
/// each step one multiply on every group at once.
#[inline(always)]
fn eight_digits(word: u64) -> u64 {
    let pairs = ((word & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(10 << 8 | 1)) >> 8;
    let fours = ((pairs & 0x00ff_00ff_00ff_00ff).wrapping_mul(100 << 16 | 1)) >> 16;
    ((fours & 0x0000_ffff_0000_ffff).wrapping_mul(10000 << 32 | 1)) >> 32
}

/// [`number`] a byte at a time, for runs of eight digits or more and for the last few
/// bytes of a buffer.
#[inline(never)]
fn number_by_bytes(bytes: &[u8]) -> Option<(u64, &[u8])> {
    // One pass: the digits are read as they are found. Nineteen digits always fit, so
    // the value cannot have wrapped unless the run is longer, and longer runs go the
    // careful way.
    let mut value = 0u64;
    let mut digits = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        digits += 1;
    }
    if digits == 0 || digits > 19 {
        return None;
    }
    Some((value, &bytes[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::native::{parse_line, Line};
    use proptest::prelude::*;

    #[test]
    fn plain_lines_are_read_and_the_rest_left_to_the_full_parser() {
        assert_eq!(op(b"a 1 16"), Some(Event::alloc(1, 16)));
        assert_eq!(op(b"f 18446744073709551615"), None);
        assert_eq!(
            op(b"f 1844674407370955161"),
            Some(Event::free(1844674407370955161))
        );
        assert_eq!(op(b"r 0 0"), Some(Event::realloc(0, 0)));
        for other in [
            &b"a 1"[..],
            b"a 1 16 ",
            b"a  1 16",
            b"a 1 16 64",
            b"a 1 16 thread=2",
            b"f -1",
            b"f 1 2",
            b"p 1",
            b"arena 1",
            b"",
            b"a",
            b"z 1 2",
        ] {
            assert_eq!(op(other), None, "{:?}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn a_run_of_plain_lines_is_read_up_to_the_first_that_is_not() {
        let text = b"a 1 16\nr 1 32\nf 1\na 2 8\r\nf 2\n";
        let mut seen = Vec::new();
        let (used, lines) = ops(text, |i, e| {
            seen.push((i, e));
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!((used, lines), (18, 3));
        assert_eq!(
            seen,
            [
                (0, Event::alloc(1, 16)),
                (1, Event::realloc(1, 32)),
                (2, Event::free(1))
            ]
        );
        // A line the buffer ends inside is left for when the rest of it has arrived.
        assert_eq!(ops(b"f 1\nf 2", |_, _| Ok::<(), ()>(())), Ok((4, 1)));
        assert_eq!(ops(b"a 1 16", |_, _| Ok::<(), ()>(())), Ok((0, 0)));
        // An error of the callee stops the run at that line.
        let mut n = 0;
        let stopped = ops(b"f 1\nf 2\nf 3\n", |i, _| {
            n += 1;
            if i == 1 {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!((stopped, n), (Err(1), 2));
    }

    #[test]
    fn numbers_read_eight_bytes_at_a_time_as_one_at_a_time() {
        for text in [
            &b"0 "[..],
            b"7\n.......",
            b"1234567 tail",
            b"12345678 tail",
            b"123456789012 tail",
            b"00000042\n",
            b"99999999",
            b"18446744073709551615 x",
            b"18446744073709551616 x",
            b"/:09 ......",
            b"\xb0\xb1 ......",
            b"x1234567",
        ] {
            assert_eq!(number(text), number_by_bytes(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn any_bytes_read_as_one_at_a_time(bytes in prop::collection::vec(prop_oneof![b'0'..=b'9', any::<u8>()], 0..24)) {
            prop_assert_eq!(number(&bytes), number_by_bytes(&bytes));
        }

        /// A run of lines reads as the lines read one at a time.
        #[test]
        fn a_run_reads_as_its_lines(lines in prop::collection::vec("[afr]( [0-9]{0,21}){0,3}", 0..8)) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let mut seen = Vec::new();
            let (used, n) = ops(text.as_bytes(), |_, e| { seen.push(e); Ok::<(), ()>(()) }).unwrap();
            let plain: Vec<Event> = lines.iter().map_while(|l| op(l.as_bytes())).collect();
            prop_assert_eq!(&seen, &plain);
            prop_assert_eq!(n as usize, plain.len());
            prop_assert_eq!(used, lines[..plain.len()].iter().map(|l| l.len() + 1).sum::<usize>());
        }

        /// Whatever this path reads, the full parser reads the same.
        #[test]
        fn it_agrees_with_the_full_parser(line in "[afrz]( [0-9]{0,21}){0,3}") {
            if let Some(event) = op(line.as_bytes()) {
                prop_assert_eq!(parse_line(&line), Ok(Some(Line::Event(event))));
            }
        }
    }
}
