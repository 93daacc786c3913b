//! Page operations over time: how many commits and decommits a run has asked its
//! provider for after each of its events.
//!
//! The run's [`Series`](crate::series::Series) keeps gauges (live, committed, resident)
//! and its shape is part of the golden results, so it has no operation counts. The
//! counts come instead from [`PageStats`], sampled after every event by
//! [`PageOpsRecorder`] into the same buckets as the series; `run::record_page_ops` and
//! `run::TraceRun` run configs that way. The page's chart of page operations and its
//! hover read them.

use crate::stats::PageStats;

/// Cumulative commit and decommit calls at most a fixed number of points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageOpsCurve {
    pub t: Vec<u64>,
    pub commits: Vec<u64>,
    pub decommits: Vec<u64>,
}

/// Keeps cumulative page-operation counts in at most `capacity` points, with the same
/// buckets as the core's series recorder: when the points fill up, neighbours merge
/// pairwise and each covers twice as many events. A bucket keeps its last sample, which
/// for counts that only grow is also its maximum, so with the same capacity (the config's
/// `series_points`) its `t` equals the run's series' `t` and both curves share one axis.
#[derive(Clone, Debug)]
pub struct PageOpsRecorder {
    capacity: usize,
    width: u64,
    left: u64,
    points: Vec<(u64, u64, u64)>,
    pending: Option<(u64, u64, u64)>,
}

impl PageOpsRecorder {
    /// `capacity` is raised to 2, as the core's recorder raises it, so that merging
    /// always has a pair to merge.
    pub fn new(capacity: usize) -> PageOpsRecorder {
        PageOpsRecorder {
            capacity: capacity.max(2),
            width: 1,
            left: 1,
            points: Vec::new(),
            pending: None,
        }
    }

    /// Adds the counts after event number `t`.
    pub fn record(&mut self, t: u64, stats: &PageStats) {
        self.pending = Some((t, stats.commit_ops, stats.decommit_ops));
        self.left -= 1;
        if self.left > 0 {
            return;
        }
        self.points.extend(self.pending.take());
        if self.points.len() == self.capacity {
            let n = self.points.len();
            for i in 0..n / 2 {
                self.points[i] = self.points[2 * i + 1];
            }
            if n % 2 == 1 {
                self.points[n / 2] = self.points[n - 1];
            }
            self.points.truncate(n.div_ceil(2));
            self.width *= 2;
        }
        self.left = self.width;
    }

    /// The curve, including a partly filled last bucket.
    pub fn finish(mut self) -> PageOpsCurve {
        self.points.extend(self.pending.take());
        let mut out = PageOpsCurve::default();
        for (t, c, d) in self.points {
            out.t.push(t);
            out.commits.push(c);
            out.decommits.push(d);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(c: u64, d: u64) -> PageStats {
        PageStats {
            commit_ops: c,
            decommit_ops: d,
            ..PageStats::default()
        }
    }

    #[test]
    fn the_recorder_keeps_the_last_count_of_each_bucket() {
        let mut r = PageOpsRecorder::new(4);
        for t in 1..=10 {
            r.record(t, &stats(t * 2, t));
        }
        let curve = r.finish();
        assert!(curve.t.len() <= 4);
        assert_eq!(curve.t.last(), Some(&10));
        assert_eq!(curve.commits.last(), Some(&20));
        assert!(curve.t.windows(2).all(|w| w[0] < w[1]));
        for (i, &t) in curve.t.iter().enumerate() {
            assert_eq!(curve.commits[i], t * 2);
            assert_eq!(curve.decommits[i], t);
        }
        assert_eq!(PageOpsRecorder::new(8).finish(), PageOpsCurve::default());
    }
}
