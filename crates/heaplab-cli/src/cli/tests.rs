//! These tests parse command lines with the definitions of `cli` and check what clap
//! makes of them: the definitions agree with one another, and the flattened groups keep
//! their requirements and conflicts.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use super::{Cli, Command};

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("heaplab").chain(args.iter().copied()))
}

#[test]
fn the_definitions_are_consistent() {
    Cli::command().debug_assert();
}

/// `run` flattens `RunInputArgs`; the requirements and conflicts between the
/// flattened flags still hold.
#[test]
fn run_needs_a_workload_and_a_policy_or_a_config_and_not_both() {
    let kind = |args: &[&str]| parse(args).map(|_| ()).map_err(|e| e.kind());
    assert_eq!(kind(&["run"]), Err(ErrorKind::MissingRequiredArgument));
    assert_eq!(
        kind(&["run", "-w", "churn"]),
        Err(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(
        kind(&["run", "-p", "bump"]),
        Err(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(
        kind(&["run", "--config", "c.json", "-w", "churn"]),
        Err(ErrorKind::ArgumentConflict)
    );
    assert_eq!(
        kind(&["run", "--config", "c.json", "--policy", "bump"]),
        Err(ErrorKind::ArgumentConflict)
    );
    assert_eq!(
        kind(&["run", "-w", "churn", "-p", "bump", "--repeat", "3"]),
        Err(ErrorKind::MissingRequiredArgument)
    );
    assert_eq!(kind(&["run", "--config", "c.json"]), Ok(()));
    let Command::Run(run) = parse(&[
        "run", "-w", "churn", "-p", "bump", "-p", "pool", "--seed", "-3", "--json",
    ])
    .expect("parses")
    .command
    else {
        panic!("not run")
    };
    assert_eq!(run.input.workload.as_deref(), Some("churn"));
    assert_eq!(run.input.policy, ["bump", "pool"]);
    assert_eq!(run.input.workload_params.seed.as_deref(), Some("-3"));
    assert!(run.json);
}

/// The groups of `shared` that other commands flatten fill their fields, and a
/// conflict naming a flag inside a group (`--link` against `--seed`) still holds.
#[test]
fn the_shared_groups_parse_where_they_are_flattened() {
    let kind = |args: &[&str]| parse(args).map(|_| ()).map_err(|e| e.kind());
    assert_eq!(
        kind(&["sweep", "--link", "u", "--seed", "3"]),
        Err(ErrorKind::ArgumentConflict)
    );
    let parsed = |args: &[&str]| parse(args).expect("parses").command;
    let Command::Sweep(sweep) = parsed(&["sweep", "-w", "churn", "-p", "bump", "-q"]) else {
        panic!("not sweep")
    };
    assert!(sweep.progress.quiet);
    let Command::Compare(compare) = parsed(&["compare", "bump", "--quiet"]) else {
        panic!("not compare")
    };
    assert!(compare.progress.quiet);
    let Command::Explain(explain) = parsed(&["explain", "-w", "a", "-p", "b", "--lenient"]) else {
        panic!("not explain")
    };
    assert!(explain.trace.lenient);
    let Command::Baseline(baseline) = parsed(&[
        "baseline", "-a", "system", "-w", "churn", "--seed", "-3", "--wset", "k=v",
    ]) else {
        panic!("not baseline")
    };
    assert_eq!(baseline.workload_params.seed.as_deref(), Some("-3"));
    assert_eq!(baseline.workload_params.wset, ["k=v"]);
}
