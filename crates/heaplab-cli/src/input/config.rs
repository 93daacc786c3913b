//! This module builds the `RunConfig`s of a `RunInputArgs`, from its flags or its file.
//!
//! The flags give one config per `--policy`; a `--config` file holds one config or an
//! array of them.

use std::collections::BTreeMap;
use std::path::Path;

use heaplab_core::clock::Clock;
use heaplab_core::config::{ProviderKind, RunConfig, TouchMode, WorkloadConfig};
use heaplab_core::policy;
use serde_json::Value;

use super::file_format::{is_toml, json_error, toml_error};
use super::policy::{is_policy_file, policy_arg, policy_unknown};
use super::sets::{apply_sets, WorkloadSets};
use super::workload::{find_workload, is_trace_arg};
use crate::cli::RunInputArgs;
use crate::error::CliError;

/// The configs to run: those of the `--config` file, or one per `--policy` built from the
/// flags. Flags are checked here (`RunConfig::resolve`), a file's values when it runs; the
/// configs are returned as given, not resolved, so defaults are filled in by the run.
pub fn configs(args: &RunInputArgs) -> Result<Vec<RunConfig>, CliError> {
    match &args.config {
        Some(path) => {
            let mut configs = configs_from_file(path)?;
            // `--clock` is the one run-wide flag a file's configs take: the same trace
            // replayed at another pace is a question asked of any saved comparison.
            if let Some(clock) = clock_arg(args)? {
                for c in &mut configs {
                    c.clock = Some(clock);
                    c.resolve()
                        .map_err(|e| CliError::input(format!("--clock: {}", e.message)))?;
                }
            }
            Ok(configs)
        }
        None => configs_from_flags(args),
    }
}

/// `--clock`'s value, read by the one reader of clocks.
fn clock_arg(args: &RunInputArgs) -> Result<Option<Clock>, CliError> {
    args.clock
        .as_deref()
        .map(|text| Clock::parse(text, "--clock").map_err(|e| CliError::input(e.to_string())))
        .transpose()
}

/// The configs of a file: TOML when its name ends in `.toml`, JSON otherwise.
pub fn configs_from_file(path: &Path) -> Result<Vec<RunConfig>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let origin = path.display().to_string();
    let configs = if is_toml(path) {
        configs_from_toml(&text, &origin)?
    } else {
        configs_from_json(&text, &origin)?
    };
    // The one validator, before anything runs, so a bad value is named with its file
    // (and, among several configs, its place in the file).
    for (i, c) in configs.iter().enumerate() {
        c.resolve().map_err(|e| match configs.len() {
            1 => CliError::input(format!("{origin}: {e}")),
            _ => CliError::input(format!("{origin}: config {}: {e}", i + 1)),
        })?;
    }
    Ok(configs)
}

/// The configs in TOML text: one config (its `[workload]`, `[policy]` and `[provider]`
/// tables at the top level, as `heaplab config --example` prints it) or several as
/// `[[configs]]`. TOML is read by serde onto the same structs as JSON, so the fields,
/// their defaults and the one validator (`RunConfig::resolve`, when a config runs) are
/// the same; a syntax or field error names its line and column in the text.
pub fn configs_from_toml(text: &str, origin: &str) -> Result<Vec<RunConfig>, CliError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Many {
        configs: Vec<RunConfig>,
    }
    let located = |e: toml::de::Error| toml_error(origin, text, &e);
    let table: toml::Table = toml::from_str(text).map_err(located)?;
    if table.contains_key("configs") {
        Ok(toml::from_str::<Many>(text).map_err(located)?.configs)
    } else {
        Ok(vec![toml::from_str::<RunConfig>(text).map_err(located)?])
    }
}

/// The configs in JSON text: one config object or an array of them, as the browser page
/// holds them, or what `--json` printed (each report's `config`, its figures ignored).
/// `origin` (a file name) starts every error message, and a syntax or field error names
/// its true line and column in the text.
pub fn configs_from_json(text: &str, origin: &str) -> Result<Vec<RunConfig>, CliError> {
    /// A report as `--json` prints it: only its config is read back.
    #[derive(serde::Deserialize)]
    struct Printed {
        config: RunConfig,
    }
    let located = |e: serde_json::Error| json_error(origin, &e);
    // The shape decides how to read the text; the text itself is then read by serde from
    // the start, so that positions in messages are the file's own.
    let shape: Value = serde_json::from_str(text).map_err(located)?;
    let printed = |v: &Value| v.get("config").is_some_and(Value::is_object);
    match &shape {
        Value::Array(items) if !items.is_empty() && items.iter().all(printed) => {
            let reports: Vec<Printed> = serde_json::from_str(text).map_err(located)?;
            Ok(reports.into_iter().map(|r| r.config).collect())
        }
        Value::Array(_) => serde_json::from_str(text).map_err(located),
        v if printed(v) => Ok(vec![
            serde_json::from_str::<Printed>(text)
                .map_err(located)?
                .config,
        ]),
        _ => Ok(vec![serde_json::from_str(text).map_err(located)?]),
    }
}

fn configs_from_flags(args: &RunInputArgs) -> Result<Vec<RunConfig>, CliError> {
    let name = args.workload.clone().unwrap_or_default();
    let wparams = &args.workload_params;
    let workload = if is_trace_arg(&name) {
        WorkloadConfig::trace(name)
    } else {
        let spec = find_workload(&name, "--workload")?;
        let mut params = BTreeMap::new();
        WorkloadSets::new(&wparams.wset, &wparams.seed, &wparams.scale)
            .apply(&mut params, spec.params)?;
        WorkloadConfig {
            id: name,
            params,
            path: None,
        }
    };
    if workload.is_trace()
        && (!wparams.wset.is_empty() || wparams.seed.is_some() || wparams.scale.is_some())
    {
        return Err(CliError::input(
            "a trace file takes no --wset, --seed or --scale",
        ));
    }
    let mut configs = Vec::new();
    for p in &args.policy {
        let mut policy = policy_arg(p)?;
        // What a policy file says is named with the file it came from.
        let file = is_policy_file(p).then_some(p);
        let family = policy::family(&policy.family).ok_or_else(|| {
            CliError::input(match file {
                Some(file) => {
                    let id = match (&policy.preset, policy.family.is_empty()) {
                        (Some(preset), true) => preset.as_str(),
                        _ => policy.family.as_str(),
                    };
                    format!("{file}: {}", policy_unknown(id))
                }
                None => policy_unknown(p),
            })
        })?;
        apply_sets(&mut policy.params, &args.set, family.params, "--set")?;
        let mut config = RunConfig::new("", "");
        config.workload = workload.clone();
        config.policy = policy;
        if let Some(ps) = args.page_size {
            config.provider.page_size = ps;
        }
        if let Some(kind) = &args.provider {
            config.provider.kind = provider_kind(kind)?;
        }
        if let Some(touch) = &args.touch {
            config.touch = touch_mode(touch)?;
        }
        if let Some(points) = args.points {
            config.series_points = points;
        }
        config.clock = clock_arg(args)?;
        config
            .resolve()
            .map_err(|e| match (file, flag_of(&e.field, args)) {
                (Some(file), _) if e.field.starts_with("policy") => {
                    CliError::input(format!("{file}: {e}"))
                }
                (_, Some(flag)) => CliError::input(format!("{flag}: {}", e.message)),
                _ => CliError::input(e.to_string()),
            })?;
        configs.push(config);
    }
    Ok(configs)
}

/// The flag that gave a config field its value, if one did: an error in it is named as
/// the user typed it (`--page-size`, `--set slab_size`) rather than by its field path,
/// which a config file or a link keeps.
fn flag_of(field: &str, args: &RunInputArgs) -> Option<String> {
    match field {
        "provider.page_size" => args.page_size.map(|_| "--page-size".to_string()),
        "series_points" => args.points.map(|_| "--points".to_string()),
        "clock" => args.clock.as_ref().map(|_| "--clock".to_string()),
        _ => {
            let key = field.strip_prefix("policy.params.")?;
            args.set
                .iter()
                .any(|s| s.split_once('=').is_some_and(|(k, _)| k == key))
                .then(|| format!("--set {key}"))
        }
    }
}

/// `--provider`'s value.
fn provider_kind(kind: &str) -> Result<ProviderKind, CliError> {
    ProviderKind::from_id(kind).ok_or_else(|| {
        let ids: Vec<&str> = ProviderKind::ALL.iter().map(|p| p.id()).collect();
        CliError::input(format!(
            "--provider: unknown provider {kind:?}; valid ones are: {}",
            ids.join(", ")
        ))
    })
}

/// `--touch`'s value.
fn touch_mode(touch: &str) -> Result<TouchMode, CliError> {
    match touch {
        "all" => Ok(TouchMode::All),
        "first" => Ok(TouchMode::First),
        "none" => Ok(TouchMode::None),
        other => Err(CliError::input(format!(
            "--touch: unknown mode {other:?}; valid ones are: all, first, none"
        ))),
    }
}

/// The configurations one argument of `heaplab compare` names: a preset or family id
/// (with `:key=value` settings of its own), a policy file (`{"family" or "preset": …,
/// "params": {…}}`, JSON or TOML) or a run config file, one config or several, whose
/// policies, providers and touch modes are taken (their workloads are the suite's).
pub fn configurations(arg: &str) -> Result<Vec<RunConfig>, CliError> {
    let path = Path::new(arg);
    // An allocator module is a policy, never a file of configs.
    let module = arg.ends_with(".wasm") || arg.contains(".wasm:");
    if !module && path.is_file() && holds_run_configs(path)? {
        return configs_from_file(path);
    }
    let mut policy = policy_arg(arg)?;
    if policy::family(&policy.family).is_none() {
        let id = match (&policy.preset, policy.family.is_empty()) {
            (Some(preset), true) => preset.clone(),
            _ => policy.family.clone(),
        };
        return Err(CliError::input(if is_policy_file(arg) {
            format!("{arg}: {}", policy_unknown(&id))
        } else {
            policy_unknown(arg)
        }));
    }
    if policy.preset.is_none() && policy.family.is_empty() {
        policy.family = arg.to_string();
    }
    let mut config = RunConfig::new("", "");
    config.policy = policy;
    Ok(vec![config])
}

/// Whether a file holds run configs (an array, or an object with a `policy`) rather than
/// a policy alone.
fn holds_run_configs(path: &Path) -> Result<bool, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let value: Value = if is_toml(path) {
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| toml_error(&path.display().to_string(), &text, &e))?;
        return Ok(table.contains_key("policy") || table.contains_key("configs"));
    } else {
        serde_json::from_str(&text).map_err(|e| json_error(&path.display().to_string(), &e))?
    };
    Ok(value.is_array() || value.get("policy").is_some() || value.get("config").is_some())
}
