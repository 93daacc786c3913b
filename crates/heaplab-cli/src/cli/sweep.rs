//! This module declares `heaplab sweep`'s arguments and its help's examples.

use std::path::PathBuf;

use clap::Args;

use super::shared::{ProgressArgs, RunInputArgs};

pub(super) const SWEEP_EXAMPLES: &str = "Examples:
  heaplab sweep --policy bump --vary slab_size=4K..1M --workload churn --scale 0.01
  heaplab sweep -p size-class --vary page_size=4K,16K,64K --vary scale=0.01..0.03:0.01 -w churn --json
  heaplab sweep -p buddy --vary min_block=16..256 -w tree_churn --scale 0.05 --metric page_ops --plot sweep.svg";

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The configuration to sweep: one --policy and a workload, or a --link to the page's
    /// sweep mode.
    #[command(flatten)]
    pub input: RunInputArgs,
    /// A parameter of the policy or the workload and its values: `slab_size=4K..1M`
    /// (doublings), `slab_size=4K,16K,64K` (a list) or `scale=0.1..0.5:0.1` (steps).
    /// Give it twice for a grid.
    #[arg(long, value_name = "KEY=VALUES")]
    pub vary: Vec<String>,
    /// A metric to plot (a `--json` field, e.g. page_ops, or a figure at the end of a
    /// phase, e.g. "resident_bytes@compile 3"). Repeatable; the first is the sweep's own
    /// [default: peak_resident_bytes].
    #[arg(long, value_name = "KEY")]
    pub metric: Vec<String>,
    /// Print the sweep as JSON: the object the page's sweep mode keeps in
    /// `window.heaplabSweep`.
    #[arg(long)]
    pub json: bool,
    /// Also draw each chosen metric against the parameter to this file: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub progress: ProgressArgs,
}
