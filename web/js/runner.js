// The page's side of the worker protocol (see worker.js). Requests carry an id, and the
// answers are matched to them by it. Runs go to a small pool of workers, one config per
// request, so the configurations of a comparison (and the values of a sweep) run side by
// side on as many cores as the browser offers; Cancel ends every worker at once.

import { cardName, modulesOf } from './modules.js';

const POOL_SIZE = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));

// The workers, each `{ worker, busy }`.
const pool = [];
let counter = 0;
// Requests sent and not yet answered: id -> { resolve, reject, onProgress, where, retire, slot }.
const pending = new Map();
// Requests waiting for a free worker, in order.
const queue = [];

/** A run stopped by Cancel: callers keep what they showed before. */
export class Cancelled extends Error {
  constructor() {
    super('Cancelled');
    this.name = 'Cancelled';
  }
}

/** Ends one worker and fails what it still owed, so that no caller waits forever. */
function dropSlot(slot, error) {
  slot.worker.terminate();
  pool.splice(pool.indexOf(slot), 1);
  for (const [id, request] of pending) {
    if (request.slot !== slot) continue;
    pending.delete(id);
    request.reject(error);
  }
}

function newSlot() {
  const slot = { worker: new Worker(new URL('../worker.js', import.meta.url), { type: 'module' }), busy: false };
  slot.worker.onmessage = (event) => {
    const message = event.data;
    const request = pending.get(message.id);
    if (!request) return;
    if ('progress' in message) {
      request.onProgress?.(message.progress);
      return;
    }
    pending.delete(message.id);
    slot.busy = false;
    if (message.ok) {
      request.resolve(message);
      // A WebAssembly memory never shrinks: a worker that grew it for a request that
      // asked so (a streamed trace) is ended, and a fresh one takes the next request.
      if (request.retire) dropSlot(slot, new Error('The simulation worker was retired'));
    } else {
      request.reject(new Error(`${request.where?.(message.index, message.message) ?? ''}${message.message}`));
      // A panic inside the module can leave its memory inconsistent, so a failure
      // gets a fresh worker for the next request.
      dropSlot(slot, new Error('The simulation worker was restarted after an error; try again'));
    }
    pump();
  };
  slot.worker.onerror = (event) => {
    // Handled here and shown on the page, so the browser need not log it too.
    event.preventDefault();
    dropSlot(slot, new Error(`The simulation worker failed: ${event.message || 'worker.js or the WebAssembly module could not be loaded'}`));
    pump();
  };
  slot.worker.onmessageerror = () => {
    dropSlot(slot, new Error('The simulation worker sent a message the page could not read'));
    pump();
  };
  pool.push(slot);
  return slot;
}

/** Hands queued requests to free workers, starting workers up to the pool's size. */
function pump() {
  while (queue.length > 0) {
    let slot = pool.find((s) => !s.busy);
    if (!slot && pool.length < POOL_SIZE) slot = newSlot();
    if (!slot) return;
    const { id, payload, transfer } = queue.shift();
    const request = pending.get(id);
    if (!request) continue;
    slot.busy = true;
    request.slot = slot;
    slot.worker.postMessage({ id, ...payload }, transfer);
  }
}

/**
 * Sends one request and resolves to its answer. `onProgress` hears the worker's progress
 * messages; `where(index, message)` prefixes a failure's message with what failed; `retire` ends
 * the worker once it has answered, so the memory it grew for the request is given back.
 */
function ask(payload, { onProgress = null, where = null, retire = false } = {}) {
  const id = ++counter;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress, where, retire, slot: null });
    queue.push({ id, payload, transfer: [] });
    pump();
  });
}

/** Stops every run in progress: each caller's promise rejects with `Cancelled`. */
export function cancelAll() {
  queue.length = 0;
  for (const slot of [...pool]) dropSlot(slot, new Cancelled());
  for (const [id, request] of pending) {
    pending.delete(id);
    request.reject(new Cancelled());
  }
}

// A trace's problem as the core words it, `file:line: problem`, is the trace's whatever
// the configuration; one that goes on `event N:` is an event a configuration refused.
const REFUSED_EVENT = /^.*:\d+: event \d+: /;

/**
 * Runs every config in the pool and resolves to `[{report, series}]` in the configs'
 * order. `trace` is `{ file, lenient, strict, hash, onRef }` when the workload is a
 * trace, else null: with `hash`, `onRef(ref)` is given the `{name, bytes, sha256}` a link
 * names the file by, worked out from the chunks the run read.
 * `onProgress({ share, done, total, bytesRead, bytesTotal })` hears the share of the
 * work done, 0 to 1, and the configs finished: for a trace, the share is how far into
 * the file the workers reading it are (on average) out of its size; for a built-in
 * workload, the share of the events when `expectedEvents` (each config's events, known
 * from an earlier run of the same workload) is given, else of the configs. `name(config,
 * index)` says which config a failure is of, as the page shows it: by default the
 * editor's card.
 */
export async function runConfigs(configs, trace, onProgress, { expectedEvents = null, name = cardName } = {}) {
  // A configuration whose module the page lacks fails here, before any worker starts.
  modulesOf(configs, (index) => name(configs[index], index));
  const label = (index) => `${name(configs[index], index)}: `;
  if (trace) return runTraceConfigs(configs, trace, onProgress, label);
  const events = configs.map(() => 0);
  const finished = configs.map(() => false);
  const say = () => {
    const done = finished.filter(Boolean).length;
    const share = expectedEvents > 0
      ? events.reduce((sum, n, i) => sum + (finished[i] ? 1 : Math.min(1, n / expectedEvents)), 0) / configs.length
      : done / configs.length;
    onProgress?.({ share, done, total: configs.length });
  };
  const runs = configs.map((config, index) =>
    ask(
      { configs: [config], trace: null, modules: modulesOf([config]) },
      {
        onProgress: (progress) => {
          events[index] = progress.events;
          say();
        },
        where: () => label(index),
      },
    ).then((answer) => {
      finished[index] = true;
      say();
      return answer.outputs[0];
    }),
  );
  return Promise.all(runs);
}

/**
 * A trace's configs, in as many groups as the pool has workers: each worker streams the
 * file once and simulates its group's configs side by side, so the file is read once a
 * worker rather than once a config (a sweep of twenty values reads it at most four times)
 * and every core still works. The hash a link names the file by is a request of its own,
 * queued after the groups: a worker the groups leave free takes it at once, otherwise the
 * first to finish. Worked out inside a group's run, it made that run the last to end.
 */
async function runTraceConfigs(configs, trace, onProgress, label) {
  // `onRef` stays here (a function cannot be posted).
  const { onRef, hash, ...posted } = trace;
  const groups = Array.from({ length: Math.min(POOL_SIZE, configs.length) }, () => []);
  configs.forEach((_, index) => groups[index % groups.length].push(index));
  const size = trace.file.size;
  const read = groups.map(() => 0);
  let done = 0;
  const say = () => {
    const bytesRead = read.reduce((sum, n) => sum + n, 0) / groups.length;
    onProgress?.({ share: size > 0 ? bytesRead / size : done / configs.length, done, total: configs.length, bytesRead, bytesTotal: size });
  };
  const runs = groups.map((members, group) =>
    ask(
      { configs: members.map((index) => configs[index]), trace: posted, modules: modulesOf(members.map((index) => configs[index])) },
      {
        onProgress: ({ bytes }) => {
          read[group] = bytes;
          say();
        },
        // A bad line fails every config alike, and its message names the file and line;
        // an event refused is one config's, which a group of one can name.
        where: (_, message) => (members.length === 1 && REFUSED_EVENT.test(message) ? label(members[0]) : ''),
        // A long trace grows the worker's memory by what its run kept of it; the tab
        // gives that back rather than hold it beside teaching mode's copy of the run.
        retire: true,
      },
    ).then((answer) => {
      done += members.length;
      read[group] = size;
      say();
      return answer;
    }),
  );
  const hashed = hash ? ask({ hash: { file: trace.file, name: configs[0]?.workload?.path ?? '' } }) : Promise.resolve(null);
  // A run that fails is what the page says; the hash of its file is then never awaited.
  hashed.catch(() => {});
  const answers = await Promise.all(runs);
  const ref = (await hashed)?.ref;
  if (ref) onRef?.(ref);
  const outputs = new Array(configs.length);
  answers.forEach((answer, group) => {
    answer.outputs.forEach((output, k) => {
      outputs[groups[group][k]] = output;
    });
  });
  return outputs;
}

/** Runs a seed scenario; resolves to `{output, series}` as `run_scenario` returned it. */
export async function runScenario(id) {
  const answer = await ask({ scenario: id }, { where: () => `Scenario ${id}: ` });
  return answer.scenario;
}

/**
 * Checks the allocator module file `name` holding `bytes` (a Uint8Array) in a worker,
 * with the interpreter's build: resolves to `{name, bytes, sha256, policy}`, or rejects
 * with the message naming what is wrong with the module.
 */
export async function checkModule(name, bytes) {
  const answer = await ask({ module: { name, bytes } }, { where: () => `${name}: ` });
  return answer.module;
}
