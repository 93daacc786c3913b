//! The parametric workload: a size distribution, a lifetime order and a shape of live
//! memory over time, chosen independently, over one or more threads.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal, Pareto};
use rand_pcg::Pcg64Mcg;

use super::{rng, scaled, Sink};
use crate::event::{BlockId, Event, DEFAULT_ALIGN};
use crate::params::{ParamError, Params};

/// How request sizes are drawn.
enum Sizes {
    Fixed(u64),
    Uniform(u64, u64),
    PowerLaw(Pareto<f64>, u64, u64),
    LogNormal(LogNormal<f64>, u64, u64),
    Histogram(Vec<(u64, f64)>, f64),
}

impl Sizes {
    fn from(params: &Params) -> Result<Sizes, ParamError> {
        let (min, max) = (params.u64("min_size"), params.u64("max_size"));
        let field = |name: &str, message: String| ParamError {
            field: format!("workload.params.{name}"),
            message,
        };
        if min > max {
            return Err(field(
                "min_size",
                format!("{min} is larger than max_size {max}"),
            ));
        }
        Ok(match params.str("sizes") {
            "fixed" => Sizes::Fixed(params.u64("mean_size")),
            "uniform" => Sizes::Uniform(min, max),
            "power-law" => {
                let d = Pareto::new(min.max(1) as f64, params.f64("alpha"))
                    .map_err(|e| field("alpha", e.to_string()))?;
                Sizes::PowerLaw(d, min, max)
            }
            "log-normal" => {
                let mu = (params.u64("mean_size").max(1) as f64).ln();
                let d = LogNormal::new(mu, params.f64("sigma"))
                    .map_err(|e| field("sigma", e.to_string()))?;
                Sizes::LogNormal(d, min, max)
            }
            _ => {
                let bins =
                    parse_histogram(params.str("histogram")).map_err(|m| field("histogram", m))?;
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
    Sizes::from(params).map(|_| ())
}

/// The live-bytes target at fraction `p` of the run.
fn target(shape: &str, p: f64, peak: f64, cycles: f64) -> f64 {
    match shape {
        "ramp" => peak * p,
        "plateau" => peak * (p / 0.3).min(1.0),
        "peak" => peak * (1.0 - (2.0 * p - 1.0).abs()),
        _ => peak * (p * cycles).fract(),
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
    let mut rng = rng(params);
    // Parameters were checked when the config was resolved; a bad histogram cannot reach
    // here, and the fixed size is the safe fallback if it somehow did.
    let sizes = Sizes::from(params).unwrap_or(Sizes::Fixed(64));
    let steps = scaled(params, 200_000.0);
    let peak = params.u64("peak_live") as f64;
    let cycles = params.u64("cycles") as f64;
    let threads = params.u64("threads") as u32;
    let remote = params.f64("remote_free");
    let shape = params.str("shape").to_string();
    let mean_life = params.u64("mean_lifetime") as f64;
    let mut live = match params.str("lifetime") {
        "lifo" => Live::Lifo(Vec::new()),
        "fifo" => Live::Fifo(VecDeque::new()),
        "random" => Live::Random(Vec::new()),
        _ => Live::Exponential(
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
        let want = target(&shape, step as f64 / steps as f64, peak, cycles);
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
