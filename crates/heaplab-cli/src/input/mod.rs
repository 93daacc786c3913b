//! The input handling the subcommands share turns what the user asks for into configs.
//!
//! - `config`: `configs`, the `RunConfig`s of a `RunInputArgs` (its flags, or its
//!   `--config` file, JSON or TOML); `configs_from_json` and `configs_from_toml` read
//!   config text from anywhere; `configurations`, what one argument of `compare` names.
//! - `file_format`: whether a config or policy file is TOML or JSON, and its syntax and
//!   field errors named as `file:line:column`.
//! - `policy`: a `--policy` argument (an id, `id:key=value,...`, a JSON file, or an
//!   allocator module, `mm.wasm`), and `load_module`.
//! - `workload`: whether a `--workload` argument is a trace file, and built-in workloads
//!   resolved from `KEY=VALUE` settings.
//! - `sets`: `KEY=VALUE` settings (`--set`, `--wset`, `--seed`, `--scale`) parsed by
//!   each parameter's spec.
//! - `link`: a page link's configs, and the trace it names or carries.
//! - `sweep`: a sweep from a configuration's flags and `--vary` settings.
//! - `suite`: the workloads `compare` runs, from `--workloads` and `--scale`.
//! - `run`: `run_one`, one config run in this process, a trace streamed from its file.
//!
//! Nothing here prints; errors are `CliError`s that name the flag or file at fault.

mod config;
mod events;
mod file_format;
pub mod link;
mod policy;
mod run;
mod sets;
pub mod suite;
pub mod sweep;
mod workload;

pub use config::{configs, configs_from_toml, configurations};
pub use events::{one_config_events, session_at};
pub use policy::load_module;
pub use run::{run_bytes, run_one};
pub use sets::WorkloadSets;
pub use workload::{builtin_workload, find_workload, is_trace_arg};
