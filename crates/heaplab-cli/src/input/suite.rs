//! The workloads `heaplab compare` runs: a list of built-in ids and trace files, or a
//! named suite — `mallocbench` (the MallocBench ports), `scenarios` (the workloads of the
//! seed scenarios, with the parameters each scenario sets), `all` (every built-in
//! workload and the scenarios' variants) — each resolved, with a label for the table.

use std::collections::BTreeMap;

use heaplab_core::config::WorkloadConfig;
use serde_json::Value;

use super::sets::apply_sets;
use super::workload::{is_trace_arg, resolve_workload};
use crate::error::CliError;

/// MallocBench's benchmarks, as ported to built-in workloads, in the order its report
/// lists them.
pub const MALLOCBENCH: &[&str] = &[
    "churn",
    "list_allocate",
    "tree_allocate",
    "tree_churn",
    "fragment",
    "fragment_iterate",
    "medium",
    "big",
    "message_one",
    "message_many",
    "balloon",
];

/// The suite `compare` runs when `--workloads` is not given.
pub const DEFAULT: &str = "mallocbench,scenarios";

/// The scale `compare` runs built-in workloads at when `--scale` is not given: the
/// original benchmarks' size. The default suite then takes about 30 s for two
/// configurations on this project's 2-core machine (README, "Compare").
pub const DEFAULT_SCALE: &str = "1";

/// One workload of a comparison: a table's row.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteWorkload {
    /// The id and the parameters the suite sets (`browser (vector_growth=+1)`), or a
    /// trace's file name.
    pub label: String,
    /// Resolved: every parameter filled in.
    pub workload: WorkloadConfig,
}

/// The workloads of `--workloads` (`spec`, comma-separated names: ids, trace files,
/// `mallocbench`, `scenarios`, `all`), each built-in one at `--scale` when given, else at
/// [`DEFAULT_SCALE`]. The same workload named twice runs once.
pub fn suite(spec: &str, scale: Option<&str>) -> Result<Vec<SuiteWorkload>, CliError> {
    let given = scale.is_some();
    let scale = Some(scale.unwrap_or(DEFAULT_SCALE));
    let mut out: Vec<SuiteWorkload> = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        for (id, params) in expand(name)? {
            let item = if is_trace_arg(&id) {
                if given {
                    return Err(CliError::input(format!(
                        "--scale: {id} is a trace file, which has no scale; give --scale only \
                         with built-in workloads"
                    )));
                }
                SuiteWorkload {
                    label: id.clone(),
                    workload: WorkloadConfig::trace(id),
                }
            } else {
                resolved(&id, params, scale)?
            };
            if !out.iter().any(|w| w.workload == item.workload) {
                out.push(item);
            }
        }
    }
    if out.is_empty() {
        return Err(CliError::input(
            "--workloads: no workload named; give ids, trace files, mallocbench, scenarios or all",
        ));
    }
    Ok(out)
}

/// A workload a suite names: its id and the parameters the suite sets.
type Named = (String, BTreeMap<String, Value>);

/// A name of `--workloads` as the workloads it stands for, each with the parameters it
/// sets.
fn expand(name: &str) -> Result<Vec<Named>, CliError> {
    let bare = |ids: &mut dyn Iterator<Item = &str>| -> Vec<Named> {
        ids.map(|id| (id.to_string(), BTreeMap::new())).collect()
    };
    Ok(match name {
        "mallocbench" => bare(&mut MALLOCBENCH.iter().copied()),
        "scenarios" => scenario_workloads()?,
        "all" => {
            let mut all = bare(&mut heaplab_core::workload::WORKLOADS.iter().map(|w| w.id));
            all.extend(scenario_workloads()?);
            all
        }
        other => vec![(other.to_string(), BTreeMap::new())],
    })
}

/// Every seed scenario's workloads, in the scenarios' order.
fn scenario_workloads() -> Result<Vec<Named>, CliError> {
    let specs = heaplab_app::scenario::scenarios().map_err(CliError::failed)?;
    Ok(specs
        .into_iter()
        .flat_map(|s| s.workloads)
        .map(|w| (w.id, w.params))
        .collect())
}

/// A built-in workload with the suite's parameters and `--scale`, resolved, and its label:
/// the id and the parameters set here (other than a `--scale` every row shares).
fn resolved(
    id: &str,
    mut params: BTreeMap<String, Value>,
    scale: Option<&str>,
) -> Result<SuiteWorkload, CliError> {
    let spec = heaplab_core::workload::find(id).map_err(|e| {
        CliError::input(format!(
            "--workloads: {}; or a suite: mallocbench, scenarios, all",
            e.message
        ))
    })?;
    let shown: Vec<String> = params
        .iter()
        .filter(|(k, _)| !(scale.is_some() && k.as_str() == "scale"))
        .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
        .collect();
    if let Some(scale) = scale {
        if spec.params.iter().any(|p| p.name == "scale") {
            apply_sets(
                &mut params,
                &[format!("scale={scale}")],
                spec.params,
                "--scale",
            )?;
        }
    }
    let workload = resolve_workload(id, &params)?;
    let label = if shown.is_empty() {
        id.to_string()
    } else {
        format!("{id} ({})", shown.join(", "))
    };
    Ok(SuiteWorkload { label, workload })
}
