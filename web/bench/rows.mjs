// What a browser bench hands to `cargo xtask bench`'s report: each figure as one JSON
// line (`area`, `figure`, `median`, and `target` and `met` where BENCHMARKS.md sets a
// target) appended to the file HEAPLAB_BENCH_ROWS names. Run by hand, without it, the
// bench prints its own tables only.

import { appendFileSync } from 'node:fs';

/** Whether `cargo xtask bench --quick` asked for the quick sizes. */
export const QUICK = Boolean(process.env.HEAPLAB_BENCH_QUICK);

/** Adds one row to the report, when there is one. */
export function reportRow({ area, figure, median, target, met }) {
  const file = process.env.HEAPLAB_BENCH_ROWS;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ area, figure, median, target, met })}\n`);
}

/** A count of events as the report writes it, e.g. `1.84 M events`. */
export function events(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M events` : `${(n / 1e3).toFixed(0)} K events`;
}
