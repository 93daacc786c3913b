//! This module declares the whole command line with clap: every subcommand and flag.
//!
//! It holds definitions only, and uses nothing else of the crate.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Which live blocks keep resident memory that is not live, at an event.
    #[command(after_help = BLAME_EXAMPLES)]
    Blame(BlameArgs),
    /// Draw teaching mode's heap map and block map at an event, as SVG or PNG files.
    #[command(after_help = MAP_EXAMPLES)]
    Map(MapArgs),
    /// Run a workload through one or more policies and report memory and page operations.
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// List the policy families and their parameters.
    #[command(after_help = POLICIES_EXAMPLES)]
    Policies(ListArgs),
    /// List the built-in workloads and their parameters.
    #[command(after_help = WORKLOADS_EXAMPLES)]
    Workloads(ListArgs),
    /// Write a built-in workload's events as a .trace file.
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),
    /// Convert a trace (.rep, mtrace, .trace; gzip'd or not) to heaplab's .trace.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Print the page's link for a run (the same arguments as `run`), a sweep or a seed
    /// scenario: whoever opens it sees the same run, and `heaplab run --link` replays it.
    #[command(after_help = LINK_EXAMPLES)]
    Link(LinkArgs),
    /// Run one of the seed scenarios (see `heaplab scenarios`) and work out its finding.
    #[command(after_help = SCENARIO_EXAMPLES)]
    Scenario(ScenarioArgs),
    /// List the seed scenarios.
    #[command(after_help = SCENARIOS_EXAMPLES)]
    Scenarios(ListArgs),
    /// Run a program with its malloc calls recorded as a .trace (Linux, via LD_PRELOAD).
    #[command(after_help = RECORD_EXAMPLES)]
    Record(RecordArgs),
    /// Replay a workload through a real allocator (glibc, mimalloc, jemalloc) and measure
    /// its RSS and time per event, each allocator in a child process.
    #[command(after_help = BASELINE_EXAMPLES)]
    Baseline(BaselineArgs),
    /// Compare each preset that models a real allocator (glibc-like, mimalloc-like,
    /// jemalloc-like) with that allocator on the same workloads: peak and end memory.
    #[command(after_help = FIDELITY_EXAMPLES)]
    Fidelity(FidelityArgs),
    /// Run one configuration at each value of one numeric parameter (or a grid of two)
    /// and report every metric per value.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep(SweepArgs),
    /// Compare configurations over a suite of workloads as MallocBench's
    /// run-malloc-benchmarks does: peak memory, memory at end, OS page operations,
    /// committed and touched memory (and time over real memory with --real), each
    /// configuration against the first, with geometric, arithmetic and harmonic means.
    #[command(after_help = COMPARE_EXAMPLES)]
    Compare(CompareArgs),
    /// Print a commented example config file (TOML, or JSON with --json), for
    /// `run --config FILE` and `compare FILE ...`.
    #[command(after_help = CONFIG_EXAMPLES)]
    Config(ConfigArgs),
    /// The child process of `baseline`: one allocator, the resolved workload as JSON.
    #[command(hide = true)]
    BaselineChild(ChildArgs),
}

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
    /// Run the config(s) in this JSON or TOML file: one config or an array of them, as the
    /// browser page and `--json` output hold them (`heaplab config --example` prints one).
    #[arg(long, conflicts_with_all = ["workload", "policy"])]
    pub config: Option<PathBuf>,
    /// Run what a page link shows (`http://127.0.0.1:8000/#2.…`, or an older `#c=` link):
    /// the same workload, configurations and provider, so the numbers equal the page's. A
    /// link that names a trace file reads it from the current folder.
    #[arg(long, value_name = "URL", conflicts_with_all = ["workload", "policy", "config", "set", "wset", "seed", "scale", "page_size", "provider", "touch"])]
    pub link: Option<String>,
}

#[derive(Debug, Args)]
// `heaplab link --scenario ID` needs no workload or policy: the scenario names its own.
#[command(
    mut_arg("workload", |a| a.required_unless_present_any(["config", "link", "scenario"])),
    mut_arg("policy", |a| a.required_unless_present_any(["config", "link", "scenario"]))
)]
pub struct LinkArgs {
    /// What the link runs: the same arguments as `heaplab run`.
    #[command(flatten)]
    pub input: RunInputArgs,
    /// A link to a seed scenario (see `heaplab scenarios`) instead of a run.
    #[arg(long, value_name = "ID", conflicts_with_all = ["workload", "policy", "config", "link"])]
    pub scenario: Option<String>,
    /// For a trace file: the page skips bad lines and events, as `run --lenient` does.
    #[arg(long)]
    pub lenient: bool,
    /// For a trace file: the page refuses `free(NULL)` and `realloc(NULL, n)` as bad
    /// lines, as `run --strict` does.
    #[arg(long)]
    pub strict: bool,
    /// A link to the page's sweep mode: the one --policy at each value of --vary.
    #[arg(long, requires = "vary", conflicts_with_all = ["scenario", "link"])]
    pub sweep: bool,
    /// With --sweep: a parameter and its values, as `heaplab sweep --vary` takes them.
    /// Give it twice for a grid.
    #[arg(long, value_name = "KEY=VALUES", requires = "sweep")]
    pub vary: Vec<String>,
    /// With --sweep: a metric the page's chart plots, as `heaplab sweep --metric` takes
    /// it. Repeatable; the first is the sweep's own [default: peak_resident_bytes].
    #[arg(long, value_name = "KEY", requires = "sweep")]
    pub metric: Vec<String>,
    /// The page's address the link starts with.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8000/")]
    pub base_url: String,
}

const LINK_EXAMPLES: &str = "Examples:
  heaplab link -w churn -p glibc-like -p mimalloc-like --scale 0.1
  heaplab link --sweep -p bump --vary slab_size=4K..1M -w churn
  heaplab link --scenario jit-arenas";

const RUN_EXAMPLES: &str = "Examples:
  heaplab run -w churn --scale 0.05 -p glibc-like -p mimalloc-like
  heaplab run -w tree_churn -p bump --set slab_size=1MiB --json
  heaplab run -w jit -p llvm-bump -p llvm-bump:backing=pages --plot jit.svg";

const EXPLAIN_EXAMPLES: &str = "Examples:
  heaplab explain -w churn --scale 0.001 -p glibc-like --from 1 --to 20
  heaplab explain -w workloads/examples/jit-arenas.trace -p size-class --to 10 --json";

const BLAME_EXAMPLES: &str = "Examples:
  heaplab blame -w jit --scale 0.01 -p llvm-bump --at peak
  heaplab blame -w browser --scale 0.02 -p glibc-like --at end --top 5 --json";

const MAP_EXAMPLES: &str = "Examples:
  heaplab map -w churn --scale 0.0005 -p size-class --at 212 --heap-map heap.svg
  heaplab map -w small.trace -p free-list --set fit=first --at end --block-map first.svg
  heaplab map -w small.trace -p free-list --at peak --pages 0..3 --heap-map h.svg --block-map b.png";

const POLICIES_EXAMPLES: &str = "Examples:
  heaplab policies
  heaplab policies --json";

const WORKLOADS_EXAMPLES: &str = "Examples:
  heaplab workloads
  heaplab workloads --json";

const SCENARIOS_EXAMPLES: &str = "Examples:
  heaplab scenarios
  heaplab scenarios --json";

const EXPORT_EXAMPLES: &str = "Examples:
  heaplab export -w churn --scale 0.01 -o churn.trace
  heaplab export -w parametric --wset shape=sawtooth -o -";

const CONVERT_EXAMPLES: &str = "Examples:
  heaplab convert workloads/examples/tiny-binary.rep -o tiny.trace
  heaplab convert workloads/examples/strings.mtrace -o strings.trace --lenient";

const SCENARIO_EXAMPLES: &str = "Examples:
  heaplab scenario jit-arenas
  heaplab scenario share-small-large --plot share.svg
  heaplab scenario lld-link --json";

const RECORD_EXAMPLES: &str = "Examples:
  heaplab record -o prog.trace -- python3 -c 'print(1)'
  PYTHONMALLOC=malloc heaplab record -o py.trace -- python3 -c 'import json; json.dumps(list(range(9999)))'";

const BASELINE_EXAMPLES: &str = "Examples:
  heaplab baseline -a system -a mimalloc -a jemalloc -w tree_churn --scale 0.05
  heaplab baseline -a mimalloc -w churn --repeat 9 --json";

const FIDELITY_EXAMPLES: &str = "Examples:
  heaplab fidelity -a system
  heaplab fidelity -w churn -w medium --scale 0.02 --json";

const COMPARE_EXAMPLES: &str = "Examples:
  heaplab compare glibc-like mimalloc-like
  heaplab compare glibc-like glibc-like:release_free_pages=immediate --workloads churn,medium --scale 0.02 --csv
  heaplab compare size-class jemalloc-like --workloads mallocbench --scale 0.05 --real --allocators system,mimalloc --plot cmp.svg";

const CONFIG_EXAMPLES: &str = "Examples:
  heaplab config --example > my.toml && heaplab run --config my.toml
  heaplab config --example --json > my.json";

const SWEEP_EXAMPLES: &str = "Examples:
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
    /// A metric to plot (a `--json` field, e.g. page_ops). Repeatable; the first is the
    /// sweep's own [default: peak_resident_bytes].
    #[arg(long, value_name = "KEY")]
    pub metric: Vec<String>,
    /// Print the sweep as JSON: the object the page's sweep mode keeps in
    /// `window.heaplabSweep`.
    #[arg(long)]
    pub json: bool,
    /// Also draw each chosen metric against the parameter to this file: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// No progress bar on stderr (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The configurations, the first the baseline: each a preset or family id, with
    /// settings of its own (`glibc-like:trim_threshold=1MiB`), or a config file (JSON or
    /// TOML: a policy, or run configs whose policy, provider and touch are taken).
    #[arg(value_name = "CONFIG", required_unless_present = "link")]
    pub configs: Vec<String>,
    /// The workloads, comma-separated: built-in ids, trace files, or the suites
    /// `mallocbench`, `scenarios` (the seed scenarios' workloads) and `all`
    /// [default: mallocbench,scenarios].
    #[arg(long, value_name = "LIST")]
    pub workloads: Option<String>,
    /// The scale of every built-in workload, 1 being the original benchmark's size
    /// [default: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub scale: Option<String>,
    /// Also run each configuration over real memory and report Execution Time (ns per
    /// event), as `run --real` measures it.
    #[arg(long)]
    pub real: bool,
    /// Real allocators to add as columns, as `heaplab baseline` measures them
    /// (comma-separated: system, mimalloc, jemalloc): heap RSS, and time with --real.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub allocators: Vec<String>,
    /// Timed runs per configuration and workload with --real, and per allocator (3).
    #[arg(long)]
    pub repeat: Option<usize>,
    /// OS page size in bytes for every configuration: 4096, 16384 or 65536.
    #[arg(long)]
    pub page_size: Option<u64>,
    /// How much of each block the program writes: all, first or none.
    #[arg(long)]
    pub touch: Option<String>,
    /// Print the comparison as JSON: every run's report and every section's figures.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print a CSV row per workload and configuration: mimalloc-bench's columns
    /// (benchmark, allocator, elapsed, rss), then every metric of `run --json`.
    #[arg(long)]
    pub csv: bool,
    /// Also draw the summary bars of every workload to this file: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Also draw memory over time, a chart per workload, into this folder (one SVG each).
    #[arg(long, value_name = "DIR")]
    pub plot_dir: Option<PathBuf>,
    /// Compare the configurations of a page link, on its workload unless --workloads
    /// is given.
    #[arg(long, value_name = "URL")]
    pub link: Option<String>,
    /// No progress bar on stderr (it is also hidden when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Print the example config file.
    #[arg(long, required = true)]
    pub example: bool,
    /// The example as JSON (which has no comments) instead of commented TOML.
    #[arg(long)]
    pub json: bool,
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
    /// A line for every process that wrote a trace, not only the summary: a command run
    /// through a wrapper (a pyenv shim, a shell script) starts helper processes too.
    #[arg(long, short)]
    pub verbose: bool,
    /// Record each allocation's call site (the return address of its malloc, calloc or
    /// realloc call) as `site=` on its line, and name the sites after the run (function,
    /// file and line from the program's debug info or symbols, else module+offset), so
    /// that `heaplab blame` groups pinned bytes by call site.
    #[arg(long)]
    pub callers: bool,
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
    /// Refuse `free(NULL)` (`f -1`) and `realloc(NULL, n)` (a realloc of an id never
    /// allocated) as bad lines, instead of writing them as nothing and an allocation.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// A real allocator: system (glibc malloc), mimalloc or jemalloc. Repeat to compare.
    #[arg(long, short, required = true)]
    pub allocator: Vec<String>,
    /// A built-in workload id (see `heaplab workloads`) or a .trace file.
    #[arg(long, short)]
    pub workload: String,
    /// Set a workload parameter, for example `--wset scale=0.5`. Repeatable.
    #[arg(long = "wset", value_name = "KEY=VALUE")]
    pub wset: Vec<String>,
    /// The workload's seed (same as --wset seed=N).
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// The workload's scale (same as --wset scale=X).
    #[arg(long, allow_hyphen_values = true)]
    pub scale: Option<String>,
    /// Timed runs per allocator; the median time per event is reported.
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
    #[arg(long)]
    pub repeat: usize,
}

#[derive(Debug, Args)]
pub struct FidelityArgs {
    /// Only these real allocators (system, mimalloc, jemalloc) and their presets. Repeatable.
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
    /// default workloads.
    #[arg(long, default_value = "workloads/traces")]
    pub traces: PathBuf,
    /// Print one JSON array with a row per workload and preset instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;
    use clap::{CommandFactory, Parser};

    use super::{Cli, Command};

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("heaplab").chain(args.iter().copied()))
    }

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// `run` flattens `RunInputArgs`; the requirements and conflicts between the
    /// flattened flags still hold.
    #[test]
    fn run_needs_a_workload_and_a_policy_or_a_config_and_not_both() {
        let kind = |args: &[&str]| parse(args).map(|_| ()).map_err(|e| e.kind());
        assert_eq!(kind(&["run"]), Err(ErrorKind::MissingRequiredArgument));
        assert_eq!(
            kind(&["run", "-w", "churn"]),
            Err(ErrorKind::MissingRequiredArgument)
        );
        assert_eq!(
            kind(&["run", "-p", "bump"]),
            Err(ErrorKind::MissingRequiredArgument)
        );
        assert_eq!(
            kind(&["run", "--config", "c.json", "-w", "churn"]),
            Err(ErrorKind::ArgumentConflict)
        );
        assert_eq!(
            kind(&["run", "--config", "c.json", "--policy", "bump"]),
            Err(ErrorKind::ArgumentConflict)
        );
        assert_eq!(
            kind(&["run", "-w", "churn", "-p", "bump", "--repeat", "3"]),
            Err(ErrorKind::MissingRequiredArgument)
        );
        assert_eq!(kind(&["run", "--config", "c.json"]), Ok(()));
        let Command::Run(run) = parse(&[
            "run", "-w", "churn", "-p", "bump", "-p", "pool", "--seed", "-3", "--json",
        ])
        .expect("parses")
        .command
        else {
            panic!("not run")
        };
        assert_eq!(run.input.workload.as_deref(), Some("churn"));
        assert_eq!(run.input.policy, ["bump", "pool"]);
        assert_eq!(run.input.seed.as_deref(), Some("-3"));
        assert!(run.json);
    }
}

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
    /// For a trace file: skip bad lines and events.
    #[arg(long)]
    pub lenient: bool,
}

/// `heaplab blame`: resident bytes split into live, pinned and kept by the policy.
#[derive(Debug, Args)]
pub struct BlameArgs {
    #[command(flatten)]
    pub input: RunInputArgs,
    /// The event to blame at: a number (1-based), `peak` or `end`.
    #[arg(long, default_value = "end")]
    pub at: String,
    /// How many pinning blocks the table lists.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Print the totals and groups as JSON.
    #[arg(long)]
    pub json: bool,
    /// For a trace file: skip bad lines and events.
    #[arg(long)]
    pub lenient: bool,
}

/// `heaplab map`: the teaching panel's two maps of the heap at an event, written as files.
#[derive(Debug, Args)]
pub struct MapArgs {
    #[command(flatten)]
    pub input: RunInputArgs,
    /// The event to draw the heap after: a number (1-based), `peak` or `end`.
    #[arg(long, default_value = "end")]
    pub at: String,
    /// Write the heap map (pages by state, shaded by the live fraction) to FILE (.svg or
    /// .png).
    #[arg(long, value_name = "FILE")]
    pub heap_map: Option<PathBuf>,
    /// Write the block map (the blocks to scale with the policy's free lists drawn over
    /// them) to FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub block_map: Option<PathBuf>,
    /// The pages shown, FIRST..LAST (both included), as the panel's zoom: the heap map's
    /// region, and the pages the block map cuts into blocks (by default the 12 committed
    /// pages from the first resident one).
    #[arg(long, value_name = "FIRST..LAST")]
    pub pages: Option<String>,
    /// The pictures' width in pixels (their height is what they need).
    #[arg(long, default_value_t = 900)]
    pub width: u32,
    /// For a trace file: skip bad lines and events.
    #[arg(long)]
    pub lenient: bool,
}
