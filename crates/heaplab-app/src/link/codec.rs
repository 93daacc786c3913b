//! The text of a link: `2.` then the state as JSON, deflated, in base64url; reading any
//! version's text back into a checked [`LinkState`].

use std::io::Read;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};
use sha2::{Digest, Sha256};

use super::deflate::{deflate, inflate, MAX_PAYLOAD_BYTES};
use super::{check, clip, v1, LinkError, LinkState, TraceRef, VERSION};

/// base64url without padding, as URLs carry it; padding is accepted when present, since
/// some tools add it back.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The fragment for `state`, without the `#`: `2.<base64url of deflated JSON>`.
pub fn encode(state: &LinkState) -> String {
    // Serialising plain data to JSON cannot fail: every map key is a string.
    let json = serde_json::to_vec(state).unwrap_or_default();
    fragment_of(&json)
}

/// The fragment whose payload is `json`, whatever those bytes are: what [`encode`]
/// writes, and how the fuzzer reaches the checks behind the base64 and the deflate.
pub(crate) fn fragment_of(json: &[u8]) -> String {
    format!("{VERSION}.{}", BASE64.encode(deflate(json)))
}

/// The page's address for `state` under `base` (`http://127.0.0.1:8000/`).
pub fn url(base: &str, state: &LinkState) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{}", encode(state))
}

/// Reads a link — a whole URL, a `#fragment` or the fragment alone — of any version, and
/// checks it. A link with no fragment is the page as it opens, [`LinkState::starter`].
pub fn decode(link: &str) -> Result<LinkState, LinkError> {
    let link = link.trim();
    let fragment = match link.split_once('#') {
        Some((_, f)) => f,
        // A bare address opens the page as it starts.
        None if link.contains("://") => "",
        None => link,
    };
    let state = if fragment.is_empty() {
        LinkState::starter()
    } else if let Some(json) = fragment.strip_prefix("c=") {
        v1::config(json)?
    } else if let Some(id) = fragment.strip_prefix("s=") {
        v1::scenario(id)?
    } else {
        versioned(fragment)?
    };
    check::check(&state)?;
    Ok(state)
}

/// A `<version>.<payload>` fragment.
fn versioned(fragment: &str) -> Result<LinkState, LinkError> {
    let Some((version, payload)) = fragment.split_once('.') else {
        return Err(LinkError::new(format!(
            "{:?} is not a heaplab link: it should start with #{VERSION}., #c= or #s=",
            clip(fragment)
        )));
    };
    match version {
        "2" => v2(payload),
        v if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            Err(LinkError::new(format!(
            "version {v} is newer than this heaplab knows (it reads versions 1 and {VERSION}); \
             open the link in a newer heaplab"
        )))
        }
        _ => Err(LinkError::new(format!(
            "{:?} is not a heaplab link: it should start with #{VERSION}., #c= or #s=",
            clip(fragment)
        ))),
    }
}

fn v2(payload: &str) -> Result<LinkState, LinkError> {
    let packed = BASE64
        .decode(payload.trim_end_matches('=').as_bytes())
        .map_err(|e| {
            LinkError::new(format!(
                "the payload is not base64url ({}); was the link cut short or changed?",
                sentence(&e)
            ))
        })?;
    let json = inflate(&packed)
        .map_err(|e| {
            LinkError::new(format!(
                "the payload does not inflate ({}); was the link cut short?",
                sentence(&e)
            ))
        })?
        .ok_or_else(|| {
            LinkError::new(format!(
                "the payload inflates to more than {MAX_PAYLOAD_BYTES} bytes"
            ))
        })?;
    serde_json::from_slice(&json)
        .map_err(|e| LinkError::new(format!("the state does not read: {e}")))
}

/// What a link says of a trace file: its name, size and SHA-256.
pub fn trace_ref(name: &str, bytes: &[u8]) -> TraceRef {
    // Reading from a slice cannot fail.
    trace_ref_of(name, bytes).unwrap_or_default()
}

/// [`trace_ref`] of a file read as it streams, so a trace of gigabytes is hashed in
/// constant memory.
pub fn trace_ref_of<R: Read>(name: &str, mut input: R) -> std::io::Result<TraceRef> {
    let mut hasher = TraceHasher::default();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(hasher.finish(name))
}

/// [`trace_ref`] of a file pushed in chunks, as the page's worker reads it.
#[derive(Clone, Debug, Default)]
pub struct TraceHasher {
    hash: Sha256,
    bytes: u64,
}

impl TraceHasher {
    /// The next bytes of the file.
    pub fn push(&mut self, chunk: &[u8]) {
        self.hash.update(chunk);
        self.bytes += chunk.len() as u64;
    }

    /// What a link says of the file `name` made of the bytes pushed.
    pub fn finish(self, name: &str) -> TraceRef {
        TraceRef {
            name: super::file_name(name).into(),
            bytes: Some(self.bytes),
            sha256: Some(
                self.hash
                    .finalize()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
            ),
        }
    }
}

/// A library's error as a clause inside our sentence: without its closing full stop.
fn sentence(e: &dyn std::fmt::Display) -> String {
    e.to_string().trim_end_matches('.').to_string()
}
