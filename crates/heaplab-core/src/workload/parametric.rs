//! The parametric workload: a size distribution, a lifetime order and a shape of live
//! memory over time, chosen independently, over one or more threads.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal, Pareto};
use rand_pcg::Pcg64Mcg;

use super::{rng, scale_of, scaled, Sink, SEED};
use crate::event::{BlockId, Event, DEFAULT_ALIGN};
use crate::params::{choice, knobs, ParamError, ParamKind, Params};

choice! {
    /// How request sizes are drawn.
    pub(super) enum SizeLaw {
        Fixed = "fixed",
        Uniform = "uniform",
        PowerLaw = "power-law",
        LogNormal = "log-normal",
        Histogram = "histogram",
    }
}

choice! {
    /// Which live block is freed when live memory is above the shape.
    pub(super) enum Lifetime {
        Lifo = "lifo",
        Fifo = "fifo",
        Random = "random",
        Exponential = "exponential",
    }
}

choice! {
    /// Live memory over the run.
    pub(super) enum Shape {
        Ramp = "ramp",
        Plateau = "plateau",
        Peak = "peak",
        Sawtooth = "sawtooth",
    }
}

knobs! {
    /// The knobs of `parametric`.
    pub(super) struct Knobs, names KnobNames, specs PARAMETRIC;
    seed: u64 = SEED,
    scale: f64 = scale_of("1", "Number of steps, as a multiple of 200,000."),
    sizes: SizeLaw = ParamSpec {
        kind: ParamKind::Choice(SizeLaw::NAMES),
        default: "log-normal",
        unit: "",
        doc: "How request sizes are drawn: all `mean_size`; uniform in min..max; a power law \
              (Pareto, exponent `alpha`) from `min_size`; log-normal around `mean_size` with \
              spread `sigma`; or the weights in `histogram`.",
        zero_means: "",
    },
    min_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "16",
        unit: "bytes",
        doc: "Smallest request (uniform, power-law and log-normal are clamped to it).",
        zero_means: "",
    },
    max_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "4KiB",
        unit: "bytes",
        doc: "Largest request.",
        zero_means: "",
    },
    mean_size: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 1,
            max: 1 << 30,
            pow2: false,
        },
        default: "64",
        unit: "bytes",
        doc: "The fixed size, or the median of the log-normal distribution.",
        zero_means: "",
    },
    sigma: f64 = ParamSpec {
        kind: ParamKind::Float {
            min: 0.01,
            max: 5.0,
        },
        default: "1",
        unit: "",
        doc: "Spread of the log-normal distribution (of the logarithm of the size).",
        zero_means: "",
    },
    alpha: f64 = ParamSpec {
        kind: ParamKind::Float {
            min: 0.1,
            max: 10.0,
        },
        default: "1.5",
        unit: "",
        doc: "Exponent of the power law: smaller means more large requests.",
        zero_means: "",
    },
    histogram: String = ParamSpec {
        kind: ParamKind::Text { max_len: 2000 },
        default: "16:50,64:30,1KiB:20",
        unit: "size:weight,…",
        doc: "Sizes and their relative weights, for `sizes = histogram`.",
        zero_means: "",
    },
    lifetime: Lifetime = ParamSpec {
        kind: ParamKind::Choice(Lifetime::NAMES),
        default: "random",
        unit: "",
        doc: "Which live block is freed when live memory is above the shape: the newest, the \
              oldest, any, or the one whose exponentially distributed lifetime ends first.",
        zero_means: "",
    },
    mean_lifetime: u64 = ParamSpec {
        kind: ParamKind::Int {
            min: 1,
            max: 1_000_000_000,
        },
        default: "1000",
        unit: "steps",
        doc: "Mean lifetime under `lifetime = exponential`.",
        zero_means: "",
    },
    shape: Shape = ParamSpec {
        kind: ParamKind::Choice(Shape::NAMES),
        default: "plateau",
        unit: "",
        doc: "Live memory over the run: rising to the end, rising then held, rising then \
              falling back, or `cycles` rises each followed by a drop.",
        zero_means: "",
    },
    peak_live: u64 = ParamSpec {
        kind: ParamKind::Bytes {
            min: 1024,
            max: 1 << 34,
            pow2: false,
        },
        default: "16MiB",
        unit: "bytes",
        doc: "Live bytes at the top of the shape.",
        zero_means: "",
    },
    cycles: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: "4",
        unit: "",
        doc: "Teeth of the sawtooth.",
        zero_means: "",
    },
    threads: u64 = ParamSpec {
        kind: ParamKind::Int { min: 1, max: 64 },
        default: "1",
        unit: "threads",
        doc: "Program threads allocating; each block is allocated by a random one.",
        zero_means: "",
    },
    remote_free: f64 = ParamSpec {
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0",
        unit: "",
        doc: "Chance that a block is freed by a random thread rather than its own.",
        zero_means: "",
    },
}

/// How request sizes are drawn.
enum Sizes {
    Fixed(u64),
    Uniform(u64, u64),
    PowerLaw(Pareto<f64>, u64, u64),
    LogNormal(LogNormal<f64>, u64, u64),
    Histogram(Vec<(u64, f64)>, f64),
}

impl Sizes {
    fn from(knobs: &Knobs) -> Result<Sizes, ParamError> {
        let (min, max) = (knobs.min_size, knobs.max_size);
        let names = Knobs::NAMES;
        let field = |name: &str, message: String| ParamError {
            field: format!("workload.params.{name}"),
            message,
        };
        if min > max {
            return Err(field(
                names.min_size,
                format!("{min} is larger than {} {max}", names.max_size),
            ));
        }
        Ok(match knobs.sizes {
            SizeLaw::Fixed => Sizes::Fixed(knobs.mean_size),
            SizeLaw::Uniform => Sizes::Uniform(min, max),
            SizeLaw::PowerLaw => {
                let d = Pareto::new(min.max(1) as f64, knobs.alpha)
                    .map_err(|e| field(names.alpha, e.to_string()))?;
                Sizes::PowerLaw(d, min, max)
            }
            SizeLaw::LogNormal => {
                let mu = (knobs.mean_size.max(1) as f64).ln();
                let d = LogNormal::new(mu, knobs.sigma)
                    .map_err(|e| field(names.sigma, e.to_string()))?;
                Sizes::LogNormal(d, min, max)
            }
            SizeLaw::Histogram => {
                let bins =
                    parse_histogram(&knobs.histogram).map_err(|m| field(names.histogram, m))?;
                let total = bins.iter().map(|b| b.1).sum();
                Sizes::Histogram(bins, total)
            }
        })
    }

    fn draw(&self, rng: &mut Pcg64Mcg) -> u64 {
        match self {
            Sizes::Fixed(s) => *s,
            Sizes::Uniform(lo, hi) => rng.random_range(*lo..=*hi),
            Sizes::PowerLaw(d, lo, hi) => (d.sample(rng).round() as u64).clamp(*lo, *hi),
            Sizes::LogNormal(d, lo, hi) => (d.sample(rng).round() as u64).clamp(*lo, *hi),
            Sizes::Histogram(bins, total) => {
                let mut x = rng.random_range(0.0..*total);
                for &(size, weight) in bins {
                    if x < weight {
                        return size;
                    }
                    x -= weight;
                }
                bins.last().map_or(1, |b| b.0)
            }
        }
    }
}

/// Parses `16:50,64:30,1024:20`: sizes with relative weights.
pub(super) fn parse_histogram(text: &str) -> Result<Vec<(u64, f64)>, String> {
    let bins: Vec<(u64, f64)> = text
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|bin| {
            let (size, weight) = bin
                .split_once(':')
                .ok_or_else(|| format!("{bin:?} is not size:weight"))?;
            let size = crate::params::parse_bytes(size).map_err(|e| format!("in {bin:?}: {e}"))?;
            let weight: f64 = weight
                .trim()
                .parse()
                .map_err(|_| format!("in {bin:?}: {weight:?} is not a number"))?;
            if size <= 0 || !(weight > 0.0 && weight.is_finite()) {
                return Err(format!("in {bin:?}: sizes and weights must be positive"));
            }
            Ok((size as u64, weight))
        })
        .collect::<Result<_, String>>()?;
    if bins.is_empty() {
        return Err(
            "a histogram needs at least one size:weight pair, e.g. 16:50,64:30,1024:20".into(),
        );
    }
    Ok(bins)
}

/// Checks what single-parameter ranges cannot: the histogram's syntax, min below max.
pub(super) fn check(params: &Params) -> Result<(), ParamError> {
    Sizes::from(&Knobs::read(params)).map(|_| ())
}

/// The live-bytes target at fraction `p` of the run.
fn target(shape: Shape, p: f64, peak: f64, cycles: f64) -> f64 {
    match shape {
        Shape::Ramp => peak * p,
        Shape::Plateau => peak * (p / 0.3).min(1.0),
        Shape::Peak => peak * (1.0 - (2.0 * p - 1.0).abs()),
        Shape::Sawtooth => peak * (p * cycles).fract(),
    }
}

/// Live blocks, in the order the lifetime policy frees them.
enum Live {
    Lifo(Vec<(BlockId, u64, u32)>),
    Fifo(VecDeque<(BlockId, u64, u32)>),
    Random(Vec<(BlockId, u64, u32)>),
    /// Blocks keyed by death time: each lives an exponentially distributed number of steps.
    Exponential(BinaryHeap<Reverse<(u64, BlockId, u64, u32)>>, Exp<f64>),
}

impl Live {
    fn push(&mut self, block: (BlockId, u64, u32), now: u64, rng: &mut Pcg64Mcg) {
        match self {
            Live::Lifo(v) | Live::Random(v) => v.push(block),
            Live::Fifo(q) => q.push_back(block),
            Live::Exponential(h, d) => {
                let death = now + d.sample(rng).round() as u64;
                h.push(Reverse((death, block.0, block.1, block.2)));
            }
        }
    }

    fn pop(&mut self, rng: &mut Pcg64Mcg) -> Option<(BlockId, u64, u32)> {
        match self {
            Live::Lifo(v) => v.pop(),
            Live::Fifo(q) => q.pop_front(),
            Live::Random(v) => (!v.is_empty()).then(|| v.swap_remove(rng.random_range(0..v.len()))),
            Live::Exponential(h, _) => h.pop().map(|Reverse((_, id, size, t))| (id, size, t)),
        }
    }
}

pub(super) fn generate<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = Knobs::read(params);
    let mut rng = rng(knobs.seed);
    // Parameters were checked when the config was resolved; a bad histogram cannot reach
    // here, and the fixed size is the safe fallback if it somehow did.
    let sizes = Sizes::from(&knobs).unwrap_or(Sizes::Fixed(64));
    let steps = scaled(knobs.scale, 200_000.0);
    let peak = knobs.peak_live as f64;
    let cycles = knobs.cycles as f64;
    let threads = knobs.threads as u32;
    let remote = knobs.remote_free;
    let shape = knobs.shape;
    let mean_life = knobs.mean_lifetime as f64;
    let mut live = match knobs.lifetime {
        Lifetime::Lifo => Live::Lifo(Vec::new()),
        Lifetime::Fifo => Live::Fifo(VecDeque::new()),
        Lifetime::Random => Live::Random(Vec::new()),
        Lifetime::Exponential => Live::Exponential(
            BinaryHeap::new(),
            Exp::new(1.0 / mean_life.max(1.0)).expect("positive rate"),
        ),
    };
    let mut live_bytes = 0u64;
    let mut next: BlockId = 0;
    let free_thread = |owner: u32, rng: &mut Pcg64Mcg| {
        if threads > 1 && rng.random_bool(remote) {
            rng.random_range(0..threads)
        } else {
            owner
        }
    };
    for step in 0..steps {
        let want = target(shape, step as f64 / steps as f64, peak, cycles);
        if (live_bytes as f64) < want {
            let size = sizes.draw(&mut rng).max(1);
            let thread = rng.random_range(0..threads);
            sink(Event::Alloc {
                id: next,
                size,
                align: DEFAULT_ALIGN,
                arena: None,
                thread,
            })?;
            live.push((next, size, thread), step, &mut rng);
            live_bytes += size;
            next += 1;
        } else if let Some((id, size, owner)) = live.pop(&mut rng) {
            let thread = free_thread(owner, &mut rng);
            sink(Event::Free { id, thread })?;
            live_bytes -= size;
        }
    }
    while let Some((id, size, owner)) = live.pop(&mut rng) {
        let thread = free_thread(owner, &mut rng);
        sink(Event::Free { id, thread })?;
        live_bytes -= size;
    }
    debug_assert_eq!(live_bytes, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_parse_and_bad_ones_say_why() {
        assert_eq!(
            parse_histogram("16:50, 1KiB:2.5").unwrap(),
            vec![(16, 50.0), (1024, 2.5)]
        );
        assert!(parse_histogram("16").unwrap_err().contains("size:weight"));
        assert!(parse_histogram("16:x")
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_histogram("").unwrap_err().contains("at least one"));
    }
}
