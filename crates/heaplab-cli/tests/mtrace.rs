//! The README's recipe for glibc's mtrace: on glibc 2.34 and later `mtrace()` writes
//! nothing unless `libc_malloc_debug.so.0` is preloaded. Where that library exists, a
//! program traced by the recipe replays with the counts it made.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;

use common::{heaplab, json_of};

/// Where Debian and most distributions put the library; the recipe names it by its
/// soname, which the loader finds on its own.
const DEBUG_LIBRARIES: &[&str] = &[
    "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
    "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
    "/lib/aarch64-linux-gnu/libc_malloc_debug.so.0",
    "/usr/lib64/libc_malloc_debug.so.0",
];

#[test]
fn the_mtrace_recipe_records_a_program_that_replays() {
    if !DEBUG_LIBRARIES.iter().any(|p| Path::new(p).exists()) {
        // glibc before 2.34, or not glibc: mtrace() works without the library, and the
        // recipe's extra LD_PRELOAD would only fail to load.
        // Written past the test harness's capture, so the skip shows in every run.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_mtrace_recipe_records_a_program_that_replays: no \
             libc_malloc_debug.so.0 here; the recipe's glibc 2.34 step does not apply"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("heaplab-mtrace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("prog");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mtrace/prog.c");
    let built = Command::new("cc")
        .arg("-O0")
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .status();
    assert!(
        built.is_ok_and(|s| s.success()),
        "cc could not build {}",
        source.display()
    );
    let log = dir.join("prog.mtrace");
    // Without the library, glibc 2.34 and later write no log at all.
    let _ = std::fs::remove_file(&log);
    let status = Command::new(&program)
        .env("MALLOC_TRACE", &log)
        .status()
        .unwrap();
    assert!(status.success());
    let without = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !without.contains("@ "),
        "mtrace() wrote calls without the library: {without}"
    );
    // The recipe.
    let status = Command::new(&program)
        .env("LD_PRELOAD", "libc_malloc_debug.so.0")
        .env("MALLOC_TRACE", &log)
        .status()
        .unwrap();
    assert!(status.success());
    let v = json_of(&heaplab(&[
        "run",
        "-w",
        log.to_str().unwrap(),
        "-p",
        "glibc-like",
        "--json",
    ]));
    assert_eq!(v[0]["trace"]["format"], "mtrace");
    assert_eq!(v[0]["allocs"], 100);
    assert_eq!(v[0]["reallocs"], 10);
    assert_eq!(v[0]["frees"], 100);
    assert_eq!(v[0]["end_live_bytes"], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
