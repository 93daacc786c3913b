//! The malformed-input corpus: every bad trace, link and config file in `tests/malformed/`
//! and every configuration over a limit, each run through the `heaplab` binary as a user
//! runs it, which must exit with code 2 and print the message `cases.json` gives for it
//! (naming the file and line, or the field, or the flag), and never panic. The page is
//! fed the same traces and links by `web/tests/malformed.test.mjs`, against the same
//! messages.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{heaplab, heaplab_in};
use serde_json::Value;

/// The fewest bad inputs the corpus holds: an emptied or misread folder fails here
/// rather than passing with nothing checked.
const AT_LEAST: usize = 40;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(corpus().join("cases.json")).expect("cases.json reads");
    serde_json::from_str(&text).expect("cases.json is JSON")
}

fn cases<'a>(manifest: &'a Value, kind: &str) -> &'a [Value] {
    manifest[kind]
        .as_array()
        .unwrap_or_else(|| panic!("cases.json has no {kind:?} list"))
}

fn text<'a>(case: &'a Value, field: &str) -> &'a str {
    case[field]
        .as_str()
        .unwrap_or_else(|| panic!("{case}: no {field:?}"))
}

/// Checks that `out` is a refusal with exactly `message`: exit code 2, `error: ` and
/// the message as the only line on stderr, nothing on stdout, no panic.
fn assert_refused(what: &str, out: &Output, message: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what} panicked: {stderr}");
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert_eq!(stderr, format!("error: {message}\n"), "{what}");
    assert!(out.stdout.is_empty(), "{what} printed a result");
}

/// A generated case's text: `start`, then `fill` `count` times, then `end`, too large to
/// keep in the repository as a file.
fn generated_text(case: &Value) -> String {
    let count = case["count"].as_u64().expect("a count") as usize;
    format!(
        "{}{}{}",
        text(case, "start"),
        text(case, "fill").repeat(count),
        text(case, "end")
    )
}

#[test]
fn every_bad_trace_is_named_by_file_and_line() {
    let manifest = manifest();
    let policy = text(&manifest, "policy");
    let dir = corpus().join("traces");
    let listed = cases(&manifest, "traces");
    for case in listed {
        let file = text(case, "file");
        assert!(dir.join(file).is_file(), "{file} is listed but missing");
        let out = heaplab_in(&dir, &["run", "-w", file, "-p", policy]);
        assert_refused(file, &out, text(case, "message"));
    }
    // Every file in the folder is listed, so none sits there untested.
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        listed.len(),
        "traces/ holds files cases.json leaves out"
    );

    let scratch = std::env::temp_dir().join(format!("heaplab-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for case in cases(&manifest, "generated") {
        let file = text(case, "file");
        std::fs::write(scratch.join(file), generated_text(case)).unwrap();
        let out = heaplab_in(&scratch, &["run", "-w", file, "-p", policy]);
        assert_refused(file, &out, text(case, "message"));
    }
    std::fs::remove_dir_all(&scratch).ok();
}

#[test]
fn every_bad_link_is_named() {
    let manifest = manifest();
    let dir = corpus().join("links");
    let listed = cases(&manifest, "links");
    for case in listed {
        let file = text(case, "file");
        let link = std::fs::read_to_string(dir.join(file)).expect("the link's file reads");
        let out = heaplab_in(&dir, &["run", "--link", link.trim()]);
        assert_refused(file, &out, text(case, "message"));
    }
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        listed.len(),
        "links/ holds files cases.json leaves out"
    );
}

#[test]
fn every_bad_config_file_is_named_by_field_or_line() {
    let manifest = manifest();
    let dir = corpus().join("configs");
    let listed = cases(&manifest, "configs");
    for case in listed {
        let file = text(case, "file");
        let out = heaplab_in(&dir, &["run", "--config", file]);
        assert_refused(file, &out, text(case, "message"));
    }
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        listed.len(),
        "configs/ holds files cases.json leaves out"
    );
}

/// Configurations that would need absurd resources are refused before anything runs,
/// with the limit and its value named.
#[test]
fn every_limit_is_refused_up_front() {
    let manifest = manifest();
    for case in cases(&manifest, "limits") {
        let args: Vec<&str> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("an argument"))
            .collect();
        let out = heaplab(&args);
        assert_refused(text(case, "limit"), &out, text(case, "message"));
    }
}

#[test]
fn the_corpus_holds_at_least_forty_bad_inputs() {
    let manifest = manifest();
    let count: usize = ["traces", "generated", "links", "configs"]
        .iter()
        .map(|kind| cases(&manifest, kind).len())
        .sum();
    assert!(
        count >= AT_LEAST,
        "the corpus holds {count} bad inputs, fewer than {AT_LEAST}"
    );
    // The kinds each have a case: a cut gzip stream, a long line, binary bytes.
    let names: Vec<&str> = ["traces", "generated"]
        .iter()
        .flat_map(|kind| cases(&manifest, kind))
        .map(|c| text(c, "file"))
        .collect();
    for wanted in [
        "cut-short.trace.gz",
        "million-char-line.trace",
        "garbage.bin",
    ] {
        assert!(names.contains(&wanted), "no {wanted} in the corpus");
    }
}
