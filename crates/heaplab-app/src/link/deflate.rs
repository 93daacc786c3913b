//! The compression a link's payload goes through, apart from the codec so that the checks
//! can ask how large a text would be inside a link without a circle between the two.
//! A leaf: it names nothing else of the crate.

use std::io::{Read, Write};

use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;

/// The most bytes a payload may inflate to: far more than any real state (a few hundred
/// bytes, or an embedded trace), and a bound on what a hostile link can make us allocate.
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// `bytes` deflated at the best compression, as a link carries its payload.
pub(super) fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut deflate = DeflateEncoder::new(Vec::new(), Compression::best());
    // Writing to a Vec cannot fail.
    let _ = deflate.write_all(bytes);
    deflate.finish().unwrap_or_default()
}

/// How many bytes `bytes` take deflated as a link deflates its payload.
pub(super) fn deflated_len(bytes: &[u8]) -> usize {
    deflate(bytes).len()
}

/// What `packed` inflates to, or `None` past [`MAX_PAYLOAD_BYTES`]: reading stops one
/// byte beyond the bound, so a hostile payload never makes us hold more than that.
pub(super) fn inflate(packed: &[u8]) -> std::io::Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    DeflateDecoder::new(packed)
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut out)?;
    Ok((out.len() <= MAX_PAYLOAD_BYTES).then_some(out))
}
