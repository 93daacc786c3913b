//! Trace import speed end to end: a generated 10-million-event trace read from its file,
//! parsed, checked and simulated with `size-class`, as `heaplab run -w FILE` does, in
//! heaplab's `.trace` text, as a malloc-lab `.rep` and gzip'd; beside `wc -l` and
//! `zcat` on the same files in the same run, the floors a reader cannot go below.
//!
//! `cargo bench -p heaplab-core --bench import` (or `cargo xtask bench`, which prints
//! events/s, MB/s and the ratios). The traces are generated once into the target
//! folder's `tmp/tracebench/`, never committed. With `HEAPLAB_BENCH_QUICK` set (`cargo
//! xtask bench --quick`) the trace is a million events, `import-quick-v1.*`, sampled for
//! half a second a benchmark.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use heaplab_core::config::{RunConfig, WorkloadConfig};
use heaplab_core::run::run_trace;
use heaplab_core::trace::ImportOptions;

/// Whether `cargo xtask bench --quick` asked for the quick sizes.
fn quick() -> bool {
    std::env::var_os("HEAPLAB_BENCH_QUICK").is_some()
}

/// Events in each generated trace.
fn events() -> u64 {
    if quick() {
        1_000_000
    } else {
        10_000_000
    }
}

/// The traces' file name before the extension; `cargo xtask bench` names the same.
fn stem() -> &'static str {
    if quick() {
        "import-quick-v1"
    } else {
        "import-v1"
    }
}

/// Blocks the program keeps live: frees pick one of them at random.
const LIVE: usize = 10_000;

/// Where the traces go; a new version of the generator gets new names.
fn dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("tracebench")
}

/// The op lines of a program that allocates until `LIVE` blocks are live and then
/// frees a random live block for each allocation, with a realloc now and then; sizes
/// from 8 to 1 KiB with a long tail to 64 KiB. Deterministic (a fixed LCG).
fn write_ops(w: &mut impl Write) -> std::io::Result<u64> {
    let mut lcg: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        lcg = lcg
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lcg >> 33
    };
    let mut live: Vec<u64> = Vec::with_capacity(LIVE);
    let mut ids = 0u64;
    for _ in 0..events() {
        let roll = next();
        if live.len() >= LIVE || (!live.is_empty() && roll % 2 == 1) {
            let at = (next() as usize) % live.len();
            if roll % 16 == 3 {
                writeln!(w, "r {} {}", live[at], 8 + next() % 2048)?;
            } else {
                writeln!(w, "f {}", live.swap_remove(at))?;
            }
        } else {
            let size = if roll % 64 == 0 {
                next() % 65536
            } else {
                8 + next() % 1017
            };
            writeln!(w, "a {ids} {size}")?;
            live.push(ids);
            ids += 1;
        }
    }
    Ok(ids)
}

/// The three files, made when missing: `.trace`, `.rep` (a two-line header) and the
/// `.trace` gzip'd.
fn traces() -> [PathBuf; 3] {
    let dir = dir();
    let stem = stem();
    let text = dir.join(format!("{stem}.trace"));
    let rep = dir.join(format!("{stem}.rep"));
    let gz = dir.join(format!("{stem}.trace.gz"));
    if !(text.exists() && rep.exists() && gz.exists()) {
        std::fs::create_dir_all(&dir).unwrap();
        let mut ops = Vec::new();
        let ids = write_ops(&mut ops).unwrap();
        std::fs::write(&text, &ops).unwrap();
        let mut w = BufWriter::new(File::create(&rep).unwrap());
        writeln!(w, "{ids}\n{}", events()).unwrap();
        w.write_all(&ops).unwrap();
        w.flush().unwrap();
        let mut enc = flate2::write::GzEncoder::new(
            BufWriter::new(File::create(&gz).unwrap()),
            flate2::Compression::default(),
        );
        enc.write_all(&ops).unwrap();
        enc.finish().unwrap().flush().unwrap();
    }
    [text, rep, gz]
}

/// `heaplab run -w path -p size-class`, without the printing.
fn run(path: &Path) {
    let mut config = RunConfig::new("", "size-class");
    config.workload = WorkloadConfig::trace(path.display().to_string());
    let out = run_trace(
        &config,
        File::open(path).unwrap(),
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(out.report.summary.events(), events());
}

/// A program every reader of the file must be slower than: `wc -l` reads and counts
/// the lines, `zcat` inflates.
fn floor(program: &str, args: &[&str], path: &Path) {
    let status = Command::new(program)
        .args(args)
        .arg(path)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{program} failed");
}

fn import(c: &mut Criterion) {
    let [text, rep, gz] = traces();
    let mut g = c.benchmark_group("trace-import");
    g.sample_size(10).throughput(Throughput::Elements(events()));
    if quick() {
        // One whole import a sample: linear sampling would run at least 55.
        g.sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(500));
    } else {
        g.warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(10));
    }
    g.bench_function("trace", |b| b.iter(|| run(&text)));
    g.bench_function("rep", |b| b.iter(|| run(&rep)));
    g.bench_function("trace-gz", |b| b.iter(|| run(&gz)));
    g.bench_function("wc-l", |b| b.iter(|| floor("wc", &["-l"], &text)));
    g.bench_function("zcat", |b| b.iter(|| floor("zcat", &[], &gz)));
    g.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
