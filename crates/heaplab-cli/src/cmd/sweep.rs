//! `heaplab sweep` runs one configuration at each value of one or two numeric parameters
//! and reports every metric per value: the core's `Sweep` lists the points, they run in
//! parallel on every core (rayon, results kept in the points' order, so the output is the
//! same whatever the number of cores), and the core assembles the report the page's sweep
//! mode builds from the same points. A progress bar on stderr counts the points (hidden
//! when stderr is not a terminal, or with `--quiet`).

use heaplab_app::link;
use heaplab_app::sweep::Sweep;
use heaplab_core::trace::ImportOptions;
use rayon::prelude::*;
use serde_json::Value;

use crate::cli::SweepArgs;
use crate::error::CliError;
use crate::input;
use crate::output;
use crate::progress::Progress;

pub fn run(args: SweepArgs) -> Result<(), CliError> {
    if let Some(path) = &args.plot {
        output::plot::check_path(path)?;
    }
    // A misspelt --metric is named as such before anything runs.
    output::sweep::metrics(&args.metric, "peak_resident_bytes")?;
    let sweep = match &args.input.link {
        Some(url) => {
            if !args.vary.is_empty() {
                return Err(CliError::input(
                    "--vary: a link names its own sweep; give --link or --vary, not both",
                ));
            }
            let state = link::decode(url).map_err(|e| CliError::input(e.message))?;
            crate::input::link::load_modules(&state)?;
            Sweep::from_link(&state).map_err(|e| CliError::input(e.message))?
        }
        None => input::sweep::from_flags(&args.input, &args.vary, args.metric.first())?,
    };
    // Without --metric, a link's chart plots what the page's does.
    let keys: Vec<String> = if args.metric.is_empty() {
        sweep.metrics().into_iter().map(String::from).collect()
    } else {
        args.metric.clone()
    };
    let metrics = output::sweep::metrics(&keys, &sweep.metric)?;
    let progress = Progress::new(sweep.points.len() as u64, args.progress.quiet);
    let reports = run_points(&sweep, &progress)?;
    progress.finish();
    let report = sweep.report(&reports).map_err(CliError::failed)?;
    if let Some(path) = &args.plot {
        output::sweep::write_plot(path, &report, &metrics)?;
    }
    if args.json {
        output::print_json(&report)
    } else {
        output::sweep::print(&report);
        Ok(())
    }
}

/// Runs every point on the cores rayon has, each report as its `--json` object.
/// `collect` keeps the points' order, and each run is deterministic, so the reports do
/// not depend on how many threads ran them.
fn run_points(sweep: &Sweep, progress: &Progress) -> Result<Vec<Value>, CliError> {
    let options = ImportOptions::default();
    sweep
        .points
        .par_iter()
        .map(|point| {
            let at: Vec<String> = sweep
                .axes
                .iter()
                .zip(&point.values)
                .map(|(a, v)| format!("{}={}", a.param, a.value_text(v)))
                .collect();
            progress.start(&at.join(", "));
            let out = input::run_one(&point.config, &options)?;
            progress.done();
            serde_json::to_value(out.json()).map_err(|e| CliError::failed(e.to_string()))
        })
        .collect()
}
