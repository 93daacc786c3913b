// Runs simulations off the main thread so a large workload never freezes the page.
//
// Protocol: every request carries an `id`, and every message back carries it too.
// - `{ id, configs, trace }` runs each config: `trace` is `{ file, lenient, strict }`
//   when the workload is a trace file (file: a File or Blob) and null otherwise. A trace is read
//   here with `file.stream()`, chunk by chunk, every config simulated as the chunks
//   arrive (TraceRunner), so neither the page nor the worker ever holds the file; the
//   worker answers with `{ id, progress: { bytes } }` every few megabytes read. A built-in
//   workload runs config by config, answering `{ id, progress: { index, events } }`
//   (config `index` has applied `events` events so far) now and then. Then exactly one
//   of `{ id, ok: true, outputs }`, each output `{report, series}` as `run` (or
//   TraceRunner) returned it, the series with the page operations so far; or
//   `{ id, ok: false, index, message }`, `index` being the failing config's position
//   (-1 when the trace itself failed: a bad line).
// - `{ id, hash: { file, name } }` streams the file through TraceHasher: `{ id, ok: true,
//   ref }`, `ref` the `{name, bytes, sha256}` a link names the file `name` by. The page
//   asks it beside the runs of a large file, on another core.
// - `{ id, configs, trace, modules }`, with `modules` a list of `{ name, bytes }` (bytes a
//   Uint8Array), runs configs of your own allocator: the worker loads heaplab_mm, the
//   build that runs modules, on the first such request, registers each module there
//   and runs every config of the request with it. Answers as above.
// - `{ id, module: { name, bytes } }` checks an allocator module against malloc lab's
//   interface: `{ id, ok: true, module }`, `module` the `{name, bytes, sha256, policy}`
//   that `module_load` returned, or `{ id, ok: false, index: -1, message }` naming what
//   is wrong with it.
// - `{ id, scenario }` runs a seed scenario: `{ id, ok: true, scenario }`, the
//   `{output, series}` that `run_scenario` returned.
// Any failure outside a config's run answers `{ id, ok: false, index: -1, message }`.
// The series' Float64Arrays are transferred, not copied: the worker keeps no result.

import init, * as base from './pkg/heaplab_wasm.js';

// Instantiation starts at once so the first run does not pay for it; a failure is
// kept as a value rather than left as a rejected promise that nobody awaits yet.
const ready = init().then(
  () => null,
  (error) => error,
);

// The build that runs allocator modules, loaded on the first request that needs it: it
// more than doubles the download, and most runs never use it.
let withModules = null;
function loadModules() {
  withModules ??= import('./pkg/heaplab_mm.js').then(async (mm) => {
    await mm.default();
    return mm;
  });
  return withModules;
}

/** The bindings a request runs with: the base build, or heaplab_mm with its modules registered. */
async function bindingsFor(modules) {
  if (!modules || modules.length === 0) return base;
  const mm = await loadModules();
  for (const { name, bytes } of modules) mm.module_load(name, bytes);
  return mm;
}

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

// Progress is said after this many more bytes of a trace: often enough for a smooth bar,
// rarely enough to cost nothing.
const PROGRESS_BYTES = 4 << 20;

/** The bytes read at a time from a trace file, into one reused buffer. */
const CHUNK_BYTES = 1 << 20;

function runAll(id, configs, { run }) {
  const outputs = [];
  for (const [index, config] of configs.entries()) {
    const progress = (events) => self.postMessage({ id, progress: { index, events } });
    progress(0);
    try {
      outputs.push(run(config, progress));
    } catch (error) {
      answer(id, { ok: false, index, message: messageOf(error) });
      return;
    }
  }
  self.postMessage({ id, ok: true, outputs }, buffers(outputs.map((output) => output.series)));
}

/**
 * Calls `each(chunk)` on every chunk of `file` as it is read; `onBytes(read)` hears the
 * bytes read so far every few megabytes.
 */
async function eachChunk(file, each, onBytes = null) {
  // One buffer, read into again and again: a new chunk per read would leave the whole
  // file behind as garbage for the collector to catch up with, which a 100 MB trace
  // turns into hundreds of megabytes held by the tab.
  const reader = file.stream().getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(CHUNK_BYTES);
  let read = 0;
  let said = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer, 0, CHUNK_BYTES));
    if (done) return;
    each(value);
    buffer = value.buffer;
    read += value.length;
    if (onBytes && read - said >= PROGRESS_BYTES) {
      said = read;
      onBytes(read);
    }
  }
}

async function runTrace(id, configs, trace, { TraceRunner }) {
  const runner = new TraceRunner(configs, trace.lenient, trace.strict);
  let outputs;
  try {
    await eachChunk(trace.file, (chunk) => runner.push(chunk), (bytes) => self.postMessage({ id, progress: { bytes } }));
    outputs = runner.finish();
  } catch (error) {
    answer(id, { ok: false, index: -1, message: messageOf(error) });
    return;
  } finally {
    runner.free();
  }
  self.postMessage({ id, ok: true, outputs }, buffers(outputs.map((output) => output.series)));
}

// A file that cannot be read fails the request through onmessage's own catch.
async function hashFile(id, { file, name }) {
  const hasher = new base.TraceHasher();
  try {
    await eachChunk(file, (chunk) => hasher.push(chunk));
    answer(id, { ok: true, ref: hasher.finish(name) });
  } finally {
    hasher.free();
  }
}

self.onmessage = async (event) => {
  const { id, configs, trace, scenario, hash, modules, module } = event.data;
  const loadError = await ready;
  if (loadError) {
    answer(id, { ok: false, index: -1, message: `could not load the WebAssembly module: ${messageOf(loadError)}` });
    return;
  }
  try {
    if (module) {
      const mm = await loadModules();
      answer(id, { ok: true, module: mm.module_load(module.name, module.bytes) });
    } else if (scenario !== undefined) {
      const result = base.run_scenario(scenario);
      self.postMessage({ id, ok: true, scenario: result }, buffers(result.series));
    } else if (hash) {
      await hashFile(id, hash);
    } else if (trace) {
      await runTrace(id, configs, trace, await bindingsFor(modules));
    } else {
      runAll(id, configs, await bindingsFor(modules));
    }
  } catch (error) {
    answer(id, { ok: false, index: -1, message: messageOf(error) });
  }
};
