//! The listings are printed here as text: families, presets, workloads and scenarios.

use heaplab_app::scenario::ScenarioSpec;
use heaplab_core::format::format_bytes;
use serde_json::Value;

/// `heaplab policies`: each family (from the catalog's `families`) with its parameters,
/// then each preset (`presets`) with its values.
pub fn print_policies(families: &Value, presets: &Value) {
    for f in families.as_array().into_iter().flatten() {
        println!(
            "{} — {}",
            f["id"].as_str().unwrap_or(""),
            f["title"].as_str().unwrap_or("")
        );
        println!("  {}", f["description"].as_str().unwrap_or(""));
        print_params(&f["params"]);
        println!();
    }
    println!("Presets (use like a family: --policy glibc-like [--set key=value]...)");
    for p in presets.as_array().into_iter().flatten() {
        println!(
            "  {:<20} {} — {}",
            p["id"].as_str().unwrap_or(""),
            p["family"].as_str().unwrap_or(""),
            p["title"].as_str().unwrap_or("")
        );
        let values: Vec<String> = p["params"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
            .collect();
        println!("      {}", values.join(" "));
    }
}

/// The families whose policy the user brings, after the presets: each with the way to
/// give it and its parameters.
pub fn print_brought(families: &Value) {
    for f in families.as_array().into_iter().flatten() {
        println!();
        println!(
            "{} — -p path/to/mm.wasm[:key=value,...]; see `heaplab mm`",
            f["title"].as_str().unwrap_or("")
        );
        println!("  {}", f["description"].as_str().unwrap_or(""));
        print_params(&f["params"]);
    }
}

/// `heaplab workloads`: each built-in workload (from the catalog's `workloads`) with its
/// parameters.
pub fn print_workloads(workloads: &Value) {
    for w in workloads.as_array().into_iter().flatten() {
        println!(
            "{} — {}",
            w["id"].as_str().unwrap_or(""),
            w["title"].as_str().unwrap_or("")
        );
        println!("  {}", w["description"].as_str().unwrap_or(""));
        if let Some(ns) = w["rate_ns"].as_f64() {
            println!(
                "  Clock: {ns} ns per event unless --clock says otherwise, the pace of a real \
                 run of its events (glibc)"
            );
        }
        print_params(&w["params"]);
        println!();
    }
}

/// `heaplab scenarios`: each seed scenario's id, title and question.
pub fn print_scenarios(all: &[ScenarioSpec]) {
    for s in all {
        println!("{} — {}\n  {}\n", s.id, s.title, s.question);
    }
}

fn print_params(params: &Value) {
    let rows: Vec<(String, String, &Value)> = params
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (default_text(p), range_text(p), p))
        .collect();
    // The default column is as wide as the family's widest default, so that a default
    // with its meaning ("0 (one segment's worth)") does not push its range out of line.
    let width = rows
        .iter()
        .map(|(d, _, _)| d.chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    for (default, range, p) in rows {
        println!(
            "    {:<22} default {default:<width$} [{range}]\n        {}",
            p["name"].as_str().unwrap_or(""),
            p["doc"].as_str().unwrap_or("")
        );
    }
}

/// A parameter's default as the listing shows it: a 0 that stands for something else says
/// what.
fn default_text(p: &Value) -> String {
    if let (Some(means), Some(0)) = (p["zero_means"].as_str(), p["default"].as_u64()) {
        return format!("0 ({means})");
    }
    p["default"].to_string().trim_matches('"').to_string()
}

/// A parameter's allowed values: its choices, or its range (in bytes where it is a size).
fn range_text(p: &Value) -> String {
    match (p["kind"].as_str(), &p["choices"]) {
        (Some("choice"), Value::Array(c)) => c
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        (Some("bool"), _) => "true | false".into(),
        (Some("bytes"), _) => format!(
            "{} ..= {}",
            format_bytes(p["min"].as_u64().unwrap_or(0)),
            format_bytes(p["max"].as_u64().unwrap_or(0))
        ),
        (Some("text"), _) => format!("text of at most {} bytes", p["max"]),
        _ => format!("{} ..= {}", p["min"], p["max"]),
    }
}
