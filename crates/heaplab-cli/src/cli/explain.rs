//! This module declares `heaplab explain`'s arguments and its help's examples.

use clap::Args;

use super::shared::{LenientArgs, RunInputArgs};

pub(super) const EXPLAIN_EXAMPLES: &str = "Examples:
  heaplab explain -w churn --scale 0.001 -p glibc-like --from 1 --to 20
  heaplab explain -w workloads/examples/jit-arenas.trace -p size-class --to 10 --json";

/// `heaplab explain`: a workload or trace through one policy, one line per event.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: RunInputArgs,
    /// The first event to explain (1-based).
    #[arg(long, default_value_t = 1)]
    pub from: usize,
    /// The last event to explain (included; the end when not given).
    #[arg(long)]
    pub to: Option<usize>,
    /// Print the steps with their structured decisions as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub trace: LenientArgs,
}
