//! This module declares the arguments of the commands that write a `.trace` file:
//! `export` (a built-in workload's events), `convert` (another trace format's) and
//! `record` (a program's malloc calls), with their help's examples.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

pub(super) const EXPORT_EXAMPLES: &str = "Examples:
  heaplab export -w churn --scale 0.01 -o churn.trace
  heaplab export -w parametric --wset shape=sawtooth -o -";

pub(super) const CONVERT_EXAMPLES: &str = "Examples:
  heaplab convert workloads/examples/tiny-binary.rep -o tiny.trace
  heaplab convert workloads/examples/strings.mtrace -o strings.trace --lenient";

pub(super) const RECORD_EXAMPLES: &str = "Examples:
  heaplab record -o prog.trace -- python3 -c 'print(1)'
  PYTHONMALLOC=malloc heaplab record -o py.trace -- python3 -c 'import json; json.dumps(list(range(9999)))'";

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
