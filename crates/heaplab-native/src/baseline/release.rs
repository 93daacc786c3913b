//! An allocator's version as numbers, read from the allocator itself beside the text a
//! report prints, so that a caller choosing by version compares numbers, not words.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The allocators whose version a baseline can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Library {
    Glibc,
    Mimalloc,
    Jemalloc,
    /// gperftools' tcmalloc.
    Tcmalloc,
}

/// Which allocator reported which version. A part the allocator does not report is 0
/// (glibc and tcmalloc give two numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Release {
    pub library: Library,
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Release {
    /// mimalloc's `mi_version()`. `mimalloc.h` defines the number it returns,
    /// `MI_MALLOC_VERSION`: "major + 2 digits minor + 2 digits patch" in the v2 and v3
    /// sources the crate builds (20302 is 2.3.2, 30302 is 3.3.2); older releases, such as
    /// Debian's 2.0.9, give one digit each (209).
    pub fn mimalloc(v: i32) -> Release {
        let v = v.max(0) as u32;
        let (major, minor, patch) = if v >= 10_000 {
            (v / 10_000, v / 100 % 100, v % 100)
        } else {
            (v / 100, v / 10 % 10, v % 10)
        };
        Release {
            library: Library::Mimalloc,
            major,
            minor,
            patch,
        }
    }

    /// A version written as dotted numbers ("5.3.0", "2.36"), as jemalloc and glibc give
    /// theirs; `None` unless it starts with a number.
    pub fn dotted(library: Library, text: &str) -> Option<Release> {
        let mut parts = text.split('.').map(|p| p.parse::<u32>().ok());
        let major = parts.next()??;
        let mut next = || parts.next().flatten().unwrap_or(0);
        let (minor, patch) = (next(), next());
        Some(Release {
            library,
            major,
            minor,
            patch,
        })
    }

    /// Whether this is `library` at `major.minor`, any patch.
    pub fn is(&self, library: Library, major: u32, minor: u32) -> bool {
        (self.library, self.major, self.minor) == (library, major, minor)
    }
}

/// "major.minor.patch", as the reports print mimalloc's and jemalloc's versions.
impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mimalloc_numbers_read_in_both_layouts() {
        assert_eq!(Release::mimalloc(209).to_string(), "2.0.9");
        assert!(Release::mimalloc(209).is(Library::Mimalloc, 2, 0));
        assert_eq!(Release::mimalloc(20302).to_string(), "2.3.2");
        assert!(!Release::mimalloc(20302).is(Library::Mimalloc, 2, 0));
        assert_eq!(Release::mimalloc(30302).to_string(), "3.3.2");
    }

    #[test]
    fn dotted_versions_fill_what_they_leave_out_with_zero() {
        let glibc = Release::dotted(Library::Glibc, "2.36").unwrap();
        assert_eq!((glibc.major, glibc.minor, glibc.patch), (2, 36, 0));
        let jemalloc = Release::dotted(Library::Jemalloc, "5.3.0").unwrap();
        assert!(jemalloc.is(Library::Jemalloc, 5, 3));
        assert_eq!(Release::dotted(Library::Glibc, "unknown"), None);
    }
}
