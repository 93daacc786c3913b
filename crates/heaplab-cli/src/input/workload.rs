//! This module tells trace files from built-in workloads, and resolves built-in ones.

use std::collections::BTreeMap;
use std::path::Path;

use heaplab_core::config::WorkloadConfig;
use heaplab_core::workload::{self, WorkloadSpec};

use super::sets::WorkloadSets;
use crate::error::CliError;

/// Whether a `--workload`/`-w` argument names a trace file rather than a built-in
/// workload: a file that exists, or a name with a trace's extension (so that a missing
/// trace is reported as a missing file, not as an unknown workload). `run`, `baseline`
/// and `fidelity` all decide with this.
pub fn is_trace_arg(name: &str) -> bool {
    looks_like_trace(name) || Path::new(name).is_file()
}

/// A trace's extension, or any gzip'd file: the reader sniffs the format of what it holds.
fn looks_like_trace(name: &str) -> bool {
    name.ends_with(".gz") || heaplab_core::trace::has_trace_extension(name)
}

/// The built-in workload `name`, which the user gave with `flag`: an unknown one is named
/// with the flag, and the closest built-in name suggested.
pub fn find_workload(name: &str, flag: &str) -> Result<&'static WorkloadSpec, CliError> {
    workload::find(name).map_err(|e| CliError::input(format!("{flag}: {}", e.message)))
}

/// The built-in workload `name` (given with `--workload`) with its settings, resolved and
/// checked as `heaplab run` checks it.
pub fn builtin_workload(name: &str, sets: &WorkloadSets) -> Result<WorkloadConfig, CliError> {
    let spec = find_workload(name, "--workload")?;
    let mut given = BTreeMap::new();
    sets.apply(&mut given, spec.params)?;
    resolve_workload(name, &given)
}

/// The built-in workload `name` with the parameters `given` (JSON values, as a config
/// file or a scenario holds them), resolved and checked as `heaplab run` checks it.
pub fn resolve_workload(
    name: &str,
    given: &BTreeMap<String, serde_json::Value>,
) -> Result<WorkloadConfig, CliError> {
    let spec = workload::find(name).map_err(|e| CliError::input(e.to_string()))?;
    let params = heaplab_core::params::Params::resolve(spec.params, given, "workload.params")
        .map_err(|e| CliError::input(e.to_string()))?;
    spec.check(&params)
        .map_err(|e| CliError::input(e.to_string()))?;
    Ok(WorkloadConfig {
        id: name.to_string(),
        params: params.to_json_map(),
        path: None,
    })
}
