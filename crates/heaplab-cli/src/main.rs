//! `heaplab`: run allocator policies over workloads and compare what they cost.

mod cli;
mod error;
mod fidelity;
mod input;
mod output;
mod real;
mod record;
mod report;
mod run;

use std::process::ExitCode;

use clap::Parser;

pub use error::CliError;

fn main() -> ExitCode {
    die_quietly_on_closed_pipe();
    let args = cli::Cli::parse();
    let result = match args.command {
        cli::Command::Run(a) => run::run(a),
        cli::Command::Policies(a) => report::list_policies(a.json),
        cli::Command::Workloads(a) => report::list_workloads(a.json),
        cli::Command::Export(a) => run::export(a),
        cli::Command::Convert(a) => run::convert(a),
        cli::Command::Scenario(a) => report::scenario(a),
        cli::Command::Scenarios(a) => report::list_scenarios(a.json),
        cli::Command::Record(a) => record::record(a),
        cli::Command::Baseline(a) => real::baseline(a),
        cli::Command::Fidelity(a) => fidelity::fidelity(a),
        cli::Command::BaselineChild(a) => real::baseline_child(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// Restores the default action of SIGPIPE, which Rust programs start with ignored: then a
/// write to a pipe whose reader has gone (`heaplab policies | head`) ends the process
/// quietly, as it ends `cat` or `ls`, instead of failing in `println!` with a panic.
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default, before any thread starts;
    // no handler of ours is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
