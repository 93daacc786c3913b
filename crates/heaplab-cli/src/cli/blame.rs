//! This module declares `heaplab blame`'s arguments and its help's examples.

use clap::Args;

use super::shared::{LenientArgs, RunInputArgs};

pub(super) const BLAME_EXAMPLES: &str = "Examples:
  heaplab blame -w jit --scale 0.01 -p llvm-bump --at peak
  heaplab blame -w browser --scale 0.02 -p glibc-like --at end --top 5 --json
  heaplab blame -w browser --scale 0.02 -p mimalloc-like --at phase:exit";

/// `heaplab blame`: resident bytes split into live, pinned and kept by the policy.
#[derive(Debug, Args)]
pub struct BlameArgs {
    #[command(flatten)]
    pub input: RunInputArgs,
    /// The event to blame at: a number (1-based), `peak`, `end`, or `phase:NAME` (the last
    /// event of that phase; `phase:NAME#K` for its K-th occurrence).
    #[arg(long, default_value = "end")]
    pub at: String,
    /// How many pinning blocks the table lists.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Print the totals and groups as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub trace: LenientArgs,
}
