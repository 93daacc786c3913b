//! The fuzz targets' inputs, replayed through the functions the fuzzer calls
//! (`heaplab_app::fuzz`): every file of the committed corpus (`fuzz/corpus/<target>/`),
//! every crash the fuzzer found (`fuzz/regressions/<target>/`, each a regression test
//! from then on), and a fixed number of inputs made from them by a seeded generator
//! (bytes flipped, cut, repeated and spliced), so `cargo test` explores a little around
//! the corpus on every run, the same way each time. A panic is a failure, with the input
//! named.

use std::path::{Path, PathBuf};

use heaplab_app::fuzz::TARGETS;

/// Inputs made from the corpus per target, per run.
const MUTANTS: usize = 300;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, in name order; none when it does not exist.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut all: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            let path = e.path();
            let bytes = std::fs::read(&path).unwrap();
            (path.display().to_string(), bytes)
        })
        .collect();
    all.sort();
    all
}

/// A small seeded generator (xorshift64*): the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// An input made from `seeds`: one of them with a few bytes flipped, a piece cut out or
/// repeated, or spliced with another.
fn mutant(rng: &mut Rng, seeds: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut bytes = seeds[rng.below(seeds.len())].1.clone();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        match rng.below(5) {
            0 if len > 0 => {
                let at = rng.below(len);
                bytes[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                bytes[at] = b"\n 0-9afr#.,:"[rng.below(12)];
            }
            2 if len > 1 => {
                let from = rng.below(len);
                let to = from + rng.below(len - from);
                bytes.drain(from..to);
            }
            3 if len > 1 => {
                let from = rng.below(len);
                let piece: Vec<u8> = bytes[from..(from + 64).min(len)].to_vec();
                let at = rng.below(len);
                bytes.splice(at..at, piece);
            }
            _ => {
                let other = &seeds[rng.below(seeds.len())].1;
                let cut = rng.below(bytes.len());
                bytes.truncate(cut);
                bytes.extend_from_slice(&other[rng.below(other.len())..]);
            }
        }
    }
    bytes
}

/// Runs `f` on `input`, naming the input when it panics.
fn replay(target: &str, what: &str, input: &[u8], f: fn(&[u8])) {
    let result = std::panic::catch_unwind(|| f(input));
    if result.is_err() {
        panic!(
            "fuzz target {target} panicked on {what} ({} bytes: {:?})",
            input.len(),
            String::from_utf8_lossy(&input[..input.len().min(200)])
        );
    }
}

#[test]
fn every_target_takes_its_corpus_its_regressions_and_seeded_mutants() {
    let dir = fuzz_dir();
    for (target, f) in TARGETS {
        let seeds = files(&dir.join("corpus").join(target));
        assert!(
            !seeds.is_empty(),
            "fuzz/corpus/{target} holds no inputs: the seeded test would explore nothing"
        );
        let regressions = files(&dir.join("regressions").join(target));
        for (name, bytes) in seeds.iter().chain(&regressions) {
            replay(target, name, bytes, f);
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
        for k in 0..MUTANTS {
            let input = mutant(&mut rng, &seeds);
            replay(target, &format!("mutant {k}"), &input, f);
        }
        println!(
            "fuzz target {target}: {} corpus files, {} regressions, {MUTANTS} seeded mutants",
            seeds.len(),
            regressions.len()
        );
    }
}

#[test]
fn a_broken_target_is_caught() {
    // The harness itself: a target that panics on some input fails the replay, naming it.
    fn brittle(data: &[u8]) {
        assert!(!data.starts_with(b"boom"), "found it");
    }
    replay("brittle", "a calm input", b"calm", brittle);
    let caught = std::panic::catch_unwind(|| replay("brittle", "the bad one", b"boom!", brittle));
    let message = caught.unwrap_err();
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        text.contains("fuzz target brittle panicked on the bad one"),
        "{text}"
    );
}
