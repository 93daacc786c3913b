//! `run_one` runs one config in this process, streaming a trace from its file.

use std::fs::File;

use heaplab_core::config::RunConfig;
use heaplab_core::run::{run_trace, RunOutput};
use heaplab_core::trace::ImportOptions;

use crate::error::CliError;

/// Runs one config: a built-in workload, or a trace file streamed from disk (`options`
/// says whether bad lines are skipped). A missing file, a bad config and a bad trace line
/// are input errors.
pub fn run_one(config: &RunConfig, options: &ImportOptions) -> Result<RunOutput, CliError> {
    let result = if config.workload.is_trace() {
        let (file, _) = open_trace(config)?;
        run_trace(config, file, options)
    } else {
        heaplab_core::run::run(config)
    };
    result.map_err(CliError::from)
}

/// The trace file a trace config names, opened, and its path; a file that cannot be
/// opened is an input error naming it.
pub fn open_trace(config: &RunConfig) -> Result<(File, String), CliError> {
    let path = config.workload.path.clone().unwrap_or_default();
    let file = File::open(&path).map_err(|e| CliError::input(format!("{path}: {e}")))?;
    Ok((file, path))
}

/// Runs one config whose trace is `bytes`, which a link carried, instead of a file.
pub fn run_bytes(
    config: &RunConfig,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<RunOutput, CliError> {
    run_trace(config, bytes, options).map_err(CliError::from)
}
