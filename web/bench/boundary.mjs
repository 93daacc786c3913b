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

const ROUNDS = Number(process.env.ROUNDS ?? 41);
const POINTS = 10_000;

await init({ module_or_path: await readFile(new URL('../pkg/heaplab_wasm_bg.wasm', import.meta.url)) });

// churn at this scale has 140,002 events, so the series keeps all 10,000 points.
const config = {
  workload: { id: 'churn', params: { scale: 0.01 } },
  policy: { family: 'size-class', params: {} },
  series_points: POINTS,
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

const objects = time(() => {
  const out = run(config);
  // Touch what the page reads, so lazily built values are paid for.
  return out.series.resident.length + out.report.peak_resident_bytes;
});
const json = time(() => {
  const out = JSON.parse(run_json(config));
  return out.series.resident.length + out.report.peak_resident_bytes;
});
const sample = run(config);
const parsed = JSON.parse(run_json(config));
if (sample.series.t.length !== POINTS || parsed.series.t.length !== POINTS) {
  throw new Error(`expected ${POINTS} points, got ${sample.series.t.length} and ${parsed.series.t.length}`);
}
const cloneObjects = time(() => structuredClone(sample).series.t.length);
const cloneJson = time(() => structuredClone(parsed).series.t.length);

console.log(`points: ${POINTS}, rounds: ${ROUNDS} (medians)`);
console.log(`run -> objects + Float64Array : ${objects.ms.toFixed(2)} ms`);
console.log(`run_json -> JSON.parse        : ${json.ms.toFixed(2)} ms`);
console.log(`difference                    : ${(json.ms - objects.ms).toFixed(2)} ms`);
console.log(`structuredClone, typed arrays : ${cloneObjects.ms.toFixed(3)} ms`);
console.log(`structuredClone, JSON arrays  : ${cloneJson.ms.toFixed(3)} ms`);
