//! Everything a front end needs to build its menus, as one JSON value: workloads, policy
//! families with their parameters, page sizes and providers. The CLI's `--json` listings
//! and the browser's editor both read this, so a knob added once shows up everywhere.

use serde_json::{json, Value};

use heaplab_core::config::{ProviderKind, PAGE_SIZES};
use heaplab_core::policy::FAMILIES;
use heaplab_core::workload::WORKLOADS;

/// The whole catalog.
pub fn catalog() -> Value {
    json!({
        "workloads": workloads(),
        "families": families(),
        "brought_families": brought_families(),
        "presets": presets(),
        "page_sizes": PAGE_SIZES,
        "providers": providers(),
    })
}

/// The page providers, as [`ProviderKind`] names and describes them.
pub fn providers() -> Value {
    ProviderKind::ALL
        .iter()
        .map(|p| json!({"id": p.id(), "title": p.title(), "description": p.description()}))
        .collect()
}

/// Every built-in workload, with `rate_ns`, the real pace it runs at when a run gives no
/// clock (`null` for those without one).
pub fn workloads() -> Value {
    WORKLOADS
        .iter()
        .map(|w| {
            json!({
                "id": w.id,
                "title": w.title,
                "description": w.description,
                "params": w.params,
                "rate_ns": w.rate_ns(),
            })
        })
        .collect()
}

/// Presets with their values typed as the family's parameters are (numbers for sizes),
/// so a front end can compare them with what a user typed.
pub fn presets() -> Value {
    heaplab_core::presets::PRESETS
        .iter()
        .map(|p| {
            let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
            let specs = p.family.spec().params;
            let typed: serde_json::Map<String, Value> = p
                .params
                .iter()
                .filter_map(|(k, text)| {
                    let spec = specs.iter().find(|s| s.name == *k)?;
                    let value = spec.parse_text(text).ok()?;
                    Some((k.to_string(), serde_json::to_value(value).ok()?))
                })
                .collect();
            v["params"] = Value::Object(typed);
            v
        })
        .collect()
}

pub fn families() -> Value {
    family_list(FAMILIES)
}

/// The families whose policy the user brings (an allocator module), listed apart: menus
/// cannot offer them without the module.
pub fn brought_families() -> Value {
    family_list(heaplab_core::policy::BROUGHT_FAMILIES)
}

fn family_list(families: &[heaplab_core::policy::FamilySpec]) -> Value {
    families
        .iter()
        .map(|f| json!({"id": f.id, "title": f.title, "description": f.description, "params": f.params}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_valid_and_listed() {
        let c = catalog();
        for family in c["families"].as_array().unwrap() {
            for p in family["params"].as_array().unwrap() {
                assert!(!p["default"].is_null(), "{p}");
                assert!(!p["doc"].as_str().unwrap().is_empty(), "{p}");
            }
        }
        assert_eq!(c["workloads"].as_array().unwrap().len(), WORKLOADS.len());
    }

    /// A meaning for 0 is only shown where 0 is allowed, and a knob whose doc gives 0 a
    /// meaning says so in `zero_means` too, so the editor never shows "0 B" for it.
    #[test]
    fn zero_has_a_meaning_where_the_doc_gives_it_one() {
        let mut meanings = 0;
        // The workloads' knobs go through the same editor, so they are held to the same rule.
        let knobs = FAMILIES
            .iter()
            .map(|f| (f.id, f.params))
            .chain(WORKLOADS.iter().map(|w| (w.id, w.params)));
        for (owner, params) in knobs {
            for p in params {
                let doc_says = p.doc.contains("0 means")
                    || p.doc.contains("0 turns")
                    || p.doc.contains("0 keeps");
                assert_eq!(!p.zero_means.is_empty(), doc_says, "{owner}.{}", p.name);
                if !p.zero_means.is_empty() {
                    meanings += 1;
                    assert!(p.parse_text("0").is_ok(), "{owner}.{} refuses 0", p.name);
                }
            }
        }
        assert_eq!(meanings, 15);
        let json = families();
        let commit = json
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["params"].as_array().unwrap())
            .find(|p| p["name"] == "commit_granularity")
            .unwrap();
        assert_eq!(commit["zero_means"], "one page");
    }
}
