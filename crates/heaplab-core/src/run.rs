//! One call from a config to a report: what the CLI and the browser both use, so their
//! numbers are the same by construction.

use std::fmt;
use std::io::Read;

use serde::Serialize;

use crate::config::RunConfig;
use crate::params::ParamError;
use crate::series::Series;
use crate::simulate::{sim_provider, Report, SimError, Simulation};
use crate::trace::{self, ImportOptions, Imported, Skipped};
use crate::workload::{self, Sink};

/// A run's result: the report (summary and resolved config), memory over time, and for
/// a trace what its import found.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub report: Report,
    pub series: Series,
    pub trace: Option<Imported>,
}

impl RunOutput {
    /// The object `heaplab run --json` prints for this run, and the page keeps in
    /// `window.heaplabResults`.
    pub fn json(&self) -> JsonReport<'_> {
        JsonReport {
            report: &self.report,
            trace: self.trace.as_ref(),
            skipped: self.trace.as_ref().and_then(|t| t.skipped.as_ref()),
        }
    }
}

/// A report as `--json` prints it: the report's fields, then for a trace `trace` (its
/// format, header, whether it was gzip'd, its lines) and, when lenient, `skipped` (bad
/// lines and events skipped, by kind).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct JsonReport<'a> {
    #[serde(flatten)]
    pub report: &'a Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<&'a Imported>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<&'a Skipped>,
}

/// Why a run failed: a bad config, or an event that could not be carried out.
#[derive(Debug)]
pub enum RunError {
    Config(ParamError),
    /// The message names where: `file:line`, or the workload and event number.
    Event(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::Event(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ParamError> for RunError {
    fn from(e: ParamError) -> RunError {
        RunError::Config(e)
    }
}

/// Runs `config` over the simulated provider with events from `feed`.
pub fn run_with<F>(config: &RunConfig, feed: F) -> Result<RunOutput, RunError>
where
    F: FnOnce(&mut Sink<'_, SimError>) -> Result<(), RunError>,
{
    let config = config.resolve()?;
    let mut sim = Simulation::new(&config, sim_provider(&config))?;
    feed(&mut |event| sim.apply(event))?;
    let (summary, series) = sim.finish();
    Ok(RunOutput {
        report: Report { config, summary },
        series,
        trace: None,
    })
}

/// Runs a config whose workload is a trace, read from `input` as it streams (gzip'd or
/// not, in any format [`trace::import`] knows). Messages name the config's
/// `workload.path`.
pub fn run_trace<R: Read>(
    config: &RunConfig,
    input: R,
    options: &ImportOptions,
) -> Result<RunOutput, RunError> {
    if !config.workload.is_trace() {
        return Err(RunError::Config(ParamError {
            field: "workload.id".into(),
            message: format!("{:?} is not a trace workload", config.workload.id),
        }));
    }
    let name = config.workload.path.clone().unwrap_or_default();
    let mut imported = None;
    let mut out = run_with(config, |sink| {
        let found = trace::import(input, &name, options, sink)
            .map_err(|e| RunError::Event(e.to_string()))?;
        imported = Some(found);
        Ok(())
    })?;
    out.trace = imported;
    Ok(out)
}

/// Runs a config whose workload is built in.
pub fn run(config: &RunConfig) -> Result<RunOutput, RunError> {
    // `run_with` resolves the whole config; the generator needs only its own parameters.
    let spec = workload::find(&config.workload.id)?;
    let params = config.workload_params()?;
    run_with(config, |sink| {
        spec.generate(&params, sink)
            .map_err(|e| RunError::Event(format!("workload {}: {e}", spec.id)))
    })
}
