//! `heaplab link`'s page address: `--base-url`, else `HEAPLAB_BASE_URL`, else the page
//! `cargo xtask serve` serves; a malformed address is refused naming where it came from.

use std::process::{Command, Output};

const RUN: &[&str] = &["-w", "churn", "--scale", "0.01", "-p", "bump"];
const LOCAL: &str = "http://127.0.0.1:8000/";
const HOSTED: &str = "https://example.org/tools/heaplab/";

/// `heaplab link` with `HEAPLAB_BASE_URL` set to `env`, or removed for `None`.
fn link(env: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_heaplab"));
    cmd.arg("link").args(args).args(RUN);
    match env {
        Some(value) => cmd.env("HEAPLAB_BASE_URL", value),
        None => cmd.env_remove("HEAPLAB_BASE_URL"),
    };
    cmd.output().expect("heaplab runs")
}

/// The link printed, split at its fragment; fails the test with stderr otherwise.
fn printed(out: &Output) -> (String, String) {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout.clone()).unwrap();
    let (base, fragment) = url.trim().split_once('#').expect("a link has a fragment");
    (base.to_string(), fragment.to_string())
}

/// The message of a refusal, which must exit 2 (bad input), not panic.
fn refused(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn the_flag_wins_over_the_environment_which_wins_over_the_local_page() {
    let (base, fragment) = printed(&link(None, &[]));
    assert_eq!(base, LOCAL);
    // An empty variable is an unset one, as `HEAPLAB_BASE_URL= heaplab link` means.
    assert_eq!(
        printed(&link(Some(""), &[])),
        (LOCAL.into(), fragment.clone())
    );
    assert_eq!(
        printed(&link(Some(HOSTED), &[])),
        (HOSTED.into(), fragment.clone())
    );
    let flag = "http://127.0.0.1:9000/sub/";
    assert_eq!(
        printed(&link(Some(HOSTED), &["--base-url", flag])),
        (flag.into(), fragment.clone())
    );
    // The environment is not read at all when the flag is given, bad or not.
    assert_eq!(
        printed(&link(Some("ftp://nowhere/"), &["--base-url", flag])),
        (flag.into(), fragment)
    );
}

#[test]
fn a_malformed_address_is_refused_naming_where_it_came_from() {
    let cases = [
        (
            "ftp://example.org/",
            "is not an http:// or https:// address",
        ),
        (
            "example.org/heaplab/",
            "is not an http:// or https:// address",
        ),
        ("https://", "names no host"),
        ("http:///heaplab/", "names no host"),
        (
            "http://exa mple.org/",
            "has a space or a control character in it",
        ),
        ("http://example.org:80800/", "has `80800` for a port"),
        ("http://example.org:x/", "has `x` for a port"),
        ("http://exa$mple.org/", "has `$` in its host"),
        (
            "http://[::1/",
            "has a `[` before its host and no `]` after it",
        ),
        ("http://[xyz]/", "has [xyz] for a host, not an IPv6 address"),
    ];
    for (bad, why) in cases {
        let from_flag = refused(&link(None, &["--base-url", bad]));
        assert!(
            from_flag.contains(&format!("--base-url: {bad} {why}")),
            "{bad}: {from_flag}"
        );
        let from_env = refused(&link(Some(bad), &[]));
        assert!(
            from_env.contains(&format!("HEAPLAB_BASE_URL: {bad} {why}")),
            "{bad}: {from_env}"
        );
    }
}

#[test]
fn an_address_that_is_not_text_is_refused_by_its_variable() {
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .arg("link")
        .args(RUN)
        .env(
            "HEAPLAB_BASE_URL",
            std::ffi::OsStr::from_bytes(b"http://h\xff/"),
        )
        .output()
        .unwrap();
    let stderr = refused(&out);
    assert!(stderr.contains("HEAPLAB_BASE_URL:"), "{stderr}");
    assert!(stderr.contains("is not valid UTF-8"), "{stderr}");
}

#[test]
fn addresses_a_browser_opens_are_taken() {
    for good in [
        "HTTPS://Example.org/tools/heaplab/",
        "http://127.0.0.1:8322/some/sub/path/",
        "http://[::1]:8000/",
        "http://user@host.example/heaplab/index.html?v=2",
        "https://bücher.example/",
    ] {
        let (base, _) = printed(&link(None, &["--base-url", good]));
        assert_eq!(base, good);
    }
}

#[test]
fn the_help_says_where_the_address_comes_from() {
    let out = Command::new(env!("CARGO_BIN_EXE_heaplab"))
        .args(["link", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("$HEAPLAB_BASE_URL"), "{help}");
    assert!(help.contains("no settings file"), "{help}");
}
