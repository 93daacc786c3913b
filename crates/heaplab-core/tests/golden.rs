//! Results that must not move, compared byte for byte with `tests/golden.json`: the full
//! summary and series of
//! - every preset and every family (with its defaults, over the OS-like provider and over
//!   WebAssembly linear memory) on the first 20,000 events of every built-in workload;
//! - every preset late in a longer run of every workload (up to 300,000 events);
//! - every knob of every family at a setting other than its default (each choice of a
//!   choice knob), on two workloads.
//!
//! Speed work never changes a number, so an optimisation that alters this file is a bug.
//! The file also holds the bound on the simulator's own memory (a target in BENCHMARKS.md),
//! which speed work must keep as well.
//! When a change to a policy or a workload is meant to change results, run
//! `UPDATE_GOLDEN=1 cargo test -p heaplab-core --test golden`, read the diff of the file it
//! rewrites, and commit it with the change.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use heaplab_core::clock::Clock;
use heaplab_core::config::{PolicyConfig, ProviderKind, RunConfig};
use heaplab_core::params::{ParamKind, ParamSpec};
use heaplab_core::policy::FAMILIES;
use heaplab_core::presets::PRESETS;
use heaplab_core::simulate::{sim_provider, SimError, Simulation};
use heaplab_core::workload;
use serde_json::{json, Value};

/// Each run of the first matrix stops after this many events, so the whole matrix stays
/// quick; the cut is a clean stop, and the summary covers the events before it.
const CUT: u64 = 20_000;

/// The late runs stop here, or at the workload's end.
const LATE_CUT: u64 = 300_000;

/// The workloads a knob's other settings run on, late into each: threads, large blocks
/// and a heap that shrinks (`browser`), holes (`fragment`), arenas (`jit`), balloons of
/// memory given back (`balloon`), blocks large enough to be mapped on their own (`big`),
/// many threads freeing each other's blocks (`linker`).
const KNOB_WORKLOADS: [&str; 6] = ["browser", "fragment", "jit", "balloon", "big", "linker"];

/// Every preset and every family with defaults over the OS-like provider, and every family
/// over WebAssembly linear memory (which can neither decommit nor release). A preset and a
/// family may share a name (`buddy`), so each key says which it is.
fn configs() -> Vec<(String, PolicyConfig, ProviderKind)> {
    let mut out = Vec::new();
    for p in PRESETS {
        out.push((
            format!("preset {}", p.id),
            PolicyConfig::named(p.id),
            ProviderKind::Sim,
        ));
    }
    for f in FAMILIES {
        let family = PolicyConfig {
            family: f.id.to_string(),
            preset: None,
            params: BTreeMap::new(),
        };
        out.push((
            format!("family {}", f.id),
            family.clone(),
            ProviderKind::Sim,
        ));
        out.push((
            format!("family {}@wasm", f.id),
            family,
            ProviderKind::WasmLinear,
        ));
    }
    out
}

/// Knobs that act only beside another's setting other than its default, with that
/// setting: a delay counts only for a policy that delays, a size only for the cache it
/// sizes.
const ENABLERS: &[(&str, &str, &str, &str)] = &[
    ("free-list", "release_delay", "release_free_pages", "delay"),
    ("free-list", "tcache_max", "tcache_count", "7"),
    ("size-class", "cache_size", "empty_pages", "cache"),
    ("size-class", "purge_extend_ms", "decommit_ms", "5"),
    ("size-class", "min_extend", "free_lists", "sharded"),
    // Only freed pages kept resident make runs that a fit can refuse.
    ("size-class", "dirty_max_fit", "empty_pages", "delay"),
    // Huge pages need a granule committed whole: segments committed at once.
    ("size-class", "huge_pages", "commit_granularity", "4MiB"),
    (
        "size-class",
        "page_min_blocks",
        "medium_page_size",
        "512KiB",
    ),
    (
        "size-class",
        "medium_pages_aligned",
        "medium_page_size",
        "512KiB",
    ),
    // Large pages sit above the medium pages and hold classes up to an eighth of their
    // size, which the default large threshold stops short of.
    (
        "size-class",
        "large_page_size",
        "medium_page_size",
        "512KiB",
    ),
    ("size-class", "large_page_size", "large_threshold", "1MiB"),
];

/// Knobs tried at a number of their own rather than the first near their default that
/// resolves: half the trim threshold is still below the heap's top pad, so the top is
/// trimmed just as often; large pages as mimalloc 3 has them.
const SETTINGS: &[(&str, &str, u64)] = &[
    ("free-list", "trim_threshold", 512 << 10),
    ("size-class", "large_page_size", 4 << 20),
];

/// Knobs that act only when the run has a clock, and the pace their runs are given: at
/// 1 µs an event, `decommit_ms = 7` is 7,000 events against the default 10,000.
const CLOCKED: &[(&str, &str)] = &[
    ("size-class", "decommit_ms"),
    ("size-class", "purge_extend_ms"),
];
const CLOCK: Clock = Clock::Rate(1000.0);

/// `policy` with the setting that makes `knob` act, if it needs one.
fn enabled(family: &str, knob: &str, policy: &mut PolicyConfig) {
    for (f, k, other, value) in ENABLERS {
        if *f == family && *k == knob {
            let value = value
                .parse::<i64>()
                .map_or(Value::from(*value), Value::from);
            policy.params.insert((*other).into(), value);
        }
    }
}

/// The settings other than its default a knob is tried at: every other choice, the other
/// truth value, or the first of a few numbers near the default (half, twice, ...) that the
/// family takes beside its other defaults.
fn other_settings(family: &str, p: &ParamSpec) -> Vec<Value> {
    if let Some((_, _, v)) = SETTINGS
        .iter()
        .find(|(f, k, _)| *f == family && *k == p.name)
    {
        return vec![Value::from(*v)];
    }
    let candidates: Vec<Value> = match p.kind {
        ParamKind::Choice(choices) => {
            return choices
                .iter()
                .filter(|c| **c != p.default)
                .map(|c| Value::from(*c))
                .collect()
        }
        ParamKind::Bool => return vec![Value::from(p.default != "true")],
        ParamKind::Text { .. } => return Vec::new(),
        ParamKind::Int { min, max } => {
            let d: i64 = p.default.parse().unwrap();
            let tries = if d == 0 {
                vec![7, 64, 1]
            } else {
                vec![d / 2, d * 2, d * 4, d + 1, d - 1]
            };
            tries
                .into_iter()
                .filter(|v| (min..=max).contains(v) && *v != d)
                .map(Value::from)
                .collect()
        }
        ParamKind::Bytes { min, max, pow2 } => {
            let d = heaplab_core::params::parse_bytes(p.default).unwrap() as u64;
            let tries = if d == 0 {
                vec![256 << 10, 128, 4096, 16]
            } else {
                vec![d / 2, d * 2, d * 4, d / 4]
            };
            tries
                .into_iter()
                .filter(|v| (min..=max).contains(v) && *v != d && (!pow2 || v.is_power_of_two()))
                .map(Value::from)
                .collect()
        }
        ParamKind::Float { min, max } => {
            let d: f64 = p.default.parse().unwrap();
            [d * 2.0, d / 2.0, 0.5, 1.0]
                .into_iter()
                .filter(|v| (min..=max).contains(v) && *v != d)
                .map(Value::from)
                .collect()
        }
    };
    // The first number the family resolves with; a knob whose every candidate is refused
    // fails the test, so that no knob goes unexercised unnoticed.
    let first = candidates.into_iter().find(|v| {
        let mut c = RunConfig::new("tree_churn", family);
        enabled(family, p.name, &mut c.policy);
        c.policy.params.insert(p.name.into(), v.clone());
        c.resolve().is_ok()
    });
    vec![first.unwrap_or_else(|| panic!("{family}.{}: no other setting resolves", p.name))]
}

/// The summary and series of `policy` on workload `w` at `scale`, stopped after `cut`
/// events.
fn run_one(w: &str, policy: &PolicyConfig, provider: ProviderKind) -> Value {
    run_cut(w, policy, provider, 0.01, CUT, 16, None)
}

fn run_cut(
    w: &str,
    policy: &PolicyConfig,
    provider: ProviderKind,
    scale: f64,
    cut: u64,
    points: usize,
    clock: Option<Clock>,
) -> Value {
    let mut c = RunConfig::new(w, "bump");
    c.clock = clock;
    c.policy = policy.clone();
    c.provider.kind = provider;
    c.workload.params.insert("scale".into(), Value::from(scale));
    // A few points keep the file short while still pinning the recorder's merging.
    c.series_points = points;
    let c = c.resolve().unwrap();
    let spec = workload::find(w).unwrap();
    let params = c.workload_params().unwrap();
    let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
    let mut n = 0u64;
    let outcome = spec.generate(&params, &mut |e| {
        if n == cut {
            return Err(None);
        }
        n += 1;
        sim.apply(e).map_err(Some)
    });
    if let Err(Some(e)) = outcome {
        let e: SimError = e;
        // An error is a result too: pin its message rather than the summary.
        return json!({ "error": e.to_string() });
    }
    let (summary, series) = sim.finish();
    let mut summary = serde_json::to_value(&summary).unwrap();
    // A built-in workload runs at the rate given, else at its own declared pace (the
    // MallocBench ports), else without a clock, so its time is a rate's product or
    // nothing; it is checked here rather than repeated in every entry of the file. The
    // product is worked out in whole nanoseconds, apart from the clock's own arithmetic,
    // so that it checks it.
    let time = summary.as_object_mut().unwrap().remove("time");
    let clock = c.model_clock();
    let elapsed = clock.map(|c| match c {
        Clock::Rate(ns) => {
            assert_eq!(
                ns.fract(),
                0.0,
                "the golden runs' paces are whole nanoseconds"
            );
            n * ns as u64
        }
        other => panic!("{other}: the golden runs are given rates only"),
    });
    assert_eq!(
        time,
        Some(json!({ "clock": clock.map(|c| c.to_string()), "elapsed_ns": elapsed, "marks": 0 }))
    );
    json!({ "summary": summary, "series": series })
}

/// Every run the golden file pins, by key.
fn all_runs() -> BTreeMap<String, Value> {
    let mut all: BTreeMap<String, Value> = BTreeMap::new();
    let workloads: Vec<&str> = workload::WORKLOADS.iter().map(|w| w.id).collect();
    for (name, policy, provider) in configs() {
        for w in &workloads {
            all.insert(format!("{name} / {w}"), run_one(w, &policy, provider));
        }
    }
    for f in FAMILIES {
        let policy = PolicyConfig {
            family: f.id.to_string(),
            preset: None,
            params: BTreeMap::new(),
        };
        for w in KNOB_WORKLOADS {
            let late = run_cut(w, &policy, ProviderKind::Sim, 0.03, LATE_CUT, 8, None);
            all.insert(format!("late family {} / {w}", f.id), late);
        }
    }
    for p in PRESETS {
        for w in &workloads {
            let late = run_cut(
                w,
                &PolicyConfig::named(p.id),
                ProviderKind::Sim,
                0.03,
                LATE_CUT,
                8,
                None,
            );
            all.insert(format!("late preset {} / {w}", p.id), late);
        }
        // A preset whose delays count time runs on a clock too, where they do.
        if p.params.iter().any(|(k, _)| *k == "decommit_ms") {
            for w in KNOB_WORKLOADS {
                let policy = PolicyConfig::named(p.id);
                let run = run_cut(
                    w,
                    &policy,
                    ProviderKind::Sim,
                    0.03,
                    LATE_CUT,
                    8,
                    Some(CLOCK),
                );
                all.insert(format!("clocked preset {} / {w}", p.id), run);
            }
        }
    }
    for f in FAMILIES {
        for spec in f.params {
            for value in other_settings(f.id, spec) {
                let mut policy = PolicyConfig {
                    family: f.id.to_string(),
                    preset: None,
                    params: BTreeMap::new(),
                };
                enabled(f.id, spec.name, &mut policy);
                policy.params.insert(spec.name.into(), value.clone());
                let with: Vec<String> = policy
                    .params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                for w in KNOB_WORKLOADS {
                    let key = format!("knob {} {} / {w}", f.id, with.join(" "));
                    let clock = CLOCKED.contains(&(f.id, spec.name)).then_some(CLOCK);
                    let run = run_cut(w, &policy, ProviderKind::Sim, 0.03, LATE_CUT, 8, clock);
                    all.insert(key, run);
                }
            }
        }
    }
    all
}

/// Knob settings that change no figure on the knob workloads, and why that is right.
const ACT_ONLY_ELSEWHERE: &[(&str, &str)] = &[(
    "knob free-list fit=\"bins\"",
    "bins and best fit take a chunk of the same size; they part only on which of several \
     free chunks of that size, which moves no page on these workloads",
)];

/// Every knob's other setting changes some figure on some knob workload: a knob the
/// family reads but that acts on nothing here would pin nothing.
fn every_knob_acts(all: &BTreeMap<String, Value>) {
    let mut idle = Vec::new();
    for key in all.keys().filter(|k| k.starts_with("knob ")) {
        let (setting, w) = key.rsplit_once(" / ").unwrap();
        if w != KNOB_WORKLOADS[0] || ACT_ONLY_ELSEWHERE.iter().any(|(s, _)| *s == setting) {
            continue;
        }
        let family = setting.split(' ').nth(1).unwrap();
        let acts = KNOB_WORKLOADS.iter().any(|w| {
            all[&format!("{setting} / {w}")] != all[&format!("late family {family} / {w}")]
        });
        if !acts {
            idle.push(setting.to_string());
        }
    }
    assert!(idle.is_empty(), "settings that change nothing: {idle:#?}");
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden.json")
}

#[test]
fn summaries_match_the_golden_file() {
    let all = all_runs();
    every_knob_acts(&all);
    let text = serde_json::to_string_pretty(&all).unwrap() + "\n";
    let path = golden_path();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == text {
        return;
    }
    let want: BTreeMap<String, Value> = serde_json::from_str(&have).unwrap_or_default();
    let mut differ = Vec::new();
    for (key, now) in &all {
        match want.get(key) {
            Some(was) if was == now => {}
            Some(was) => differ.push(format!("{key}: {}", first_difference(was, now, ""))),
            None => differ.push(format!("{key}: not in the golden file")),
        }
    }
    panic!(
        "{} runs differ from tests/golden.json (UPDATE_GOLDEN=1 rewrites it, only when a \
         change of results is intended):\n{}",
        differ.len().max(1),
        differ.join("\n")
    );
}

/// The path and both values of the first field where two JSON values part.
fn first_difference(was: &Value, now: &Value, at: &str) -> String {
    match (was, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) if va == vb => {}
                    Some(vb) => return first_difference(va, vb, &format!("{at}.{k}")),
                    None => return format!("{at}.{k} is gone"),
                }
            }
            format!("{at} has new fields")
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if va != vb {
                    return first_difference(va, vb, &format!("{at}[{i}]"));
                }
            }
            unreachable!("equal arrays were compared")
        }
        _ => format!("{at} was {was}, is {now}"),
    }
}

/// The simulator's memory grows with live blocks and touched pages, never with events:
/// four rounds of `parametric` (about 10.6 million events, 1 GiB live at the top of each,
/// 1.1 GiB of simulated heap touched) streamed into one simulation keep this process under
/// 200 MB, in every run: a simulator that kept the events would pass that several times
/// over. `examples/memory.rs` is the same run with figures printed.
#[test]
fn a_ten_million_event_gibibyte_run_stays_under_200_mb() {
    let Some(before) = peak_rss_kb() else {
        // Only Linux reports the peak; elsewhere there is nothing to measure. Written
        // past the test harness's capture, so the skip shows in every run's output.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED a_ten_million_event_gibibyte_run_stays_under_200_mb: no /proc/self/status here"
        );
        return;
    };
    let c = RunConfig::new("parametric", "size-class")
        .resolve()
        .unwrap();
    let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
    let mut events = 0u64;
    workload::gibibyte_rounds(4, &mut |e| {
        events += 1;
        sim.apply(e)
    })
    .unwrap();
    let (summary, _) = sim.finish();
    assert!(events > 10_000_000, "{events} events");
    assert!(
        summary.touched_bytes() > 1 << 30,
        "{}",
        summary.touched_bytes()
    );
    let peak = peak_rss_kb().unwrap().max(before);
    assert!(
        peak < 200_000,
        "the simulator peaked at {peak} kB for {events} events"
    );
}

/// This process's peak resident memory in kB, from Linux's `/proc/self/status`.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
