//! `heaplab blame`: at an event, the resident bytes split into live, pinned by live
//! blocks and kept by the policy, with the blocks that pin the most, grouped by size,
//! phase and (for a trace recorded with `--callers`) call site.

use heaplab_app::observe::blame::blame;
use heaplab_core::metrics::versioned;

use crate::cli::BlameArgs;
use crate::error::CliError;
use crate::input::session_at;
use crate::output::{print_blame, print_json};

pub fn run(args: BlameArgs) -> Result<(), CliError> {
    let (_, session, _) = session_at(&args.input, args.trace.lenient, &args.at)?;
    let b = blame(&session.heap_map());
    if args.json {
        return print_json(&versioned(&b));
    }
    print_blame(&b, args.top);
    Ok(())
}
