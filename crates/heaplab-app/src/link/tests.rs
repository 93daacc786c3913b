use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use heaplab_core::config::ProviderKind;

/// A version-1 link as the page wrote it before links were versioned by the core:
/// `encodeURIComponent(JSON.stringify(state))` after `#c=`, every parameter written out.
const V1_CHURN: &str = "http://127.0.0.1:8000/#c=%7B%22v%22%3A1%2C%22workload%22%3A%7B%22id%22%3A%22churn%22%2C%22params%22%3A%7B%22seed%22%3A1%2C%22scale%22%3A0.01%7D%7D%2C%22provider%22%3A%7B%22kind%22%3A%22sim%22%2C%22page_size%22%3A4096%7D%2C%22policies%22%3A%5B%7B%22family%22%3A%22size-class%22%2C%22params%22%3A%7B%7D%7D%2C%7B%22family%22%3A%22free-list%22%2C%22preset%22%3A%22glibc-like%22%2C%22params%22%3A%7B%22trim_threshold%22%3A1048576%7D%7D%5D%7D";

/// A version-1 link to a trace file, lenient, over wasm linear memory.
const V1_TRACE: &str = "#c=%7B%22v%22%3A1%2C%22workload%22%3A%7B%22id%22%3A%22trace%22%2C%22params%22%3A%7B%7D%2C%22path%22%3A%22prog.rep%22%7D%2C%22provider%22%3A%7B%22kind%22%3A%22wasm-linear%22%2C%22page_size%22%3A16384%7D%2C%22policies%22%3A%5B%7B%22family%22%3A%22buddy%22%2C%22params%22%3A%7B%7D%7D%5D%2C%22lenient%22%3Atrue%7D";

fn params(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn version_1_links_open_as_they_did() {
    let state = decode(V1_CHURN).unwrap();
    assert_eq!(
        state.workload,
        LinkWorkload::Builtin {
            id: "churn".into(),
            params: params(&[("seed", json!(1)), ("scale", json!(0.01))]),
        }
    );
    assert_eq!(state.configs.len(), 2);
    assert_eq!(state.configs[1].preset.as_deref(), Some("glibc-like"));
    let configs = state.run_configs(2000).unwrap();
    assert_eq!(configs[0].policy.family, "size-class");
    assert_eq!(configs[1].policy.params["trim_threshold"], json!(1048576));
    assert_eq!(configs[0].workload.params["scale"], json!(0.01));

    let state = decode(V1_TRACE).unwrap();
    assert_eq!(
        state.workload,
        LinkWorkload::Trace(TraceRef {
            name: "prog.rep".into(),
            bytes: None,
            sha256: None
        })
    );
    assert!(state.lenient);
    assert_eq!(state.provider.kind, ProviderKind::WasmLinear);
    assert_eq!(state.provider.page_size, 16384);
}

#[test]
fn scenario_links_open_the_scenario() {
    let state = decode("http://127.0.0.1:8000/#s=jit-arenas").unwrap();
    assert_eq!(state.scenario.as_deref(), Some("jit-arenas"));
    let e = decode("#s=no-such").unwrap_err();
    assert!(e.message.starts_with("link: "), "{e}");
    assert!(e.message.contains("jit-arenas"), "{e}");
}

#[test]
fn a_state_survives_encoding_and_drops_its_defaults() {
    let mut config = RunConfig::new("tree_churn", "glibc-like");
    config.workload.params.insert("scale".into(), json!(0.02));
    config.workload.params.insert("seed".into(), json!(1));
    let mut other = config.clone();
    other.policy = PolicyConfig::named("size-class");
    other
        .policy
        .params
        .insert("page_size".into(), json!("16KiB"));
    let configs = [config.resolve().unwrap(), other.resolve().unwrap()];
    let state = LinkState::from_configs(&configs).unwrap();
    // Only what differs from the defaults travels.
    assert_eq!(
        state.workload,
        LinkWorkload::Builtin {
            id: "tree_churn".into(),
            params: params(&[("scale", json!(0.02))]),
        }
    );
    assert!(state.configs[0].params.is_empty());
    assert_eq!(
        state.configs[1].params,
        params(&[("page_size", json!(16384))])
    );

    let text = encode(&state);
    assert!(text.starts_with("2."), "{text}");
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'),
        "{text}"
    );
    let back = decode(&url("http://127.0.0.1:8000/", &state)).unwrap();
    assert_eq!(back, state);
    // The decoded link runs exactly the configs it was made from.
    assert_eq!(back.run_configs(2000).unwrap(), configs);
}

#[test]
fn a_link_that_leaves_fields_out_still_opens() {
    for json in [
        "{}",
        r#"{"configs":[{"preset":"buddy"}]}"#,
        r#"{"view":{}}"#,
    ] {
        let state: LinkState = serde_json::from_str(json).unwrap();
        check::check(&state).unwrap_or_else(|e| panic!("{json}: {e}"));
    }
    // No fragment at all is the page as it starts: the starter, which runs.
    let starter = decode("http://127.0.0.1:8000/").unwrap();
    assert_eq!(starter, LinkState::starter());
    let configs = starter.run_configs(100).unwrap();
    assert_eq!(configs.len(), 2);
    assert_eq!(configs[0].workload.id, "jit");
    assert_eq!(
        configs[1].policy.changed_params().unwrap(),
        BTreeMap::from([("slab_size".to_string(), json!(65536))])
    );
    // A link of fields left out still means the defaults, as it always did.
    let empty = encode(&LinkState::default());
    assert_eq!(decode(&empty).unwrap(), LinkState::default());
}

/// A view over model time round-trips; over events, the default, it is left out.
#[test]
fn a_view_keeps_its_time_axis() {
    let state: LinkState = serde_json::from_str(r#"{"view":{"x":"time"}}"#).unwrap();
    assert_eq!(state.view.x, XAxis::Time);
    assert_eq!(decode(&encode(&state)).unwrap(), state);
    let events = serde_json::to_string(&View::default()).unwrap();
    assert_eq!(events, "{}");
    let e = serde_json::from_str::<LinkState>(r#"{"view":{"x":"hours"}}"#).unwrap_err();
    assert!(e.to_string().contains("unknown variant `hours`"), "{e}");
}

/// Encodes raw JSON as a version-2 link, as a hand-edited or hostile link would be.
fn v2_link(json: &str) -> String {
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut deflate, json.as_bytes()).unwrap();
    use base64::Engine;
    let payload =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(deflate.finish().unwrap());
    format!("#2.{payload}")
}

fn refused(link: &str) -> String {
    let e = decode(link).expect_err(link);
    assert!(e.message.starts_with("link: "), "{e}");
    e.message
}

#[test]
fn bad_links_say_what_is_wrong() {
    let good = encode(&LinkState::default());
    let cases: Vec<(String, &str)> = vec![
        ("#9.abc".into(), "version 9 is newer"),
        ("#hello".into(), "is not a heaplab link"),
        ("#2.!!!not base64".into(), "not base64url"),
        (format!("#{}", &good[..good.len() / 2]), "cut short"),
        ("#c=%7Bnot json".into(), "not JSON"),
        ("#c=%5B1%5D".into(), "not a JSON object"),
        ("#c=%7B%22v%22%3A7%7D".into(), "its version 7"),
        (
            v2_link(r#"{"provider":{"kind":"sim","page_size":3}}"#),
            "page_size 3 is not 4096, 16384 or 65536",
        ),
        (
            v2_link(r#"{"view":{"zoom":[0,1000000000000]}}"#),
            "view.zoom: event 1000000000000",
        ),
        (
            v2_link(r#"{"view":{"zoom":[5,5]}}"#),
            "view.zoom: the window 5..5 is empty",
        ),
        (v2_link(r#"{"view":{"baseline":3}}"#), "view.baseline"),
        (
            v2_link(&format!(
                r#"{{"configs":[{}]}}"#,
                vec![r#"{"family":"bump"}"#; 50].join(",")
            )),
            "50 configurations; a link holds 1 to 4",
        ),
        (
            v2_link(
                r#"{"configs":[{"family":"bump"},{"family":"size-class","params":{"page_size":3}}]}"#,
            ),
            "configuration 2: page_size:",
        ),
        (
            v2_link(r#"{"configs":[{"family":"nope"}]}"#),
            "configuration 1:",
        ),
        (v2_link(r#"{"workload":{"builtin":{"id":"nope"}}}"#), "nope"),
        (v2_link(r#"{"bogus":1}"#), "unknown field `bogus`"),
        (
            v2_link(r#"{"workload":{"trace":{"name":"a.rep","sha256":"xyz"}}}"#),
            "sha256",
        ),
        (
            v2_link(r#"{"view":{"sweep":{"param":"slab_size","values":[4096],"metric":"speed"}}}"#),
            "view.sweep.metric",
        ),
        (
            v2_link(
                r#"{"configs":[{"family":"bump"}],"view":{"sweep":{"param":"slab_size","values":[4096, -1]}}}"#,
            ),
            "view.sweep.values[1]",
        ),
    ];
    for (link, wanted) in cases {
        let message = refused(&link);
        assert!(
            message.contains(wanted),
            "{link}: {message:?} lacks {wanted:?}"
        );
    }
    // An embedded trace past the limit: text that deflates to more than 64 KiB.
    let mut x: u64 = 1;
    let noisy: String = (0..12_000)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("a {i} {}\n", x >> 40)
        })
        .collect();
    assert!(noisy.len() < MAX_EMBEDDED_TEXT_BYTES);
    assert_eq!(embeddable(noisy.as_bytes()), None);
    let embedded = |text: String| LinkState {
        workload: LinkWorkload::Embedded {
            name: "big.trace".into(),
            text,
        },
        ..LinkState::default()
    };
    assert!(refused(&encode(&embedded(noisy))).contains("embedded trace big.trace"));
    // Text longer than 64 KiB that deflates to less travels: the limit is on the link.
    let plain = "a 1 8\nf 1\n".repeat(10_000);
    assert!(plain.len() > MAX_EMBEDDED_BYTES);
    assert_eq!(embeddable(plain.as_bytes()), Some(plain.as_str()));
    assert_eq!(
        decode(&encode(&embedded(plain.clone()))).unwrap().workload,
        LinkWorkload::Embedded {
            name: "big.trace".into(),
            text: plain
        }
    );
    // gzip and other bytes that are not text are named, never carried.
    assert_eq!(embeddable(&[0x1f, 0x8b, 8, 0]), None);
    assert_eq!(embeddable(&[0xff, 0xfe, 0x00]), None);
}

#[test]
fn a_payload_that_inflates_without_end_is_refused() {
    let json = format!(r#"{{"scenario":"{}"}}"#, "x".repeat(MAX_PAYLOAD_BYTES * 2));
    assert!(refused(&v2_link(&json)).contains("inflates to more than"));
}

#[test]
fn sweeps_set_policy_or_workload_parameters() {
    let state: LinkState = serde_json::from_str(
        r#"{"workload":{"builtin":{"id":"churn","params":{"scale":0.001}}},
            "configs":[{"family":"bump"}],
            "view":{"chart":"sweep","sweep":{"param":"slab_size","values":[4096,65536]}}}"#,
    )
    .unwrap();
    check::check(&state).unwrap();
    let sweep = state.view.sweep.clone().unwrap();
    let at = state.with_sweep_value(&sweep, &json!(65536));
    assert_eq!(at.configs[0].params["slab_size"], json!(65536));
    let scale = SweepView {
        param: "scale".into(),
        ..sweep
    };
    let at = state.with_sweep_value(&scale, &json!(0.002));
    let LinkWorkload::Builtin { params, .. } = &at.workload else {
        panic!("the workload changed kind");
    };
    assert_eq!(params["scale"], json!(0.002));
}

#[test]
fn a_trace_is_named_by_size_and_hash() {
    let t = trace_ref("/tmp/dir/prog.trace", b"a 1 8\nf 1\n");
    assert_eq!(t.name, "prog.trace");
    assert_eq!(t.bytes, Some(10));
    assert_eq!(t.sha256.as_deref().map(str::len), Some(64));
    let sha = t.sha256.clone().unwrap();
    assert!(t.matches(10, &sha));
    assert!(!t.matches(11, &sha));
    assert!(TraceRef::default().matches(11, "anything"));
}

#[test]
fn a_teaching_position_travels_and_old_links_with_an_event_alone_still_open() {
    // Links written when the teaching view was an event alone keep opening at it.
    let old = decode(&v2_link(r#"{"view":{"teach":212}}"#)).unwrap();
    assert_eq!(
        old.view.teach,
        Some(TeachView {
            event: 212,
            ..TeachView::default()
        })
    );
    // So do links written before the heap map's zoom travelled.
    let before = decode(&v2_link(r#"{"view":{"teach":{"event":5,"page":2}}}"#)).unwrap();
    assert_eq!(before.view.teach.unwrap().zoom, None);
    let mut state = LinkState::default();
    state.configs.push(state.configs[0].clone());
    state.view.teach = Some(TeachView {
        event: 3,
        config: 1,
        page: Some(7),
        zoom: Some([4, 19]),
        ..TeachView::default()
    });
    let back = decode(&encode(&state)).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.view.teach.as_ref().unwrap().zoom, Some([4, 19]));
    for (zoom, says) in [
        (
            r#""4-19""#,
            "view.teach.zoom: \"4-19\" is not two page numbers",
        ),
        ("[4]", "view.teach.zoom: [4] is not two page numbers"),
        ("[-1,3]", "view.teach.zoom: [-1,3] is not two page numbers"),
        ("[9,3]", "view.teach.zoom: the region 9..3 is empty"),
        (
            "[0,2000000000000]",
            "view.teach.zoom: page 2000000000000 is past",
        ),
    ] {
        let e = refused(&v2_link(&format!(
            r#"{{"view":{{"teach":{{"event":3,"zoom":{zoom}}}}}}}"#
        )));
        assert!(e.contains(says), "{zoom}: {e}");
    }
    let e = refused(&v2_link(r#"{"view":{"teach":{"event":3,"config":1}}}"#));
    assert!(
        e.contains("view.teach.config: configuration 2 does not exist"),
        "{e}"
    );
    let e = refused(&v2_link(r#"{"view":{"teach":{"event":100000000000}}}"#));
    assert!(e.contains("view.teach: event 100000000000 is past"), "{e}");
}

#[test]
fn the_block_maps_byte_zoom_and_the_configuration_compared_travel_in_the_teaching_view() {
    // Links written before either travelled open without them.
    let before = decode(&v2_link(r#"{"view":{"teach":{"event":5,"zoom":[1,2]}}}"#)).unwrap();
    let view = before.view.teach.unwrap();
    assert_eq!((view.bytes, view.compare), (None, None));
    let mut state = LinkState::default();
    state.configs.push(state.configs[0].clone());
    state.view.teach = Some(TeachView {
        event: 3,
        config: 1,
        bytes: Some(TeachBytes {
            page: 2,
            from: 64,
            to: 320,
        }),
        compare: Some(0),
        ..TeachView::default()
    });
    let back = decode(&encode(&state)).unwrap();
    assert_eq!(back, state);
    let two = r#"[{"family":"bump"},{"family":"buddy"}]"#;
    for (teach, says) in [
        (
            r#"{"event":3,"bytes":"64..320"}"#,
            "view.teach.bytes: \"64..320\" is not {\"page\", \"from\", \"to\"}",
        ),
        (
            r#"{"event":3,"bytes":{"page":2,"from":320,"to":64}}"#,
            "view.teach.bytes: the offsets 320..64 are not a range within a page",
        ),
        (
            r#"{"event":3,"bytes":{"page":2,"from":0,"to":100000}}"#,
            "view.teach.bytes: the offsets 0..100000 are not a range within a page (0..65536",
        ),
        (
            r#"{"event":3,"bytes":{"page":2000000000000,"from":0,"to":64}}"#,
            "view.teach.bytes: page 2000000000000 is past",
        ),
        (
            r#"{"event":3,"compare":"B"}"#,
            "view.teach.compare: \"B\" is not a configuration's index",
        ),
        (
            r#"{"event":3,"compare":2}"#,
            "view.teach.compare: configuration 3 does not exist; the link has 2",
        ),
        (
            r#"{"event":3,"config":1,"compare":1}"#,
            "view.teach.compare: configuration 2 is the one followed",
        ),
    ] {
        let e = refused(&v2_link(&format!(
            r#"{{"configs":{two},"view":{{"teach":{teach}}}}}"#
        )));
        assert!(e.contains(says), "{teach}: {e}");
    }
}

/// A run's clock travels in its link and comes back in every configuration; one link
/// cannot hold configurations on different clocks.
#[test]
fn a_link_carries_the_run_clock() {
    let mut config = RunConfig::new("churn", "jemalloc-like");
    config.clock = Some(heaplab_core::clock::Clock::Rate(350.0));
    let state = LinkState::from_configs(&[config.clone(), config.clone()]).unwrap();
    assert_eq!(state.clock, Some(heaplab_core::clock::Clock::Rate(350.0)));
    let back = decode(&encode(&state)).unwrap();
    assert_eq!(back, state);
    let configs = back.run_configs(100).unwrap();
    assert!(configs
        .iter()
        .all(|c| c.clock == Some(heaplab_core::clock::Clock::Rate(350.0))));

    let mut other = config.clone();
    other.clock = None;
    let e = LinkState::from_configs(&[config, other]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "link: clock: a link gives all its configurations one clock, and these have \
         `rate=350` and none"
    );
}

/// A real run's clock does not travel: neither made into a link nor read from one, since
/// the page and `run --link` only simulate.
#[test]
fn a_link_refuses_a_real_runs_clock() {
    let real = "link: clock: `real` is the time of a real run, which a link's simulated \
                replay does not have; give `trace` or `rate=<ns per event>`";
    let mut config = RunConfig::new("churn", "jemalloc-like");
    config.clock = Some(heaplab_core::clock::Clock::Real);
    assert_eq!(
        LinkState::from_configs(&[config]).unwrap_err().to_string(),
        real
    );
    let mut state = LinkState::from_configs(&[RunConfig::new("churn", "buddy")]).unwrap();
    state.clock = Some(heaplab_core::clock::Clock::Real);
    assert_eq!(decode(&encode(&state)).unwrap_err().to_string(), real);
}
