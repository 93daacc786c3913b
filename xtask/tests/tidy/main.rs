//! Checks of the repository as a whole, run by `cargo test`: it stands on its own, its
//! code map names what exists, and no crate's modules import one another in a circle.
//! The checks of docs made from the registries live beside the registries, in
//! `heaplab-core`'s own tidy test.

mod imports;

use std::path::PathBuf;

/// The checkout's root, one folder above this crate.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository stands on its own: no file points at an issue tracker's numbers or at
/// folders outside the checkout, which a user of the repository does not have.
#[test]
fn no_file_refers_outside_the_repository() {
    let root = root();
    let mut found = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                // Build output, installed packages and git's own files are not ours.
                if !matches!(
                    name.as_str(),
                    "target" | ".git" | "node_modules" | "pkg" | "test-results"
                ) {
                    stack.push(path);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // binary files (gzip'd traces) hold no references
            };
            if name.ends_with(".lock") || name == "golden.json" {
                continue;
            }
            for (i, line) in text.lines().enumerate() {
                let lower = line.to_lowercase();
                let issue = lower
                    .match_indices("issue ")
                    .any(|(at, _)| lower[at + 6..].starts_with(|c: char| c.is_ascii_digit()));
                // The folder beside the checkout that its makers kept notes in, by
                // its paths; spelled in parts so that this file does not name them.
                let folder = ["sha", "red"].concat();
                let outside = [
                    format!("../{folder}"),
                    format!("{folder}/seeds"),
                    format!("{folder}/scenarios.md"),
                    format!("{folder}/anchors.md"),
                    format!("{folder}/style.md"),
                ]
                .iter()
                .any(|p| line.contains(p.as_str()));
                if issue || outside {
                    found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "references outside the repository:\n{}",
        found.join("\n")
    );
}

/// ARCHITECTURE.md's code map names every crate and source module that exists, and no
/// file that does not: a stranger reading it finds what is there.
#[test]
fn the_code_map_names_what_exists() {
    let root = root();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    // Every name the map writes in backticks, split at spaces and punctuation it may hold.
    let named: std::collections::BTreeSet<String> = map
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|s| {
            s.split([' ', ',', '(', ')'])
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut missing = Vec::new();
    let mut files = std::collections::BTreeSet::new();
    let mut stack = vec![
        root.join("crates"),
        root.join("web"),
        root.join("xtask"),
        root.join("fuzz"),
    ];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(
                    name.as_str(),
                    "node_modules"
                        | "pkg"
                        | "test-results"
                        | "target"
                        | "fonts"
                        | "snapshots"
                        | "proptest-regressions"
                ) {
                    stack.push(path);
                }
                continue;
            }
            let source = name.ends_with(".rs") || name.ends_with(".js") || name.ends_with(".mjs");
            if !source {
                continue;
            }
            files.insert(name.clone());
            let parent = path.parent().unwrap();
            // Judged from the repository's root, so a checkout's own folder name never counts.
            let inside = parent.strip_prefix(&root).unwrap_or(parent);
            let in_src = inside
                .components()
                .any(|c| c.as_os_str() == "src" || c.as_os_str() == "web");
            if !in_src || matches!(name.as_str(), "lib.rs" | "main.rs") {
                continue;
            }
            // A folder's mod.rs is named by its folder (`link/`).
            let wanted = if name == "mod.rs" {
                format!("{}/", parent.file_name().unwrap().to_string_lossy())
            } else {
                name.clone()
            };
            let found = named
                .iter()
                .any(|n| n == &wanted || n.ends_with(&format!("/{wanted}")));
            if !found {
                missing.push(
                    path.strip_prefix(&root)
                        .unwrap_or(&path)
                        .display()
                        .to_string(),
                );
            }
        }
    }
    for crate_dir in std::fs::read_dir(root.join("crates")).unwrap() {
        let name = crate_dir
            .unwrap()
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !map.contains(&format!("### `crates/{name}`")) {
            missing.push(format!("crates/{name} (no heading)"));
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name: {missing:#?}"
    );
    // And the files it names exist, under whatever folder.
    let stale: Vec<&String> = named
        .iter()
        .filter(|n| n.ends_with(".rs") || n.ends_with(".js") || n.ends_with(".mjs"))
        .filter(|n| !files.contains(n.rsplit('/').next().unwrap()))
        .collect();
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {stale:#?}"
    );
}

/// Every crate's source folders: each `src/` under `crates/`, and xtask's.
fn crate_sources() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root().join("xtask/src"));
    dirs.sort();
    dirs
}

/// No module reaches itself through `use crate::…` or `super::…` paths: each crate's
/// modules stand in floors, so a file can be read knowing only those below it.
#[test]
fn no_modules_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    for src in crate_sources() {
        let modules = imports::read_modules(&src);
        for circle in imports::circles(&imports::imports(&modules)) {
            let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
            let krate = src.parent().unwrap().file_name().unwrap().to_string_lossy();
            found.push(format!("{krate}: {}", names.join(" <-> ")));
        }
    }
    assert!(
        found.is_empty(),
        "modules in a circle:\n{}",
        found.join("\n")
    );
}

/// The circle finder itself finds a circle through a `use` tree, a `super::` path in a
/// body and a bare child path, and leaves a folder's own children out.
#[test]
fn the_circle_finder_sees_circles() {
    let modules = |files: &[(&str, &str)]| {
        files
            .iter()
            .map(|(path, text)| {
                (
                    imports::module_of(std::path::Path::new(path)),
                    text.to_string(),
                )
            })
            .collect()
    };
    let circle = modules(&[
        ("lib.rs", "mod link; mod run;"),
        ("link/mod.rs", "mod check; mod codec; pub use codec::{encode, check::Ok};"),
        ("link/check.rs", "use super::{codec::{self, len}, State};"),
        (
            "link/codec.rs",
            "fn f() { super::check::check(); } // crate::run\n#[cfg(test)]\nmod tests { use crate::run; }",
        ),
        ("run.rs", "use crate::link::encode;"),
    ]);
    let found = imports::circles(&imports::imports(&circle));
    let names: Vec<Vec<String>> = found
        .iter()
        .map(|c| c.iter().map(|m| m.join("::")).collect())
        .collect();
    assert_eq!(names, [["link::check", "link::codec"]]);

    let floors = modules(&[
        ("lib.rs", "mod a; mod b; use a::x; use crate::b::y;"),
        ("a/mod.rs", "mod inner; pub use inner::x; use crate::b;"),
        ("a/inner.rs", "use super::super::b::y; use crate::a::Thing;"),
        ("b.rs", "macro_rules! m { () => { $crate::a::x } }"),
    ]);
    assert!(imports::circles(&imports::imports(&floors)).is_empty());
}
