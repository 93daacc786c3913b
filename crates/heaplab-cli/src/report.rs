//! The listings and `heaplab scenario`: what they read, printed through `output`.

use heaplab_core::catalog;

use crate::error::CliError;
use crate::output;

pub fn list_policies(json: bool) -> Result<(), CliError> {
    let families = catalog::families();
    let presets = catalog::presets();
    if json {
        return output::print_json(
            &serde_json::json!({ "families": families, "presets": presets }),
        );
    }
    output::catalog::print_policies(&families, &presets);
    Ok(())
}

pub fn list_workloads(json: bool) -> Result<(), CliError> {
    let workloads = catalog::workloads();
    if json {
        return output::print_json(&serde_json::json!({ "workloads": workloads }));
    }
    output::catalog::print_workloads(&workloads);
    Ok(())
}

pub fn list_scenarios(json: bool) -> Result<(), CliError> {
    let all = heaplab_core::scenario::scenarios().map_err(CliError::failed)?;
    if json {
        let v = serde_json::to_value(&all).map_err(|e| CliError::failed(e.to_string()))?;
        return output::print_json(&serde_json::json!({ "scenarios": v }));
    }
    output::catalog::print_scenarios(&all);
    Ok(())
}

pub fn scenario(args: crate::cli::ScenarioArgs) -> Result<(), CliError> {
    let spec = heaplab_core::scenario::find(&args.id).map_err(CliError::input)?;
    let out =
        heaplab_core::scenario::run_scenario(&spec).map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        // Through a `Value`, whose objects list their keys in order, as always printed.
        let v = serde_json::to_value(&out).map_err(|e| CliError::failed(e.to_string()))?;
        return output::print_json(&v);
    }
    output::scenario::print_scenario(&spec, &out);
    Ok(())
}
