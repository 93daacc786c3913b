//! `heaplab blame`: at an event, the resident bytes split into live, pinned by live
//! blocks and kept by the policy, with the blocks that pin the most, grouped by size,
//! phase and (for a trace recorded with `--callers`) call site.

use heaplab_core::observe::blame::blame;
use heaplab_core::observe::session::Session;

use crate::cli::BlameArgs;
use crate::error::CliError;
use crate::input::{event_at, one_config_events};
use crate::output::{print_blame, print_json};

pub fn run(args: BlameArgs) -> Result<(), CliError> {
    let (config, events, sites) = one_config_events(&args.input, args.lenient)?;
    let at = event_at(&args.at, &config, &events)?;
    let mut session = Session::new(&config, events)?.with_sites(sites);
    session
        .run_to(at)
        .map_err(|e| CliError::input(e.to_string()))?;
    let b = blame(&session.heap_map());
    if args.json {
        return print_json(&b);
    }
    print_blame(&b, args.top);
    Ok(())
}
