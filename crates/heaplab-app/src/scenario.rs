//! The seed scenarios: questions people asked about allocators, each a workload, the
//! policy configurations they compared, and the finding worked out from the numbers.
//!
//! The scenario files live in `workloads/scenarios/` and are compiled in, so the browser
//! has them too. What each finding claims, and the thresholds the tests hold it to, are
//! in [`evaluate`].

use serde::{Deserialize, Serialize};

use heaplab_core::config::{PolicyConfig, RunConfig, WorkloadConfig};
use heaplab_core::metrics::Schema;
use heaplab_core::run::{run, RunError};
use heaplab_core::series::Series;
use heaplab_core::simulate::Report;

/// A scenario file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    pub id: String,
    pub title: String,
    /// Where the question came from.
    pub seed: String,
    pub question: String,
    /// Each configuration runs on each workload.
    pub workloads: Vec<WorkloadConfig>,
    pub configs: Vec<LabelledPolicy>,
    /// The finding the people saw, in words.
    pub expected: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledPolicy {
    pub label: String,
    pub policy: PolicyConfig,
}

const FILES: &[(&str, &str)] = &[
    (
        "jit-arenas.json",
        include_str!("../../../workloads/scenarios/jit-arenas.json"),
    ),
    (
        "share-small-large.json",
        include_str!("../../../workloads/scenarios/share-small-large.json"),
    ),
    (
        "lld-link.json",
        include_str!("../../../workloads/scenarios/lld-link.json"),
    ),
    (
        "browser-back-forward.json",
        include_str!("../../../workloads/scenarios/browser-back-forward.json"),
    ),
    (
        "short-strings.json",
        include_str!("../../../workloads/scenarios/short-strings.json"),
    ),
];

/// Every scenario, parsed from its file. A malformed file is an error naming it.
pub fn scenarios() -> Result<Vec<ScenarioSpec>, String> {
    FILES
        .iter()
        .map(|(name, text)| {
            serde_json::from_str(text).map_err(|e| format!("workloads/scenarios/{name}: {e}"))
        })
        .collect()
}

/// Looks a scenario up by id; the error lists the valid ids.
pub fn find(id: &str) -> Result<ScenarioSpec, String> {
    let all = scenarios()?;
    let ids: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
    all.into_iter().find(|s| s.id == id).ok_or_else(|| {
        format!(
            "unknown scenario {id:?}; valid ones are: {}",
            ids.join(", ")
        )
    })
}

/// One configuration on one workload.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioRun {
    pub label: String,
    #[serde(flatten)]
    pub report: Report,
}

/// One claim of a finding, with the number behind it.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub claim: String,
    /// The measured value the claim is about (a ratio, a fraction).
    pub value: f64,
    pub holds: bool,
}

/// What the numbers say.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub checks: Vec<Check>,
    pub holds: bool,
}

/// A scenario's runs and finding.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioOutput {
    /// `"schema": 1`, the layout's version, first.
    pub schema: Schema,
    pub id: String,
    pub title: String,
    pub question: String,
    pub expected: String,
    pub runs: Vec<ScenarioRun>,
    pub finding: Finding,
}

/// Runs every configuration of a scenario on every workload, in file order (workloads
/// outer), and works out the finding.
pub fn run_scenario(spec: &ScenarioSpec) -> Result<ScenarioOutput, RunError> {
    run_scenario_with_series(spec).map(|(out, _)| out)
}

/// As [`run_scenario`], with each run's memory over time, in the order of `runs`: what the
/// browser plots.
pub fn run_scenario_with_series(
    spec: &ScenarioSpec,
) -> Result<(ScenarioOutput, Vec<Series>), RunError> {
    let mut runs = Vec::new();
    let mut series = Vec::new();
    for w in &spec.workloads {
        for c in &spec.configs {
            let mut config = RunConfig::new(&w.id, "");
            config.workload = w.clone();
            config.policy = c.policy.clone();
            let out = run(&config)?;
            runs.push(ScenarioRun {
                label: c.label.clone(),
                report: out.report,
            });
            series.push(out.series);
        }
    }
    let checks = evaluate(&spec.id, &runs);
    let out = ScenarioOutput {
        schema: Schema,
        id: spec.id.clone(),
        title: spec.title.clone(),
        question: spec.question.clone(),
        expected: spec.expected.clone(),
        finding: Finding {
            holds: checks.iter().all(|c| c.holds),
            checks,
        },
        runs,
    };
    Ok((out, series))
}

fn check(claim: String, value: f64, holds: bool) -> Check {
    Check {
        claim,
        value,
        holds,
    }
}

/// Resident bytes at the end of the last phase before `exit`, or at the end of the run.
fn before_exit(r: &Report) -> u64 {
    let phases = &r.summary.phases;
    match phases.iter().rposition(|p| p.label == "exit") {
        Some(i) if i > 0 => phases[i - 1].resident_bytes,
        _ => r.summary.end_resident_bytes(),
    }
}

/// The claim that fails when a run lacks a phase the finding reads.
fn missing_phase(who: &str, label: &str) -> Check {
    check(
        format!("{who}'s run has no phase {label:?}, which this finding reads"),
        0.0,
        false,
    )
}

fn phase_resident(r: &Report, label: &str) -> Option<u64> {
    r.summary
        .phases
        .iter()
        .find(|p| p.label == label)
        .map(|p| p.resident_bytes)
}

/// How far apart two runs' peak resident memory is, as a fraction of the larger.
fn peak_gap(a: &Report, b: &Report) -> f64 {
    let (a, b) = (
        a.summary.peak_resident_bytes(),
        b.summary.peak_resident_bytes(),
    );
    a.abs_diff(b) as f64 / a.max(b).max(1) as f64
}

fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / (b.max(1)) as f64
}

/// The claims of each scenario's finding. Thresholds are the qualitative findings told in
/// `workloads/scenarios/README.md` made numeric; if one fails, the model or the workload is
/// wrong, not the threshold.
pub fn evaluate(id: &str, runs: &[ScenarioRun]) -> Vec<Check> {
    let r = |i: usize| &runs[i].report;
    match id {
        "jit-arenas" if runs.len() == 3 => {
            let (heap, pages, big) = (r(0), r(1), r(2));
            let end = ratio(before_exit(heap), before_exit(pages));
            let peak_gap = peak_gap(heap, pages);
            let ops = ratio(pages.summary.page_ops(), big.summary.page_ops());
            vec![
                check(
                    format!("memory after the compilations is {end:.1}x smaller with mmap-backed slabs (at least 3x)"),
                    end,
                    end >= 3.0,
                ),
                check(
                    format!("peak memory differs by {:.1}% (at most 10%)", peak_gap * 100.0),
                    peak_gap,
                    peak_gap <= 0.10,
                ),
                check(
                    format!("4 KiB mmap-backed slabs make {ops:.0}x the page operations of 1 MiB slabs (at least 10x)"),
                    ops,
                    ops >= 10.0,
                ),
            ]
        }
        "share-small-large" if runs.len().is_multiple_of(2) => {
            // Runs come in pairs per workload: (sharing, separate).
            let mut checks = Vec::new();
            for pair in runs.chunks(2) {
                let (shared, separate) = (&pair[0].report, &pair[1].report);
                let workload = &shared.config.workload.id;
                let end = ratio(
                    separate.summary.end_resident_bytes(),
                    shared.summary.end_resident_bytes(),
                );
                checks.push(check(
                    format!(
                        "{workload}: memory at end is {end:.1}x smaller with sharing (at least 2x)"
                    ),
                    end,
                    end >= 2.0,
                ));
                let gap = peak_gap(shared, separate);
                checks.push(check(
                    format!(
                        "{workload}: peak memory differs by {:.1}% (at most 15%)",
                        gap * 100.0
                    ),
                    gap,
                    gap <= 0.15,
                ));
            }
            checks
        }
        "lld-link" if runs.len() == 3 => {
            let (mi, rp, sn) = (r(0), r(1), r(2));
            let ops = |x: &Report| x.summary.page_ops();
            let commit = |x: &Report| x.summary.peak_committed_bytes();
            let kib = |b: u64| b / 1024;
            vec![
                check(
                    format!(
                        "page operations: mimalloc-like {} > rpmalloc-like {} > snmalloc-like {}",
                        ops(mi),
                        ops(rp),
                        ops(sn)
                    ),
                    ratio(ops(mi), ops(sn)),
                    ops(mi) > ops(rp) && ops(rp) > ops(sn),
                ),
                check(
                    format!(
                        "peak commit: mimalloc-like {} KiB < rpmalloc-like {} KiB < snmalloc-like {} KiB",
                        kib(commit(mi)),
                        kib(commit(rp)),
                        kib(commit(sn))
                    ),
                    ratio(commit(sn), commit(mi)),
                    commit(mi) < commit(rp) && commit(rp) < commit(sn),
                ),
            ]
        }
        "browser-back-forward" if runs.len() == 6 => {
            let mut checks = Vec::new();
            // Runs: (2x, glibc), (2x, returning), (+1, glibc), (+1, returning), (custom, ...).
            for (i, who, keeps_most) in
                [(0, "glibc-like", true), (1, "the returning policy", false)]
            {
                let rep = r(i);
                // A phase the workload no longer marks is a claim that fails, naming the
                // phase: reading it as no memory at all would pass "keeps at most 30%".
                let Some(huge) = phase_resident(rep, "huge page") else {
                    checks.push(missing_phase(who, "huge page"));
                    continue;
                };
                for back in 1..=3 {
                    let label = format!("back {back}");
                    let Some(after) = phase_resident(rep, &label) else {
                        checks.push(missing_phase(who, &label));
                        continue;
                    };
                    let kept = ratio(after, huge);
                    checks.push(if keeps_most {
                        check(
                            format!("after back {back}, {who} keeps {:.0}% of the huge page resident (at least 60%)", kept * 100.0),
                            kept,
                            kept >= 0.6,
                        )
                    } else {
                        check(
                            format!("after back {back}, {who} keeps {:.0}% of the huge page resident (at most 30%)", kept * 100.0),
                            kept,
                            kept <= 0.3,
                        )
                    });
                }
            }
            let (double, plus_one, custom) = (r(0), r(2), r(4));
            let peak = |x: &Report| x.summary.peak_resident_bytes() as f64;
            let saving = 1.0 - peak(plus_one) / peak(double);
            checks.push(check(
                format!(
                    "growing by one slot lowers peak memory by {:.1}% (at least 5%)",
                    saving * 100.0
                ),
                saving,
                saving >= 0.05,
            ));
            let reallocs = ratio(plus_one.summary.reallocs(), double.summary.reallocs());
            checks.push(check(
                format!("growing by one slot needs {reallocs:.0}x the reallocations of doubling (at least 10x)"),
                reallocs,
                reallocs >= 10.0,
            ));
            let kept = (peak(double) - peak(custom)) / (peak(double) - peak(plus_one)).max(1.0);
            checks.push(check(
                format!(
                    "doubling then shrinking to fit keeps {:.0}% of that saving (more than half)",
                    kept * 100.0
                ),
                kept,
                kept > 0.5,
            ));
            let custom_reallocs = ratio(custom.summary.reallocs(), double.summary.reallocs());
            checks.push(check(
                format!(
                    "and needs {custom_reallocs:.2}x the reallocations of doubling (at most 2x)"
                ),
                custom_reallocs,
                custom_reallocs <= 2.0,
            ));
            checks
        }
        "short-strings" if runs.len() == 2 => {
            // The pool keeps Pike's counters. A policy that serves each string with one
            // malloc chunk keeps none, and its figures are what Pike's would be: a malloc
            // per live block, the live bytes as malloc bytes, and no free blocks.
            let counter = |x: &Report, name: &str| {
                let s = &x.summary;
                s.counters.get(name).copied().unwrap_or(match name {
                    "num_malloc" => s.allocs().saturating_sub(s.frees()),
                    "malloc_bytes" => s.end_live_bytes(),
                    _ => 0,
                })
            };
            let (one_chunk, pool) = (r(0), r(1));
            let calls = 1.0
                - ratio(
                    counter(pool, "num_malloc"),
                    counter(one_chunk, "num_malloc"),
                );
            let bytes = 1.0
                - ratio(
                    counter(pool, "malloc_bytes"),
                    counter(one_chunk, "malloc_bytes"),
                );
            let free_blocks = counter(pool, "free_block_bytes");
            let rise = free_blocks.saturating_sub(counter(one_chunk, "free_block_bytes"));
            let saved =
                counter(one_chunk, "malloc_bytes").saturating_sub(counter(pool, "malloc_bytes"));
            vec![
                check(
                    format!("num_malloc drops by {:.0}% (at least half)", calls * 100.0),
                    calls,
                    calls >= 0.5,
                ),
                check(
                    format!(
                        "malloc_bytes drops by {:.0}% (at least half)",
                        bytes * 100.0
                    ),
                    bytes,
                    bytes >= 0.5,
                ),
                check(
                    format!(
                        "free_block_bytes rises by {} bytes, less than the {} malloc bytes saved",
                        rise, saved
                    ),
                    rise as f64,
                    rise > 0 && rise < saved,
                ),
            ]
        }
        _ => vec![check(
            format!("scenario {id} has no finding for {} runs", runs.len()),
            0.0,
            false,
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_file_parses_and_resolves() {
        for s in scenarios().unwrap() {
            assert!(
                !s.workloads.is_empty() && (2..=4).contains(&s.configs.len()),
                "{}",
                s.id
            );
            for w in &s.workloads {
                for c in &s.configs {
                    let mut config = RunConfig::new(&w.id, "");
                    config.workload = w.clone();
                    config.policy = c.policy.clone();
                    config
                        .resolve()
                        .unwrap_or_else(|e| panic!("{} {}: {e}", s.id, c.label));
                }
            }
        }
        assert!(find("nope").unwrap_err().contains("jit-arenas"));
    }

    /// A phase the finding reads that a run no longer has fails the finding; it is not
    /// read as no memory, which would pass "keeps at most 30%".
    #[test]
    fn a_phase_the_finding_reads_and_the_run_lacks_fails_it() {
        let spec = find("browser-back-forward").unwrap();
        let mut out = run_scenario(&spec).unwrap();
        assert!(out.finding.holds, "{:#?}", out.finding.checks);
        let returning = &mut out.runs[1].report.summary.phases;
        let before = returning.len();
        returning.retain(|p| p.label != "back 2");
        assert_eq!(returning.len(), before - 1, "the run marks \"back 2\" once");
        let checks = evaluate(&spec.id, &out.runs);
        let failed: Vec<&str> = checks
            .iter()
            .filter(|c| !c.holds)
            .map(|c| c.claim.as_str())
            .collect();
        assert_eq!(
            failed,
            ["the returning policy's run has no phase \"back 2\", which this finding reads"]
        );
    }
}
