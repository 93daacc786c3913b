//! This module declares `heaplab compare`'s arguments and its help's examples.

use std::path::PathBuf;

use clap::Args;

use super::shared::ProgressArgs;

pub(super) const COMPARE_EXAMPLES: &str = "Examples:
  heaplab compare glibc-like mimalloc-like
  heaplab compare glibc-like glibc-like:release_free_pages=immediate --workloads churn,medium --scale 0.02 --csv
  heaplab compare size-class jemalloc-like --workloads mallocbench --scale 0.05 --real --allocators system,mimalloc --plot cmp.svg";

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
    /// (comma-separated: system, mimalloc, jemalloc, preload:<lib.so>): heap RSS, and time
    /// with --real.
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
    #[command(flatten)]
    pub progress: ProgressArgs,
}
