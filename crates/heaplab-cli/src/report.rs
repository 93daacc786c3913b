//! Human-readable output: the run table and the catalog listings.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use heaplab_core::catalog;
use heaplab_core::params::human_bytes;
use heaplab_core::run::RunOutput;
use heaplab_core::simulate::Summary;
use heaplab_core::trace::Skipped;
use serde_json::Value;

use crate::CliError;

/// A row of the run table: its label and how to read it from a summary.
type Row = (&'static str, fn(&Summary) -> String);

const ROWS: &[Row] = &[
    ("events", |s| s.events.to_string()),
    ("allocs / frees / reallocs", |s| {
        format!("{} / {} / {}", s.allocs, s.frees, s.reallocs)
    }),
    ("peak live", |s| human_bytes(s.peak_live_bytes)),
    ("end live", |s| human_bytes(s.end_live_bytes)),
    ("peak resident", |s| human_bytes(s.peak_resident_bytes)),
    ("end resident", |s| human_bytes(s.end_resident_bytes)),
    ("peak committed", |s| human_bytes(s.peak_committed_bytes)),
    ("end committed", |s| human_bytes(s.end_committed_bytes)),
    ("peak reserved", |s| human_bytes(s.peak_reserved_bytes)),
    ("touched", |s| human_bytes(s.touched_bytes)),
    ("page ops (all calls)", |s| s.page_ops.to_string()),
    ("commit ops / pages", |s| {
        format!("{} / {}", s.commit_ops, s.committed_pages_total)
    }),
    ("decommit ops / pages", |s| {
        format!("{} / {}", s.decommit_ops, s.decommitted_pages_total)
    }),
    ("metadata", |s| human_bytes(s.metadata_bytes)),
    ("utilization", |s| format!("{:.1}%", s.utilization * 100.0)),
];

/// A table with a column per run and a row per entry of `ROWS`.
fn summary_table(labels: &[&str], summaries: &[&Summary]) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("")];
    header.extend(labels.iter().map(Cell::new));
    table.set_header(header);
    for (label, get) in ROWS {
        let mut row = vec![Cell::new(label)];
        row.extend(
            summaries
                .iter()
                .map(|s| Cell::new(get(s)).set_alignment(CellAlignment::Right)),
        );
        table.add_row(row);
    }
    table
}

/// A preset's name when the run used one, else the family's.
fn policy_label(o: &RunOutput) -> &str {
    let p = &o.report.config.policy;
    p.preset.as_deref().unwrap_or(&p.family)
}

pub fn print_runs(outputs: &[RunOutput]) {
    let Some(first) = outputs.first() else { return };
    let w = &first.report.config.workload;
    let what = match (&w.path, &first.trace) {
        (Some(p), Some(imported)) => format!("trace {p} ({imported})"),
        (Some(p), None) => format!("trace {p}"),
        (None, _) => format!(
            "workload {} {}",
            w.id,
            Value::Object(w.params.clone().into_iter().collect())
        ),
    };
    println!(
        "{what}, page size {} B",
        first.report.config.provider.page_size
    );
    // Every run read the same file the same way, so one note covers them all; it goes
    // to stderr, as a warning about the input rather than a result.
    if let Some(skipped) = first.trace.as_ref().and_then(|t| t.skipped.as_ref()) {
        print_skipped(skipped);
    }
    let labels: Vec<&str> = outputs.iter().map(policy_label).collect();
    let summaries: Vec<&Summary> = outputs.iter().map(|o| &o.report.summary).collect();
    let mut table = summary_table(&labels, &summaries);
    // The allocator's own counters (Pike-style), every name any run reports.
    let names: std::collections::BTreeSet<&String> = outputs
        .iter()
        .flat_map(|o| o.report.summary.counters.keys())
        .collect();
    for name in names {
        let mut row = vec![Cell::new(name)];
        row.extend(outputs.iter().map(|o| {
            let text = match o.report.summary.counters.get(name) {
                Some(&v) if name.ends_with("_bytes") => human_bytes(v),
                Some(v) => v.to_string(),
                None => "—".into(),
            };
            Cell::new(text).set_alignment(CellAlignment::Right)
        }));
        table.add_row(row);
    }
    println!("{table}");
    for o in outputs {
        let s = &o.report.summary;
        if !s.phases.is_empty() {
            let phases: Vec<String> = s
                .phases
                .iter()
                .map(|p| format!("{} {}", p.label, human_bytes(p.resident_bytes)))
                .collect();
            println!(
                "{}: resident at end of each phase: {}",
                policy_label(o),
                phases.join(", ")
            );
        }
    }
}

/// What a lenient import skipped, by kind, on stderr: a warning about the input.
pub fn print_skipped(skipped: &Skipped) {
    let total: u64 = skipped.values().sum();
    if total == 0 {
        eprintln!("lenient: nothing skipped");
        return;
    }
    let kinds: Vec<String> = skipped
        .iter()
        .map(|(kind, n)| format!("{n} {}", kind.name()))
        .collect();
    eprintln!(
        "lenient: skipped {total} bad lines or events: {}",
        kinds.join(", ")
    );
}

fn print_json(v: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(v).map_err(|e| CliError::failed(e.to_string()))?;
    println!("{text}");
    Ok(())
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
            human_bytes(p["min"].as_u64().unwrap_or(0)),
            human_bytes(p["max"].as_u64().unwrap_or(0))
        ),
        _ => format!("{} ..= {}", p["min"], p["max"]),
    }
}

pub fn list_policies(json: bool) -> Result<(), CliError> {
    let families = catalog::families();
    let presets = catalog::presets();
    if json {
        return print_json(&serde_json::json!({ "families": families, "presets": presets }));
    }
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
    Ok(())
}

pub fn list_workloads(json: bool) -> Result<(), CliError> {
    let workloads = catalog::workloads();
    if json {
        return print_json(&serde_json::json!({ "workloads": workloads }));
    }
    for w in workloads.as_array().into_iter().flatten() {
        println!(
            "{} — {}",
            w["id"].as_str().unwrap_or(""),
            w["title"].as_str().unwrap_or("")
        );
        println!("  {}", w["description"].as_str().unwrap_or(""));
        print_params(&w["params"]);
        println!();
    }
    Ok(())
}

pub fn list_scenarios(json: bool) -> Result<(), CliError> {
    let all = heaplab_core::scenario::scenarios().map_err(CliError::failed)?;
    if json {
        let v = serde_json::to_value(&all).map_err(|e| CliError::failed(e.to_string()))?;
        return print_json(&serde_json::json!({ "scenarios": v }));
    }
    for s in all {
        println!("{} — {}\n  {}\n", s.id, s.title, s.question);
    }
    Ok(())
}

pub fn scenario(args: crate::cli::ScenarioArgs) -> Result<(), CliError> {
    let spec = heaplab_core::scenario::find(&args.id).map_err(CliError::input)?;
    let out =
        heaplab_core::scenario::run_scenario(&spec).map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        let v = serde_json::to_value(&out).map_err(|e| CliError::failed(e.to_string()))?;
        return print_json(&v);
    }
    println!("{}\n\n{}\n", out.title, out.question);
    let per_workload = spec.configs.len();
    for (w, runs) in out.runs.chunks(per_workload).enumerate() {
        let wc = &spec.workloads[w];
        println!(
            "workload {} {}",
            wc.id,
            Value::Object(wc.params.clone().into_iter().collect())
        );
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        let summaries: Vec<&Summary> = runs.iter().map(|r| &r.report.summary).collect();
        let mut table = summary_table(&labels, &summaries);
        if let Some(first) = runs.first() {
            for (i, phase) in first.report.summary.phases.iter().enumerate() {
                let mut row = vec![Cell::new(format!("resident after {}", phase.label))];
                row.extend(runs.iter().map(|r| {
                    let v = r
                        .report
                        .summary
                        .phases
                        .get(i)
                        .map_or(0, |p| p.resident_bytes);
                    Cell::new(human_bytes(v)).set_alignment(CellAlignment::Right)
                }));
                table.add_row(row);
            }
        }
        println!("{table}\n");
    }
    println!("Expected: {}\n", out.expected);
    println!("Finding:");
    for c in &out.finding.checks {
        println!("  {} {}", if c.holds { "✓" } else { "✗" }, c.claim);
    }
    Ok(())
}
