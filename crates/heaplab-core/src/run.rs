//! One call from a config to a report: what the CLI and the browser both use, so their
//! numbers are the same by construction.

use std::fmt;

use crate::config::RunConfig;
use crate::params::ParamError;
use crate::series::Series;
use crate::simulate::{sim_provider, Report, SimError, Simulation};
use crate::workload::{self, Sink};

/// A run's result: the report (summary and resolved config) and memory over time.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub report: Report,
    pub series: Series,
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
    })
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
