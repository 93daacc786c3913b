//! `heaplab` runs allocator policies over workloads and compares what they cost.
//!
//! This file parses the command line and hands it to the subcommand's module in `cmd/`.
//! The other modules: `cli` (the clap definitions), `input/` (what to run, from flags and
//! files), `output/` (tables, JSON, files written), `child` (the `baseline-child`
//! process), `error` (`CliError`), `interrupt` (Ctrl-C: children killed, no half-written
//! file, exit 130), `progress` (progress bars on stderr).

mod child;
mod cli;
mod cmd;
mod error;
mod input;
mod interrupt;
mod output;
mod progress;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// The system allocator, except in a `baseline-child` process, where heaplab's own memory
/// moves to a private mapping out of the heap being measured (see `own_heap`).
#[cfg(any(target_os = "linux", target_os = "macos"))]
#[global_allocator]
static ALLOCATOR: heaplab_native::own_heap::OwnHeap = heaplab_native::own_heap::OwnHeap;

fn main() -> ExitCode {
    die_quietly_on_closed_pipe();
    // The child of `baseline` measures a real allocator's heap in this process, so it
    // parses only its own arguments: building the whole command line's parser first left
    // its freed pieces in glibc's heap, and adding a subcommand to heaplab moved real
    // glibc's memory at the end of a replay by two pages.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = if args.get(1).is_some_and(|a| a == "baseline-child") {
        #[cfg(any(target_os = "linux", target_os = "macos"))]
        if let Err(e) = heaplab_native::own_heap::enter() {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
        let child = clap::Command::new("heaplab baseline-child");
        let matches = <cli::ChildArgs as clap::Args>::augment_args(child)
            .get_matches_from(args.iter().skip(1));
        match <cli::ChildArgs as clap::FromArgMatches>::from_arg_matches(&matches) {
            Ok(a) => Command::BaselineChild(a),
            Err(e) => e.exit(),
        }
    } else {
        Cli::parse().command
    };
    // `record` leaves Ctrl-C to the program it records, whose exit code it passes on, and
    // `baseline-child` dies of it as any child does; every other command stops cleanly.
    if !matches!(command, Command::Record(_) | Command::BaselineChild(_)) {
        interrupt::install();
    }
    let result = match command {
        Command::Run(a) => cmd::run::run(a),
        Command::Explain(a) => cmd::explain::run(a),
        Command::Blame(a) => cmd::blame::run(a),
        Command::Map(a) => cmd::map::run(a),
        Command::Link(a) => cmd::link::run(a),
        Command::Policies(a) => cmd::list::policies(a),
        Command::Workloads(a) => cmd::list::workloads(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::Scenario(a) => cmd::scenario::run(a),
        Command::Scenarios(a) => cmd::list::scenarios(a),
        Command::Record(a) => cmd::record::run(a),
        Command::Baseline(a) => cmd::baseline::run(a),
        Command::Fidelity(a) => cmd::fidelity::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Config(a) => cmd::config::run(a),
        Command::Mm(a) => cmd::mm::run(a),
        Command::BaselineChild(a) => cmd::baseline::child(a),
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
