//! Memory over time, kept to a fixed number of points without ever losing a peak, and the
//! page operations asked for over the same time.

use serde::{Deserialize, Serialize};

use crate::clock::ModelTime;
use crate::stats::PageStats;

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
/// gauge over them; the last point is the state after the run's last event, so a chart
/// ends where the report's end figures are. When the last bucket's maxima are not that
/// state, the end is one more point at the same event (a series has at most one point
/// more than the run's `series_points`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    pub t: Vec<u64>,
    pub live: Vec<u64>,
    pub committed: Vec<u64>,
    pub resident: Vec<u64>,
}

/// Cumulative commit and decommit calls on the series' events, and the time of each
/// point: the page's chart of page operations, its hover and a chart over time read them.
/// They are not in [`Series`], whose shape is part of the golden results;
/// [`crate::simulate::Simulation::finish_with_page_ops`] gives both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageOpsCurve {
    pub t: Vec<u64>,
    pub commits: Vec<u64>,
    pub decommits: Vec<u64>,
    /// The time of each point's last event on the run's clock, in nanoseconds since the
    /// start (0 for events before a trace's first mark), so that the last is the report's
    /// `elapsed_ns`. Empty when the run has no clock.
    pub ns: Vec<u64>,
}

/// Records one sample per event into at most `capacity` buckets. When the buckets fill up,
/// neighbours merge pairwise by maximum and each bucket covers twice as many events, so
/// memory stays bounded, the result is deterministic, and every peak survives.
///
/// Beside each bucket it keeps the page operations asked for by the bucket's last event,
/// read from the page map's counters only when a bucket closes: the counts only grow, so
/// the last is also the maximum, and the curve costs nothing per event. The time of the
/// bucket's last event is read then too, for the same reason: time never goes back.
#[derive(Clone, Debug)]
pub struct SeriesRecorder {
    capacity: usize,
    width: u64,
    points: Vec<(u64, Sample)>,
    /// Cumulative commit and decommit calls at each point's last event.
    ops: Vec<(u64, u64)>,
    /// The model's time at each point's last event, when it had one then.
    times: Vec<Option<u64>>,
    /// The bucket being filled: the maximum of its samples so far, and how many more it
    /// takes before it is full. Kept as plain fields rather than an `Option` because this
    /// runs after every event; the count goes down, so that the test for a full bucket
    /// reads no other field, and the event number is kept only when a bucket closes (the
    /// last one, closed by [`SeriesRecorder::finish`], ends at the run's last event).
    pending: Sample,
    left: u64,
}

impl SeriesRecorder {
    /// `capacity` is raised to 2 so that merging always has a pair to merge.
    pub fn new(capacity: usize) -> SeriesRecorder {
        SeriesRecorder {
            capacity: capacity.max(2),
            width: 1,
            points: Vec::new(),
            ops: Vec::new(),
            times: Vec::new(),
            pending: Sample::default(),
            left: 1,
        }
    }

    /// Adds the sample taken after event number `t`, with the page map's counters and the
    /// model's time then.
    #[inline]
    pub fn record(&mut self, t: u64, s: Sample, stats: &PageStats, time: &ModelTime) {
        // Gauges are never negative, so the empty bucket's zeros are a neutral start.
        self.pending = self.pending.max(s);
        self.left -= 1;
        if self.left == 0 {
            self.flush(t, stats, time);
        }
    }

    /// Closes the full bucket, whose last sample was taken after event `t`.
    #[cold]
    #[inline(never)]
    fn flush(&mut self, t: u64, stats: &PageStats, time: &ModelTime) {
        self.points.push((t, self.pending));
        self.ops.push((stats.commit_ops, stats.decommit_ops));
        self.times.push(time.now(t));
        self.pending = Sample::default();
        if self.points.len() == self.capacity {
            // Neighbours merge in place: point `i` takes pair `2i` and `2i + 1`, which lie
            // at or after it, so no point is read after it was overwritten.
            let n = self.points.len();
            for i in 0..n / 2 {
                let ((_, a), (t, b)) = (self.points[2 * i], self.points[2 * i + 1]);
                self.points[i] = (t, a.max(b));
            }
            for i in 0..n / 2 {
                self.ops[i] = self.ops[2 * i + 1];
                self.times[i] = self.times[2 * i + 1];
            }
            if n % 2 == 1 {
                self.points[n / 2] = self.points[n - 1];
                self.ops[n / 2] = self.ops[n - 1];
                self.times[n / 2] = self.times[n - 1];
            }
            self.points.truncate(n.div_ceil(2));
            self.ops.truncate(n.div_ceil(2));
            self.times.truncate(n.div_ceil(2));
            self.width *= 2;
        }
        self.left = self.width;
    }

    /// The series so far, including a partly filled last bucket, whose last sample was
    /// taken after event `last`, when the counters were `stats`, the gauges `end` and the
    /// model's time `time`; and the page operations and times on the same events. The
    /// series ends on `end`, at the time the report gives as the run's elapsed time.
    pub fn finish(
        mut self,
        last: u64,
        stats: &PageStats,
        end: Sample,
        time: &ModelTime,
    ) -> (Series, PageOpsCurve) {
        let end_ns = time.now(last);
        if self.left < self.width {
            self.points.push((last, self.pending));
            self.ops.push((stats.commit_ops, stats.decommit_ops));
            self.times.push(end_ns);
        }
        // A bucket holds maxima, so its last point shows the run's end only when nothing
        // fell in the bucket after its highest sample; the end state follows it otherwise.
        if self.points.last().is_none_or(|&(_, s)| s != end) {
            self.points.push((last, end));
            self.ops.push((stats.commit_ops, stats.decommit_ops));
            self.times.push(end_ns);
        }
        // A trace's clock may start after the first events, which happen at 0 as the
        // model counts them; without a clock at the end the run has no times to give.
        // The end is read again rather than kept from the last bucket, so that a mark
        // after the last event moves the chart's end as it moves the report's.
        if let Some(n) = self.times.last_mut() {
            *n = end_ns;
        }
        let mut ops = PageOpsCurve::default();
        if end_ns.is_some() {
            ops.ns = self.times.iter().map(|n| n.unwrap_or(0)).collect();
        }
        let mut out = Series::default();
        for ((t, s), (commits, decommits)) in self.points.into_iter().zip(self.ops) {
            out.t.push(t);
            out.live.push(s.live);
            out.committed.push(s.committed);
            out.resident.push(s.resident);
            ops.t.push(t);
            ops.commits.push(commits);
            ops.decommits.push(decommits);
        }
        (out, ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Page-map counters that grow with the event number, as a run's do.
    fn counts(t: u64) -> PageStats {
        PageStats {
            commit_ops: t * 2,
            decommit_ops: t / 3,
            ..PageStats::default()
        }
    }

    proptest! {
        #[test]
        fn peaks_survive_and_points_stay_bounded(values in prop::collection::vec(0u64..1_000_000, 1..5000), cap in 2usize..64) {
            let mut r = SeriesRecorder::new(cap);
            for (i, &v) in values.iter().enumerate() {
                r.record(i as u64 + 1, Sample { live: v, committed: v / 2, resident: v / 3 }, &counts(i as u64 + 1), &ModelTime::default());
            }
            let n = values.len();
            let end = Sample { live: values[n - 1], committed: values[n - 1] / 2, resident: values[n - 1] / 3 };
            let (s, _) = r.finish(n as u64, &counts(n as u64), end, &ModelTime::default());
            prop_assert!(s.t.len() <= cap + 1);
            prop_assert_eq!(s.live.iter().max(), values.iter().max());
            prop_assert_eq!(*s.t.last().unwrap(), n as u64);
            // The series ends on the last sample, whatever its bucket's maxima.
            prop_assert_eq!(
                (*s.live.last().unwrap(), *s.committed.last().unwrap(), *s.resident.last().unwrap()),
                (end.live, end.committed, end.resident)
            );
            // Events only go forward; only the end state may share its event with the
            // bucket before it.
            let k = s.t.len();
            prop_assert!(s.t[..k - 1].windows(2).all(|w| w[0] < w[1]));
            prop_assert!(k < 2 || s.t[k - 2] <= s.t[k - 1]);
        }

        /// With an even capacity every merge pairs whole buckets, so point `i` is the
        /// maximum over events `i * w + 1 ..= (i + 1) * w` for the final width `w`: the
        /// recorder gives what a second pass over all the samples would.
        #[test]
        fn points_are_the_maxima_of_aligned_buckets(values in prop::collection::vec(0u64..1_000, 1..3000), half in 1usize..32) {
            let cap = 2 * half;
            let mut r = SeriesRecorder::new(cap);
            for (i, &v) in values.iter().enumerate() {
                r.record(i as u64 + 1, Sample { live: v, committed: v % 7, resident: v % 5 }, &counts(i as u64 + 1), &ModelTime::default());
            }
            let last = *values.last().unwrap();
            let end = Sample { live: last, committed: last % 7, resident: last % 5 };
            let (mut s, mut ops) = r.finish(values.len() as u64, &counts(values.len() as u64), end, &ModelTime::default());
            // The end state, when it is a point of its own, is the last sample alone, at
            // the event its bucket's point ends on too.
            let k = s.t.len();
            if k >= 2 && s.t[k - 2] == s.t[k - 1] {
                prop_assert_eq!(s.live.pop(), Some(last));
                prop_assert_eq!(s.committed.pop(), Some(last % 7));
                prop_assert_eq!(s.resident.pop(), Some(last % 5));
                s.t.pop();
                ops.t.pop();
                ops.commits.pop();
                ops.decommits.pop();
            }
            // The page operations are the counters at each point's last event.
            prop_assert_eq!(&ops.t, &s.t);
            for (i, &t) in ops.t.iter().enumerate() {
                prop_assert_eq!(ops.commits[i], counts(t).commit_ops);
                prop_assert_eq!(ops.decommits[i], counts(t).decommit_ops);
            }
            prop_assert!(s.t.len() <= cap);
            let w = values.len().div_ceil(s.t.len()).next_power_of_two();
            let chunks: Vec<&[u64]> = values.chunks(w).collect();
            prop_assert_eq!(s.t.len(), chunks.len());
            for (i, chunk) in chunks.iter().enumerate() {
                prop_assert_eq!(s.t[i], (i * w + chunk.len()) as u64);
                prop_assert_eq!(s.live[i], *chunk.iter().max().unwrap());
                prop_assert_eq!(s.committed[i], chunk.iter().map(|v| v % 7).max().unwrap());
                prop_assert_eq!(s.resident[i], chunk.iter().map(|v| v % 5).max().unwrap());
            }
        }
    }

    proptest! {
        /// Each point's time is the clock's at its last event: under a rate, the event
        /// times the rate; the times never go back, and the last is the run's end.
        #[test]
        fn times_follow_the_points_events(n in 1u64..5000, cap in 2usize..64, ns in 1u32..5000) {
            let time = ModelTime::new(Some(crate::clock::Clock::Rate(f64::from(ns))));
            let mut r = SeriesRecorder::new(cap);
            for i in 1..=n {
                r.record(i, Sample { live: i % 97, committed: 0, resident: i % 13 }, &counts(i), &time);
            }
            let end = Sample { live: n % 97, committed: 0, resident: n % 13 };
            let (s, ops) = r.finish(n, &counts(n), end, &time);
            prop_assert_eq!(ops.ns.len(), s.t.len());
            for (&t, &at) in s.t.iter().zip(&ops.ns) {
                prop_assert_eq!(Some(at), time.now(t));
            }
            prop_assert!(ops.ns.windows(2).all(|w| w[0] <= w[1]));
            prop_assert_eq!(ops.ns.last().copied(), time.now(n));
        }
    }

    /// A trace's marks: points before the first mark are at 0, a mark after the last
    /// event moves the end, and a run without a clock has no times at all.
    #[test]
    fn times_follow_a_traces_marks_and_a_run_without_a_clock_has_none() {
        let mut time = ModelTime::new(None);
        let mut r = SeriesRecorder::new(4);
        let sample = |i: u64| Sample {
            live: i,
            committed: i,
            resident: i,
        };
        for i in 1..=3 {
            r.record(i, sample(i), &counts(i), &time);
        }
        time.mark(500, 3);
        for i in 4..=6 {
            r.record(i, sample(i), &counts(i), &time);
        }
        time.mark(900, 6);
        let (s, ops) = r.finish(6, &counts(6), sample(6), &time);
        assert_eq!(s.t, [2, 4, 6]);
        assert_eq!(ops.ns, [0, 500, 900]);

        let none = ModelTime::new(None);
        let mut r = SeriesRecorder::new(4);
        for i in 1..=5 {
            r.record(i, sample(i), &counts(i), &none);
        }
        let (s, ops) = r.finish(5, &counts(5), sample(5), &none);
        assert!(!s.t.is_empty());
        assert!(ops.ns.is_empty());
    }
}
