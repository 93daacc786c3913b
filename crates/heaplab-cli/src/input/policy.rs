//! This module reads `--policy` arguments: an id, an id with settings, a JSON or TOML
//! file, or an allocator module (`mm.wasm`, with settings as `mm.wasm:align=16`).

use std::path::Path;
use std::sync::Arc;

use heaplab_core::config::PolicyConfig;
use heaplab_core::policy;
use heaplab_core::policy::hosted;
use heaplab_mm::AllocatorModule;

use super::file_format::{is_toml, json_error, toml_error};
use super::sets::apply_sets;
use crate::error::CliError;

/// Whether a `--policy` argument names a JSON file rather than a family or preset.
pub(super) fn is_policy_file(arg: &str) -> bool {
    arg.ends_with(".json") || arg.ends_with(".toml") || Path::new(arg).is_file()
}

/// The error text for a policy id that names no family or preset, listing the valid ones.
pub(super) fn policy_unknown(id: &str) -> String {
    let ids: Vec<&str> = policy::FAMILIES.iter().map(|f| f.id).collect();
    let presets: Vec<&str> = heaplab_core::presets::PRESETS
        .iter()
        .map(|p| p.id)
        .collect();
    let names: Vec<&str> = ids.iter().chain(&presets).copied().collect();
    format!(
        "unknown policy {id:?}{}; valid families are: {}; presets: {} (or give a .json policy file)",
        heaplab_core::names::did_you_mean(id, &names),
        ids.join(", "),
        presets.join(", ")
    )
}

/// A family or preset id, optionally with its own settings (`glibc-like:trim_threshold=1MiB,top_pad=0`),
/// or a JSON or TOML file holding a policy config. An id without settings is not checked here:
/// the caller looks its family up (and `RunConfig::resolve` checks it).
pub fn policy_arg(arg: &str) -> Result<PolicyConfig, CliError> {
    if let Some(policy) = module_arg(arg)? {
        return Ok(policy);
    }
    if let Some((name, settings)) = arg.split_once(':') {
        let mut policy = PolicyConfig::named(name);
        let family =
            policy::family(&policy.family).ok_or_else(|| CliError::input(policy_unknown(name)))?;
        let sets: Vec<String> = settings.split(',').map(str::to_string).collect();
        apply_sets(
            &mut policy.params,
            &sets,
            family.params,
            &format!("--policy {name}:"),
        )?;
        return Ok(policy);
    }
    if !is_policy_file(arg) {
        return Ok(PolicyConfig::named(arg));
    }
    let text = std::fs::read_to_string(arg).map_err(|e| CliError::input(format!("{arg}: {e}")))?;
    let mut policy: PolicyConfig = if is_toml(Path::new(arg)) {
        toml::from_str(&text).map_err(|e| toml_error(arg, &text, &e))?
    } else {
        serde_json::from_str(&text).map_err(|e| json_error(arg, &e))?
    };
    if policy.family.is_empty() {
        if let Some(preset) = policy
            .preset
            .as_deref()
            .and_then(heaplab_core::presets::preset)
        {
            policy.family = preset.family.into();
        }
    }
    Ok(policy)
}

/// Reads, checks and registers the allocator module at `path`, so that every config that
/// names its SHA-256 runs it.
pub fn load_module(path: &Path) -> Result<Arc<AllocatorModule>, CliError> {
    let bytes =
        std::fs::read(path).map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let module = AllocatorModule::new(&name, &bytes)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    Ok(module.register())
}

/// A `--policy` argument that names an allocator module: a path ending in `.wasm`,
/// optionally followed by `:key=value,...` settings of the module family.
fn module_arg(arg: &str) -> Result<Option<PolicyConfig>, CliError> {
    let (path, settings) = match arg.rsplit_once(".wasm:") {
        Some((stem, settings)) => (format!("{stem}.wasm"), Some(settings)),
        None if arg.ends_with(".wasm") => (arg.to_string(), None),
        None => return Ok(None),
    };
    let module = load_module(Path::new(&path))?;
    let mut policy = module.policy_config();
    if let Some(settings) = settings {
        let sets: Vec<String> = settings.split(',').map(str::to_string).collect();
        apply_sets(
            &mut policy.params,
            &sets,
            hosted::FAMILY.params,
            &format!("--policy {path}:"),
        )?;
    }
    Ok(Some(policy))
}
