//! `heaplab explain`: one line per event with what the policy decided and why, from the
//! core's one line function, so the page shows the same lines.

use heaplab_app::observe::explain_range;
use heaplab_core::metrics::versioned;

use crate::cli::ExplainArgs;
use crate::error::CliError;
use crate::input::one_config_events;
use crate::output::print_json;

pub fn run(args: ExplainArgs) -> Result<(), CliError> {
    let (config, events, _) = one_config_events(&args.input, args.trace.lenient)?;
    let to = args.to.unwrap_or(events.len());
    if args.from == 0 {
        return Err(CliError::input("--from: events are numbered from 1"));
    }
    if to < args.from {
        return Err(CliError::input(format!(
            "--to: {to} is before --from {}",
            args.from
        )));
    }
    let steps = explain_range(&config, events, args.from, to)?;
    if args.json {
        let steps: Vec<_> = steps.iter().map(versioned).collect();
        return print_json(&steps);
    }
    for s in &steps {
        println!("{}", s.line);
    }
    Ok(())
}
