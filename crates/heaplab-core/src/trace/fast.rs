//! The op lines nearly every trace is made of, read from bytes without a detour.
//!
//! `a <id> <size>`, `f <id>` and `r <id> <size>`, single spaces and decimal digits only:
//! the lines `heaplab export`, `heaplab record` (main thread) and malloc-lab's drivers
//! write. Anything else — another op, options such as `thread=`, more fields, extra
//! spaces, a number too large — is left to the format's full parser, which knows every
//! form and names what is wrong, so this path decides no message and no error.

use crate::event::Event;

/// The event of a plain op line, or `None` to have the full parser read it.
#[inline]
pub fn op(line: &[u8]) -> Option<Event> {
    let (&op, rest) = line.split_first()?;
    let rest = rest.strip_prefix(b" ")?;
    let (id, rest) = number(rest)?;
    match op {
        b'f' if rest.is_empty() => Some(Event::free(id)),
        b'a' | b'r' => {
            let (size, rest) = number(rest.strip_prefix(b" ")?)?;
            if !rest.is_empty() {
                return None;
            }
            Some(if op == b'a' {
                Event::alloc(id, size)
            } else {
                Event::realloc(id, size)
            })
        }
        _ => None,
    }
}

/// A run of decimal digits at the start of `bytes`, and what follows it; `None` when
/// there is none or it does not fit in a `u64`.
#[inline]
fn number(bytes: &[u8]) -> Option<(u64, &[u8])> {
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

    proptest! {
        /// Whatever this path reads, the full parser reads the same.
        #[test]
        fn it_agrees_with_the_full_parser(line in "[afrz]( [0-9]{0,21}){0,3}") {
            if let Some(event) = op(line.as_bytes()) {
                prop_assert_eq!(parse_line(&line), Ok(Some(Line::Event(event))));
            }
        }
    }
}
