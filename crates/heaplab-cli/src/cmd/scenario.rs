//! `heaplab scenario ID` runs one seed scenario and works its finding out from the numbers.

use crate::cli::ScenarioArgs;
use crate::error::CliError;
use crate::output;

pub fn run(args: ScenarioArgs) -> Result<(), CliError> {
    let spec = heaplab_core::scenario::find(&args.id).map_err(CliError::input)?;
    let out =
        heaplab_core::scenario::run_scenario(&spec).map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        // Through a `Value`, so that the keys of every object come out sorted.
        let v = serde_json::to_value(&out).map_err(|e| CliError::failed(e.to_string()))?;
        return output::print_json(&v);
    }
    output::scenario::print_scenario(&spec, &out);
    Ok(())
}
