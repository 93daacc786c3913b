//! Look-alikes of the CS:APP malloc-lab trace patterns, generated rather than shipped (the
//! original `.rep` files are not ours to distribute). Counts are per `scale = 1`.

use rand::Rng;

use super::{rng, scaled, seed_and_scale, SeedScale, Sink};
use crate::event::{BlockId, Event};
use crate::params::{ParamSpec, Params};

// Each look-alike's knobs are the seed and the scale, read as `SeedScale`; all four run
// at scale 1 by default.

/// The knobs of `binary`.
pub(super) const BINARY: &[ParamSpec] = &seed_and_scale("1");

/// The knobs of `coalescing`.
pub(super) const COALESCING: &[ParamSpec] = &seed_and_scale("1");

/// The knobs of `random`.
pub(super) const RANDOM: &[ParamSpec] = &seed_and_scale("1");

/// The knobs of `realloc`.
pub(super) const REALLOC: &[ParamSpec] = &seed_and_scale("1");

/// `binary`: small power-of-two blocks alternating with large odd ones; the large ones
/// are freed and bigger ones requested, which the freed holes cannot serve. Buddy
/// allocators lose the most here.
pub(super) fn binary<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let n = scaled(SeedScale::read(params).scale, 2000.0);
    for i in 0..n {
        sink(Event::alloc(2 * i, 64))?;
        sink(Event::alloc(2 * i + 1, 448))?;
    }
    for i in 0..n {
        sink(Event::free(2 * i + 1))?;
    }
    for i in 0..n {
        sink(Event::alloc(2 * n + i, 512))?;
    }
    for i in 0..n {
        sink(Event::free(2 * i))?;
        sink(Event::free(2 * n + i))?;
    }
    Ok(())
}

/// `coalescing`: two 4095-byte blocks, freed, then one 8190-byte block that fits only if
/// the two holes were merged.
pub(super) fn coalescing<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let rounds = scaled(SeedScale::read(params).scale, 2400.0);
    for r in 0..rounds {
        let id = 3 * r;
        sink(Event::alloc(id, 4095))?;
        sink(Event::alloc(id + 1, 4095))?;
        sink(Event::free(id))?;
        sink(Event::free(id + 1))?;
        sink(Event::alloc(id + 2, 8190))?;
        sink(Event::free(id + 2))?;
    }
    Ok(())
}

/// `random`: allocations of random sizes (1 byte to 16 KiB) and frees of random live
/// blocks, with up to 1200 blocks live.
pub(super) fn random<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    let ops = scaled(knobs.scale, 4800.0);
    let mut rng = rng(knobs.seed);
    let mut live: Vec<BlockId> = Vec::new();
    let mut next: BlockId = 0;
    for _ in 0..ops {
        let alloc = live.is_empty() || (live.len() < 1200 && rng.random_bool(0.55));
        if alloc {
            sink(Event::alloc(next, rng.random_range(1..=16 * 1024)))?;
            live.push(next);
            next += 1;
        } else {
            let i = rng.random_range(0..live.len());
            sink(Event::free(live.swap_remove(i)))?;
        }
    }
    for id in live {
        sink(Event::free(id))?;
    }
    Ok(())
}

/// `realloc`: a buffer grown by `realloc` step by step while short-lived small blocks are
/// allocated between the steps, so growing in place is sometimes possible and sometimes
/// not.
pub(super) fn realloc<E>(params: &Params, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let knobs = SeedScale::read(params);
    let steps = scaled(knobs.scale, 4800.0);
    let mut rng = rng(knobs.seed);
    let buffer: BlockId = 0;
    let mut size = 512;
    sink(Event::alloc(buffer, size))?;
    let mut pending: Option<BlockId> = None;
    for step in 1..=steps {
        size += rng.random_range(16..=512);
        sink(Event::realloc(buffer, size))?;
        let small = step;
        sink(Event::alloc(small, rng.random_range(16..=128)))?;
        if let Some(old) = pending.replace(small) {
            sink(Event::free(old))?;
        }
    }
    if let Some(old) = pending {
        sink(Event::free(old))?;
    }
    sink(Event::free(buffer))
}
