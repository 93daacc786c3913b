// Measures what crossing the JS/wasm boundary costs for one run's result: the report
// and a 10,000-point series as objects and Float64Arrays (what `run` returns), against
// the same result as JSON text parsed in JavaScript (`run_json`, the page's old way).
// Each form is also copied with structuredClone, which is what postMessage does between
// the worker and the page.
//
// Run after `cargo xtask build-wasm`:  node web/bench/boundary.mjs
// The simulation is the same in both forms and is timed once on its own, so the
// boundary's share is the difference.

import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

import init, { run, run_json } from '../pkg/heaplab_wasm.js';

const ROUNDS = Number(process.env.ROUNDS ?? 101);
// The recorder doubles its buckets' width when they fill; churn at this scale has
// 159,602 events, 16 to a bucket, which leaves 9,976 of the 10,000 points asked for.
const POINTS = 9_976;
const ASKED = 10_000;

await init({ module_or_path: await readFile(new URL('../pkg/heaplab_wasm_bg.wasm', import.meta.url)) });

const config = {
  workload: { id: 'churn', params: { scale: 0.0114 } },
  policy: { family: 'size-class', params: {} },
  series_points: ASKED,
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(f) {
  const times = [];
  let last;
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    last = f();
    times.push(performance.now() - start);
  }
  return { ms: median(times), last };
}

// The two forms take turns, so a change in the machine's load falls on both alike.
const objectTimes = [];
const jsonTimes = [];
for (let i = 0; i < ROUNDS; i += 1) {
  let start = performance.now();
  const a = run(config);
  // Touch what the page reads, so lazily built values are paid for.
  if (a.series.resident.length === 0 || a.report.peak_resident_bytes === 0) throw new Error('empty run');
  objectTimes.push(performance.now() - start);
  start = performance.now();
  const b = JSON.parse(run_json(config));
  if (b.series.resident.length === 0 || b.report.peak_resident_bytes === 0) throw new Error('empty run');
  jsonTimes.push(performance.now() - start);
}
const objects = { ms: median(objectTimes) };
const json = { ms: median(jsonTimes) };
const sample = run(config);
const parsed = JSON.parse(run_json(config));
const points = sample.series.t.length;
if (points < POINTS || parsed.series.t.length !== points) {
  throw new Error(`expected at least ${POINTS} points in both forms, got ${points} and ${parsed.series.t.length}`);
}
const cloneObjects = time(() => structuredClone(sample).series.t.length);
const cloneJson = time(() => structuredClone(parsed).series.t.length);

console.log(`points: ${points}, rounds: ${ROUNDS} (medians)`);
console.log(`run -> objects + Float64Array : ${objects.ms.toFixed(2)} ms`);
console.log(`run_json -> JSON.parse        : ${json.ms.toFixed(2)} ms`);
console.log(`difference                    : ${(json.ms - objects.ms).toFixed(2)} ms`);
console.log(`structuredClone, typed arrays : ${cloneObjects.ms.toFixed(3)} ms`);
console.log(`structuredClone, JSON arrays  : ${cloneJson.ms.toFixed(3)} ms`);
