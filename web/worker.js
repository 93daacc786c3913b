// Runs simulations off the main thread so a large workload never freezes the page.
//
// Protocol: the page posts `{ id, scenario }` to run a seed scenario, answered by one
// `{ id, ok: true, scenario }` (the JSON string `run_scenario` returned) or
// `{ id, ok: false, index: -1, message }`; or it posts `{ id, configs, trace }`, `trace` being `{ bytes, lenient }`
// when the workload is a trace file (bytes: a Uint8Array of the file) and null
// otherwise; the worker answers with zero or more
// `{ id, progress: i }` messages and then exactly one of `{ id, ok: true, outputs }`,
// where each output is the JSON string `run` returned (parsed by the page, so the
// reports reach it byte for byte), or `{ id, ok: false, index, message }`, where
// `index` is the failing config's position, or -1 when the module itself failed.

import init, { run, run_scenario, run_trace } from './pkg/heaplab_wasm.js';

// Instantiation starts at once so the first run does not pay for it; a failure is
// kept as a value rather than left as a rejected promise that nobody awaits yet.
const ready = init().then(
  () => null,
  (error) => error,
);

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

self.onmessage = async (event) => {
  const { id, configs, trace, scenario } = event.data;
  const loadError = await ready;
  if (loadError) {
    self.postMessage({
      id,
      ok: false,
      index: -1,
      message: `could not load the WebAssembly module: ${messageOf(loadError)}`,
    });
    return;
  }
  if (scenario !== undefined) {
    try {
      self.postMessage({ id, ok: true, scenario: run_scenario(scenario) });
    } catch (error) {
      self.postMessage({ id, ok: false, index: -1, message: messageOf(error) });
    }
    return;
  }
  const outputs = [];
  for (const [index, config] of configs.entries()) {
    self.postMessage({ id, progress: index });
    try {
      const json = JSON.stringify(config);
      outputs.push(trace ? run_trace(json, trace.bytes, trace.lenient) : run(json));
    } catch (error) {
      self.postMessage({ id, ok: false, index, message: messageOf(error) });
      return;
    }
  }
  self.postMessage({ id, ok: true, outputs });
};
