//! Making sure the external tools are present at the right version, and the web build
//! that depends on them.
//!
//! Every check says what it found and every install says what it runs, because a
//! silent multi-minute `cargo install` in the middle of the gate looks like a hang.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{cargo, probe, run_cmd, target_dir};

const WASM_TARGET: &str = "wasm32-unknown-unknown";
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Builds heaplab-wasm for the browser three times and generates the JavaScript bindings
/// of each into the git-ignored `web/pkg`: `heaplab_wasm`, which the page and its workers
/// import; `heaplab_teach` (the `teach` and `export` features), which teaching mode loads
/// when it opens and the Export menu when it is first used; and `heaplab_mm` (`teach` and `mm`: the interpreter for allocator modules),
/// which the workers and teaching mode load only when a configuration runs a module.
pub fn build_wasm(root: &Path) -> Result<()> {
    ensure_wasm_target(root)?;
    let wasm_bindgen_version = ensure_wasm_bindgen(root)?;
    for (name, features) in [
        ("heaplab_wasm", None),
        ("heaplab_teach", Some("teach,export")),
        ("heaplab_mm", Some("teach,mm")),
    ] {
        println!("==> building {name} for {WASM_TARGET}");
        let mut build = cargo();
        build.args([
            "build",
            // See `[profile.wasm]` in the workspace's Cargo.toml: LTO and one codegen
            // unit keep the file the browser downloads under 1.5 MB.
            "--profile",
            "wasm",
            "--target",
            WASM_TARGET,
            "-p",
            "heaplab-wasm",
        ]);
        if let Some(features) = features {
            build.args(["--features", features]);
        }
        build.args(["--config", &registry_remap()]);
        run_cmd(&mut build, root)?;
        println!("==> generating {name}'s bindings with wasm-bindgen {wasm_bindgen_version}");
        let wasm = target_dir(root).join(format!("{WASM_TARGET}/wasm/heaplab_wasm.wasm"));
        run_cmd(
            Command::new("wasm-bindgen")
                // Function names cost 160 KB; a panic still reaches the console with its
                // message (console_error_panic_hook), only its stack shows indices.
                .args([
                    "--target",
                    "web",
                    "--no-typescript",
                    "--remove-name-section",
                    "--out-name",
                    name,
                    "--out-dir",
                    "web/pkg",
                ])
                .arg(wasm),
            root,
        )?;
    }
    Ok(())
}

/// A `--config` value for cargo that drops the registry's directory from the source paths
/// compiled into the wasm (a panic's location names its file): `zlib-rs-0.6.8/src/…`
/// rather than the same behind `~/.cargo/registry/src/index.crates.io-<hash>/`. That is 3.6
/// KB fewer for the browser to download, and a page whose size no longer depends on where
/// the machine that built it keeps cargo's files.
fn registry_remap() -> String {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let indexes = home
        .and_then(|home| std::fs::read_dir(home.join("registry/src")).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| format!("'--remap-path-prefix={}/='", entry.path().display()));
    format!(
        "target.{WASM_TARGET}.rustflags=[{}]",
        indexes.collect::<Vec<_>>().join(", ")
    )
}

/// The most bytes the page's `.wasm` may have: what a person downloads before the page
/// can run anything.
pub const WASM_BUDGET: u64 = 1_500_000;

/// The size of a `.wasm` that `build_wasm` wrote into `web/pkg`, by its bindings' name:
/// `heaplab_wasm` is the page's own, which the budget holds (teaching mode's
/// `heaplab_teach` and the module runner's `heaplab_mm` load only when used).
pub fn wasm_size(root: &Path, name: &str) -> Result<u64> {
    let path = root.join(format!("web/pkg/{name}_bg.wasm"));
    Ok(std::fs::metadata(&path)
        .with_context(|| format!("reading {}", path.display()))?
        .len())
}

pub fn ensure_wasm_target(root: &Path) -> Result<()> {
    let installed = probe(Command::new("rustup").args(["target", "list", "--installed"]))
        .context("could not list installed targets with `rustup target list --installed`")?;
    if installed.lines().any(|line| line.trim() == WASM_TARGET) {
        println!("==> rust target {WASM_TARGET} is installed");
        return Ok(());
    }
    println!("==> rust target {WASM_TARGET} is missing, adding it");
    run_cmd(
        Command::new("rustup").args(["target", "add", WASM_TARGET]),
        root,
    )
}

/// Ensures the `wasm-bindgen` on PATH is exactly the version of the wasm-bindgen crate
/// in Cargo.lock, and returns that version.
///
/// The CLI and the crate share an unversioned data format embedded in the `.wasm`, so
/// any mismatch, even a patch release, makes the CLI refuse the module or, worse,
/// generate glue that fails at runtime.
fn ensure_wasm_bindgen(root: &Path) -> Result<String> {
    let lock_path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .with_context(|| format!("could not read {}", lock_path.display()))?;
    let wanted = locked_version(&lock, "wasm-bindgen")
        .with_context(|| format!("no wasm-bindgen package in {}", lock_path.display()))?;
    match installed_wasm_bindgen() {
        Some(found) if found == wanted => {
            println!("==> wasm-bindgen {found} is installed, matching Cargo.lock");
            return Ok(wanted);
        }
        Some(found) => {
            println!("==> wasm-bindgen on PATH is {found}, Cargo.lock wants {wanted}; installing")
        }
        None => println!("==> wasm-bindgen is not on PATH, installing {wanted}"),
    }
    run_cmd(
        cargo().args(["install", "wasm-bindgen-cli", "--version", &wanted]),
        root,
    )?;
    // Another wasm-bindgen earlier on PATH would shadow the one just installed, and
    // building with it anyway is exactly the mismatch this check exists to prevent.
    match installed_wasm_bindgen() {
        Some(found) if found == wanted => Ok(wanted),
        found => bail!(
            "after installing wasm-bindgen-cli {wanted}, `wasm-bindgen --version` reports {}; \
             is another wasm-bindgen earlier on PATH than cargo's bin directory?",
            found.as_deref().unwrap_or("nothing")
        ),
    }
}

fn installed_wasm_bindgen() -> Option<String> {
    let out = probe(Command::new("wasm-bindgen").arg("--version"))?;
    // The output is `wasm-bindgen 0.2.130`, possibly followed by a git hash.
    out.split_whitespace().nth(1).map(str::to_owned)
}

/// Finds the version of package `name` in the text of a Cargo.lock.
///
/// Cargo.lock is a flat list of `[[package]]` tables whose `name` and `version` keys
/// come first, so scanning tables line by line is enough and avoids a TOML parser.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted_name = format!("name = \"{name}\"");
    let mut in_wanted = false;
    for line in lock.lines().map(str::trim) {
        if line.starts_with('[') {
            in_wanted = false;
        } else if line == wanted_name {
            in_wanted = true;
        } else if in_wanted {
            if let Some(rest) = line.strip_prefix("version = ") {
                return Some(rest.trim_matches('"').to_owned());
            }
        }
    }
    None
}

/// Installs Chromium from Debian if it is missing; the gate runs as root in CI, and a
/// developer without it is told which command failed.
pub fn ensure_chromium(root: &Path) -> Result<()> {
    ensure_debian(root, CHROMIUM, &["chromium"])
}

/// Installs clang and lld from Debian if they are missing: `heaplab mm build` compiles
/// allocator modules with clang's wasm32 target and links them with lld's wasm-ld, and
/// heaplab-mm's tests build its example allocators.
pub fn ensure_clang(root: &Path) -> Result<()> {
    ensure_debian(root, "/usr/bin/clang", &["clang"])?;
    ensure_debian(root, "/usr/bin/wasm-ld", &["lld"])
}

/// Installs the allocator libraries that heaplab-cli's baseline tests preload into a
/// baseline (`-a preload:<lib.so>`) and replay beside the C replay: Debian's mimalloc 2.0,
/// jemalloc 5 and gperftools' tcmalloc_minimal. Under CI the tests fail without them.
pub fn ensure_allocator_libraries(root: &Path) -> Result<()> {
    const LIBS: &str = "/usr/lib/x86_64-linux-gnu";
    ensure_debian(
        root,
        &format!("{LIBS}/libmimalloc.so.2"),
        &["libmimalloc2.0"],
    )?;
    ensure_debian(root, &format!("{LIBS}/libjemalloc.so.2"), &["libjemalloc2"])?;
    ensure_debian(
        root,
        &format!("{LIBS}/libtcmalloc_minimal.so.4"),
        &["libtcmalloc-minimal4"],
    )
}

/// Installs Debian `packages` with apt-get unless `path` exists.
fn ensure_debian(root: &Path, path: &str, packages: &[&str]) -> Result<()> {
    if Path::new(path).exists() {
        println!("==> {path} is installed");
        return Ok(());
    }
    println!(
        "==> {path} is missing, installing {} with apt-get",
        packages.join(" ")
    );
    run_cmd(Command::new("apt-get").arg("update"), root)?;
    // Without a terminal to answer them, debconf prompts would stall the gate.
    run_cmd(
        Command::new("apt-get")
            .args(["install", "-y"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"),
        root,
    )
}

/// Installs the web test's npm dependencies from web/package-lock.json if they are
/// missing.
pub fn ensure_playwright(root: &Path) -> Result<()> {
    let web = root.join("web");
    if web.join("node_modules/playwright-core").is_dir() {
        println!("==> web/node_modules/playwright-core is installed");
        return Ok(());
    }
    println!("==> web/node_modules/playwright-core is missing, running npm ci");
    // playwright-core never downloads a browser, but the variable also covers a
    // future switch to the full `playwright` package: the test uses Debian's Chromium.
    run_cmd(
        Command::new("npm")
            .arg("ci")
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"),
        &web,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "wasm-bindgen-macro"
version = "0.2.999"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "cfg-if",
]

[[package]]
name = "xtask"
version = "0.1.0"
"#;

    #[test]
    fn locked_version_matches_the_exact_package_name() {
        assert_eq!(
            locked_version(LOCK, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(
            locked_version(LOCK, "wasm-bindgen-macro").as_deref(),
            Some("0.2.999")
        );
        assert_eq!(locked_version(LOCK, "wasm-bindgen-cli"), None);
    }

    #[test]
    fn locked_version_does_not_read_past_its_own_table() {
        let lock = "[[package]]\nname = \"a\"\n\n[[package]]\nversion = \"9.9.9\"\n";
        assert_eq!(locked_version(lock, "a"), None);
    }
}
