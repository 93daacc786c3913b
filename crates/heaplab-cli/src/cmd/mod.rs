//! The subcommands live here, one module each.
//!
//! Each takes its parsed arguments from `cli`, reads what to run through `input`, and
//! prints through `output`.
//!
//! A new subcommand is its `Args` struct in a module of `cli/` and its `Command` variant in
//! `cli/mod.rs`, a module here with `pub fn run(args) -> Result<(), CliError>`, and its arm
//! in `main.rs`. One that takes a run's arguments flattens `cli::RunInputArgs`
//! (`#[command(flatten)]`) and gets its `RunConfig`s from `input::configs`;
//! `input::run_one` runs each. Subcommands do not call each other: what two of them share
//! lives in `input`, `output` or `child`.

pub mod baseline;
pub mod blame;
pub mod compare;
pub mod config;
pub mod convert;
pub mod explain;
pub mod export;
pub mod fidelity;
pub mod link;
pub mod list;
pub mod map;
pub mod mm;
pub mod record;
pub mod run;
pub mod scenario;
pub mod sweep;
