//! The seed scenarios' findings, as the people who asked them saw them.

use heaplab_core::scenario::{find, run_scenario, scenarios};

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
fn s4_browser_back_forward() {
    assert_finding("browser-back-forward");
}

#[test]
fn s5_short_strings() {
    assert_finding("short-strings");
}

#[test]
fn every_scenario_has_a_test_here() {
    let tested = ["jit-arenas", "browser-back-forward", "short-strings"];
    for s in scenarios().unwrap() {
        assert!(
            tested.contains(&s.id.as_str()),
            "scenario {} has no finding test",
            s.id
        );
    }
}
