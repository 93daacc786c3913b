//! Teaching moments in `cargo xtask bench`: what looking at one moment of a long run
//! costs, as a user pays it, whole `heaplab` processes timed against `heaplab run` of the
//! same trace. The target is that `blame` and `map` at the last event of a 1-million-event
//! trace take at most three times `run` plus 100 ms: reaching event N costs about what
//! running N events costs, plus drawing, never a cost that grows with N². `explain` of
//! the last thousand events rides on the same replay.
//!
//! Then the page: `web/bench/teach.mjs` in headless Chromium opens teaching mode on a
//! 10-million-event trace and asks for event 5,000,000, which is to be shown within 3 s
//! with the tab under 500 MiB; one step back from it is timed too.
//!
//! At the quick sizes the CLI's trace is a twentieth as long (`browser` at scale 0.025)
//! and each command runs three times; the page's trace is a tenth (`churn` at 0.071,
//! event 500,000).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::report::{count, node_rows, Row};
use crate::{run_cmd, serve, target_dir};

/// The presets timed: the free list, the size classes and the buddy system.
const PRESETS: &[&str] = &["glibc-like", "mimalloc-like", "buddy"];

/// Times each command is run; the table quotes the median.
fn repeats(quick: bool) -> usize {
    if quick {
        3
    } else {
        5
    }
}

/// The teaching moments, by the release CLI `bin` and in the page, whose wasm `bench.rs`
/// has built.
pub fn run(root: &Path, bin: &Path, quick: bool) -> Result<Vec<Row>> {
    let dir = target_dir(root).join("tmp/teachbench");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // The browser workload at half scale: a little over a million events, with phases.
    let scale = if quick { "0.025" } else { "0.5" };
    let trace = dir.join(format!("browser-{scale}.trace"));
    run_cmd(
        Command::new(bin)
            .args(["export", "-w", "browser", "--scale", scale, "-o"])
            .arg(&trace),
        root,
    )?;
    let events = std::fs::read_to_string(&trace)?
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    let trace = trace.to_string_lossy().into_owned();
    let svg = dir.join("heap.svg").to_string_lossy().into_owned();
    let from = events.saturating_sub(999).max(1).to_string();
    let repeats = repeats(quick);
    println!(
        "\nteaching moments: the last event of a {events}-event trace (browser, --scale {scale}), \
         whole processes, medians of {repeats}:\n"
    );
    let mut rows = Vec::new();
    println!("| preset | run | blame --at end | map --at end | explain of the last 1,000 | target: 3 x run + 100 ms | met |");
    println!("|---|---|---|---|---|---|---|");
    for preset in PRESETS {
        let base = ["-w", trace.as_str(), "-p", preset];
        let time = |extra: &[&str]| -> Result<f64> {
            let args: Vec<&str> = extra[..1]
                .iter()
                .chain(&base)
                .chain(&extra[1..])
                .copied()
                .collect();
            median_secs(bin, &args, repeats)
        };
        let run = time(&["run"])?;
        let blame = time(&["blame", "--at", "end"])?;
        let map = time(&["map", "--at", "end", "--heap-map", svg.as_str()])?;
        let explain = time(&["explain", "--from", from.as_str()])?;
        let target = 3.0 * run + 0.1;
        let met = if blame <= target && map <= target {
            "yes"
        } else {
            "no"
        };
        println!(
            "| {preset} | {} | {} | {} | {} | {} | {met} |",
            ms(run),
            ms(blame),
            ms(map),
            ms(explain),
            ms(target)
        );
        rows.push(
            Row::new(
                "teaching",
                format!(
                    "blame / map / explain of the last 1,000, at the end of `browser` {scale} \
                     ({}), {preset}, whole processes (run alone)",
                    count(events as f64)
                ),
                format!(
                    "{} / {} / {} ({})",
                    ms(blame),
                    ms(map),
                    ms(explain),
                    ms(run)
                ),
            )
            .target(
                format!("blame and map ≤ 3 x run + 100 ms = {}", ms(target)),
                met == "yes",
            ),
        );
    }
    rows.extend(page(root, bin, &dir, quick)?);
    Ok(rows)
}

/// `churn` at this scale is a little under ten million events (9,940,002), the most
/// teaching mode holds; at the quick sizes a tenth of that.
fn page_scale(quick: bool) -> &'static str {
    if quick {
        "0.071"
    } else {
        "0.71"
    }
}

/// Teaching mode in the page at event 5,000,000 of a 10-million-event trace (500,000 of
/// a million at the quick sizes).
fn page(root: &Path, bin: &Path, dir: &Path, quick: bool) -> Result<Vec<Row>> {
    let scale = page_scale(quick);
    let trace = dir.join(format!("churn-{scale}.trace"));
    if !trace.exists() {
        run_cmd(
            Command::new(bin)
                .args(["export", "-w", "churn", "--scale", scale, "-o"])
                .arg(&trace),
            root,
        )?;
    }
    let addr = serve::spawn_on_free_port(&root.join("web"))?;
    node_rows(
        root,
        Command::new("node")
            .arg("web/bench/teach.mjs")
            .env("HEAPLAB_URL", format!("http://{addr}/"))
            .env("HEAPLAB_BIN", bin)
            .env("HEAPLAB_TEACH_TRACE", &trace),
        "teach",
        quick,
    )
}

fn ms(secs: f64) -> String {
    format!("{:.0} ms", secs * 1e3)
}

/// The median wall time of `repeats` runs of `bin args`, its output thrown away.
fn median_secs(bin: &Path, args: &[&str], repeats: usize) -> Result<f64> {
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let start = Instant::now();
        let out = Command::new(bin)
            .args(args)
            .output()
            .with_context(|| format!("running {}", bin.display()))?;
        times.push(start.elapsed().as_secs_f64());
        if !out.status.success() {
            bail!(
                "heaplab {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[repeats / 2])
}
