//! `KEY=VALUE` settings of policy and workload parameters are parsed here, by their specs.

use std::collections::BTreeMap;

use heaplab_core::params::ParamSpec;
use serde_json::Value;

use crate::error::CliError;

/// Applies `key=value` settings, parsing each value by its parameter's spec so that
/// `--set slab_size=1MiB` and `--set fit=first` both work. `flag` names where the settings
/// came from in errors (`--set`, `--wset`, `--policy glibc-like:`).
pub fn apply_sets(
    params: &mut BTreeMap<String, Value>,
    sets: &[String],
    specs: &[ParamSpec],
    flag: &str,
) -> Result<(), CliError> {
    for s in sets {
        let (key, value) = s
            .split_once('=')
            .ok_or_else(|| CliError::input(format!("{flag} {s:?}: expected KEY=VALUE")))?;
        let spec = specs.iter().find(|p| p.name == key).ok_or_else(|| {
            let names: Vec<&str> = specs.iter().map(|p| p.name).collect();
            CliError::input(format!(
                "{flag} {key}: unknown parameter; valid ones are: {}",
                names.join(", ")
            ))
        })?;
        let v = spec
            .parse_text(value)
            .map_err(|e| CliError::input(format!("{flag} {key}: {e}")))?;
        params.insert(
            key.to_string(),
            serde_json::to_value(v).unwrap_or(Value::Null),
        );
    }
    Ok(())
}

/// `--wset` settings with `--seed` and `--scale` folded in, as `key=value` text.
pub fn workload_sets(
    wset: &[String],
    seed: &Option<String>,
    scale: &Option<String>,
) -> Vec<String> {
    let mut sets = wset.to_vec();
    sets.extend(seed.iter().map(|s| format!("seed={s}")));
    sets.extend(scale.iter().map(|s| format!("scale={s}")));
    sets
}
