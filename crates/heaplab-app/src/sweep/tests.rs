use serde_json::{json, Value};

use super::*;
use heaplab_core::config::RunConfig;

fn base() -> RunConfig {
    let mut config = RunConfig::new("churn", "bump");
    config.workload.params.insert("scale".into(), 0.001.into());
    config
}

fn run_all(sweep: &Sweep) -> Vec<Value> {
    sweep
        .points
        .iter()
        .map(|p| serde_json::to_value(heaplab_core::run::run(&p.config).unwrap().json()).unwrap())
        .collect()
}

#[test]
fn a_policy_parameter_sweeps_through_its_values() {
    let spec = find_param(&base().resolve().unwrap(), "slab_size").unwrap();
    assert_eq!(spec.0, Target::Policy);
    let values = parse_values(spec.1, "4K..16K").unwrap();
    let sweep = Sweep::new(&base(), &[("slab_size".into(), values)], "page_ops").unwrap();
    assert_eq!(sweep.points.len(), 3);
    assert_eq!(
        sweep.points[2].config.policy.params["slab_size"],
        json!(16384)
    );
    assert!(sweep.axes[0].size);
    let report = sweep.report(&run_all(&sweep)).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["params"][0]["param"], "slab_size");
    assert_eq!(json["points"][1]["values"], json!([8192]));
    let keys: Vec<&String> = json["points"][0]["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    // Every metric of the core's list, then each phase's figures.
    let phases = run_all(&sweep)[0]["phases"].as_array().unwrap().len();
    assert_eq!(keys.len(), METRICS.len() + 3 * phases);
    // Each point's figures are the run's own.
    let direct = heaplab_core::run::run(&sweep.points[1].config).unwrap();
    assert_eq!(
        report.points[1].metrics.get("peak_resident_bytes"),
        Some(direct.report.summary.peak_resident_bytes() as f64)
    );
}

#[test]
fn two_parameters_make_a_grid_and_a_workload_parameter_is_found() {
    let sweep = Sweep::new(
        &base(),
        &[
            ("slab_size".into(), vec![json!(4096), json!(65536)]),
            (
                "scale".into(),
                vec![json!(0.001), json!(0.002), json!(0.003)],
            ),
        ],
        "peak_resident_bytes",
    )
    .unwrap();
    assert_eq!(sweep.axes[1].target, Target::Workload);
    assert!(!sweep.axes[1].size);
    assert_eq!(sweep.points.len(), 6);
    assert_eq!(sweep.points[4].values, [json!(65536), json!(0.002)]);
    assert_eq!(
        sweep.points[4].config.workload.params["scale"],
        json!(0.002)
    );
}

#[test]
fn errors_name_the_parameter_and_what_it_takes() {
    let b = base().resolve().unwrap();
    let e = find_param(&b, "slab").unwrap_err();
    assert!(e.contains("slab_size (256 B..=1 GiB)"), "{e}");
    assert!(e.contains("scale (0.0001..=10)"), "{e}");
    let e = find_param(&b, "growth").unwrap_err();
    assert!(e.contains("not numeric"), "{e}");
    let e = Sweep::new(&base(), &[("slab_size".into(), vec![json!(8)])], "page_ops").unwrap_err();
    assert!(e.starts_with("slab_size: 8 is outside"), "{e}");
    let e = Sweep::new(&base(), &[("slab_size".into(), vec![json!(4096)])], "speed").unwrap_err();
    assert!(e.contains("no metric"), "{e}");
    let sweep = Sweep::new(
        &base(),
        &[("slab_size".into(), vec![json!(4096)])],
        "page_ops",
    )
    .unwrap();
    let e = sweep.report(&[json!({"events": 3})]).unwrap_err();
    assert!(e.starts_with("reports[0]."), "{e}");
    assert!(sweep.report(&[]).is_err());
}

/// A sweep survives its link: the page's sweep opens as the same points.
#[test]
fn a_sweep_opens_from_its_link() {
    let sweep = Sweep::new(
        &base(),
        &[
            ("slab_size".into(), vec![json!(4096), json!(8192)]),
            ("scale".into(), vec![json!(0.001), json!(0.002)]),
        ],
        "page_ops",
    )
    .unwrap()
    .plotting(&["end_resident_bytes".into(), "page_ops".into()])
    .unwrap();
    // The chart plots its own metric once, then the others in order.
    assert_eq!(sweep.metrics(), ["page_ops", "end_resident_bytes"]);
    let state = sweep.link_state().unwrap();
    let text = crate::link::encode(&state);
    let opened = Sweep::from_link(&crate::link::decode(&text).unwrap()).unwrap();
    assert_eq!(opened, sweep);
    // A metric that does not exist is named, in the link as in the call.
    assert!(sweep
        .clone()
        .plotting(&["peak".into()])
        .unwrap_err()
        .contains("\"peak\""));
    let mut bad = state.clone();
    bad.view.sweep.as_mut().unwrap().also = vec!["page_ops".into(), "nope".into()];
    let e = crate::link::decode(&crate::link::encode(&bad)).unwrap_err();
    assert!(e.message.contains("view.sweep.also[1]"), "{e}");
    let e = Sweep::from_link(&LinkState::default()).unwrap_err();
    assert!(e.message.contains("view.sweep"), "{e}");
}

/// A phase figure is a metric a sweep plots: resident at the end of a JIT's third compile
/// against the slab size, as each point's own run ends that phase; a phase the workload
/// does not have is named with the phases it has.
#[test]
fn a_phase_figure_is_a_sweepable_metric() {
    let mut base = RunConfig::new("jit", "llvm-bump");
    base.workload.params.insert("scale".into(), 0.02.into());
    let values = vec![json!(4096), json!(65536)];
    let key = "resident_bytes@compile 3";
    let sweep = Sweep::new(&base, &[("slab_size".into(), values.clone())], key).unwrap();
    let reports = run_all(&sweep);
    let report = sweep.report(&reports).unwrap();
    for (point, run) in report.points.iter().zip(&reports) {
        let phase = run["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["label"] == "compile 3")
            .unwrap();
        assert_eq!(point.metrics.get(key), phase["resident_bytes"].as_f64());
    }
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["points"][0]["metrics"][key].is_number());

    let missing = Sweep::new(
        &base,
        &[("slab_size".into(), values)],
        "resident_bytes@nope",
    )
    .unwrap()
    .report(&reports)
    .unwrap_err();
    assert!(
        missing.contains("no phase \"nope\"") && missing.contains("compile 3"),
        "{missing}"
    );
    assert!(Sweep::new(&base, &[("slab_size".into(), vec![json!(4096)])], "bytes@x").is_err());
}
