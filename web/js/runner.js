// The page's side of the worker protocol (see worker.js): requests carry an id, and the
// answers are matched to them by it, so hashing a trace file while a run goes on is fine.

let worker = null;
let counter = 0;
// Requests sent and not yet answered: id -> { resolve, reject, onProgress, where }.
const pending = new Map();

/** Ends the worker and fails what it still owed, so that no caller waits forever. */
function dropWorker(error) {
  worker?.terminate();
  worker = null;
  for (const request of pending.values()) request.reject(error);
  pending.clear();
}

function ensureWorker() {
  if (worker) return worker;
  worker = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => {
    const message = event.data;
    const request = pending.get(message.id);
    if (!request) return;
    if ('progress' in message) {
      request.onProgress?.(message.progress);
      return;
    }
    pending.delete(message.id);
    if (message.ok) {
      request.resolve(message);
    } else {
      const error = new Error(`${request.where?.(message.index) ?? ''}${message.message}`);
      // A panic inside the module can leave its memory inconsistent, so every failure
      // gets a fresh worker for the next request.
      request.reject(error);
      dropWorker(new Error('The simulation worker was restarted after an error; try again'));
    }
  };
  worker.onerror = (event) => {
    // Handled here and shown on the page, so the browser need not log it too.
    event.preventDefault();
    dropWorker(
      new Error(`The simulation worker failed: ${event.message || 'worker.js or the WebAssembly module could not be loaded'}`),
    );
  };
  worker.onmessageerror = () => {
    dropWorker(new Error('The simulation worker sent a message the page could not read'));
  };
  return worker;
}

/**
 * Sends one request and resolves to its answer. `onProgress` hears the worker's progress
 * messages; `where(index)` prefixes a failure's message with what failed.
 */
function ask(payload, { onProgress = null, where = null } = {}) {
  const target = ensureWorker();
  const id = ++counter;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress, where });
    target.postMessage({ id, ...payload });
  });
}

/**
 * Runs every config and resolves to `[{report, series}]` as `run` (or, for a trace,
 * `run_trace`) returned them. `trace` is `{ bytes, lenient }` when the workload is a
 * trace, else null.
 */
export async function runConfigs(configs, trace, onProgress) {
  const answer = await ask(
    { configs, trace },
    {
      onProgress,
      where: (index) => {
        const failed = configs[index]?.policy;
        return failed ? `Policy ${index + 1} (${failed.preset ?? failed.family}): ` : '';
      },
    },
  );
  return answer.outputs;
}

/** Runs a seed scenario; resolves to `{output, series}` as `run_scenario` returned it. */
export async function runScenario(id) {
  const answer = await ask({ scenario: id }, { where: () => `Scenario ${id}: ` });
  return answer.scenario;
}

/** What a link says of a trace file, `{name, bytes, sha256}`, worked out off the main thread. */
export async function traceRef(name, bytes) {
  const answer = await ask({ traceRef: { name, bytes } }, { where: () => `Trace ${name}: ` });
  return answer.ref;
}
