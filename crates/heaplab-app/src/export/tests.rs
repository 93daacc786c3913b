use serde_json::json;

use super::*;
use crate::link::{self, LinkState, LinkWorkload};

#[test]
fn labels_carry_the_letter_and_what_each_configuration_changes() {
    let state = LinkState::starter();
    assert_eq!(
        labels(&state.configs),
        ["A: llvm-bump", "B: llvm-bump (slab_size=64 KiB)"]
    );
}

#[test]
fn provenance_names_the_workload_provider_page_size_version_and_link() {
    let mut state = LinkState::starter();
    state.workload = LinkWorkload::Builtin {
        id: "jit".into(),
        params: [("scale".to_string(), json!(0.1))].into_iter().collect(),
    };
    state.provider.page_size = 16384;
    let url = link::url("http://127.0.0.1:8000/", &state);
    let p = Provenance::of_link_text(&url).unwrap();
    assert_eq!(
        p.text_lines(),
        [
            format!("heaplab: {}", env!("CARGO_PKG_VERSION")),
            "workload: jit (scale=0.1)".into(),
            "provider: sim".into(),
            "page_size: 16 KiB (16384 bytes)".into(),
            format!("link: {url}"),
        ]
    );
    assert!(p.csv_comments().starts_with("# heaplab: "));
    assert_eq!(p.csv_comments().lines().count(), 5);
}

#[test]
fn a_trace_is_named_by_its_hash() {
    let mut state = LinkState::starter();
    state.workload = LinkWorkload::Embedded {
        name: "tiny.trace".into(),
        text: "a 1 16\nf 1\n".into(),
    };
    state.lenient = true;
    let p = Provenance::of_link(&state, "#x");
    let hash = link::trace_ref("tiny.trace", b"a 1 16\nf 1\n")
        .sha256
        .unwrap();
    assert_eq!(
        p.workload(),
        format!("trace tiny.trace (11 bytes, sha256 {hash}, carried in the link, lenient)")
    );
}

#[test]
fn the_summary_has_a_column_per_metric_and_per_phase_figure() {
    let p = Provenance::of_link(&LinkState::starter(), "#x");
    let report = |resident: u64| {
        json!({"events": 10, "peak_resident_bytes": 8192, "utilization": 0.5,
               "phases": [{"label": "exit", "end_event": 10, "live_bytes": 0,
                           "committed_bytes": 4096, "resident_bytes": resident}]})
    };
    let labels = labels(&LinkState::starter().configs);
    let csv = summary_csv(&p, &labels, &[report(4096), report(135168)]);
    let table: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).collect();
    let header: Vec<&str> = table[0].split(',').collect();
    assert_eq!(header[0], "configuration");
    assert!(header.ends_with(&[
        "live_bytes@exit",
        "committed_bytes@exit",
        "resident_bytes@exit"
    ]));
    assert!(table[2].starts_with("B: llvm-bump (slab_size=64 KiB),10,"));
    assert!(table[2].ends_with(",0,4096,135168"), "{}", table[2]);
    let utilization = header.iter().position(|c| *c == "utilization").unwrap();
    assert_eq!(table[1].split(',').nth(utilization), Some("0.5"));
    assert!(csv.starts_with(&p.csv_comments()));
}
