//! `heaplab mm` and `-p mm.wasm`, run the way the README's "Write your own allocator"
//! walks a student through them.

mod common;

use std::path::{Path, PathBuf};

use common::{heaplab_in, json_of};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("heaplab-mm-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `heaplab mm example implicit -o mm.c` then `heaplab mm build mm.c -o mm.wasm` in `d`.
fn build_implicit(d: &Path) {
    ok(&heaplab_in(d, &["mm", "example", "implicit", "-o", "mm.c"]));
    let out = heaplab_in(d, &["mm", "build", "mm.c", "-o", "mm.wasm"]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote mm.wasm"));
}

#[test]
fn a_student_builds_checks_and_compares_an_allocator() {
    let d = dir("walk");
    build_implicit(&d);
    let table = ok(&heaplab_in(&d, &["mm", "check", "mm.wasm"]));
    for needle in [
        "trace",
        "valid",
        "util",
        "Kops",
        "0 binary",
        "3 realloc",
        "Perf index = ",
        "util counts 60%",
    ] {
        assert!(table.contains(needle), "no {needle:?} in\n{table}");
    }
    let v = json_of(&heaplab_in(
        &d,
        &[
            "mm",
            "check",
            "mm.wasm",
            "-w",
            "coalescing",
            "-w",
            "realloc",
            "--json",
        ],
    ));
    // The allocator's own check after every call holds on a trace of its own.
    let checked = json_of(&heaplab_in(
        &d,
        &[
            "mm",
            "check",
            "mm.wasm",
            "-w",
            "random",
            "--check-heap",
            "--json",
        ],
    ));
    assert_eq!(checked["traces"][0]["valid"], true, "{checked}");
    assert_eq!(v["schema"], 1);
    assert_eq!(v["module"], "mm.wasm");
    assert_eq!(v["traces"].as_array().unwrap().len(), 2);
    for t in v["traces"].as_array().unwrap() {
        assert_eq!(t["valid"], true, "{t}");
        let util = t["util"].as_f64().unwrap();
        assert!(util > 0.0 && util <= 1.0, "{t}");
    }
    assert!(v["perf_index"]["total"].as_f64().unwrap() > 0.0);
    // Beside the presets, named by its file.
    let runs = json_of(&heaplab_in(
        &d,
        &[
            "run",
            "-p",
            "mm.wasm",
            "-p",
            "glibc-like",
            "-w",
            "random",
            "--json",
        ],
    ));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs[0]["config"]["policy"]["family"], "module");
    assert_eq!(runs[0]["allocs"], runs[1]["allocs"]);
    assert!(runs[0]["counters"]["mem_heapsize"].as_u64().unwrap() > 0);
    let text = ok(&heaplab_in(&d, &["run", "-p", "mm.wasm", "-w", "random"]));
    assert!(text.contains("mm.wasm"), "{text}");
    // compare takes it as a configuration, not a file of configs.
    let text = ok(&heaplab_in(
        &d,
        &[
            "compare",
            "mm.wasm",
            "glibc-like",
            "--workloads",
            "binary,random",
        ],
    ));
    assert!(
        text.contains("mm.wasm, glibc-like compared on 2 workloads"),
        "{text}"
    );
    // Teaching mode's views step through it as through a preset.
    let text = ok(&heaplab_in(
        &d,
        &["explain", "-w", "random", "-p", "mm.wasm", "--to", "3"],
    ));
    assert!(
        text.contains(
            "event 1: a 14,037 B (id 0): mm_malloc(14037) → 0x20010; reserve 1,073,741,824 B \
             at 0x100000000 (room for the heap to grow into: max_heap); commit 4,096 B at \
             0x100000000 (the heap grew: mem_sbrk)"
        ),
        "{text}"
    );
    let out = heaplab_in(
        &d,
        &[
            "map",
            "-w",
            "random",
            "-p",
            "mm.wasm",
            "--at",
            "30",
            "--heap-map",
            "heap.svg",
        ],
    );
    ok(&out);
    let svg = std::fs::read_to_string(d.join("heap.svg")).unwrap();
    assert!(
        svg.contains("mm.wasm: the heap after event 30"),
        "the map's title"
    );
}

#[test]
fn bad_modules_and_missing_files_exit_2_with_the_file_named() {
    let d = dir("bad");
    std::fs::write(d.join("mm.wasm"), "not a module").unwrap();
    let out = heaplab_in(&d, &["run", "-p", "mm.wasm", "-w", "random"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mm.wasm: mm.wasm is not a WebAssembly module"),
        "{err}"
    );
    let out = heaplab_in(&d, &["mm", "check", "gone.wasm"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gone.wasm"));
    let out = heaplab_in(&d, &["mm", "build", "gone.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gone.c: no such file"));
    let out = common::heaplab(&["mm", "example", "quick-fit"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there are: naive, implicit, segregated"));
}

#[test]
fn a_build_error_shows_clangs_message() {
    let d = dir("cc");
    std::fs::write(d.join("mm.c"), "int mm_init(void) { return oops; }\n").unwrap();
    let out = heaplab_in(&d, &["mm", "build", "mm.c"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("clang failed"), "{err}");
    assert!(err.contains("oops"), "{err}");
}

#[test]
fn policies_lists_the_module_family_apart_from_the_menus() {
    let text = ok(&common::heaplab(&["policies"]));
    assert!(text.contains("Your own allocator (a malloc-lab module) — -p path/to/mm.wasm"));
    assert!(text.contains("check_heap_every"), "{text}");
    let v = json_of(&common::heaplab(&["policies", "--json"]));
    assert_eq!(v["brought_families"][0]["id"], "module");
    assert!(v["families"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["id"] != "module"));
}

#[test]
fn a_link_carries_a_small_module_and_names_a_large_one() {
    let d = dir("link");
    build_implicit(&d);
    let run = |dir: &Path, args: &[&str]| json_of(&heaplab_in(dir, args));
    let here = run(&d, &["run", "-w", "random", "-p", "mm.wasm", "--json"]);
    let url = ok(&heaplab_in(&d, &["link", "-w", "random", "-p", "mm.wasm"]));
    // Opened where there is no module file, the link brings its own.
    let elsewhere = dir("link-elsewhere");
    let there = run(&elsewhere, &["run", "--link", url.trim(), "--json"]);
    assert_eq!(
        there[0]["peak_resident_bytes"],
        here[0]["peak_resident_bytes"]
    );
    assert_eq!(there[0]["config"]["policy"], here[0]["config"]["policy"]);
    // A module over the 32 KiB a link carries is named, and found by name and hash.
    let big = d.join("big.c");
    // 40,000 bytes of data the allocator reads, so the linker keeps them.
    let source = std::fs::read_to_string(d.join("mm.c")).unwrap().replace(
        "int mm_init(void) {",
        "volatile char padding[40000] = {1};\nint mm_init(void) {\n    if (padding[39999]) return -1;",
    );
    std::fs::write(&big, source).unwrap();
    ok(&heaplab_in(&d, &["mm", "build", "big.c", "-o", "big.wasm"]));
    let url = ok(&heaplab_in(&d, &["link", "-w", "random", "-p", "big.wasm"]));
    let out = heaplab_in(&elsewhere, &["run", "--link", url.trim()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "the runs use the allocator module big.wasm, which the link names but does not carry"
        ),
        "{err}"
    );
    std::fs::copy(d.join("mm.wasm"), elsewhere.join("big.wasm")).unwrap();
    let out = heaplab_in(&elsewhere, &["run", "--link", url.trim()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the module the link was made with"));
    std::fs::copy(d.join("big.wasm"), elsewhere.join("big.wasm")).unwrap();
    ok(&heaplab_in(&elsewhere, &["run", "--link", url.trim()]));
}

#[test]
fn a_sweep_link_carries_the_module_it_sweeps() {
    let d = dir("sweep-link");
    build_implicit(&d);
    let args = [
        "-w",
        "binary",
        "--scale",
        "0.1",
        "-p",
        "mm.wasm",
        "--vary",
        "max_heap=1M,2M",
    ];
    let here = json_of(&heaplab_in(
        &d,
        &[&["sweep"][..], &args, &["--json"]].concat(),
    ));
    let url = ok(&heaplab_in(&d, &[&["link", "--sweep"][..], &args].concat()));
    // Opened where there is no module file, the sweep's link brings its own.
    let elsewhere = dir("sweep-link-elsewhere");
    let there = json_of(&heaplab_in(
        &elsewhere,
        &["sweep", "--link", url.trim(), "--json"],
    ));
    assert_eq!(here["points"].as_array().map(Vec::len), Some(2), "{here}");
    assert_eq!(there["points"], here["points"]);
}
