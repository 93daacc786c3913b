//! `KEY=VALUE` settings of policy and workload parameters are parsed here, by their specs.

use std::collections::BTreeMap;

use heaplab_core::params::ParamSpec;
use serde_json::Value;

use crate::error::CliError;

/// Applies `key=value` settings, parsing each value by its parameter's spec so that
/// `--set slab_size=1MiB` and `--set fit=first` both work. `flag` names where the settings
/// came from in errors (`--set`, `--wset`, `--policy glibc-like:`), with the key unless the
/// flag is the parameter's own (`--scale`, not `--scale scale`).
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
        let place = if flag == format!("--{key}") {
            flag.to_string()
        } else {
            format!("{flag} {key}")
        };
        let spec = specs.iter().find(|p| p.name == key).ok_or_else(|| {
            let names: Vec<&str> = specs.iter().map(|p| p.name).collect();
            CliError::input(format!(
                "{place}: unknown parameter; valid ones are: {}",
                names.join(", ")
            ))
        })?;
        let v = spec
            .parse_text(value)
            .map_err(|e| CliError::input(format!("{place}: {e}")))?;
        params.insert(
            key.to_string(),
            serde_json::to_value(v).unwrap_or(Value::Null),
        );
    }
    Ok(())
}

/// A workload's settings as `key=value` text, each with the flag it was typed with, so
/// that an error names `--scale` for `--scale 0` and `--wset scale` for `--wset scale=0`.
pub struct WorkloadSets(Vec<(&'static str, String)>);

impl WorkloadSets {
    /// `--wset` settings with `--seed` and `--scale` beside them.
    pub fn new(wset: &[String], seed: &Option<String>, scale: &Option<String>) -> WorkloadSets {
        let mut sets: Vec<(&'static str, String)> =
            wset.iter().map(|s| ("--wset", s.clone())).collect();
        sets.extend(seed.iter().map(|s| ("--seed", format!("seed={s}"))));
        sets.extend(scale.iter().map(|s| ("--scale", format!("scale={s}"))));
        WorkloadSets(sets)
    }

    /// Applies every setting by the workload's parameter `specs`.
    pub fn apply(
        &self,
        params: &mut BTreeMap<String, Value>,
        specs: &[ParamSpec],
    ) -> Result<(), CliError> {
        for (flag, set) in &self.0 {
            apply_sets(params, std::slice::from_ref(set), specs, flag)?;
        }
        Ok(())
    }
}
