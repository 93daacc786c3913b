//! This module declares `heaplab scenario`'s arguments and its help's examples.

use clap::Args;

pub(super) const SCENARIO_EXAMPLES: &str = "Examples:
  heaplab scenario jit-arenas
  heaplab scenario share-small-large --plot share.svg
  heaplab scenario lld-link --json";

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario id, e.g. jit-arenas.
    pub id: String,
    /// Print the runs and the finding as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also draw memory over time, a chart per workload of the scenario, to this file:
    /// `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
}
