//! This module declares `heaplab link`'s arguments and its help's examples.

use clap::Args;

use super::shared::RunInputArgs;

pub(super) const LINK_EXAMPLES: &str = "Examples:
  heaplab link -w churn -p glibc-like -p mimalloc-like --scale 0.1
  heaplab link --sweep -p bump --vary slab_size=4K..1M -w churn
  heaplab link --scenario jit-arenas --base-url https://example.org/tools/heaplab/";

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
    /// The page's address the link starts with, an http:// or https:// URL: where
    /// `cargo xtask serve` serves it or where a team hosts `cargo xtask dist`'s site.
    /// heaplab reads no settings file of its own, so the address is set once in the
    /// environment [default: $HEAPLAB_BASE_URL, or http://127.0.0.1:8000/ when that is
    /// unset or empty].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}
