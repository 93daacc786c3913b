//! `heaplab mm`: your own allocator, built, checked and scored.

use std::path::PathBuf;

use clap::{Args, Subcommand};

pub const MM_EXAMPLES: &str = "Examples:
  heaplab mm example implicit -o mm.c
  heaplab mm build mm.c -o mm.wasm
  heaplab mm check mm.wasm
  heaplab mm check mm.wasm -w workloads/examples/tiny-binary.rep
  heaplab run -p mm.wasm -p glibc-like -w random";

#[derive(Debug, Args)]
pub struct MmArgs {
    #[command(subcommand)]
    pub command: MmCommand,
}

#[derive(Debug, Subcommand)]
pub enum MmCommand {
    /// Build an allocator (malloc lab's mm.c) into a module with clang's wasm32 target.
    Build(MmBuildArgs),
    /// Check and score a module as malloc lab's mdriver does, trace by trace.
    Check(MmCheckArgs),
    /// Write one of heaplab's example allocators out as C, to start from.
    Example(MmExampleArgs),
}

#[derive(Debug, Args)]
pub struct MmBuildArgs {
    /// The C files of the allocator (mm.c and any it needs).
    #[arg(required = true, value_name = "FILE.c")]
    pub sources: Vec<PathBuf>,
    /// The module to write.
    #[arg(short, long, value_name = "FILE.wasm", default_value = "mm.wasm")]
    pub output: PathBuf,
    /// A flag for clang, such as -DDEBUG or -O0; repeatable.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Print the clang command that ran.
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct MmCheckArgs {
    /// The allocator module (from `heaplab mm build`).
    #[arg(value_name = "FILE.wasm")]
    pub module: PathBuf,
    /// A trace (.rep as a course hands it out, .trace, ...) or a built-in workload;
    /// repeatable. Without any: the malloc-lab look-alikes binary, coalescing, random and
    /// realloc.
    #[arg(short, long = "workload", value_name = "TRACE|ID")]
    pub workloads: Vec<String>,
    /// The payload alignment to check: malloc lab's ALIGNMENT, 8 in the 32-bit
    /// hand-outs, 16 in the 64-bit ones.
    #[arg(long, default_value_t = 8)]
    pub align: u64,
    /// mdriver's AVG_LIBC_THRUPUT in thousands of operations per second: the throughput
    /// that earns the index's full 40 points. Each course sets its own.
    #[arg(long, value_name = "KOPS", default_value_t = 600.0)]
    pub reference_kops: f64,
    /// Also run the allocator's own mm_checkheap(1) after every call of the checking run;
    /// a check that fails (abort, exit, assert or a trap) makes the trace invalid.
    #[arg(long)]
    pub check_heap: bool,
    /// Print the table as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MmExampleArgs {
    /// Which example: naive (never frees), implicit (implicit free list, first fit,
    /// boundary tags, coalescing) or segregated (segregated explicit free lists by powers
    /// of two, coalescing).
    pub name: String,
    /// Where to write it; standard output without.
    #[arg(short, long, value_name = "FILE.c")]
    pub output: Option<PathBuf>,
}
