//! An allocator module a link's configurations run.
//!
//! A configuration of the module family names its module by SHA-256 alone, which says
//! which allocator ran but not where to find it. The link says so once per module: a
//! small one travels inside the link (base64), as a small trace does, and a larger one is
//! named by its file name, size and hash, so whoever opens the link loads the file and
//! the hash tells whether it is the same one.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::codec::trace_ref;

/// The largest module a link carries in itself.
pub const MAX_EMBEDDED_MODULE_BYTES: usize = 32 * 1024;

/// A module, named or carried.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModuleRef {
    /// The file's name, without its folder: how tables name the allocator.
    pub name: String,
    pub bytes: u64,
    /// Lower-case hex, as the configurations' `sha256` knob names it.
    pub sha256: String,
    /// The module itself, in standard base64, when it is small enough to carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

impl ModuleRef {
    /// The reference for the module file `name` holding `wasm`: carried when small.
    pub fn of(name: &str, wasm: &[u8]) -> ModuleRef {
        // Named and hashed as a link names a trace file.
        let file = trace_ref(name, wasm);
        ModuleRef {
            name: file.name,
            bytes: wasm.len() as u64,
            sha256: file.sha256.unwrap_or_default(),
            base64: (wasm.len() <= MAX_EMBEDDED_MODULE_BYTES)
                .then(|| base64::engine::general_purpose::STANDARD.encode(wasm)),
        }
    }

    /// The module's bytes, from the link or from `file` (the named file, read by the
    /// caller), checked against the size and hash the link gives.
    pub fn resolve(
        &self,
        file: impl FnOnce() -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, String> {
        let wasm = match &self.base64 {
            Some(text) => base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| format!("the module {} in the link is not base64: {e}", self.name))?,
            None => file()?,
        };
        let sha = trace_ref("", &wasm).sha256.unwrap_or_default();
        if wasm.len() as u64 != self.bytes || sha != self.sha256 {
            return Err(format!(
                "{} has {} bytes (SHA-256 {}…), not the module the link was made with ({} \
                 bytes, SHA-256 {}…)",
                self.name,
                wasm.len(),
                &sha[..12],
                self.bytes,
                &self.sha256[..12.min(self.sha256.len())]
            ));
        }
        Ok(wasm)
    }

    /// What is wrong with the reference itself, if anything.
    pub fn check(&self) -> Result<(), String> {
        if self.sha256.len() != 64 || !self.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{:?} is not a SHA-256 in hex", self.sha256));
        }
        if self.name.is_empty() {
            return Err("the module has no name".into());
        }
        if let Some(text) = &self.base64 {
            if text.len() > MAX_EMBEDDED_MODULE_BYTES.div_ceil(3) * 4 {
                return Err(format!(
                    "the carried module {} is larger than the {MAX_EMBEDDED_MODULE_BYTES} bytes a \
                     link carries",
                    self.name
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_module_travels_and_comes_back_checked() {
        let wasm = b"\0asm\x01\0\0\0".to_vec();
        let r = ModuleRef::of("dir/mm.wasm", &wasm);
        assert_eq!(r.name, "mm.wasm");
        r.check().unwrap();
        assert_eq!(r.resolve(|| unreachable!()).unwrap(), wasm);
        // Named only, the file must be the same one.
        let named = ModuleRef {
            base64: None,
            ..r.clone()
        };
        assert_eq!(named.resolve(|| Ok(wasm.clone())).unwrap(), wasm);
        let e = named
            .resolve(|| Ok(b"\0asm\x01\0\0\0\0".to_vec()))
            .unwrap_err();
        assert!(e.contains("not the module the link was made with"), "{e}");
        let big = ModuleRef::of("big.wasm", &vec![0; MAX_EMBEDDED_MODULE_BYTES + 1]);
        assert!(big.base64.is_none());
        let bad = ModuleRef {
            sha256: "xyz".into(),
            ..r
        };
        assert!(bad.check().is_err());
    }
}
