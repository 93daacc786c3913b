//! `heaplab policies`, `workloads` and `scenarios` list the registries, as text or JSON.

use heaplab_app::catalog;
use heaplab_core::metrics::versioned;

use crate::cli::ListArgs;
use crate::error::CliError;
use crate::output;

/// `heaplab policies`: every family with its parameters, and every preset.
pub fn policies(args: ListArgs) -> Result<(), CliError> {
    let families = catalog::families();
    let mut presets = catalog::presets();
    // The page's catalog leaves the citations out; the CLI's lists them.
    if let Some(list) = presets.as_array_mut() {
        for p in list {
            let id = p["id"].as_str().unwrap_or_default();
            p["sources"] = heaplab_core::presets::sources(id).into();
        }
    }
    let brought = catalog::brought_families();
    if args.json {
        return output::print_json(&versioned(serde_json::json!({
            "families": families,
            "presets": presets,
            "brought_families": brought,
        })));
    }
    output::catalog::print_policies(&families, &presets);
    output::catalog::print_brought(&brought);
    Ok(())
}

/// `heaplab workloads`: every built-in workload with its parameters.
pub fn workloads(args: ListArgs) -> Result<(), CliError> {
    let workloads = catalog::workloads();
    if args.json {
        return output::print_json(&versioned(serde_json::json!({ "workloads": workloads })));
    }
    output::catalog::print_workloads(&workloads);
    Ok(())
}

/// `heaplab scenarios`: the seed scenarios and their questions.
pub fn scenarios(args: ListArgs) -> Result<(), CliError> {
    let all = heaplab_app::scenario::scenarios().map_err(CliError::failed)?;
    if args.json {
        let v = serde_json::to_value(&all).map_err(|e| CliError::failed(e.to_string()))?;
        return output::print_json(&versioned(serde_json::json!({ "scenarios": v })));
    }
    output::catalog::print_scenarios(&all);
    Ok(())
}
