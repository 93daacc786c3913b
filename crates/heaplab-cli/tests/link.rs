//! `heaplab link` and `heaplab run --link`: a link made here replays the same runs, old
//! links keep opening, and a broken link is an input error naming what is wrong.

mod common;

use std::process::Output;

use common::{heaplab, heaplab_in, json_of};

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .trim()
        .to_string()
}

fn refused(args: &[&str]) -> String {
    let out = heaplab(args);
    assert_eq!(out.status.code(), Some(2), "{args:?} should exit 2");
    String::from_utf8(out.stderr).unwrap()
}

const RUN: &[&str] = &[
    "-w",
    "tree_churn",
    "--scale",
    "0.01",
    "-p",
    "glibc-like:trim_threshold=1MiB",
    "-p",
    "size-class:page_size=16KiB",
    "--touch",
    "first",
    "--page-size",
    "16384",
];

#[test]
fn a_link_replays_exactly_the_run_it_was_made_from() {
    let url = stdout(&heaplab(&[&["link"], RUN].concat()));
    assert!(url.starts_with("http://127.0.0.1:8000/#2."), "{url}");
    let linked = json_of(&heaplab(&["run", "--link", &url, "--json"]));
    let direct = json_of(&heaplab(&[&["run"], RUN, &["--json"]].concat()));
    assert_eq!(linked, direct);
    // The page's base address is the user's to choose.
    let other = stdout(&heaplab(
        &[&["link", "--base-url", "https://example.org/heaplab/"], RUN].concat(),
    ));
    assert!(
        other.starts_with("https://example.org/heaplab/#2."),
        "{other}"
    );
    // An older link comes out in today's form, naming the same runs.
    let again = stdout(&heaplab(&["link", "--link", &url]));
    assert_eq!(again, url);
}

#[test]
fn a_small_trace_travels_inside_its_link() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../workloads/examples/jit-arenas.trace"
    );
    let url = stdout(&heaplab(&[
        "link",
        "-w",
        trace,
        "-p",
        "bump",
        "-p",
        "llvm-bump",
    ]));
    // Run from a folder without the file: the link alone must be enough.
    let linked = json_of(&heaplab_in(
        &std::env::temp_dir(),
        &["run", "--link", &url, "--json"],
    ));
    let direct = json_of(&heaplab(&[
        "run",
        "-w",
        trace,
        "-p",
        "bump",
        "-p",
        "llvm-bump",
        "--json",
    ]));
    for (l, d) in linked
        .as_array()
        .unwrap()
        .iter()
        .zip(direct.as_array().unwrap())
    {
        assert_eq!(l["peak_resident_bytes"], d["peak_resident_bytes"]);
        assert_eq!(l["events"], d["events"]);
        assert_eq!(l["trace"], d["trace"]);
        assert_eq!(l["config"]["workload"]["path"], "jit-arenas.trace");
    }
}

#[test]
fn old_page_links_still_run() {
    // A link the page wrote before links were versioned: its form state as JSON.
    let v1 = "http://127.0.0.1:8000/#c=%7B%22v%22%3A1%2C%22workload%22%3A%7B%22id%22%3A%22churn%22%2C%22params%22%3A%7B%22seed%22%3A1%2C%22scale%22%3A0.01%7D%7D%2C%22provider%22%3A%7B%22kind%22%3A%22sim%22%2C%22page_size%22%3A4096%7D%2C%22policies%22%3A%5B%7B%22family%22%3A%22size-class%22%2C%22params%22%3A%7B%7D%7D%5D%7D";
    let linked = json_of(&heaplab(&["run", "--link", v1, "--json"]));
    let direct = json_of(&heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.01",
        "-p",
        "size-class",
        "--json",
    ]));
    assert_eq!(linked, direct);
    let url = stdout(&heaplab(&["link", "--scenario", "jit-arenas"]));
    let message = refused(&["run", "--link", &url]);
    assert!(message.contains("heaplab scenario jit-arenas"), "{message}");
}

#[test]
fn broken_links_name_what_is_wrong() {
    for (link, wanted) in [
        (
            "http://127.0.0.1:8000/#2.AAAA",
            "link: the payload does not inflate",
        ),
        ("#2.**", "link: the payload is not base64url"),
        ("#9.abc", "link: version 9 is newer"),
        ("#nonsense", "is not a heaplab link"),
        ("#c=%7B", "not JSON"),
        ("#s=no-such-scenario", "no-such-scenario"),
    ] {
        let message = refused(&["run", "--link", link]);
        assert!(message.contains(wanted), "{link}: {message}");
    }
    let five = refused(&[
        "link", "-w", "churn", "-p", "bump", "-p", "bump", "-p", "bump", "-p", "bump", "-p", "bump",
    ]);
    assert!(
        five.contains("link: 5 configurations; a link holds 1 to 4"),
        "{five}"
    );
    // A link and the flags it replaces cannot both be given.
    let out = heaplab(&["run", "--link", "#2.x", "-w", "churn"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_named_trace_must_be_the_same_file() {
    let dir = std::env::temp_dir().join(format!("heaplab-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("big.trace");
    // Past the size a link carries, so the link names the file by size and hash.
    let mut text = String::from("# heaplab trace\n");
    for i in 0..12_000 {
        text.push_str(&format!("a {i} 24\nf {i}\n"));
    }
    std::fs::write(&trace, &text).unwrap();
    let url = stdout(&heaplab(&[
        "link",
        "-w",
        trace.to_str().unwrap(),
        "-p",
        "bump",
    ]));
    let run_in = |dir: &std::path::Path| heaplab_in(dir, &["run", "--link", &url, "--json"]);
    assert_eq!(json_of(&run_in(&dir))[0]["allocs"], 12_000);
    std::fs::write(&trace, text.replace("a 0 24", "a 0 32")).unwrap();
    let out = run_in(&dir);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("not the file the link was made from"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let out = run_in(&std::env::temp_dir());
    assert!(String::from_utf8_lossy(&out.stderr).contains("which a link does not carry"));
}

#[test]
fn a_strict_link_refuses_null_frees_as_run_strict_does() {
    let dir = std::env::temp_dir().join(format!("heaplab-link-strict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("nulls.trace"), "a 0 16\nf -1\nf 0\n").unwrap();
    let make = |extra: &[&str]| {
        stdout(&heaplab_in(
            &dir,
            &[&["link", "-w", "nulls.trace", "-p", "size-class"], extra].concat(),
        ))
    };
    let strict = make(&["--strict"]);
    let relaxed = make(&[]);
    assert_ne!(strict, relaxed);
    // The strict link runs as `run --strict` does: the null free is a bad line.
    let out = heaplab_in(&dir, &["run", "--link", &strict, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nulls.trace:2: bad id \"-1\": expected a non-negative whole number"),
        "{err}"
    );
    let v = json_of(&heaplab_in(&dir, &["run", "--link", &relaxed, "--json"]));
    assert_eq!(v[0]["trace"]["null_frees"], 1);
    // --strict says it applies to traces when the link reads none.
    let out = heaplab(&[
        "link", "-w", "churn", "--scale", "0.01", "-p", "bump", "--strict",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--strict applies to trace files"));
    std::fs::remove_dir_all(&dir).unwrap();
}
