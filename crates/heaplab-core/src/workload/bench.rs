//! The event streams the simulator's own measurements replay, shared by the bench, the
//! examples and the tests, so a profile or a printout is of the very run that is checked.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

use crate::event::Event;
use crate::params::Params;
use crate::workload::{self, Sink};

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

/// `rounds` runs of `parametric` (scale 10, `peak_live` 1 GiB, `mean_size` 1 KiB,
/// `max_size` 16 KiB, seeds 1, 2, ...) one after the other, each round's block ids moved
/// past the last round's so they stay unique: about 2.6 million events a round, with
/// 1 GiB live at the top of each. The run behind the bound BENCHMARKS.md sets on the
/// simulator's own memory (`examples/memory.rs` prints it, `tests/golden.rs` checks it).
pub fn gibibyte_rounds<E>(rounds: u64, sink: &mut Sink<'_, E>) -> Result<(), E> {
    let spec = workload::find("parametric").expect("parametric is built in");
    let mut offset = 0;
    for round in 0..rounds {
        let given = [
            ("seed", Value::from(round + 1)),
            ("scale", Value::from(10.0)),
            ("peak_live", Value::from(1u64 << 30)),
            ("mean_size", Value::from(1024)),
            ("max_size", Value::from(16384)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let params = Params::resolve(spec.params, &given, "workload.params")
            .expect("the memory run's parameters are in range");
        let mut last = 0;
        spec.generate(&params, &mut |e| {
            sink(match e {
                Event::Alloc {
                    id,
                    size,
                    align,
                    arena,
                    thread,
                } => {
                    last = last.max(id);
                    Event::Alloc {
                        id: id + offset,
                        size,
                        align,
                        arena,
                        thread,
                    }
                }
                Event::Free { id, thread } => Event::Free {
                    id: id + offset,
                    thread,
                },
                Event::Realloc { id, size, thread } => Event::Realloc {
                    id: id + offset,
                    size,
                    thread,
                },
                other => other,
            })
        })?;
        offset += last + 1;
    }
    Ok(())
}
