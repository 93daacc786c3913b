//! This module declares the arguments of the commands that print what heaplab holds:
//! `policies`, `workloads` and `scenarios` (one `ListArgs`), and `config --example`.

use clap::Args;

pub(super) const POLICIES_EXAMPLES: &str = "Examples:
  heaplab policies
  heaplab policies --json";

pub(super) const WORKLOADS_EXAMPLES: &str = "Examples:
  heaplab workloads
  heaplab workloads --json";

pub(super) const SCENARIOS_EXAMPLES: &str = "Examples:
  heaplab scenarios
  heaplab scenarios --json";

pub(super) const CONFIG_EXAMPLES: &str = "Examples:
  heaplab config --example > my.toml && heaplab run --config my.toml
  heaplab config --example --json > my.json";

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
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
