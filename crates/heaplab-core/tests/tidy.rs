//! Docs that must agree with the code: every built-in workload has a page in
//! `workloads/`, generated from the registry so the two never drift apart.
//!
//! After changing a workload, run `UPDATE_DOCS=1 cargo test -p heaplab-core --test tidy`
//! and commit the pages it rewrites.

use std::path::PathBuf;

use heaplab_core::params::ParamSpec;
use heaplab_core::workload::{WorkloadSpec, WORKLOADS};

fn workloads_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../workloads")
}

fn render(w: &WorkloadSpec) -> String {
    let mut out = format!("# {}\n\n", w.title);
    out.push_str(&wrap(w.description));
    out.push_str(&format!(
        "\nRun it: `heaplab run --workload {} --policy size-class` (add `--wset name=value` to change a parameter).\n\n## Parameters\n\n| name | default | range | meaning |\n|---|---|---|---|\n",
        w.id
    ));
    for p in w.params {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            p.name,
            p.default,
            range(p),
            p.doc
        ));
    }
    out
}

fn range(p: &ParamSpec) -> String {
    let v = serde_json::to_value(p).unwrap();
    match v["kind"].as_str() {
        Some("choice") => v["choices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        Some("text") => "text".into(),
        Some("bool") => "true, false".into(),
        _ => format!("{} to {}", v["min"], v["max"]),
    }
}

/// Wraps a paragraph at 90 columns, the width of the repository's prose.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 90 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[test]
fn every_workload_has_a_current_page() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for w in WORKLOADS {
        let path = workloads_dir().join(format!("{}.md", w.id));
        let want = render(w);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if update {
                std::fs::write(&path, &want).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "these workload pages are missing or out of date; run `UPDATE_DOCS=1 cargo test -p heaplab-core --test tidy`: {stale:?}"
    );
}

#[test]
fn no_page_describes_a_workload_that_is_gone() {
    for entry in std::fs::read_dir(workloads_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(id) = name.strip_suffix(".md") {
            assert!(
                id == "README" || WORKLOADS.iter().any(|w| w.id == id),
                "workloads/{name} names no built-in workload"
            );
        }
    }
}

/// A knob as a table of knobs names it: choices in brackets, since they are what a user
/// types after `=`.
fn knob(p: &ParamSpec) -> String {
    let v = serde_json::to_value(p).unwrap();
    match v["choices"].as_array() {
        Some(choices) if v["kind"] == "choice" => {
            let names: Vec<&str> = choices.iter().filter_map(|c| c.as_str()).collect();
            format!("`{}` ({})", p.name, names.join(", "))
        }
        _ => format!("`{}`", p.name),
    }
}

/// The README's table of policy families, from the registry.
fn policies_table() -> String {
    let mut out = String::from("| family | what it models | knobs |\n|---|---|---|\n");
    for f in heaplab_core::policy::FAMILIES {
        let knobs: Vec<String> = f.params.iter().map(knob).collect();
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            f.id,
            f.title,
            knobs.join(", ")
        ));
    }
    out
}

/// The README's table of built-in workloads with the scale each runs at by default.
fn workloads_table() -> String {
    let mut out = String::from("| workload | what it is | default `scale` |\n|---|---|---|\n");
    for w in WORKLOADS {
        let scale = w
            .params
            .iter()
            .find(|p| p.name == "scale")
            .map_or("—".to_string(), |p| p.default.to_string());
        out.push_str(&format!("| `{}` | {} | {scale} |\n", w.id, w.title));
    }
    out
}

/// The README's generated tables match the registries they are made from; with
/// `UPDATE_DOCS=1` they are rewritten in place, between their markers.
#[test]
fn the_readme_tables_come_from_the_registries() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut updated = text.clone();
    let mut stale = Vec::new();
    for (name, table) in [
        ("policies", policies_table()),
        ("workloads", workloads_table()),
    ] {
        let begin = format!("<!-- generated from the registry: {name} -->\n");
        let end = "<!-- end of generated table -->";
        let start = updated
            .find(&begin)
            .unwrap_or_else(|| panic!("README.md has no {begin:?}"))
            + begin.len();
        let stop = start
            + updated[start..]
                .find(end)
                .expect("the generated table ends");
        if updated[start..stop] != table {
            stale.push(name);
            updated.replace_range(start..stop, &table);
        }
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert!(
        stale.is_empty(),
        "README.md's tables of {stale:?} are out of date; run `UPDATE_DOCS=1 cargo test -p heaplab-core --test tidy`"
    );
}
