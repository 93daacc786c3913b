//! `heaplab mm check`: an allocator module scored as malloc lab's mdriver scores it.
//!
//! mdriver (CS:APP malloc lab, `mdriver.c` and `config.h`) runs every trace three times:
//! once checking each call (`eval_mm_valid`), once for space utilisation
//! (`eval_mm_util`: the peak of the total payload live at once over `mem_heapsize()` at
//! the end of the trace, which is the heap's high-water mark since `mem_sbrk` never
//! shrinks it), and once for time (`eval_mm_speed`, no checks). Its performance index is
//! `UTIL_WEIGHT * mean util + (1 - UTIL_WEIGHT) * min(1, throughput / AVG_LIBC_THRUPUT)`,
//! with `UTIL_WEIGHT` 0.60, throughput the operations of all traces over their seconds,
//! and `AVG_LIBC_THRUPUT` a libc figure each course sets for its machines (600 Kops/s in
//! the original hand-out). With any invalid trace there is no index.
//!
//! heaplab does the same, with its simulator: the checking run gives validity and the
//! utilisation (and heaplab's own figures beside them), and a second run with the checks
//! off gives the time. Times are the module's in heaplab's interpreter, which is slower
//! than native code, so set the reference to a figure measured the same way.

use std::path::PathBuf;

use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::policy::hosted::Knobs;
use heaplab_core::run::{run, run_trace, RunOutput};
use heaplab_core::trace::ImportOptions;
use serde::Serialize;
use serde_json::Value;

use crate::module::AllocatorModule;

/// mdriver's `UTIL_WEIGHT`: the share of the index that utilisation gives.
pub const UTIL_WEIGHT: f64 = 0.60;

/// mdriver's `AVG_LIBC_THRUPUT` in the original hand-out, in operations per second.
pub const REFERENCE_OPS_PER_SEC: f64 = 600e3;

/// The malloc-lab look-alike workloads heaplab checks with when no trace is given.
pub const DEFAULT_WORKLOADS: &[&str] = &["binary", "coalescing", "random", "realloc"];

/// What to run: a built-in workload or a trace file (`.rep`, `.trace`, ...).
#[derive(Clone, Debug)]
pub enum Input {
    Workload(WorkloadConfig),
    Trace(PathBuf),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::Workload(w) => w.id.clone(),
            Input::Trace(p) => p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into()),
        }
    }
}

/// One trace's line of mdriver's table, and heaplab's figures beside it.
#[derive(Clone, Debug, Serialize)]
pub struct TraceScore {
    pub trace: String,
    pub valid: bool,
    /// Why the trace is invalid: the event, the call and what was wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Peak live payload over the heap's size at the end, as a fraction.
    pub util: f64,
    /// Allocations, frees and reallocations.
    pub ops: u64,
    /// Seconds of the run without checks.
    pub secs: f64,
    /// Thousands of operations per second.
    pub kops: f64,
    pub peak_live_bytes: u64,
    /// `mem_heapsize()` at the end.
    pub heap_bytes: u64,
    pub peak_resident_bytes: u64,
    pub end_resident_bytes: u64,
}

/// The performance index, in points out of 100.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PerfIndex {
    pub util_points: f64,
    pub throughput_points: f64,
    pub total: f64,
}

/// mdriver's whole table.
#[derive(Clone, Debug, Serialize)]
pub struct Score {
    pub module: String,
    pub sha256: String,
    pub traces: Vec<TraceScore>,
    pub valid_traces: usize,
    /// The mean of the traces' util.
    pub util: f64,
    pub ops: u64,
    pub secs: f64,
    pub kops: f64,
    pub util_weight: f64,
    pub reference_kops: f64,
    /// None when a trace is invalid, as mdriver prints no index then.
    pub perf_index: Option<PerfIndex>,
}

/// How the checks run.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The payload alignment to check (malloc lab's ALIGNMENT).
    pub align: u64,
    /// mdriver's `AVG_LIBC_THRUPUT`, in operations per second.
    pub reference_ops_per_sec: f64,
    /// Run the allocator's own `mm_checkheap(1)` after every this many calls of the
    /// checking run (0: never); the timed run never does.
    pub check_heap_every: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            align: 8,
            reference_ops_per_sec: REFERENCE_OPS_PER_SEC,
            check_heap_every: 0,
        }
    }
}

fn config(
    module: &AllocatorModule,
    input: &Input,
    options: &CheckOptions,
    checks: bool,
) -> RunConfig {
    let mut config = RunConfig::new("", "bump");
    config.workload = match input {
        Input::Workload(w) => w.clone(),
        Input::Trace(p) => WorkloadConfig::trace(p.display().to_string()),
    };
    let names = Knobs::NAMES;
    config.policy = module.policy_config();
    let params = &mut config.policy.params;
    params.insert(names.align.into(), Value::from(options.align));
    params.insert(names.checks.into(), Value::from(checks));
    if checks {
        params.insert(
            names.check_heap_every.into(),
            Value::from(options.check_heap_every),
        );
    }
    config
}

fn run_input(config: &RunConfig, input: &Input) -> Result<RunOutput, String> {
    match input {
        Input::Workload(_) => run(config).map_err(|e| e.to_string()),
        Input::Trace(path) => {
            let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            run_trace(config, file, &ImportOptions::default()).map_err(|e| e.to_string())
        }
    }
}

/// Scores `module` on `inputs`; `time` runs a closure and returns the seconds it took.
pub fn score(
    module: &AllocatorModule,
    inputs: &[Input],
    options: &CheckOptions,
    time: &dyn Fn(&mut dyn FnMut()) -> f64,
) -> Score {
    let traces: Vec<TraceScore> = inputs
        .iter()
        .map(|input| score_one(module, input, options, time))
        .collect();
    let valid_traces = traces.iter().filter(|t| t.valid).count();
    let n = traces.len().max(1) as f64;
    let util = traces.iter().map(|t| t.util).sum::<f64>() / n;
    let ops = traces.iter().map(|t| t.ops).sum();
    let secs = traces.iter().map(|t| t.secs).sum::<f64>();
    let throughput = if secs > 0.0 { ops as f64 / secs } else { 0.0 };
    let perf_index = (valid_traces == traces.len() && !traces.is_empty()).then(|| {
        let p1 = UTIL_WEIGHT * util;
        let p2 = (1.0 - UTIL_WEIGHT) * (throughput / options.reference_ops_per_sec).min(1.0);
        PerfIndex {
            util_points: p1 * 100.0,
            throughput_points: p2 * 100.0,
            total: (p1 + p2) * 100.0,
        }
    });
    Score {
        module: module.name().to_string(),
        sha256: module.sha256().to_string(),
        traces,
        valid_traces,
        util,
        ops,
        secs,
        kops: throughput / 1000.0,
        util_weight: UTIL_WEIGHT,
        reference_kops: options.reference_ops_per_sec / 1000.0,
        perf_index,
    }
}

fn score_one(
    module: &AllocatorModule,
    input: &Input,
    options: &CheckOptions,
    time: &dyn Fn(&mut dyn FnMut()) -> f64,
) -> TraceScore {
    let mut line = TraceScore {
        trace: input.name(),
        valid: false,
        error: None,
        util: 0.0,
        ops: 0,
        secs: 0.0,
        kops: 0.0,
        peak_live_bytes: 0,
        heap_bytes: 0,
        peak_resident_bytes: 0,
        end_resident_bytes: 0,
    };
    let checked = match run_input(&config(module, input, options, true), input) {
        Ok(out) => out,
        Err(e) => {
            line.error = Some(e);
            return line;
        }
    };
    let s = &checked.report.summary;
    line.valid = true;
    line.ops = s.allocs() + s.frees() + s.reallocs();
    line.peak_live_bytes = s.peak_live_bytes();
    line.heap_bytes = s.counters.get("mem_heapsize").copied().unwrap_or(0);
    line.util = if line.heap_bytes > 0 {
        line.peak_live_bytes as f64 / line.heap_bytes as f64
    } else {
        0.0
    };
    line.peak_resident_bytes = s.peak_resident_bytes();
    line.end_resident_bytes = s.end_resident_bytes();
    let unchecked = config(module, input, options, false);
    let mut result = Ok(());
    line.secs = time(&mut || result = run_input(&unchecked, input).map(|_| ()));
    if let Err(e) = result {
        line.valid = false;
        line.error = Some(format!("the run without checks failed: {e}"));
    }
    if line.secs > 0.0 {
        line.kops = line.ops as f64 / line.secs / 1000.0;
    }
    line
}
