//! The command line, declared with clap.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "heaplab",
    version,
    about = "A playground for memory-allocator policies"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a workload through one or more policies and report memory and page operations.
    Run(RunArgs),
    /// List the policy families and their parameters.
    Policies(ListArgs),
    /// List the built-in workloads and their parameters.
    Workloads(ListArgs),
    /// Write a built-in workload's events as a .trace file.
    Export(ExportArgs),
    /// Convert a trace (.rep, mtrace, .trace; gzip'd or not) to heaplab's .trace.
    Convert(ConvertArgs),
    /// Run one of the seed scenarios (see `heaplab scenarios`) and work out its finding.
    Scenario(ScenarioArgs),
    /// List the seed scenarios.
    Scenarios(ListArgs),
    /// Run a program with its malloc calls recorded as a .trace (Linux, via LD_PRELOAD).
    Record(RecordArgs),
    /// Replay a workload through a real allocator (glibc, mimalloc, jemalloc) and measure
    /// its RSS and time per event, each allocator in a child process.
    Baseline(crate::real::BaselineArgs),
    /// Compare each preset that models a real allocator (glibc-like, mimalloc-like,
    /// jemalloc-like) with that allocator on the same workloads: peak and end memory.
    Fidelity(crate::fidelity::FidelityArgs),
    /// The child process of `baseline`: one allocator, the resolved workload as JSON.
    #[command(hide = true)]
    BaselineChild(crate::real::ChildArgs),
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario id, e.g. jit-arenas.
    pub id: String,
    /// Print the runs and the finding as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A built-in workload id (see `heaplab workloads`) or a trace file: .trace,
    /// malloc-lab .rep or glibc mtrace, gzip'd or not.
    #[arg(long, short, required_unless_present = "config")]
    pub workload: Option<String>,
    /// A policy family or preset id (see `heaplab policies`), optionally with settings of
    /// its own (`glibc-like:trim_threshold=1MiB,top_pad=0`), or a JSON file holding
    /// {"family" or "preset": ..., "params": {...}}. Repeat to compare policies.
    #[arg(long, short, required_unless_present = "config")]
    pub policy: Vec<String>,
    /// Set a policy parameter, for example `--set slab_size=1MiB`. Repeatable; applies to
    /// every --policy (`--policy name:key=value` sets one policy's only).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Set a workload parameter, for example `--wset scale=0.5`. Repeatable.
    #[arg(long = "wset", value_name = "KEY=VALUE")]
    pub wset: Vec<String>,
    /// The workload's seed (same as --wset seed=N).
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// The workload's scale (same as --wset scale=X).
    #[arg(long, allow_hyphen_values = true)]
    pub scale: Option<String>,
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
    /// Run the config(s) in this JSON file: one config object or an array of them, as the
    /// browser page and `--json` output hold them.
    #[arg(long, conflicts_with_all = ["workload", "policy"])]
    pub config: Option<PathBuf>,
    /// Print one JSON array with a report object per run instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write each run's memory-over-time series to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub series: Option<PathBuf>,
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
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A built-in workload id.
    #[arg(long, short)]
    pub workload: String,
    /// Set a workload parameter. Repeatable.
    #[arg(long = "wset", value_name = "KEY=VALUE")]
    pub wset: Vec<String>,
    #[arg(long)]
    pub seed: Option<String>,
    #[arg(long)]
    pub scale: Option<String>,
    /// Where to write the trace; `-` for standard output.
    #[arg(long, short)]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Where to write the trace. Other processes the command starts write
    /// <stem>.<pid>.trace beside it.
    #[arg(long, short)]
    pub output: PathBuf,
    /// The recording library; by default $HEAPLAB_PRELOAD, or libheaplab_preload.so next
    /// to the heaplab binary (`cargo build -p heaplab-preload` puts it there).
    #[arg(long, value_name = "FILE")]
    pub preload: Option<PathBuf>,
    /// The command to record and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The trace to read: .trace, malloc-lab .rep or glibc mtrace, gzip'd or not.
    pub input: PathBuf,
    /// Where to write the .trace; `-` for standard output.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Skip bad lines and events, and report how many of each kind, instead of stopping.
    #[arg(long)]
    pub lenient: bool,
}
