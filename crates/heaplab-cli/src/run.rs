//! `heaplab run` and `heaplab export`: building configs from flags and running them.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use heaplab_core::config::{PolicyConfig, ProviderKind, RunConfig, TouchMode, WorkloadConfig};
use heaplab_core::params::ParamSpec;
use heaplab_core::policy;
use heaplab_core::run::{run_trace, RunError, RunOutput};
use heaplab_core::trace::{self, ImportOptions};
use heaplab_core::workload;
use serde_json::Value;

use crate::cli::{ConvertArgs, ExportArgs, RunArgs, RunInputArgs};
use crate::report;
use crate::CliError;

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let configs = match &args.input.config {
        Some(path) => configs_from_file(path)?,
        None => configs_from_flags(&args.input)?,
    };
    if args.lenient && !configs.iter().any(|c| c.workload.is_trace()) {
        // Not an error: the flag asks for nothing that cannot be done. But a user who
        // meant it for a trace should learn that none was read.
        eprintln!("heaplab: --lenient applies to trace files, and no run here reads one");
    }
    if args.real {
        return crate::real::run_real(&args, &configs);
    }
    let options = ImportOptions {
        lenient: args.lenient,
    };
    let mut outputs = Vec::new();
    for config in &configs {
        outputs.push(run_one(config, &options)?);
    }
    if let Some(path) = &args.series {
        let series: Vec<Value> = outputs
            .iter()
            .map(
                |o| serde_json::json!({"label": o.report.config.policy.preset.as_deref().unwrap_or(&o.report.config.policy.family), "series": o.series}),
            )
            .collect();
        write_json(path, &Value::Array(series))?;
    }
    if args.json {
        let reports: Vec<_> = outputs.iter().map(RunOutput::json).collect();
        let text =
            serde_json::to_string_pretty(&reports).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
    } else {
        report::print_runs(&outputs);
    }
    Ok(())
}

/// Runs one config: a built-in workload, or a trace file streamed from disk.
pub(crate) fn run_one(config: &RunConfig, options: &ImportOptions) -> Result<RunOutput, CliError> {
    let result = if config.workload.is_trace() {
        let path = config.workload.path.clone().unwrap_or_default();
        let file = File::open(&path).map_err(|e| CliError::input(format!("{path}: {e}")))?;
        run_trace(config, file, options)
    } else {
        heaplab_core::run::run(config)
    };
    result.map_err(|e| match e {
        RunError::Config(e) => CliError::input(e.to_string()),
        RunError::Event(msg) => CliError::input(msg),
    })
}

fn configs_from_file(path: &Path) -> Result<Vec<RunConfig>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let located = |e: String| CliError::input(format!("{}: {e}", path.display()));
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let values: Vec<Value> = serde_json::from_str(&text).map_err(|e| located(e.to_string()))?;
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                RunConfig::from_json(&v.to_string())
                    .map_err(|e| located(format!("config [{i}]: {}", e.message)))
            })
            .collect()
    } else {
        Ok(vec![
            RunConfig::from_json(&text).map_err(|e| located(e.to_string()))?
        ])
    }
}

fn configs_from_flags(args: &RunInputArgs) -> Result<Vec<RunConfig>, CliError> {
    let name = args.workload.clone().unwrap_or_default();
    let mut workload = if is_trace_arg(&name) {
        WorkloadConfig::trace(name)
    } else {
        let spec = workload::find(&name).map_err(|e| CliError::input(e.to_string()))?;
        let mut params = BTreeMap::new();
        let wset = workload_sets(&args.wset, &args.seed, &args.scale);
        apply_sets(&mut params, &wset, spec.params, "--wset")?;
        WorkloadConfig {
            id: name,
            params,
            path: None,
        }
    };
    if workload.is_trace() && (!args.wset.is_empty() || args.seed.is_some() || args.scale.is_some())
    {
        return Err(CliError::input(
            "a trace file takes no --wset, --seed or --scale",
        ));
    }
    workload.params = std::mem::take(&mut workload.params);
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
            config.provider.kind = match kind.as_str() {
                "sim" => ProviderKind::Sim,
                "wasm-linear" => ProviderKind::WasmLinear,
                other => {
                    return Err(CliError::input(format!(
                        "--provider: unknown provider {other:?}; valid ones are: sim, wasm-linear"
                    )))
                }
            };
        }
        if let Some(touch) = &args.touch {
            config.touch = match touch.as_str() {
                "all" => TouchMode::All,
                "first" => TouchMode::First,
                "none" => TouchMode::None,
                other => {
                    return Err(CliError::input(format!(
                        "--touch: unknown mode {other:?}; valid ones are: all, first, none"
                    )))
                }
            };
        }
        if let Some(points) = args.points {
            config.series_points = points;
        }
        config.resolve().map_err(|e| match file {
            Some(file) if e.field.starts_with("policy") => CliError::input(format!("{file}: {e}")),
            _ => CliError::input(e.to_string()),
        })?;
        configs.push(config);
    }
    Ok(configs)
}

/// Whether a `--policy` argument names a JSON file rather than a family or preset.
fn is_policy_file(arg: &str) -> bool {
    arg.ends_with(".json") || Path::new(arg).is_file()
}

/// Whether a `--workload`/`-w` argument names a trace file rather than a built-in
/// workload: a file that exists, or a name with a trace's extension (so that a missing
/// trace is reported as a missing file, not as an unknown workload). `run`, `baseline`
/// and `fidelity` all decide with this.
pub(crate) fn is_trace_arg(name: &str) -> bool {
    looks_like_trace(name) || Path::new(name).is_file()
}

/// A trace's extension, or any gzip'd file: the reader sniffs the format of what it holds.
fn looks_like_trace(name: &str) -> bool {
    name.ends_with(".gz") || heaplab_core::trace::has_trace_extension(name)
}

fn policy_unknown(id: &str) -> String {
    let ids: Vec<&str> = policy::FAMILIES.iter().map(|f| f.id).collect();
    let presets: Vec<&str> = heaplab_core::presets::PRESETS
        .iter()
        .map(|p| p.id)
        .collect();
    format!(
        "unknown policy {id:?}; valid families are: {}; presets: {} (or give a .json policy file)",
        ids.join(", "),
        presets.join(", ")
    )
}

/// A family or preset id, optionally with its own settings (`glibc-like:trim_threshold=1MiB,top_pad=0`),
/// or a JSON file holding a policy config.
fn policy_arg(arg: &str) -> Result<PolicyConfig, CliError> {
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
    let mut policy: PolicyConfig =
        serde_json::from_str(&text).map_err(|e| CliError::input(format!("{arg}: {e}")))?;
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

/// Applies `key=value` settings, parsing each value by its parameter's spec so that
/// `--set slab_size=1MiB` and `--set fit=first` both work.
pub(crate) fn apply_sets(
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

pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string(value).map_err(|e| CliError::failed(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}

/// `--wset` settings with `--seed` and `--scale` folded in, as `key=value` text.
pub(crate) fn workload_sets(
    wset: &[String],
    seed: &Option<String>,
    scale: &Option<String>,
) -> Vec<String> {
    let mut sets = wset.to_vec();
    sets.extend(seed.iter().map(|s| format!("seed={s}")));
    sets.extend(scale.iter().map(|s| format!("scale={s}")));
    sets
}

/// `heaplab convert`: any trace heaplab reads, written as `.trace`, streaming.
pub fn convert(args: ConvertArgs) -> Result<(), CliError> {
    let name = args.input.display().to_string();
    let input = File::open(&args.input).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let mut w = BufWriter::new(output_file(&args.output)?);
    let out_name = args.output.display().to_string();
    writeln!(w, "# heaplab trace: converted from {name}")
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    let options = ImportOptions {
        lenient: args.lenient,
    };
    let imported = trace::import(input, &name, &options, &mut |event| {
        trace::write_event(&mut w, &event)
    })
    .map_err(|e| CliError::input(e.to_string()))?;
    w.flush()
        .map_err(|e| CliError::failed(format!("{out_name}: {e}")))?;
    eprintln!("{name}: {imported}");
    if let Some(skipped) = &imported.skipped {
        report::print_skipped(skipped);
    }
    Ok(())
}

/// A file to write, or standard output for `-`.
fn output_file(path: &Path) -> Result<Box<dyn Write>, CliError> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdout().lock()));
    }
    let file =
        File::create(path).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    Ok(Box::new(file))
}

pub fn export(args: ExportArgs) -> Result<(), CliError> {
    let spec = workload::find(&args.workload).map_err(|e| CliError::input(e.to_string()))?;
    let wset = workload_sets(&args.wset, &args.seed, &args.scale);
    let mut given = BTreeMap::new();
    apply_sets(&mut given, &wset, spec.params, "--wset")?;
    let params = heaplab_core::params::Params::resolve(spec.params, &given, "workload.params")
        .map_err(|e| CliError::input(e.to_string()))?;
    let mut w = BufWriter::new(output_file(&args.output)?);
    let io_err = |e: io::Error| CliError::failed(format!("{}: {e}", args.output.display()));
    writeln!(
        w,
        "# heaplab trace: workload {} {}",
        spec.id,
        serde_json::to_string(&params).unwrap_or_default()
    )
    .map_err(io_err)?;
    spec.generate(&params, &mut |event| trace::write_event(&mut w, &event))
        .map_err(io_err)?;
    w.flush().map_err(io_err)
}
