//! This module declares the flag groups that several subcommands flatten
//! (`#[command(flatten)]`): what to run, a workload's settings, trace reading and the
//! progress bar.
//!
//! A group's flags appear in a command's help where the group is flattened, in the order
//! declared here, so a command flattens a group only where its own flags would stand
//! together.

use std::path::PathBuf;

use clap::Args;

/// The flags that say what to run: a workload and policies with their settings, or a
/// `--config` file. `run` flattens them, and so can any subcommand that takes a run's
/// arguments; `input::configs` turns them into `RunConfig`s.
#[derive(Debug, Args)]
pub struct RunInputArgs {
    /// A built-in workload id (see `heaplab workloads`) or a trace file: .trace,
    /// malloc-lab .rep or glibc mtrace, gzip'd or not.
    #[arg(long, short, required_unless_present_any = ["config", "link"])]
    pub workload: Option<String>,
    /// A policy family or preset id (see `heaplab policies`), optionally with settings of
    /// its own (`glibc-like:trim_threshold=1MiB,top_pad=0`), or a JSON file holding
    /// {"family" or "preset": ..., "params": {...}}. Repeat to compare policies.
    #[arg(long, short, required_unless_present_any = ["config", "link"])]
    pub policy: Vec<String>,
    /// Set a policy parameter, for example `--set slab_size=1MiB`. Repeatable; applies to
    /// every --policy (`--policy name:key=value` sets one policy's only).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The built-in workload's settings: `--wset`, `--seed`, `--scale`.
    #[command(flatten)]
    pub workload_params: WorkloadParamArgs,
    /// OS page size in bytes: 4096, 16384 or 65536.
    #[arg(long)]
    pub page_size: Option<u64>,
    /// Page provider: `sim` (virtual memory) or `wasm-linear` (memory that only grows).
    #[arg(long)]
    pub provider: Option<String>,
    /// How much of each block the program writes: all, first or none.
    #[arg(long)]
    pub touch: Option<String>,
    /// Most points in the memory-over-time series.
    #[arg(long)]
    pub points: Option<usize>,
    /// How the model tells time: `trace` (the trace's `t <ns>` marks, which `heaplab
    /// record` writes; the default when the trace has them), `rate=<ns per event>` (a
    /// fixed pace; a MallocBench port runs at its real pace, listed by `heaplab
    /// workloads`, unless told otherwise), `events` (no time: delays count events) or,
    /// with `run --real`, `real` (the wall clock of the run over real memory). The
    /// report's `time` says what the run saw pass.
    #[arg(long, value_name = "CLOCK")]
    pub clock: Option<String>,
    /// Run the config(s) in this JSON or TOML file: one config or an array of them, as the
    /// browser page and `--json` output hold them (`heaplab config --example` prints one).
    #[arg(long, conflicts_with_all = ["workload", "policy"])]
    pub config: Option<PathBuf>,
    /// Run what a page link shows (`http://127.0.0.1:8000/#2.…`, or an older `#c=` link):
    /// the same workload, configurations and provider, so the numbers equal the page's. A
    /// link that names a trace file reads it from the current folder.
    #[arg(long, value_name = "URL", conflicts_with_all = ["workload", "policy", "config", "set", "wset", "seed", "scale", "page_size", "provider", "touch", "clock"])]
    pub link: Option<String>,
}

/// The settings of a built-in workload: `--wset KEY=VALUE` and its two shorthands, which
/// a trace file does not take. `RunInputArgs` and `baseline` flatten them.
#[derive(Debug, Args)]
pub struct WorkloadParamArgs {
    /// Set a workload parameter, for example `--wset scale=0.5`. Repeatable.
    #[arg(long = "wset", value_name = "KEY=VALUE")]
    pub wset: Vec<String>,
    /// The workload's seed (same as --wset seed=N).
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// The workload's scale (same as --wset scale=X).
    #[arg(long, allow_hyphen_values = true)]
    pub scale: Option<String>,
}

/// `--lenient` as the commands that step through a trace's events in memory (`explain`,
/// `blame`, `map`) take it.
#[derive(Debug, Args)]
pub struct LenientArgs {
    /// For a trace file: skip bad lines and events.
    #[arg(long)]
    pub lenient: bool,
}

/// `--quiet`, for the commands that count their runs with a progress bar (`sweep`,
/// `compare`).
#[derive(Debug, Args)]
pub struct ProgressArgs {
    /// No progress bar on stderr (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}
