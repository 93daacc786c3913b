//! `heaplab scenario ID` runs one seed scenario and works its finding out from the numbers.

use heaplab_core::metrics::versioned;
use serde_json::Value;

use crate::cli::ScenarioArgs;
use crate::error::CliError;
use crate::output;

pub fn run(args: ScenarioArgs) -> Result<(), CliError> {
    let spec = heaplab_app::scenario::find(&args.id).map_err(CliError::input)?;
    if let Some(path) = &args.plot {
        output::plot::check_path(path)?;
    }
    let (out, series) = heaplab_app::scenario::run_scenario_with_series(&spec)
        .map_err(|e| CliError::failed(e.to_string()))?;
    if let Some(path) = &args.plot {
        // Runs come workload by workload, each with every configuration of the scenario.
        let per = spec.configs.len().max(1);
        let panels: Vec<output::plot::Panel> = out
            .runs
            .chunks(per)
            .zip(series.chunks(per))
            .zip(&spec.workloads)
            .map(|((runs, series), w)| output::plot::Panel {
                title: format!("{}: {}", spec.id, workload_title(w)),
                runs: runs.iter().map(|r| r.label.as_str()).zip(series).collect(),
                phases: runs
                    .first()
                    .map_or(&[][..], |r| &r.report.summary.phases[..]),
            })
            .collect();
        output::plot::write(path, &panels)?;
    }
    if args.json {
        // Through a `Value`, so that the keys of every object come out sorted; then the
        // schema goes back to the head of the object, where every report names it.
        let mut v = serde_json::to_value(&out).map_err(|e| CliError::failed(e.to_string()))?;
        if let Value::Object(fields) = &mut v {
            fields.remove("schema");
        }
        return output::print_json(&versioned(v));
    }
    output::scenario::print_scenario(&spec, &out);
    Ok(())
}

/// A workload as a panel's title names it: its id and the parameters the scenario sets.
fn workload_title(w: &heaplab_core::config::WorkloadConfig) -> String {
    let params: Vec<String> = w.params.iter().map(|(k, v)| format!("{k} {v}")).collect();
    if params.is_empty() {
        w.id.clone()
    } else {
        format!("{} ({})", w.id, params.join(", "))
    }
}
