//! A sweep from flags: one configuration (`RunInputArgs`) and each `--vary KEY=VALUES` an
//! axis, the values read by the parameter's own spec.

use heaplab_app::sweep::{find_param, parse_values, Sweep};

use crate::cli::RunInputArgs;
use crate::error::CliError;

/// The sweep of the flags: one configuration, each `--vary K=SPEC` an axis.
pub fn from_flags(
    input: &RunInputArgs,
    vary: &[String],
    metric: Option<&String>,
) -> Result<Sweep, CliError> {
    let configs = super::configs(input)?;
    let [base] = configs.as_slice() else {
        return Err(CliError::input(format!(
            "--policy: a sweep varies one configuration; {} were given",
            configs.len()
        )));
    };
    if vary.is_empty() || vary.len() > 2 {
        return Err(CliError::input(format!(
            "--vary: give one parameter to vary, or two for a grid ({} were given), \
             e.g. --vary slab_size=4K..1M",
            vary.len()
        )));
    }
    let resolved = base.resolve().map_err(|e| CliError::input(e.to_string()))?;
    let mut axes = Vec::new();
    for vary in vary {
        let (key, spec_text) = vary.split_once('=').ok_or_else(|| {
            CliError::input(format!(
                "--vary {vary:?}: expected KEY=VALUES, e.g. slab_size=4K..1M"
            ))
        })?;
        let (_, spec) =
            find_param(&resolved, key).map_err(|e| CliError::input(format!("--vary {e}")))?;
        let values = parse_values(spec, spec_text)
            .map_err(|e| CliError::input(format!("--vary {key}: {e}")))?;
        axes.push((key.to_string(), values));
    }
    let metric = metric.map_or("peak_resident_bytes", String::as_str);
    Sweep::new(base, &axes, metric).map_err(|e| {
        // A message about one parameter starts with its name (`--vary slab_size: …`); one
        // about the grid of both is the flag's as a whole.
        let sep = if e.starts_with("the grid") { ": " } else { " " };
        CliError::input(format!("--vary{sep}{e}"))
    })
}
