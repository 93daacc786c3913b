// Runs simulations off the main thread so a large workload never freezes the page.
//
// Protocol: every request carries an `id`, and every message back carries it too.
// - `{ id, configs, trace }` runs each config: `trace` is `{ bytes, lenient }` when the
//   workload is a trace file (bytes: a Uint8Array of the file) and null otherwise. The
//   worker answers with zero or more `{ id, progress: { index, events } }` (config
//   `index` has applied `events` events so far) and then exactly one of
//   `{ id, ok: true, outputs }`, each output `{report, series}` as `run` (or `run_trace`)
//   returned it, or `{ id, ok: false, index, message }`, `index` being the failing
//   config's position.
// - `{ id, scenario }` runs a seed scenario: `{ id, ok: true, scenario }`, the
//   `{output, series}` that `run_scenario` returned.
// - `{ id, traceRef: { name, bytes } }` asks what a link says of a trace file:
//   `{ id, ok: true, ref }`, the `{name, bytes, sha256}` of `trace_ref`.
// Any failure outside a config's run answers `{ id, ok: false, index: -1, message }`.
// The series' Float64Arrays are transferred, not copied: the worker keeps no result.

import init, { run, run_scenario, run_trace, trace_ref } from './pkg/heaplab_wasm.js';

// Instantiation starts at once so the first run does not pay for it; a failure is
// kept as a value rather than left as a rejected promise that nobody awaits yet.
const ready = init().then(
  () => null,
  (error) => error,
);

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/** The buffers behind a list of series, each once, to transfer with the answer. */
function buffers(seriesList) {
  const seen = new Set();
  for (const series of seriesList) {
    for (const array of Object.values(series)) {
      if (ArrayBuffer.isView(array)) seen.add(array.buffer);
    }
  }
  return [...seen];
}

function answer(id, data) {
  self.postMessage({ id, ...data });
}

function runAll(id, configs, trace) {
  const outputs = [];
  for (const [index, config] of configs.entries()) {
    const progress = (events) => self.postMessage({ id, progress: { index, events } });
    progress(0);
    try {
      outputs.push(trace ? run_trace(config, trace.bytes, trace.lenient, progress) : run(config, progress));
    } catch (error) {
      answer(id, { ok: false, index, message: messageOf(error) });
      return;
    }
  }
  self.postMessage({ id, ok: true, outputs }, buffers(outputs.map((output) => output.series)));
}

self.onmessage = async (event) => {
  const { id, configs, trace, scenario, traceRef } = event.data;
  const loadError = await ready;
  if (loadError) {
    answer(id, { ok: false, index: -1, message: `could not load the WebAssembly module: ${messageOf(loadError)}` });
    return;
  }
  try {
    if (scenario !== undefined) {
      const result = run_scenario(scenario);
      self.postMessage({ id, ok: true, scenario: result }, buffers(result.series));
    } else if (traceRef !== undefined) {
      answer(id, { ok: true, ref: trace_ref(traceRef.name, traceRef.bytes) });
    } else {
      runAll(id, configs, trace);
    }
  } catch (error) {
    answer(id, { ok: false, index: -1, message: messageOf(error) });
  }
};
