//! The steady state the simulator bench measures: a heap of `live` blocks, then rounds of
//! freeing one at random and allocating another. Shared by the bench and the `steady`
//! example, so a profile of the example is a profile of what the bench times.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::event::Event;

/// `live` allocations of 16–512 bytes (the fill), and `steps` rounds of a free of a random
/// live block and an allocation of a new one (the churn), whose heap stays at `live`
/// blocks. The same seed gives the same events.
pub fn steady_state(live: u64, steps: u64, seed: u64) -> (Vec<Event>, Vec<Event>) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let fill: Vec<Event> = (0..live)
        .map(|id| Event::alloc(id, rng.random_range(16..512)))
        .collect();
    let mut ids: Vec<u64> = (0..live).collect();
    let mut churn = Vec::with_capacity(2 * steps as usize);
    for next in live..live + steps {
        let slot = rng.random_range(0..ids.len());
        churn.push(Event::free(ids[slot]));
        churn.push(Event::alloc(next, rng.random_range(16..512)));
        ids[slot] = next;
    }
    (fill, churn)
}
