//! Which real allocator a baseline replays through: one of the three heaplab links, or any
//! allocator library preloaded into the baseline's process.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A real allocator heaplab can replay events through. In JSON it is its id: `system`,
/// `mimalloc`, `jemalloc` or `preload:<path>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum RealAllocator {
    /// glibc's malloc, free, realloc and posix_memalign; trimmed with `malloc_trim(0)`.
    System,
    /// mimalloc as linked into heaplab (`mi_malloc_aligned`, `mi_realloc`, `mi_free`);
    /// trimmed with `mi_collect(true)`.
    Mimalloc,
    /// jemalloc as linked into heaplab, prefixed so it does not replace malloc (`mallocx`,
    /// `rallocx`, `sdallocx`); trimmed with `arena.<all>.purge`.
    Jemalloc,
    /// Any allocator library, loaded with `LD_PRELOAD` into the baseline's process so that
    /// plain `malloc`, `free`, `realloc` and `posix_memalign` are its own. The path is as
    /// the user gave it.
    Preload(PathBuf),
}

/// The prefix of a preloaded library's id.
const PRELOAD: &str = "preload:";

impl RealAllocator {
    /// The allocators heaplab links, which need no file.
    pub const LINKED: [RealAllocator; 3] = [
        RealAllocator::System,
        RealAllocator::Mimalloc,
        RealAllocator::Jemalloc,
    ];

    /// The id that names it on the command line and in JSON.
    pub fn id(&self) -> String {
        match self {
            RealAllocator::System => "system".into(),
            RealAllocator::Mimalloc => "mimalloc".into(),
            RealAllocator::Jemalloc => "jemalloc".into(),
            RealAllocator::Preload(p) => format!("{PRELOAD}{}", p.display()),
        }
    }

    /// An allocator by id; the error lists the valid ones. A preloaded library's file is
    /// checked where it is loaded, not here.
    pub fn parse(id: &str) -> Result<RealAllocator, String> {
        if let Some(path) = id.strip_prefix(PRELOAD) {
            if path.is_empty() {
                return Err(format!(
                    "{id:?} names no library; give its path, e.g. \
                     preload:/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
                ));
            }
            return Ok(RealAllocator::Preload(PathBuf::from(path)));
        }
        RealAllocator::LINKED
            .into_iter()
            .find(|a| a.id() == id)
            .ok_or_else(|| {
                format!(
                    "unknown allocator {id:?}; valid ones are: system, mimalloc, jemalloc, \
                     or preload:<path to an allocator library>"
                )
            })
    }

    /// The library file to preload, for a preloaded allocator.
    pub fn preload_path(&self) -> Option<&Path> {
        match self {
            RealAllocator::Preload(p) => Some(p),
            _ => None,
        }
    }

    /// A short name for a table's column or row: the id, or a preloaded library's file
    /// name.
    pub fn label(&self) -> String {
        match self {
            RealAllocator::Preload(p) => p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into()),
            a => a.id(),
        }
    }
}

impl fmt::Display for RealAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

impl From<RealAllocator> for String {
    fn from(a: RealAllocator) -> String {
        a.id()
    }
}

impl TryFrom<String> for RealAllocator {
    type Error = String;
    fn try_from(id: String) -> Result<RealAllocator, String> {
        RealAllocator::parse(&id)
    }
}
