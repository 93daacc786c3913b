//! Real memory in `cargo xtask bench`: the presets replayed over real pages (`heaplab run
//! --real`) against glibc, mimalloc and jemalloc replaying the same events (`heaplab
//! baseline`), each as a child process of the release CLI: time per event and the heap's
//! memory at its peak and at the end. Then `heaplab fidelity`: each preset that models a
//! real allocator against it over the MallocBench ports and the recorded traces,
//! `glibc-like` held to its targets.
//!
//! Everything here is what the CLI prints with `--json`, so the report quotes the same
//! numbers a person gets from the commands it names.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::report::{count, Row};

/// Each preset beside the allocator it models, by the names `run -p` and `baseline -a`
/// take and the names the report gives the allocators.
const PAIRS: &[(&str, &str, &str)] = &[
    ("glibc-like", "system", "glibc"),
    ("mimalloc-like", "mimalloc", "mimalloc"),
    ("jemalloc-like", "jemalloc", "jemalloc"),
];

/// The `browser` workload at this scale (2.07 M events, 120 MiB live at its peak, none at
/// the end), a tenth of it at the quick sizes; and the timed runs each child makes.
fn sizes(quick: bool) -> (&'static str, &'static str) {
    if quick {
        ("0.1", "3")
    } else {
        ("1", "5")
    }
}

pub fn run(bin: &Path, quick: bool) -> Result<Vec<Row>> {
    let (scale, repeat) = sizes(quick);
    let workload = ["-w", "browser", "--scale", scale, "--repeat", repeat];
    let mut sim_args = vec!["run", "--real", "--json"];
    let mut real_args = vec!["baseline", "--json"];
    for (preset, allocator, _) in PAIRS {
        sim_args.extend(["-p", preset]);
        real_args.extend(["-a", allocator]);
    }
    sim_args.extend(workload);
    real_args.extend(workload);
    println!("\nreal memory: `heaplab {}`", sim_args.join(" "));
    let sims = json_of(bin, &sim_args)?;
    println!("real memory: `heaplab {}`", real_args.join(" "));
    let reals = json_of(bin, &real_args)?;
    let (Some(sims), Some(reals)) = (sims.as_array(), reals.as_array()) else {
        bail!("`heaplab run --real --json` and `heaplab baseline --json` print arrays");
    };
    if sims.len() != PAIRS.len() || reals.len() != PAIRS.len() {
        bail!(
            "expected a report for each of {} presets and allocators",
            PAIRS.len()
        );
    }
    let events = number(&reals[0], "events")?;
    let what = format!("`browser` {scale} ({})", count(events));
    let mut rows = Vec::new();
    for ((preset, _, name), (sim, real)) in PAIRS.iter().zip(sims.iter().zip(reals)) {
        if sim["matches_simulation"] != Value::Bool(true) {
            bail!("{preset} over real memory did not match its simulation page for page");
        }
        let over = number(sim, "ns_per_event")?;
        let own = number(real, "ns_per_event")?;
        let ratio = over / own;
        let mut row = Row::new(
            "real memory",
            format!("{preset} over real pages / {name}, ns per event, {what}"),
            format!("{over:.1} / {own:.1} ns ({ratio:.2}x)"),
        );
        // BENCHMARKS.md holds mimalloc-like over real memory within 2x of mimalloc.
        if *preset == "mimalloc-like" {
            row = row.target("within 2x", ratio <= 2.0);
        }
        rows.push(row);
    }
    for ((preset, _, name), (sim, real)) in PAIRS.iter().zip(sims.iter().zip(reals)) {
        let trimmed = number(real, "end_rss_after_trim_bytes")?;
        rows.push(Row::new(
            "heap memory",
            format!("{preset} / {name}, peak, end ({name} after its trim), {what}"),
            format!(
                "{} / {}, {} / {} ({})",
                mib(number(sim, "peak_resident_bytes")?),
                mib(number(real, "peak_rss_bytes")?),
                mib(number(sim, "end_resident_bytes")?),
                mib(number(real, "end_rss_bytes")?),
                mib(trimmed),
            ),
        ));
    }
    rows.extend(fidelity(bin, quick)?);
    Ok(rows)
}

/// Debian's mimalloc 2.0, which `mimalloc2-like` models; the bench installs it.
const MIMALLOC2: &str = "preload:/usr/lib/x86_64-linux-gnu/libmimalloc.so.2";

/// Each preset that models a real allocator against it, on the real replay's clock: for
/// `glibc-like` the workload furthest from glibc at the peak and at the end, each against
/// its target (the CLI's own, which it prints with each row); for the others, on how many
/// workloads they come as close (all, as a target), and the furthest.
fn fidelity(bin: &Path, quick: bool) -> Result<Vec<Row>> {
    // The ports at a fifth of their usual scale when quick; the recorded traces are
    // what they are, and run either way.
    let scale = if quick { "0.01" } else { "0.05" };
    let args = [
        "fidelity", "-a", "system", "-a", "jemalloc", "-a", "mimalloc", "-a", MIMALLOC2, "--scale",
        scale, "--json",
    ];
    println!("fidelity: `heaplab {}`", args.join(" "));
    let rows = json_of(bin, &args)?;
    let rows = rows
        .as_array()
        .context("`heaplab fidelity --json` prints an array")?;
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let pair = (
            r["preset"].as_str().unwrap_or("?"),
            r["allocator_version"].as_str().unwrap_or("?"),
        );
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    let mut out = Vec::new();
    for (preset, version) in pairs {
        let rows: Vec<&Value> = rows
            .iter()
            .filter(|r| r["preset"] == preset && r["allocator_version"] == version)
            .collect();
        let what = format!("{} workloads (ports at scale {scale})", rows.len());
        let furthest = |ratio: &str| -> Result<(f64, &str)> {
            let mut furthest: Option<(f64, &str)> = None;
            for r in &rows {
                let value = number(r, ratio)?;
                if furthest.is_none_or(|(v, _)| (value - 1.0).abs() > (v - 1.0).abs()) {
                    furthest = Some((value, r["workload"].as_str().unwrap_or("?")));
                }
            }
            furthest.context("fidelity ran no workload")
        };
        if preset == "glibc-like" {
            for (at, ratio, bound) in [("peak", "peak_ratio", 0), ("end", "end_ratio", 1)] {
                let target = rows[0]["target"][bound]
                    .as_f64()
                    .context("each glibc-like row names its target")?;
                let (value, workload) = furthest(ratio)?;
                out.push(
                    Row::new(
                        "fidelity",
                        format!(
                            "glibc-like's {at} / {version}'s, the furthest of {what}: {workload}"
                        ),
                        format!("{value:.2}"),
                    )
                    .target(
                        format!("within {:.0}%", target * 100.0),
                        (value - 1.0).abs() <= target,
                    ),
                );
            }
            continue;
        }
        // The same bounds as glibc-like's, held on every workload.
        let close = rows
            .iter()
            .filter(|r| {
                let off = |k: &str| (r[k].as_f64().unwrap_or(0.0) - 1.0).abs();
                off("peak_ratio") <= 0.15 && off("end_ratio") <= 0.25
            })
            .count();
        let (peak, peak_at) = furthest("peak_ratio")?;
        let (end, end_at) = furthest("end_ratio")?;
        out.push(
            Row::new(
                "fidelity",
                format!(
                    "{preset} / {version}, on the replay's own clock: within 15% of the peak and \
                     25% of the end, of {what}; the furthest peak and end"
                ),
                format!(
                    "{close} of {}; {peak:.2} ({peak_at}), {end:.2} ({end_at})",
                    rows.len()
                ),
            )
            .target(format!("all {}", rows.len()), close == rows.len()),
        );
    }
    Ok(out)
}

/// What `heaplab ARGS` printed on stdout, read as JSON.
fn json_of(bin: &Path, args: &[&str]) -> Result<Value> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    if !out.status.success() {
        bail!(
            "heaplab {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout)
        .with_context(|| format!("reading what `heaplab {}` printed", args.join(" ")))
}

fn number(v: &Value, key: &str) -> Result<f64> {
    v[key]
        .as_f64()
        .with_context(|| format!("no number `{key}` in the report"))
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1u64 << 20) as f64)
}
