//! Built-in workloads: the same seed gives the same events, another seed other events,
//! and every workload ends with nothing live.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::workload::WORKLOADS;
use serde_json::Value;

/// Hashes a workload's event stream and counts its live bytes at the end.
fn digest(id: &str, seed: u64) -> (u64, u64, i64) {
    let spec = WORKLOADS.iter().find(|w| w.id == id).unwrap();
    let mut c = RunConfig::new(id, "bump");
    c.workload.params.insert("seed".into(), Value::from(seed));
    c.workload.params.insert("scale".into(), Value::from(0.01));
    let params = c.resolve().unwrap().workload_params().unwrap();
    let mut h = DefaultHasher::new();
    let mut n = 0u64;
    let mut live = std::collections::HashMap::new();
    let mut bytes = 0i64;
    spec.generate(&params, &mut |e| {
        e.hash(&mut h);
        n += 1;
        match e {
            Event::Alloc {
                id, size, arena, ..
            } => {
                let fresh = live.insert(id, (size, arena)).is_none();
                assert!(fresh, "{id} allocated twice in {}", spec.id);
                bytes += size as i64;
            }
            Event::Free { id, .. } => bytes -= live.remove(&id).expect("frees a live id").0 as i64,
            Event::Realloc { id, size, .. } => {
                let entry = live.get_mut(&id).expect("reallocs a live id");
                bytes += size as i64 - entry.0 as i64;
                entry.0 = size;
            }
            // An arena's reset or drop frees every block still in it.
            Event::ArenaReset(a) | Event::ArenaDrop(a) => live.retain(|_, (size, arena)| {
                let dies = *arena == Some(a);
                if dies {
                    bytes -= *size as i64;
                }
                !dies
            }),
            _ => {}
        }
        Ok::<(), ()>(())
    })
    .unwrap();
    (h.finish(), n, bytes)
}

/// Workloads whose events depend on the seed; the others are fixed patterns.
const SEEDED: &[&str] = &[
    "tree_churn",
    "fragment",
    "fragment_iterate",
    "medium",
    "big",
    "balloon",
    "random",
    "realloc",
    "parametric",
    "jit",
    "linker",
    "browser",
    "short_strings",
];

#[test]
fn same_seed_same_events_and_nothing_left_live() {
    for w in WORKLOADS {
        let a = digest(w.id, 1);
        assert_eq!(a, digest(w.id, 1), "{} is not deterministic", w.id);
        assert!(a.1 > 0, "{} produced no events", w.id);
        // short_strings ends with its strings live, as the program is when its counters are read.
        if w.id != "short_strings" {
            assert_eq!(a.2, 0, "{} leaves bytes live", w.id);
        }
        let b = digest(w.id, 2);
        if SEEDED.contains(&w.id) {
            assert_ne!(a.0, b.0, "{} ignores its seed", w.id);
        } else {
            assert_eq!(
                a.0, b.0,
                "{} depends on its seed but is listed as fixed",
                w.id
            );
        }
    }
}

#[test]
fn a_bad_histogram_names_its_field() {
    let mut c = RunConfig::new("parametric", "bump");
    c.workload
        .params
        .insert("sizes".into(), Value::from("histogram"));
    c.workload
        .params
        .insert("histogram".into(), Value::from("16:fifty"));
    let e = c.resolve().unwrap_err();
    assert_eq!(e.field, "workload.params.histogram");
    assert!(e.message.contains("not a number"), "{e}");
}

#[test]
fn parametric_knobs_change_the_stream() {
    let base = digest("parametric", 1).0;
    for (k, v) in [
        ("sizes", "power-law"),
        ("lifetime", "fifo"),
        ("shape", "sawtooth"),
        ("threads", "4"),
    ] {
        let spec = WORKLOADS.iter().find(|w| w.id == "parametric").unwrap();
        let mut c = RunConfig::new("parametric", "bump");
        c.workload.params.insert("scale".into(), Value::from(0.01));
        c.workload.params.insert(k.into(), Value::from(v));
        let params = c.resolve().unwrap().workload_params().unwrap();
        let mut h = DefaultHasher::new();
        spec.generate(&params, &mut |e| {
            e.hash(&mut h);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_ne!(h.finish(), base, "{k}={v} changed nothing");
    }
}

/// A chart ends where the report's end figures are: the last point of every run's series
/// is the state after its last event, even when the last bucket of points held a higher
/// maximum (the scenario `jit-arenas` once drew a line ending near 8.4 MiB beside an end
/// of 132 KiB), and no peak is lost for it.
#[test]
fn every_series_ends_on_the_run_end_state() {
    let mut checked = 0;
    for spec in WORKLOADS {
        for policy in ["glibc-like", "size-class", "buddy", "bump"] {
            let mut config = RunConfig::new(spec.id, policy);
            config.workload.params.insert("scale".into(), 0.002.into());
            // Few points, so the last bucket spans many events.
            config.series_points = 16;
            let Ok(out) = heaplab_core::run::run(&config) else {
                continue;
            };
            let s = &out.report.summary;
            let page = s.page_size;
            let last = |v: &Vec<u64>| *v.last().unwrap();
            let what = format!("{} under {policy}", spec.id);
            assert_eq!(last(&out.series.t), s.events(), "{what}");
            assert_eq!(
                last(&out.series.live),
                s.program.live_bytes.current,
                "{what}"
            );
            assert_eq!(
                last(&out.series.resident),
                s.pages.resident_pages.current * page,
                "{what}"
            );
            assert_eq!(
                last(&out.series.committed),
                s.pages.committed_pages.current * page,
                "{what}"
            );
            assert_eq!(
                out.series.resident.iter().max(),
                Some(&(s.pages.resident_pages.peak * page)),
                "{what}: the peak is kept"
            );
            assert!(out.series.t.len() <= 17, "{what}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} runs checked");
}
