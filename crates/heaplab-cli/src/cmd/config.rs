//! `heaplab config --example` prints a config file to start from: commented TOML, or the
//! same config as JSON. Both read back with `run --config FILE` and `compare FILE`; a test
//! runs the printed example, so it never drifts from what the reader accepts.

use crate::cli::ConfigArgs;
use crate::error::CliError;
use crate::input;

/// The example, with a comment on every field. Top-level keys come before the first
/// table, as TOML wants them.
pub const EXAMPLE_TOML: &str = r#"# A heaplab configuration: what `heaplab run --config FILE` runs, and what
# `heaplab compare FILE ...` compares (there, its policy, provider and touch;
# the workload comes from --workloads). A .json file holds the same fields.
# Several configurations go in one file as [[configs]] tables, each with
# its own [configs.workload] and [configs.policy].

# How much of each block the program writes: "all" (as MallocBench does),
# "first" or "none".
touch = "all"
# Most points kept in the memory-over-time series.
series_points = 2000

# The workload: a built-in id (`heaplab workloads` lists them and their
# parameters), or id = "trace" with path = "my-program.trace".
[workload]
id = "churn"
params = { scale = 0.05, seed = 1 }

# The policy: a preset (`heaplab policies`) or a family, and the parameters
# that differ from it. Sizes are in bytes.
[policy]
preset = "glibc-like"
params = { trim_threshold = 1048576, top_pad = 0 }

# The page provider: "sim" (virtual memory) or "wasm-linear" (memory that
# only grows), and the page size: 4096, 16384 or 65536.
[provider]
kind = "sim"
page_size = 4096
"#;

pub fn run(args: ConfigArgs) -> Result<(), CliError> {
    debug_assert!(args.example);
    if args.json {
        let configs = input::configs_from_toml(EXAMPLE_TOML, "the example")?;
        let text = serde_json::to_string_pretty(&configs[0])
            .map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{EXAMPLE_TOML}");
    }
    Ok(())
}
