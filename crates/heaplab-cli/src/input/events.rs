//! `one_config_events`: the one configuration and the events of its workload that
//! `explain`, `blame` and `map` step through in memory, a trace read from its file with
//! the call sites it has; `event_at`, the event an `--at` names; and `session_at`, the
//! heap after it.

use heaplab_app::observe::session::{trace_events, Session};
use heaplab_app::observe::{At, EventLog};
use heaplab_core::config::RunConfig;
use heaplab_core::trace::sites::Sites;
use heaplab_core::trace::ImportOptions;

use crate::cli::RunInputArgs;
use crate::error::CliError;

use super::configs;

/// The single configuration the arguments name, its events and their call sites (none
/// for a built-in workload). More than one policy is an input error naming `--policy`,
/// since a step-through follows one policy.
pub fn one_config_events(
    args: &RunInputArgs,
    lenient: bool,
) -> Result<(RunConfig, EventLog, Sites), CliError> {
    let mut all = configs(args)?;
    if all.len() != 1 {
        return Err(CliError::input(format!(
            "--policy: this command follows one policy, and {} were given",
            all.len()
        )));
    }
    let config = all.remove(0);
    let (events, sites) = if config.workload.is_trace() {
        let (file, path) = super::run::open_trace(&config)?;
        trace_events(
            file,
            &path,
            &ImportOptions {
                lenient,
                ..ImportOptions::default()
            },
        )?
    } else {
        (
            EventLog::from(Session::workload_events(&config)?),
            Sites::new(),
        )
    };
    Ok((config, events, sites))
}

/// The event `--at` names (see [`At`]): a number (1-based, inside the run), `peak` (the
/// event of the run's peak resident memory), `end`, or `phase:NAME[#K]` (the last event of
/// that phase, of its K-th occurrence).
pub fn event_at(at: &str, config: &RunConfig, events: &EventLog) -> Result<usize, CliError> {
    At::parse(at)
        .and_then(|at| at.resolve(config, events))
        .map_err(|e| CliError::input(format!("--at: {e}")))
}

/// The arguments' one configuration run up to the event `at` names (see [`event_at`]),
/// with its trace's call sites: the heap `blame` and `map` look at. Answers the
/// configuration, the session standing after that event, and the event.
pub fn session_at(
    args: &RunInputArgs,
    lenient: bool,
    at: &str,
) -> Result<(RunConfig, Session, usize), CliError> {
    let (config, events, sites) = one_config_events(args, lenient)?;
    let at = event_at(at, &config, &events)?;
    let mut session = Session::new(&config, events)?.with_sites(sites);
    session
        .run_to(at)
        .map_err(|e| CliError::input(e.to_string()))?;
    Ok((config, session, at))
}
