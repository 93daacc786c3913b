//! JSON output goes through here: pretty JSON on standard output, and the `--series` file.

use std::path::Path;

use heaplab_core::series::Series;
use serde::Serialize;
use serde_json::Value;

use crate::error::CliError;

/// Prints `value` as pretty JSON on standard output: what every `--json` prints.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::failed(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// Writes the `--series` file: an array of `{"label", "series"}`, one per run, in order.
pub fn write_series<'a>(
    path: &Path,
    runs: impl IntoIterator<Item = (String, &'a Series)>,
) -> Result<(), CliError> {
    let series: Vec<Value> = runs
        .into_iter()
        .map(|(label, series)| serde_json::json!({"label": label, "series": series}))
        .collect();
    write_json(path, &Value::Array(series))
}

/// Writes `value` as compact JSON to a file, whole or not at all.
fn write_json(path: &Path, value: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string(value).map_err(|e| CliError::failed(e.to_string()))?;
    crate::interrupt::write_whole(path, text.as_bytes())
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}
