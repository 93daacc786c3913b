//! `--real` at small scale: every family and the presets that model real allocators, over
//! workloads of each kind. The page map must agree with `mincore` page for page at every
//! sample, and the summary must equal the simulated provider's.

use heaplab_core::config::{RunConfig, TouchMode};
use heaplab_core::policy::FAMILIES;
use heaplab_native::{decode, replay, RealOptions};
use serde_json::Value;

fn config(workload: &str, scale: f64, policy: &str, touch: TouchMode) -> RunConfig {
    let mut c = RunConfig::new(workload, "");
    c.policy = heaplab_core::config::PolicyConfig::named(policy);
    c.workload.params.insert("scale".into(), Value::from(scale));
    c.touch = touch;
    c.resolve().unwrap()
}

const OPTS: RealOptions = RealOptions {
    repeat: 1,
    samples: 50,
};

fn check(workload: &str, scale: f64, policy: &str, touch: TouchMode) {
    let c = config(workload, scale, policy, touch);
    let events = decode(&c.workload).unwrap();
    let r = replay(&c, &events, OPTS).unwrap_or_else(|e| panic!("{workload} {policy}: {e}"));
    let what = format!("{workload} × {policy} ({touch:?})");
    assert_eq!(
        r.real.max_residency_mismatch_pages, 0,
        "{what}: page map and mincore disagree: {:?}",
        r.real.first_residency_mismatch
    );
    assert!(
        r.real.matches_simulation,
        "{what}: summary differs from the simulated run"
    );
    let sim = heaplab_core::run::run(&c).unwrap().report.summary;
    assert_eq!(r.report.summary, sim, "{what}");
    // The last sample is after the last event: the kernel's resident pages are the model's.
    assert_eq!(
        r.real.real_end_resident_bytes,
        sim.end_resident_bytes(),
        "{what}"
    );
    // One sample is taken where the model's resident memory peaks, so the kernel's peak
    // is the model's: never below it because the peak fell between two samples.
    assert_eq!(
        r.real.real_peak_resident_bytes,
        sim.peak_resident_bytes(),
        "{what}"
    );
    assert!(r.real.residency_samples >= 2, "{what}");
    assert!(r.real.ns_per_event > 0.0, "{what}");
}

#[test]
fn every_family_matches_the_kernel_and_the_simulator() {
    // One workload of each kind by default; every built-in workload when CI is set.
    let all = std::env::var_os("CI").is_some();
    let some = [
        "churn",
        "tree_churn",
        "fragment",
        "big",
        "message_many",
        "realloc",
        "parametric",
        "browser",
        "linker",
    ];
    for family in FAMILIES {
        for w in heaplab_core::workload::WORKLOADS {
            if all || some.contains(&w.id) {
                check(w.id, 0.002, family.id, TouchMode::All);
            }
        }
    }
}

#[test]
fn every_preset_matches_over_several_workloads() {
    for preset in heaplab_core::presets::PRESETS {
        for workload in ["medium", "big", "realloc", "browser", "jit", "message_many"] {
            check(workload, 0.01, preset.id, TouchMode::All);
        }
    }
}

#[test]
fn touch_first_and_none_match_too() {
    for touch in [TouchMode::First, TouchMode::None] {
        for preset in ["glibc-like", "mimalloc-like", "llvm-bump"] {
            check("churn", 0.002, preset, touch);
        }
    }
}

/// A mapped block alive for one event in the middle of a long run: a spike of resident
/// memory between two of the run's samples. The real peak is the model's, because a sample
/// is taken where the model peaks; sampled only every 10% of the events, it was missed and
/// the real peak reported far below the trace's peak live.
#[test]
fn a_spike_between_samples_is_the_real_peak() {
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!("a {i} 16\nf {i}\n"));
        if i == 500 {
            text.push_str("a 9999 1048576\nf 9999\n");
        }
    }
    let path = std::env::temp_dir().join(format!("heaplab-spike-{}.trace", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let mut c = RunConfig::new("", "glibc-like");
    c.workload = heaplab_core::config::WorkloadConfig::trace(path.to_str().unwrap());
    let c = c.resolve().unwrap();
    let events = decode(&c.workload).unwrap();
    let opts = RealOptions {
        repeat: 1,
        samples: 10,
    };
    let r = replay(&c, &events, opts).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(r.report.summary.peak_live_bytes() >= 1 << 20);
    assert!(
        r.real.real_peak_resident_bytes >= r.report.summary.peak_live_bytes(),
        "real peak {} below peak live {}",
        r.real.real_peak_resident_bytes,
        r.report.summary.peak_live_bytes()
    );
    assert_eq!(
        r.real.real_peak_resident_bytes,
        r.report.summary.peak_resident_bytes()
    );
}
