//! The seed scenarios' findings, as the people who asked them saw them.

use heaplab_app::scenario::{find, run_scenario, scenarios};

fn assert_finding(id: &str) {
    let out = run_scenario(&find(id).unwrap()).unwrap();
    for c in &out.finding.checks {
        println!("{} {}", if c.holds { "ok  " } else { "FAIL" }, c.claim);
    }
    assert!(out.finding.holds, "{id}: {:#?}", out.finding.checks);
}

#[test]
fn s1_jit_arenas() {
    assert_finding("jit-arenas");
}

#[test]
fn s2_share_small_large() {
    assert_finding("share-small-large");
}

#[test]
fn s3_lld_link() {
    assert_finding("lld-link");
}

#[test]
fn s4_browser_back_forward() {
    assert_finding("browser-back-forward");
}

#[test]
fn s5_short_strings() {
    assert_finding("short-strings");
}

/// The S3 ordering is not an accident of one thread count: LLD ran on 36 to 72 threads.
#[test]
fn s3_ordering_holds_from_16_to_72_threads() {
    let mut spec = find("lld-link").unwrap();
    for threads in [16, 72] {
        spec.workloads[0]
            .params
            .insert("threads".into(), serde_json::Value::from(threads));
        let out = run_scenario(&spec).unwrap();
        assert!(
            out.finding.holds,
            "{threads} threads: {:#?}",
            out.finding.checks
        );
    }
}

#[test]
fn every_scenario_has_a_test_here() {
    let tested = [
        "jit-arenas",
        "share-small-large",
        "lld-link",
        "browser-back-forward",
        "short-strings",
    ];
    for s in scenarios().unwrap() {
        assert!(
            tested.contains(&s.id.as_str()),
            "scenario {} has no finding test",
            s.id
        );
    }
}
