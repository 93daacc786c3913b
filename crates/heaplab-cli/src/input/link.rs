//! A page link as runs: the configs it describes, and the trace it names or carries.

use std::fs::File;

use heaplab_app::link::{self, LinkState, LinkWorkload};
use heaplab_core::config::RunConfig;
use heaplab_core::format::format_counted;

use crate::error::CliError;

/// The series resolution the page asks for, so `run --link --json` prints what the page
/// keeps in `window.heaplabResults`.
pub const PAGE_SERIES_POINTS: usize = 2000;

/// What a link runs.
#[derive(Debug)]
pub struct Linked {
    pub state: LinkState,
    /// One resolved config per configuration of the link.
    pub configs: Vec<RunConfig>,
    /// The trace the link carries in itself, which the runs read instead of a file.
    pub embedded: Option<Vec<u8>>,
}

/// Reads a link and the configs it runs; `points` overrides the page's series resolution.
/// A link to a trace file finds the file by its name in the current folder and checks
/// its size and hash, so a different file of the same name is not replayed as the link's.
pub fn linked(url: &str, points: Option<usize>) -> Result<Linked, CliError> {
    let state = link::decode(url).map_err(|e| CliError::input(e.message))?;
    if let Some(id) = &state.scenario {
        return Err(CliError::input(format!(
            "link: this link opens the seed scenario {id}; run it with `heaplab scenario {id}`"
        )));
    }
    load_modules(&state)?;
    let configs = state
        .run_configs(points.unwrap_or(PAGE_SERIES_POINTS))
        .map_err(|e| CliError::input(e.message))?;
    let embedded = match &state.workload {
        LinkWorkload::Embedded { text, .. } => Some(text.clone().into_bytes()),
        LinkWorkload::Trace(t) => {
            let file = File::open(&t.name).map_err(|e| {
                CliError::input(format!(
                    "link: the runs read the trace file {}, which a link does not carry; \
                     run from the folder that holds it ({}: {e})",
                    t.name, t.name
                ))
            })?;
            let found = link::trace_ref_of(&t.name, file)
                .map_err(|e| CliError::input(format!("{}: {e}", t.name)))?;
            let (bytes, sha) = (found.bytes.unwrap_or(0), found.sha256.unwrap_or_default());
            if !t.matches(bytes, &sha) {
                return Err(CliError::input(format!(
                    "link: {} here has {} (sha256 {}…), not the file the link was made from{}",
                    t.name,
                    format_counted(i128::from(bytes), "byte", "bytes"),
                    &sha[..12.min(sha.len())],
                    t.bytes
                        .map(|b| format!(" ({})", format_counted(i128::from(b), "byte", "bytes")))
                        .unwrap_or_default()
                )));
            }
            None
        }
        LinkWorkload::Builtin { .. } => None,
    };
    Ok(Linked {
        state,
        configs,
        embedded,
    })
}

/// Loads the allocator modules a link carries or names (a named one from the current
/// folder, as a trace is), so that its configurations run them.
pub fn load_modules(state: &LinkState) -> Result<(), CliError> {
    for m in &state.modules {
        let wasm = m
            .resolve(|| {
                std::fs::read(&m.name).map_err(|e| {
                    format!(
                        "the runs use the allocator module {}, which the link names but does not \
                         carry; run from the folder that holds it ({}: {e})",
                        m.name, m.name
                    )
                })
            })
            .map_err(|e| CliError::input(format!("link: {e}")))?;
        heaplab_mm::AllocatorModule::new(&m.name, &wasm)
            .map_err(|e| CliError::input(format!("link: {e}")))?
            .register();
    }
    Ok(())
}
