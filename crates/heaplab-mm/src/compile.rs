//! `heaplab mm build`: an `mm.c` compiled to an allocator module with clang's wasm32
//! target, beside heaplab's small C library.
//!
//! clang's wasm32 target brings no C library, and an `mm.c` includes `<stdio.h>`,
//! `<string.h>`, `<stdlib.h>` and `<unistd.h>` and calls `memcpy`, `memset` and `printf`.
//! heaplab ships those few headers and functions (`c/include`, `c/libc.c`) together with
//! malloc lab's `memlib.h` and `mm.h` and its own `heaplab.h`; they are compiled into this
//! crate and written out next to the build, so the command works from any directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// The headers and the C library, by file name.
const FILES: &[(&str, &str)] = &[
    ("memlib.h", include_str!("../c/include/memlib.h")),
    ("heaplab.h", include_str!("../c/include/heaplab.h")),
    ("mm.h", include_str!("../c/include/mm.h")),
    ("stdio.h", include_str!("../c/include/stdio.h")),
    ("stdlib.h", include_str!("../c/include/stdlib.h")),
    ("string.h", include_str!("../c/include/string.h")),
    ("unistd.h", include_str!("../c/include/unistd.h")),
    ("assert.h", include_str!("../c/include/assert.h")),
    ("sys/types.h", include_str!("../c/include/sys/types.h")),
    ("libc.c", include_str!("../c/libc.c")),
];

/// The example allocators, by name: what `heaplab mm example NAME` writes out, and what
/// the tests build.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("naive", include_str!("../c/examples/naive.c")),
    ("implicit", include_str!("../c/examples/implicit.c")),
    ("segregated", include_str!("../c/examples/segregated.c")),
];

/// What a build was asked to do.
#[derive(Clone, Debug)]
pub struct BuildRequest {
    pub sources: Vec<PathBuf>,
    pub output: PathBuf,
    /// Passed to clang as they are (`-O2` when none is given, `-DDEBUG`, ...).
    pub flags: Vec<String>,
}

/// Why a build failed: clang missing, or clang's own messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// Writes the headers and the C library into `dir` (made if missing), as the clang
/// command expects them: `dir/include/*.h` and `dir/libc.c`.
pub fn write_support(dir: &Path) -> std::io::Result<()> {
    for (name, text) in FILES {
        let path = if name.ends_with(".h") {
            dir.join("include").join(name)
        } else {
            dir.join(name)
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        // Written only when different, so concurrent builds never see a half-written
        // header they did not need to rewrite.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
            static WRITES: AtomicU64 = AtomicU64::new(0);
            let n = WRITES.fetch_add(1, Ordering::Relaxed);
            let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &path)?;
        }
    }
    Ok(())
}

/// Where the support files go: beside heaplab's other caches, one folder per version of
/// them.
pub fn support_dir() -> PathBuf {
    let mut hash = Sha256::new();
    for (name, text) in FILES {
        hash.update(name.as_bytes());
        hash.update(text.as_bytes());
    }
    let digest = hash.finalize();
    let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    std::env::temp_dir().join(format!("heaplab-mm-c-{tag}"))
}

/// The clang command line a build runs, for the README and for `--verbose`.
pub fn command(req: &BuildRequest, support: &Path) -> Vec<String> {
    let mut args = vec![
        "clang".to_string(),
        "--target=wasm32".into(),
        "-ffreestanding".into(),
        "-nostdlib".into(),
    ];
    if !req.flags.iter().any(|f| f.starts_with("-O")) {
        args.push("-O2".into());
    }
    args.extend(req.flags.iter().cloned());
    args.push("-isystem".into());
    args.push(support.join("include").display().to_string());
    for export in ["mm_init", "mm_malloc", "mm_free", "mm_realloc"] {
        args.push(format!("-Wl,--export={export}"));
    }
    args.push("-Wl,--export-if-defined=mm_checkheap".into());
    args.push("-Wl,--no-entry".into());
    args.push("-o".into());
    args.push(req.output.display().to_string());
    args.extend(req.sources.iter().map(|s| s.display().to_string()));
    args.push(support.join("libc.c").display().to_string());
    args
}

/// Builds the module; returns the command it ran.
pub fn build(req: &BuildRequest) -> Result<Vec<String>, BuildError> {
    for s in &req.sources {
        if !s.is_file() {
            return Err(BuildError(format!("{}: no such file", s.display())));
        }
    }
    let support = support_dir();
    write_support(&support).map_err(|e| {
        BuildError(format!(
            "could not write heaplab's C headers to {}: {e}",
            support.display()
        ))
    })?;
    let args = command(req, &support);
    let out = Command::new(&args[0]).args(&args[1..]).output();
    let out = match out {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(BuildError(
                "clang is not installed; heaplab builds allocator modules with clang's wasm32 \
                 target and lld: `sudo apt-get install clang lld` (Debian, Ubuntu)"
                    .into(),
            ))
        }
        Err(e) => return Err(BuildError(format!("could not run clang: {e}"))),
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let hint = if stderr.contains("wasm-ld") && stderr.contains("not found")
            || stderr.contains("unable to execute command")
        {
            "\nclang needs lld's wasm-ld to link: `sudo apt-get install lld`"
        } else {
            ""
        };
        return Err(BuildError(format!(
            "clang failed ({}):\n{}{hint}",
            out.status,
            stderr.trim_end()
        )));
    }
    Ok(args)
}
