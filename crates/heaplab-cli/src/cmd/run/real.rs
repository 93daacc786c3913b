//! `heaplab run --real` runs every config over real memory, in this process.
//!
//! heaplab-native's `replay` does the work, and checks the kernel's resident pages against
//! the model's.

use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::event::Event;
use heaplab_core::trace::{ImportOptions, Imported};
use heaplab_native::{decode_with, replay, RealOptions};

use crate::cli::RunArgs;
use crate::error::CliError;
use crate::output;

/// Runs `configs` (from `args`' input flags) over real memory and reports them.
pub(super) fn run(args: &RunArgs, configs: &[RunConfig]) -> Result<(), CliError> {
    let repeat = args.repeat.unwrap_or(5);
    if repeat == 0 {
        return Err(CliError::input("--repeat: needs at least one run"));
    }
    let opts = RealOptions {
        repeat,
        ..RealOptions::default()
    };
    let options = ImportOptions {
        lenient: args.lenient,
        strict: args.strict,
    };
    let mut reports = Vec::new();
    let mut decoded: Option<(WorkloadConfig, Vec<Event>, Option<Imported>)> = None;
    for config in configs {
        let config = config
            .resolve()
            .map_err(|e| CliError::input(e.to_string()))?;
        heaplab_native::replay::check_config(&config)?;
        // Configs from flags share one workload: decode it once.
        let (workload, events, imported) = match decoded.take() {
            Some((w, events, imported)) if w == config.workload => (w, events, imported),
            _ => {
                let (events, imported) = decode_with(&config.workload, &options)?;
                // As `run` without `--real` does, on stderr: a warning about the input.
                if let Some(skipped) = imported.as_ref().and_then(|i| i.skipped.as_ref()) {
                    output::runs::print_skipped(skipped);
                }
                (config.workload.clone(), events, imported)
            }
        };
        let (_, events, imported) = decoded.insert((workload, events, imported));
        let mut report = replay(&config, events, opts)?;
        // What the import found goes with the report, as `run` without `--real` keeps it:
        // the table's first line and `--json`'s `trace` and `skipped` name it.
        report.output.trace = imported.clone();
        reports.push(report);
    }
    if let Some(path) = &args.series {
        output::write_series(
            path,
            reports
                .iter()
                .map(|r| (output::label(&r.report.config), &r.output.series)),
        )?;
    }
    if args.json {
        /// A real run as `--json` prints it: the fields of a simulated run's report
        /// (`trace` and `skipped` included), then what the real run measured.
        #[derive(serde::Serialize)]
        struct Printed<'a> {
            #[serde(flatten)]
            run: heaplab_core::run::JsonReport<'a>,
            #[serde(flatten)]
            real: &'a heaplab_native::RealFigures,
        }
        let printed: Vec<Printed> = reports
            .iter()
            .map(|r| Printed {
                run: heaplab_core::run::JsonReport {
                    report: &r.report,
                    ..r.output.json()
                },
                real: &r.real,
            })
            .collect();
        return output::print_json(&printed);
    }
    let outputs: Vec<_> = reports.iter().map(|r| r.output.clone()).collect();
    output::runs::print_runs(&outputs);
    output::runs::print_model_time(&outputs);
    output::runs::print_real(&reports);
    Ok(())
}
