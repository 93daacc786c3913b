//! `cargo xtask dist`: the page as a static site that any static host serves, under any
//! path.
//!
//! The site is web/'s own files and the wasm build in web/pkg, copied; what only the
//! tests and the benches need (node_modules, tests, bench, test-results, the npm
//! manifests) stays behind. Every URL the page uses is relative, so the folder works at
//! `https://example.org/tools/heaplab/` as well as at a host's root; `write_site` checks
//! that of every file it copies, since one `/pkg/...` would break only the hosted page.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// What in web/ is for developing the page rather than for serving it.
const LEFT_OUT: &[&str] = &[
    "node_modules",
    "tests",
    "bench",
    "test-results",
    "package.json",
    "package-lock.json",
];

/// A file `write_site` puts in the folder it writes, so that a later `dist` may replace
/// that folder and no other: `--out` naming a folder of one's own is refused, not wiped.
const MARKER: &str = ".heaplab-dist";

/// Where the site goes without `--out`: inside the target folder, which is never
/// committed.
pub fn default_out(target: &Path) -> PathBuf {
    target.join("dist")
}

/// Reads `--out DIR` or `--out=DIR`; `None` when it is not given.
pub fn parse_out(rest: &[String]) -> Result<Option<PathBuf>> {
    let mut out = None;
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        let value = if arg == "--out" {
            args.next().context("`--out` needs a folder")?.as_str()
        } else if let Some(value) = arg.strip_prefix("--out=") {
            value
        } else {
            bail!("unexpected argument `{arg}`");
        };
        if value.is_empty() {
            bail!("`--out` needs a folder");
        }
        out = Some(PathBuf::from(value));
    }
    Ok(out)
}

/// Copies the page in `web` (whose `pkg` the wasm build has filled) into `out`, replacing
/// a site an earlier run wrote there.
pub fn write_site(web: &Path, out: &Path) -> Result<()> {
    let glue = web.join("pkg/heaplab_wasm.js");
    if !glue.is_file() {
        bail!(
            "{} is missing: the wasm build must run before the site is copied",
            glue.display()
        );
    }
    // A site inside web/ would be copied into itself, folder after folder.
    let inside = std::path::absolute(out)
        .ok()
        .zip(std::path::absolute(web).ok())
        .is_some_and(|(out, web)| out.starts_with(web));
    if inside {
        bail!(
            "{} is inside {}, which the site is copied from; give `--out` a folder elsewhere",
            out.display(),
            web.display()
        );
    }
    clear(out)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(
        out.join(MARKER),
        "heaplab's static site, written by `cargo xtask dist`, which replaces this folder.\n",
    )
    .with_context(|| format!("writing {}", out.join(MARKER).display()))?;
    let mut absolute = Vec::new();
    copy_dir(web, out, true, &mut absolute)?;
    if !absolute.is_empty() {
        bail!(
            "the page would not work under a sub-path; make these URLs relative:\n{}",
            absolute.join("\n")
        );
    }
    Ok(())
}

/// Empties the way for a new site: a missing or empty folder, or one an earlier run
/// wrote (it has the marker), and nothing else.
fn clear(out: &Path) -> Result<()> {
    let Ok(mut entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    if entries.next().is_none() {
        return Ok(());
    }
    if !out.join(MARKER).is_file() {
        bail!(
            "{} is not empty and is not a site `cargo xtask dist` wrote; give `--out` a new or empty folder",
            out.display()
        );
    }
    std::fs::remove_dir_all(out).with_context(|| format!("removing {}", out.display()))
}

/// Copies `from` into `to`, leaving out hidden files and, at web/'s top level, `LEFT_OUT`;
/// each page file's root-absolute URLs are added to `absolute`.
fn copy_dir(from: &Path, to: &Path, top: bool, absolute: &mut Vec<String>) -> Result<()> {
    let entries = std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || (top && LEFT_OUT.contains(&name.as_str())) {
            continue;
        }
        let (source, dest) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&dest)
                .with_context(|| format!("creating {}", dest.display()))?;
            copy_dir(&source, &dest, false, absolute)?;
            continue;
        }
        std::fs::copy(&source, &dest)
            .with_context(|| format!("copying {} to {}", source.display(), dest.display()))?;
        if matches!(
            source.extension().and_then(|e| e.to_str()),
            Some("html" | "js" | "mjs" | "css")
        ) {
            let text = std::fs::read_to_string(&source)
                .with_context(|| format!("reading {}", source.display()))?;
            for (line, url) in root_absolute_urls(&text) {
                absolute.push(format!("{}:{line}: {url}", source.display()));
            }
        }
    }
    Ok(())
}

/// The URLs in a page file that start at the host's root (`/pkg/...`) or name a host of
/// their own (`//host/...`), each with its line: such a URL leaves a site served under a
/// sub-path. Only the places the page loads from are read: HTML's `src` and `href`,
/// JavaScript's `import`, `new URL`, `new Worker` and `fetch`, CSS's `url()`.
fn root_absolute_urls(text: &str) -> Vec<(usize, String)> {
    const OPENERS: &[&str] = &[
        "src=",
        "href=",
        "from ",
        "import(",
        "new URL(",
        "new Worker(",
        "fetch(",
        "url(",
    ];
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for opener in OPENERS {
            for (at, _) in line.match_indices(opener) {
                let after = line[at + opener.len()..].trim_start();
                let url = after.trim_start_matches(['"', '\'', '`']);
                if url.starts_with('/') {
                    let end = url
                        .find(['"', '\'', '`', ')', ' ', '>'])
                        .unwrap_or(url.len());
                    found.push((index + 1, url[..end].to_string()));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn out_is_optional_and_parses_both_spellings() {
        assert_eq!(parse_out(&[]).unwrap(), None);
        assert_eq!(
            parse_out(&args(&["--out", "site"])).unwrap(),
            Some(PathBuf::from("site"))
        );
        assert_eq!(
            parse_out(&args(&["--out=a/b"])).unwrap(),
            Some(PathBuf::from("a/b"))
        );
        assert!(parse_out(&args(&["--out"])).is_err());
        assert!(parse_out(&args(&["--out="])).is_err());
        assert!(parse_out(&args(&["--port", "1"])).is_err());
    }

    #[test]
    fn root_absolute_urls_are_found_where_the_page_loads_from() {
        let page = r#"<script type="module" src="/js/main.js"></script>
<link rel="icon" href="favicon.svg">
import init from '/pkg/heaplab_wasm.js';
import { a } from '../pkg/heaplab_wasm.js';
const w = new Worker(new URL('//cdn.example/worker.js', import.meta.url));
body { background: url(/img/a.png); }
const parts = path.split('/');"#;
        assert_eq!(
            root_absolute_urls(page),
            vec![
                (1, "/js/main.js".to_string()),
                (3, "/pkg/heaplab_wasm.js".to_string()),
                (5, "//cdn.example/worker.js".to_string()),
                (6, "/img/a.png".to_string()),
            ]
        );
    }

    /// A scratch folder of this test's own, emptied first.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-dist-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Every file under `dir`, relative to it, sorted.
    fn files(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path.strip_prefix(dir).unwrap();
                    found.push(relative.to_string_lossy().into_owned());
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn the_site_is_the_page_and_its_wasm_without_what_tests_need() {
        let root = scratch("copy");
        let web = root.join("web");
        for file in [
            "index.html",
            "worker.js",
            "style.css",
            "js/main.js",
            "js/teach/panel.js",
            "pkg/heaplab_wasm.js",
            "pkg/heaplab_wasm_bg.wasm",
            "pkg/.gitignore",
            "package.json",
            "package-lock.json",
            "tests/support.mjs",
            "bench/page.mjs",
            "node_modules/playwright-core/index.js",
            "test-results/shot.txt",
        ] {
            write(&web.join(file), "import x from './y.js';\n");
        }
        let out = root.join("out");
        write_site(&web, &out).unwrap();
        assert_eq!(
            files(&out),
            [
                MARKER,
                "index.html",
                "js/main.js",
                "js/teach/panel.js",
                "pkg/heaplab_wasm.js",
                "pkg/heaplab_wasm_bg.wasm",
                "style.css",
                "worker.js",
            ]
        );

        // A second run replaces the first site, stale files and all.
        write(&out.join("old.js"), "");
        std::fs::remove_file(web.join("style.css")).unwrap();
        write_site(&web, &out).unwrap();
        assert!(!out.join("old.js").exists());
        assert!(!out.join("style.css").exists());

        // A root-absolute URL in any page file fails the site, naming the file and line.
        write(
            &web.join("js/main.js"),
            "// the page\nimport a from '/pkg/heaplab_wasm.js';\n",
        );
        let err = format!("{:#}", write_site(&web, &out).unwrap_err());
        assert!(err.contains("main.js:2: /pkg/heaplab_wasm.js"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_dist_did_not_write_is_never_replaced() {
        let root = scratch("refuse");
        let web = root.join("web");
        write(&web.join("index.html"), "<p>page</p>\n");
        write(&web.join("pkg/heaplab_wasm.js"), "\n");
        let mine = root.join("mine");
        write(&mine.join("notes.txt"), "mine\n");
        let err = format!("{:#}", write_site(&web, &mine).unwrap_err());
        assert!(err.contains("is not empty and is not a site"), "{err}");
        assert!(mine.join("notes.txt").is_file());

        // An empty folder is taken.
        let empty = root.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        write_site(&web, &empty).unwrap();
        assert!(empty.join("index.html").is_file());

        // Nor is a folder inside the page's own, which the copy would walk into.
        let err = format!("{:#}", write_site(&web, &web.join("site")).unwrap_err());
        assert!(err.contains("which the site is copied from"), "{err}");
        assert!(!web.join("site").exists());

        // Without the wasm build there is no site to write.
        std::fs::remove_dir_all(web.join("pkg")).unwrap();
        let err = format!("{:#}", write_site(&web, &root.join("new")).unwrap_err());
        assert!(err.contains("the wasm build must run"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
