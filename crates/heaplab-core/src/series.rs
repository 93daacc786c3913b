//! Memory over time, kept to a fixed number of points without ever losing a peak.

use serde::{Deserialize, Serialize};

/// One sample of the gauges plotted over time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub live: u64,
    pub committed: u64,
    pub resident: u64,
}

impl Sample {
    #[inline]
    fn max(self, o: Sample) -> Sample {
        Sample {
            live: self.live.max(o.live),
            committed: self.committed.max(o.committed),
            resident: self.resident.max(o.resident),
        }
    }
}

/// The downsampled series, column-wise for cheap plotting and compact JSON. Point `i`
/// covers the events up to `t[i]` since the previous point and holds the maximum of each
/// gauge over them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    pub t: Vec<u64>,
    pub live: Vec<u64>,
    pub committed: Vec<u64>,
    pub resident: Vec<u64>,
}

/// Records one sample per event into at most `capacity` buckets. When the buckets fill up,
/// neighbours merge pairwise by maximum and each bucket covers twice as many events, so
/// memory stays bounded, the result is deterministic, and every peak survives.
#[derive(Clone, Debug)]
pub struct SeriesRecorder {
    capacity: usize,
    width: u64,
    points: Vec<(u64, Sample)>,
    /// The bucket being filled: the maximum of its `in_pending` samples so far, the last of
    /// which was taken after event `pending_t`. Kept as plain fields rather than an
    /// `Option` because this runs after every event.
    pending: Sample,
    pending_t: u64,
    in_pending: u64,
}

impl SeriesRecorder {
    /// `capacity` is raised to 2 so that merging always has a pair to merge.
    pub fn new(capacity: usize) -> SeriesRecorder {
        SeriesRecorder {
            capacity: capacity.max(2),
            width: 1,
            points: Vec::new(),
            pending: Sample::default(),
            pending_t: 0,
            in_pending: 0,
        }
    }

    /// Adds the sample taken after event number `t`.
    #[inline]
    pub fn record(&mut self, t: u64, s: Sample) {
        // Gauges are never negative, so the empty bucket's zeros are a neutral start.
        self.pending = self.pending.max(s);
        self.pending_t = t;
        self.in_pending += 1;
        if self.in_pending == self.width {
            self.flush();
        }
    }

    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        self.points.push((self.pending_t, self.pending));
        self.pending = Sample::default();
        self.in_pending = 0;
        if self.points.len() == self.capacity {
            self.points = self
                .points
                .chunks(2)
                .map(|pair| match pair {
                    [(_, a), (t, b)] => (*t, a.max(*b)),
                    [p] => *p,
                    _ => unreachable!("chunks(2) yields one or two"),
                })
                .collect();
            self.width *= 2;
        }
    }

    /// The series so far, including a partly filled last bucket.
    pub fn finish(mut self) -> Series {
        if self.in_pending > 0 {
            self.points.push((self.pending_t, self.pending));
        }
        let mut out = Series::default();
        for (t, s) in self.points {
            out.t.push(t);
            out.live.push(s.live);
            out.committed.push(s.committed);
            out.resident.push(s.resident);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn peaks_survive_and_points_stay_bounded(values in prop::collection::vec(0u64..1_000_000, 1..5000), cap in 2usize..64) {
            let mut r = SeriesRecorder::new(cap);
            for (i, &v) in values.iter().enumerate() {
                r.record(i as u64 + 1, Sample { live: v, committed: v / 2, resident: v / 3 });
            }
            let s = r.finish();
            prop_assert!(s.t.len() <= cap);
            prop_assert_eq!(s.live.iter().max(), values.iter().max());
            prop_assert_eq!(*s.t.last().unwrap(), values.len() as u64);
            prop_assert!(s.t.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
