//! The heap map's counts against the simulation's counters, blame's sum, and the
//! observer leaving results unchanged, for every family.

use super::blame::blame;
use super::session::Session;
use crate::config::RunConfig;
use crate::policy::FAMILIES;
use crate::run::run;

fn churn(family: &str) -> RunConfig {
    let mut c = RunConfig::new("churn", family);
    c.workload.params.insert("scale".into(), 0.0005.into());
    c
}

#[test]
fn map_counts_equal_the_counters_at_several_events() {
    for f in FAMILIES {
        let config = churn(f.id);
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        for at in [1, n / 7, n / 3, n / 2, n - 1, n] {
            s.run_to(at).unwrap();
            let map = s.heap_map();
            let st = s.simulation().pages().stats();
            assert_eq!(
                map.counts.resident_pages, st.resident_pages.current,
                "{} {at}",
                f.id
            );
            assert_eq!(
                map.counts.committed_pages, st.committed_pages.current,
                "{} {at}",
                f.id
            );
            assert_eq!(
                map.counts.live_bytes,
                s.simulation().live_bytes(),
                "{} {at}",
                f.id
            );
            let on_pages: u64 = map.pages.iter().map(|p| p.live_bytes).sum();
            assert!(on_pages <= map.counts.live_bytes, "{} {at}", f.id);
            let b = blame(&map);
            assert_eq!(
                b.live + b.pinned + b.kept_by_policy,
                b.resident,
                "{} {at}",
                f.id
            );
            assert_eq!(b.resident, st.resident_pages.current * map.page_size);
            let shares: u64 = b.pinners.iter().map(|p| p.pinned).sum();
            assert_eq!(shares, b.pinned, "{} {at}", f.id);
        }
    }
}

#[test]
fn watching_changes_no_result() {
    for f in FAMILIES {
        let config = churn(f.id);
        let plain = run(&config).unwrap().report.summary;
        let events = Session::workload_events(&config).unwrap();
        let n = events.len();
        let mut s = Session::new(&config, events).unwrap();
        s.run_to(n).unwrap();
        let st = s.simulation().pages().stats();
        assert_eq!(
            st.resident_pages.peak * s.heap_map().page_size,
            plain.peak_resident_bytes
        );
        assert!(s.step().unwrap().is_none());
    }
}

#[test]
fn every_event_has_a_line_numbered_from_one() {
    let config = churn("free-list");
    let events = Session::workload_events(&config).unwrap();
    let steps = super::explain_range(&config, events, 3, 6).unwrap();
    let numbers: Vec<u64> = steps.iter().map(|s| s.event).collect();
    assert_eq!(numbers, [3, 4, 5, 6]);
    for s in &steps {
        assert!(
            s.line.starts_with(&format!("event {}: ", s.event)),
            "{}",
            s.line
        );
    }
}
