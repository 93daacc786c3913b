//! `one_config_events`: the one configuration and the events of its workload that
//! `explain` and `blame` step through in memory, a trace read from its file with the
//! call sites it has.

use heaplab_core::config::RunConfig;
use heaplab_core::event::Event;
use heaplab_core::observe::session::{trace_events, Session};
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
) -> Result<(RunConfig, Vec<Event>, Sites), CliError> {
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
        (Session::workload_events(&config)?, Sites::new())
    };
    Ok((config, events, sites))
}
