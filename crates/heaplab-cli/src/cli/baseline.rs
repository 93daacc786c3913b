//! This module declares the arguments of the commands that measure real allocators:
//! `baseline`, its hidden `baseline-child` and `fidelity`, with their help's examples.

use std::path::PathBuf;

use clap::Args;

use super::shared::WorkloadParamArgs;

pub(super) const BASELINE_EXAMPLES: &str = "Examples:
  heaplab baseline -a system -a mimalloc -a jemalloc -w tree_churn --scale 0.05
  heaplab baseline -a mimalloc -w churn --repeat 9 --json";

pub(super) const FIDELITY_EXAMPLES: &str = "Examples:
  heaplab fidelity -a system
  heaplab fidelity -w churn -w medium --scale 0.02 --json";

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// A real allocator: system (glibc malloc), mimalloc, jemalloc, or preload:<lib.so>, any
    /// allocator library, loaded with LD_PRELOAD into the replay's process. Repeat to
    /// compare.
    #[arg(long, short, required = true)]
    pub allocator: Vec<String>,
    /// A built-in workload id (see `heaplab workloads`) or a .trace file.
    #[arg(long, short)]
    pub workload: String,
    /// The built-in workload's settings: `--wset`, `--seed`, `--scale`.
    #[command(flatten)]
    pub workload_params: WorkloadParamArgs,
    /// Runs per allocator, each in a fresh process; the tables give the smallest, median
    /// and largest of each figure, and flag a spread above 10%.
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Print one JSON array with a report object per allocator instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// What the parent passes to the child that runs one allocator.
#[derive(Debug, Args)]
pub struct ChildArgs {
    #[arg(long)]
    pub allocator: String,
    /// The resolved workload config, as JSON.
    #[arg(long)]
    pub workload: String,
}

#[derive(Debug, Args)]
pub struct FidelityArgs {
    /// Only these real allocators (system, mimalloc, jemalloc) and their presets. Repeatable.
    /// A preloaded library, preload:<lib.so>, is paired with the preset of the allocator
    /// its file names (mimalloc or jemalloc; mimalloc 2.0 with mimalloc2-like). The model
    /// runs on each real replay's own clock, so delays counted in time see the same time
    /// pass at the same events.
    #[arg(long, short)]
    pub allocator: Vec<String>,
    /// Only these workloads: built-in ids or trace files. Repeatable; by default the
    /// single-threaded MallocBench ports and every trace in --traces.
    #[arg(long, short)]
    pub workload: Vec<String>,
    /// Scale of the built-in workloads [default: 0.05].
    #[arg(long)]
    pub scale: Option<f64>,
    /// A folder of recorded traces (.trace, .rep, .mtrace, gzip'd or not) to add to the
    /// default workloads [default: workloads/traces, the recorded programs of the heaplab
    /// checkout, each one not found there named as skipped].
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Real runs per workload and allocator, each in a fresh process; the table gives the
    /// median and flags a spread above 10%.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Print one JSON array with a row per workload and preset instead of a table.
    #[arg(long)]
    pub json: bool,
}
