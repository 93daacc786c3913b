//! The modules of each crate and the `crate::`, `super::` and `self::` paths between them,
//! read from the source as text, and the circles those paths make.
//!
//! A module's paths to its own descendants are not counted: a folder's `mod.rs` declares
//! and re-exports its children, and counting that as an import would make a circle of
//! every folder whose files use a type of their parent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module by its path inside its crate (`["link", "codec"]`; the crate root is `[]`).
pub type ModPath = Vec<String>;

/// The module a source file under `src/` holds: `a/b.rs` and `a/b/mod.rs` are `a::b`.
pub fn module_of(relative: &Path) -> ModPath {
    let mut parts: ModPath = relative
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.strip_suffix(".rs").unwrap_or(&file);
    let root = parts.is_empty() && matches!(stem, "lib" | "main");
    if stem != "mod" && !root {
        parts.push(stem.to_string());
    }
    parts
}

/// Every module of the crate whose sources are under `src`, with its text.
pub fn read_modules(src: &Path) -> BTreeMap<ModPath, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.insert(module_of(path.strip_prefix(src).unwrap()), text);
            }
        }
    }
    found
}

/// The text without its `//` comments, so doc links and prose name no module, and without
/// its inline `#[cfg(test)] mod … { … }`: a test may use what uses its module.
fn code_of(text: &str) -> String {
    let mut code: String = text
        .lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    while let Some(at) = code.find("#[cfg(test)]") {
        let after = code[at + 12..].trim_start();
        let Some(open) = after.starts_with("mod ").then(|| after.find('{')).flatten() else {
            code.replace_range(at..at + 12, "");
            continue;
        };
        let open = code.len() - after.len() + open;
        let mut depth = 0;
        let mut end = code.len();
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        code.replace_range(at..end, "");
    }
    code
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a `use` tree names, braces expanded: `super::{a, b::{self, C}}` gives
/// `super::a`, `super::b` and `super::b::C`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<ModPath>) {
    let tree = tree.trim();
    let (head, rest) = match tree.find('{') {
        Some(open) => {
            let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
            (&tree[..open], Some(&tree[open + 1..close]))
        }
        None => (tree, None),
    };
    let head = head.split(" as ").next().unwrap_or(head);
    let mut path = prefix.to_vec();
    for seg in head.split("::").map(str::trim) {
        if !seg.is_empty() && seg != "self" && seg != "*" {
            path.push(seg.to_string());
        }
    }
    let Some(inner) = rest else {
        out.push(path);
        return;
    };
    // Split at the commas between the braces' items, not those of nested braces.
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&path, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand(&path, &inner[start..], out);
}

/// Every path a module's code names that may lead to another module of its crate: the
/// trees of its `use` items and the `crate::`, `super::` and `self::` paths in its body.
fn paths_in(code: &str) -> Vec<ModPath> {
    let mut paths = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("use ") {
        let start = at + found;
        at = start + 4;
        // A `use` item starts a statement, perhaps after its visibility; the word in
        // prose or a string does not.
        let before = code[..start].trim_end();
        let before = before
            .strip_suffix(')')
            .and_then(|b| b.rfind("pub(").map(|p| &b[..p]))
            .or_else(|| before.strip_suffix("pub"))
            .unwrap_or(before)
            .trim_end();
        if !(before.is_empty() || before.ends_with([';', '{', '}', ']'])) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        let tree = &code[at..end];
        if tree
            .chars()
            .all(|c| is_ident(c) || c.is_whitespace() || ":{},*".contains(c))
        {
            expand(&[], tree, &mut paths);
        }
    }
    for anchor in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(found) = code[at..].find(anchor) {
            let start = at + found;
            at = start + anchor.len();
            // `$crate::` in a macro and a longer name ending in `self` are not paths.
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == '$' || c == ':') {
                continue;
            }
            let tail: String = code[start..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            paths.push(
                tail.split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
    }
    paths
}

/// The module `path`, named inside module `from`, leads to: the longest of its prefixes
/// that is a module of the crate, or `None` for a path out of the crate.
fn resolve(
    from: &ModPath,
    path: &[String],
    modules: &BTreeMap<ModPath, String>,
) -> Option<ModPath> {
    let (mut base, mut rest) = (from.clone(), path);
    match rest.first().map(String::as_str) {
        Some("crate") => (base, rest) = (Vec::new(), &rest[1..]),
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        // A bare first segment is a path from here only when it names a child module.
        Some(first) => {
            let mut child = from.clone();
            child.push(first.to_string());
            if !modules.contains_key(&child) {
                return None;
            }
        }
        None => return None,
    }
    let mut target = base.clone();
    for seg in rest {
        target.push(seg.clone());
        if !modules.contains_key(&target) {
            target.pop();
            break;
        }
    }
    modules.contains_key(&target).then_some(target)
}

/// Which modules each module names, a module's own descendants left out.
pub fn imports(modules: &BTreeMap<ModPath, String>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    modules
        .iter()
        .map(|(from, text)| {
            let to = paths_in(&code_of(text))
                .iter()
                .filter_map(|p| resolve(from, p, modules))
                .filter(|t| !t.starts_with(from))
                .collect();
            (from.clone(), to)
        })
        .collect()
}

/// The circles: each set of two or more modules that reach one another, by Tarjan's
/// strongly connected components.
pub fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a ModPath) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}
