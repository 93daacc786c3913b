//! `run`'s report is printed here as text, with `run --real`'s figures and lenient skips.

use comfy_table::{Cell, CellAlignment};
use heaplab_core::config::TouchMode;
use heaplab_core::format::{format_bytes, format_count, format_counted};
use heaplab_core::run::RunOutput;
use heaplab_core::simulate::Summary;
use heaplab_core::trace::Skipped;
use heaplab_native::RealReport;

use super::table::{grid, summary_table};
use super::{label, workload_line};

/// The table of runs: a column per run, the workload above it (and what a lenient import
/// skipped on stderr), then each run's memory at the end of each phase.
/// The line under the table saying how much time the model saw pass, on which clock: one
/// line when every config saw the same (simulated runs read the same events on the same
/// clock), else one per config (each run over real memory tells its own time).
pub fn print_model_time(outputs: &[RunOutput]) {
    let times: Vec<_> = outputs.iter().map(|o| o.report.summary.time).collect();
    if times.windows(2).all(|w| w[0] == w[1]) {
        if let Some(line) = times.first().and_then(|t| t.describe()) {
            println!("{line}");
        }
        return;
    }
    for (o, time) in outputs.iter().zip(&times) {
        if let Some(line) = time.describe() {
            println!("{}: {line}", label(&o.report.config));
        }
    }
}

pub fn print_runs(outputs: &[RunOutput]) {
    let Some(first) = outputs.first() else { return };
    let w = &first.report.config.workload;
    let what = match (&w.path, &first.trace) {
        (Some(p), Some(imported)) => format!("trace {p} ({imported})"),
        _ => workload_line(w),
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
    let labels: Vec<String> = outputs.iter().map(|o| label(&o.report.config)).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let summaries: Vec<&Summary> = outputs.iter().map(|o| &o.report.summary).collect();
    let mut table = summary_table(&labels, &summaries);
    // The counters a policy keeps of its own (the pool's are Pike's), every name any run
    // reports; a policy that keeps none shows a dash rather than live figures renamed.
    let names: std::collections::BTreeSet<&String> = outputs
        .iter()
        .flat_map(|o| o.report.summary.counters.keys())
        .collect();
    if !names.is_empty() {
        table.add_row(vec![
            Cell::new("Allocator counters").add_attribute(comfy_table::Attribute::Bold)
        ]);
    }
    for name in names {
        let mut row = vec![Cell::new(format!("  {name}"))];
        row.extend(outputs.iter().map(|o| {
            let text = match o.report.summary.counters.get(name) {
                Some(&v) if name.ends_with("_bytes") => format_bytes(v),
                Some(&v) => format_count(i128::from(v)),
                None => "—".into(),
            };
            Cell::new(text).set_alignment(CellAlignment::Right)
        }));
        table.add_row(row);
    }
    println!("{table}");
    let presets = outputs
        .iter()
        .filter_map(|o| o.report.config.policy.preset.as_deref());
    if let Some(note) = heaplab_core::presets::uncalibrated_note(presets) {
        println!("{note}");
    }
    for o in outputs {
        let s = &o.report.summary;
        if !s.phases.is_empty() {
            let phases: Vec<String> = s
                .phases
                .iter()
                .map(|p| format!("{} {}", p.label, format_bytes(p.resident_bytes)))
                .collect();
            println!(
                "{}: resident at end of each phase: {}",
                label(&o.report.config),
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
        "lenient: skipped {}: {}",
        format_counted(
            i128::from(total),
            "bad line or event",
            "bad lines or events"
        ),
        kinds.join(", ")
    );
}

/// Why a run's real peak is below the trace's peak live, when it is: a figure that looks
/// impossible is never printed without its reason.
fn below_peak_live(r: &RealReport) -> Option<String> {
    let (real, live) = (
        r.real.real_peak_resident_bytes,
        r.report.summary.peak_live_bytes(),
    );
    if real >= live {
        return None;
    }
    let why = match r.report.config.touch {
        TouchMode::First => "blocks are written at their first byte only (--touch first), so pages a block spans but never writes are not resident",
        TouchMode::None => "blocks are never written (--touch none), so only the allocator's own writes make pages resident",
        TouchMode::All if r.real.max_residency_mismatch_pages > 0 => "the page map and mincore disagreed (see the mismatch above)",
        TouchMode::All => "every byte was written, so this should not happen: please report it with the trace",
    };
    Some(format!(
        "the real peak resident, {}, is below the peak live, {}: {why}",
        format_bytes(real),
        format_bytes(live)
    ))
}

fn opt_bytes(b: Option<u64>) -> String {
    b.map_or_else(|| "n/a".into(), format_bytes)
}

/// `run --real`'s figures, after the table of runs: time per event, the kernel's view of
/// residency beside the model's, and where they first disagreed.
pub fn print_real(reports: &[RealReport]) {
    let mut header = vec!["over real memory".to_string()];
    header.extend(reports.iter().map(|r| label(&r.report.config)));
    let col = |f: &dyn Fn(&RealReport) -> String| reports.iter().map(f).collect::<Vec<_>>();
    let rows = vec![
        (
            "ns per event (median)",
            col(&|r| format!("{:.1}", r.real.ns_per_event)),
        ),
        (
            "real peak resident (mincore)",
            col(&|r| format_bytes(r.real.real_peak_resident_bytes)),
        ),
        (
            "real end resident (mincore)",
            col(&|r| format_bytes(r.real.real_end_resident_bytes)),
        ),
        (
            "residency mismatch (max pages)",
            col(&|r| r.real.max_residency_mismatch_pages.to_string()),
        ),
        (
            "process peak RSS",
            col(&|r| opt_bytes(r.real.real_peak_rss_bytes)),
        ),
        (
            "process RSS before events",
            col(&|r| opt_bytes(r.real.real_rss_before_bytes)),
        ),
        (
            "same summary as simulated",
            col(&|r| {
                if r.real.matches_simulation {
                    "yes"
                } else {
                    "NO"
                }
                .into()
            }),
        ),
    ];
    println!("{}", grid(header, rows));
    for r in reports {
        if let Some(m) = &r.real.first_residency_mismatch {
            println!(
                "{}: first residency mismatch after event {}: page {:#x} is {} in the model, {} per mincore ({})",
                label(&r.report.config),
                format_count(i128::from(m.event)),
                m.addr,
                if m.model_resident { "resident" } else { "not resident" },
                if m.model_resident { "not resident" } else { "resident" },
                format_counted(i128::from(m.pages), "page disagrees", "pages disagree")
            );
        }
        if let Some(why) = below_peak_live(r) {
            println!("{}: {why}", label(&r.report.config));
        }
    }
    println!(
        "real resident bytes are the provider's mappings per mincore; process RSS (/proc/self/statm) also holds heaplab, its decoded events and its page map"
    );
}
