//! This module declares the whole command line with clap: the `heaplab` parser and its
//! subcommands, each subcommand's arguments in a module of its own.
//!
//! `shared` holds the flag groups several subcommands flatten: what to run
//! (`RunInputArgs`), a workload's settings, `--lenient` and `--quiet`. These modules hold
//! definitions only, and use nothing else of the crate.

mod baseline;
mod blame;
mod compare;
mod explain;
mod link;
mod list;
mod map;
mod mm;
mod run;
mod scenario;
mod shared;
mod sweep;
mod trace;

use clap::{Parser, Subcommand};

pub use baseline::{BaselineArgs, ChildArgs, FidelityArgs};
pub use blame::BlameArgs;
pub use compare::CompareArgs;
pub use explain::ExplainArgs;
pub use link::LinkArgs;
pub use list::{ConfigArgs, ListArgs};
pub use map::MapArgs;
pub use mm::{MmArgs, MmBuildArgs, MmCheckArgs, MmCommand, MmExampleArgs};
pub use run::RunArgs;
pub use scenario::ScenarioArgs;
pub use shared::RunInputArgs;
pub use sweep::SweepArgs;
pub use trace::{ConvertArgs, ExportArgs, RecordArgs};

#[derive(Debug, Parser)]
#[command(
    name = "heaplab",
    version,
    about = "A playground for memory-allocator policies",
    after_help = "Examples:
  heaplab run -w churn --scale 0.05 -p glibc-like -p mimalloc-like
  heaplab compare glibc-like mimalloc-like --workloads mallocbench --scale 0.1
  heaplab sweep -p bump --vary slab_size=4K..1M -w churn --scale 0.01"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain, event by event, what a policy decided and why.
    #[command(after_help = explain::EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Which live blocks keep resident memory that is not live, at an event.
    #[command(after_help = blame::BLAME_EXAMPLES)]
    Blame(BlameArgs),
    /// Draw teaching mode's heap map and block map at an event, as SVG or PNG files.
    #[command(after_help = map::MAP_EXAMPLES)]
    Map(MapArgs),
    /// Run a workload through one or more policies and report memory and page operations.
    #[command(after_help = run::RUN_EXAMPLES)]
    Run(RunArgs),
    /// List the policy families and their parameters.
    #[command(after_help = list::POLICIES_EXAMPLES)]
    Policies(ListArgs),
    /// List the built-in workloads and their parameters.
    #[command(after_help = list::WORKLOADS_EXAMPLES)]
    Workloads(ListArgs),
    /// Write a built-in workload's events as a .trace file.
    #[command(after_help = trace::EXPORT_EXAMPLES)]
    Export(ExportArgs),
    /// Convert a trace (.rep, mtrace, .trace; gzip'd or not) to heaplab's .trace.
    #[command(after_help = trace::CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Print the page's link for a run (the same arguments as `run`), a sweep or a seed
    /// scenario: whoever opens it sees the same run, and `heaplab run --link` replays it.
    #[command(after_help = link::LINK_EXAMPLES)]
    Link(LinkArgs),
    /// Run one of the seed scenarios (see `heaplab scenarios`) and work out its finding.
    #[command(after_help = scenario::SCENARIO_EXAMPLES)]
    Scenario(ScenarioArgs),
    /// List the seed scenarios.
    #[command(after_help = list::SCENARIOS_EXAMPLES)]
    Scenarios(ListArgs),
    /// Run a program with its malloc calls recorded as a .trace (Linux, via LD_PRELOAD).
    #[command(after_help = trace::RECORD_EXAMPLES)]
    Record(RecordArgs),
    /// Replay a workload through a real allocator (glibc, mimalloc, jemalloc) and measure
    /// its RSS and time per event, each allocator in a child process.
    #[command(after_help = baseline::BASELINE_EXAMPLES)]
    Baseline(BaselineArgs),
    /// Compare each preset that models a real allocator (glibc-like, mimalloc-like,
    /// jemalloc-like) with that allocator on the same workloads: peak and end memory.
    #[command(after_help = baseline::FIDELITY_EXAMPLES)]
    Fidelity(FidelityArgs),
    /// Run one configuration at each value of one numeric parameter (or a grid of two)
    /// and report every metric per value.
    #[command(after_help = sweep::SWEEP_EXAMPLES)]
    Sweep(SweepArgs),
    /// Compare configurations over a suite of workloads as MallocBench's
    /// run-malloc-benchmarks does: peak memory, memory at end, OS page operations,
    /// committed and touched memory (and time over real memory with --real), each
    /// configuration against the first, with geometric, arithmetic and harmonic means.
    #[command(after_help = compare::COMPARE_EXAMPLES)]
    Compare(CompareArgs),
    /// Print a commented example config file (TOML, or JSON with --json), for
    /// `run --config FILE` and `compare FILE ...`.
    #[command(after_help = list::CONFIG_EXAMPLES)]
    Config(ConfigArgs),
    /// Your own allocator: build a malloc-lab mm.c into a module, check and score it as
    /// mdriver does, and run it anywhere a policy goes with `-p mm.wasm`.
    #[command(after_help = mm::MM_EXAMPLES)]
    Mm(MmArgs),
    /// The child process of `baseline`: one allocator, the resolved workload as JSON.
    #[command(hide = true)]
    BaselineChild(ChildArgs),
}

#[cfg(test)]
mod tests;
