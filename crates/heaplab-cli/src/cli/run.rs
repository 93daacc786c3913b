//! This module declares `heaplab run`'s arguments and its help's examples.

use std::path::PathBuf;

use clap::Args;

use super::shared::RunInputArgs;

pub(super) const RUN_EXAMPLES: &str = "Examples:
  heaplab run -w churn --scale 0.05 -p glibc-like -p mimalloc-like
  heaplab run -w tree_churn -p bump --set slab_size=1MiB --json
  heaplab run -w jit -p llvm-bump -p llvm-bump:backing=pages --plot jit.svg";

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to run: the workload, the policies and their settings, or a config file.
    #[command(flatten)]
    pub input: RunInputArgs,
    /// Print one JSON array with a report object per run instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write each run's memory-over-time series to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub series: Option<PathBuf>,
    /// Also draw memory over time, one line per policy, to this file: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Run over real memory (mmap) instead of the simulated provider: time per event, and
    /// the model's resident pages checked against the kernel's (mincore).
    #[arg(long)]
    pub real: bool,
    /// With --real: timed runs per policy; the median time per event is reported (5).
    #[arg(long, requires = "real")]
    pub repeat: Option<usize>,
    /// For a trace file: skip bad lines and events (unknown ops, double frees, ...) and
    /// count them by kind, instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// For a trace file: refuse `free(NULL)` (`f -1`) and `realloc(NULL, n)` (a realloc
    /// of an id never allocated) as bad lines, instead of importing them as a free of
    /// nothing and an allocation: for checking a trace of one's own.
    #[arg(long)]
    pub strict: bool,
}
