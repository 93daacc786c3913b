// The page against the native simulator, in one sitting: what `cargo xtask bench` prints
// for the playground's speed targets. It drives the real page in headless Chromium.
//
//   HEAPLAB_URL=http://127.0.0.1:PORT/ HEAPLAB_BIN=target/release/heaplab node web/bench/page.mjs
//
// - First load: from navigation to the page ready to run (the wasm module loaded and the
//   catalog read), in a fresh tab with the browser's cache off.
// - The worker against `heaplab run`: the same three configurations of tree_churn at
//   scale 0.05, each sent to the page's own worker.js as the page sends it, timed from
//   the request to the answer; natively, `heaplab run --json` of each, timed as a whole
//   process. Events per second and the ratio of the two.
// - Your own allocator: the `implicit` example, built by `heaplab mm build`, on `churn`
//   at scale 0.0715 (1,001,002 events), checked, in the worker (the browser's engine)
//   against `heaplab run -p implicit.wasm`, timed as above.
// - A comparison as a person makes it: three configurations of `fragment` (983,040
//   events each), from pressing Run to the chart and table drawn; and a five-value sweep
//   of one of them, from pressing "Run sweep" to its chart and table.
// - A large trace streamed through the page, when HEAPLAB_BENCH_TRACE names one (`cargo
//   xtask bench` passes the import bench's 10-million-event `.trace`): one `size-class`
//   configuration from pressing Run to the results drawn, the file just chosen (so the
//   link's hash is worked out beside the run) and run again, against `heaplab run -w
//   FILE -p size-class` as a whole process.
//
// Every figure is the median of ROUNDS (default 5, 3 at the quick sizes). The machine is
// shared, so the page and the native runs take turns round by round and a change of load
// falls on both. With HEAPLAB_BENCH_QUICK set (`cargo xtask bench --quick`) every
// workload is a fifth of its size or less; each figure also goes to the report
// (`rows.mjs`).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { launchBench } from './browser.mjs';
import { events as eventCount, QUICK, reportRow } from './rows.mjs';

const PAGE_URL = process.env.HEAPLAB_URL;
const HEAPLAB_BIN = process.env.HEAPLAB_BIN;
const ROUNDS = Number(process.env.ROUNDS ?? (QUICK ? 3 : 5));
if (!PAGE_URL || !HEAPLAB_BIN) {
  console.error('set HEAPLAB_URL and HEAPLAB_BIN, or run `cargo xtask bench`');
  process.exit(2);
}
const run = promisify(execFile);

const SPEED_WORKLOAD = ['tree_churn', QUICK ? 0.01 : 0.05];
const POLICIES = [['family', 'size-class'], ['preset', 'glibc-like'], ['preset', 'buddy']];
// `fragment` at its default scale, 0.1, is 983,040 events a configuration; at 0.02,
// when quick, a third of that (327,680).
const COMPARE_WORKLOAD = ['fragment', QUICK ? 0.02 : 0.1];
const TRACE = process.env.HEAPLAB_BENCH_TRACE;
// Your own allocator: `churn` at this scale is 1,001,002 events, as in heaplab-mm's bench.
const MODULE_WORKLOAD = ['churn', QUICK ? 0.0143 : 0.0715];
const MM_EXAMPLES = fileURLToPath(new URL('../../crates/heaplab-mm/c/examples/', import.meta.url));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function heaplab(args) {
  const { stdout } = await run(HEAPLAB_BIN, args, { maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

function policyArg([, id]) {
  return id;
}

/** One native `heaplab run ARGS --json` of one configuration as a whole process: seconds and events. */
async function nativeRun(args) {
  const start = performance.now();
  const out = await heaplab(['run', ...args, '--json']);
  const seconds = (performance.now() - start) / 1000;
  return { seconds, events: JSON.parse(out)[0].events };
}

/**
 * The same configuration in the page's worker: seconds from request to answer, and
 * events. `modules` (`{ name, bytes }`, bytes as an array) go with a module's config.
 */
async function workerRun(page, policy, workload = SPEED_WORKLOAD, modules = []) {
  return page.evaluate(
    async ({ workload, scale, policy, modules }) => {
      const worker = window.heaplabBenchWorker ?? new Worker('worker.js', { type: 'module' });
      window.heaplabBenchWorker = worker;
      const config = { workload: { id: workload, params: { scale } }, policy, series_points: 10_000 };
      const posted = modules.map(({ name, bytes }) => ({ name, bytes: new Uint8Array(bytes) }));
      const answer = (request) =>
        new Promise((resolve, reject) => {
          worker.onmessage = (event) => {
            if ('progress' in event.data) return;
            if (event.data.ok) resolve(event.data);
            else reject(new Error(event.data.message));
          };
          worker.postMessage(request);
        });
      // The first request of each build also waits for it to load; that is first
      // load's cost (for heaplab_mm, the cost of choosing a module).
      const warm = posted.length > 0 ? 'heaplabBenchWarmModules' : 'heaplabBenchWarm';
      if (!window[warm]) {
        await answer({ id: 0, configs: [{ ...config, workload: { id: workload, params: { scale: 0.001 } } }], trace: null, modules: posted });
        window[warm] = true;
      }
      const start = performance.now();
      const { outputs } = await answer({ id: 1, configs: [config], trace: null, modules: posted });
      return { seconds: (performance.now() - start) / 1000, events: outputs[0].report.events };
    },
    { workload: workload[0], scale: workload[1], policy: Array.isArray(policy) ? { [policy[0]]: policy[1] } : policy, modules },
  );
}

/**
 * Your own allocator, the `implicit` example built by `heaplab mm build`, run natively
 * (`heaplab run -p implicit.wasm`, the whole process) and in the page's worker (the
 * browser's engine, through heaplab_mm), round by round.
 */
async function moduleRounds(page, dir) {
  const file = path.join(dir, 'implicit.wasm');
  await heaplab(['mm', 'build', path.join(MM_EXAMPLES, 'implicit.c'), '-o', file]);
  const bytes = [...(await readFile(file))];
  // A config names its module by SHA-256, as `-p implicit.wasm` does.
  const sha256 = createHash('sha256').update(Buffer.from(bytes)).digest('hex');
  const policy = { family: 'module', params: { sha256 } };
  const native = [];
  const inWorker = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    native.push(await nativeRun(['-w', MODULE_WORKLOAD[0], '--scale', String(MODULE_WORKLOAD[1]), '-p', file]));
    inWorker.push(await workerRun(page, policy, MODULE_WORKLOAD, [{ name: 'implicit.wasm', bytes }]).catch((e) => {
      throw new Error(`the module's run in the worker failed: ${e.message}`);
    }));
  }
  return { native, inWorker };
}

/**
 * The trace streamed through the page and natively, round by round: seconds of each
 * native run, of each run just after the file was chosen, and of each run again.
 */
async function traceRounds(context) {
  const link = (await heaplab(['link', '--base-url', PAGE_URL, '-w', TRACE, '-p', 'size-class'])).trim();
  const { page } = await freshTab(context, link);
  const native = [];
  const chosen = [];
  const again = [];
  let events = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const alone = await nativeRun(['-w', TRACE, '-p', 'size-class']);
    events = alone.events;
    native.push(alone.seconds);
    // Choosing the file again makes it a new file to the page, which hashes it anew.
    await page.setInputFiles('#trace-file', TRACE);
    chosen.push((await timedClick(page, '#run')).seconds);
    again.push((await timedClick(page, '#run')).seconds);
    const ran = await page.evaluate(() => window.heaplabResults[0].events);
    if (ran !== events) throw new Error(`the page ran ${ran} events of ${TRACE}, heaplab run ${events}`);
  }
  await page.close();
  return { events, native, chosen, again };
}

/** Opens `url` in a fresh tab with the cache off; resolves to the tab and its load time. */
async function freshTab(context, url) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.state !== 'loading', null, { timeout: 60_000 });
  // The page leaves "loading" once the module is loaded and the catalog read: the time
  // since navigation began (give or take the frame the wait polls at) is what a person
  // waits for before they can press Run.
  const ready = await page.evaluate(() => performance.now());
  return { page, seconds: ready / 1000 };
}

/**
 * Presses `button` and waits for the page to finish: the seconds it took and the longest
 * task the main thread ran meanwhile (the page must never freeze for more than 50 ms),
 * both measured in the page.
 */
async function timedClick(page, button) {
  await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 120_000 });
  await page.evaluate(() => {
    document.body.dataset.state = 'before-click';
    window.heaplabBenchLongest = 0;
    window.heaplabBenchObserver?.disconnect();
    window.heaplabBenchObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.heaplabBenchLongest = Math.max(window.heaplabBenchLongest, entry.duration);
    });
    window.heaplabBenchObserver.observe({ type: 'longtask' });
    window.heaplabBenchStart = performance.now();
  });
  await page.click(button);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
  const { state, seconds, longest, message } = await page.evaluate(() => ({
    state: document.body.dataset.state,
    seconds: (performance.now() - window.heaplabBenchStart) / 1000,
    longest: window.heaplabBenchLongest,
    message: document.getElementById('error').textContent,
  }));
  if (state !== 'done') throw new Error(`${button} ended in ${state}: ${message}`);
  return { seconds, longest };
}

const { profile, context } = await launchBench('heaplab-bench');

try {
  const compareLink = (
    await heaplab(['link', '--base-url', PAGE_URL, '-w', COMPARE_WORKLOAD[0], '--scale', String(COMPARE_WORKLOAD[1]), ...POLICIES.flatMap((p) => ['-p', policyArg(p)])])
  ).trim();
  const sweepLink = (
    await heaplab(['link', '--base-url', PAGE_URL, '--sweep', '-p', 'size-class', '--vary', 'page_size=4K..64K', '-w', COMPARE_WORKLOAD[0], '--scale', String(COMPARE_WORKLOAD[1])])
  ).trim();

  const loads = [];
  const page = (await freshTab(context, PAGE_URL)).page;
  const native = POLICIES.map(() => []);
  const inWorker = POLICIES.map(() => []);
  const compares = [];
  const sweeps = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const tab = await freshTab(context, PAGE_URL);
    loads.push(tab.seconds);
    await tab.page.close();
    for (const [i, policy] of POLICIES.entries()) {
      native[i].push(await nativeRun(['-w', SPEED_WORKLOAD[0], '--scale', String(SPEED_WORKLOAD[1]), '-p', policyArg(policy)]));
      inWorker[i].push(await workerRun(page, policy));
    }
  }
  const mine = await moduleRounds(page, profile);
  await page.close();
  // One tab at a time: a tab's workers would take the cores from the one being timed.
  // Each link runs by itself once opened; the timing starts after that first run.
  const comparePage = (await freshTab(context, compareLink)).page;
  for (let round = 0; round < ROUNDS; round += 1) compares.push(await timedClick(comparePage, '#run'));
  const events = await comparePage.evaluate(() => window.heaplabResults[0].events);
  await comparePage.close();
  const sweepPage = (await freshTab(context, sweepLink)).page;
  for (let round = 0; round < ROUNDS; round += 1) sweeps.push(await timedClick(sweepPage, '#run-sweep'));
  const points = await sweepPage.evaluate(() => window.heaplabSweep.points.length);
  await sweepPage.close();
  const trace = TRACE ? await traceRounds(context) : null;

  const seconds = (clicks) => median(clicks.map((c) => c.seconds));
  const longest = (clicks) => Math.max(...clicks.map((c) => c.longest));
  const rate = (runs) => median(runs.map((r) => r.events / r.seconds));
  const rows = POLICIES.map((policy, i) => ({
    policy: policyArg(policy),
    events: native[i][0].events,
    native: rate(native[i]),
    page: rate(inWorker[i]),
  }));
  // All three in a round, as events over seconds of the round; the median of the rounds.
  const all = (runs) =>
    median(
      runs[0].map((_, round) => {
        const inRound = runs.map((r) => r[round]);
        return inRound.reduce((sum, r) => sum + r.events, 0) / inRound.reduce((sum, r) => sum + r.seconds, 0);
      }),
    );
  const m = (x) => `${(x / 1e6).toFixed(1)} M`;
  console.log(`\npage against native, ${SPEED_WORKLOAD[0]} at scale ${SPEED_WORKLOAD[1]}, medians of ${ROUNDS} (events/s):\n`);
  console.log('| configuration | events | `heaplab run` | page worker | native / page |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.policy} | ${r.events.toLocaleString('en')} | ${m(r.native)} | ${m(r.page)} | ${(r.native / r.page).toFixed(2)}x |`);
  console.log(`| all three | | ${m(all(native))} | ${m(all(inWorker))} | ${(all(native) / all(inWorker)).toFixed(2)}x |`);
  const speed = `\`${SPEED_WORKLOAD[0]}\` ${SPEED_WORKLOAD[1]} (${eventCount(rows[0].events)})`;
  const against = (page, native) => `${m(page)}/s / ${m(native)}/s (${(native / page).toFixed(2)}x)`;
  for (const r of rows) {
    const ratio = r.native / r.page;
    reportRow({ area: 'page', figure: `worker / \`heaplab run\`, ${r.policy}, events/s, ${speed}`, median: against(r.page, r.native), target: 'within 1.5x', met: ratio <= 1.5 });
  }
  const [allPage, allNative] = [all(inWorker), all(native)];
  reportRow({
    area: 'page',
    figure: `worker / \`heaplab run\`, the three together, events/s, ${speed}`,
    median: against(allPage, allNative),
    target: '≥ 10 M/s, within 1.5x',
    met: allPage >= 10e6 && allNative / allPage <= 1.5,
  });
  const own = { native: rate(mine.native), page: rate(mine.inWorker), events: mine.native[0].events };
  console.log(`\nyour own allocator (implicit.wasm) on ${MODULE_WORKLOAD[0]} at scale ${MODULE_WORKLOAD[1]}, checked, medians of ${ROUNDS}; the page is to be within 1.5x of native:\n`);
  console.log('| configuration | events | `heaplab run` | page worker | native / page |');
  console.log('|---|---|---|---|---|');
  console.log(`| implicit.wasm | ${own.events.toLocaleString('en')} | ${m(own.native)} | ${m(own.page)} | ${(own.native / own.page).toFixed(2)}x |`);
  reportRow({
    area: 'page',
    figure: `your own allocator: worker / \`heaplab run\`, implicit.wasm checked, events/s, \`${MODULE_WORKLOAD[0]}\` ${MODULE_WORKLOAD[1]} (${eventCount(own.events)})`,
    median: against(own.page, own.native),
    target: 'within 1.5x',
    met: own.native / own.page <= 1.5,
  });
  console.log(`\nthe page as a person uses it, medians of ${ROUNDS}:\n`);
  console.log('| what | time | target | longest main-thread task |');
  console.log('|---|---|---|---|');
  console.log(`| first load (module and catalog, cache off) | ${median(loads).toFixed(2)} s | under 1 s | |`);
  console.log(`| Run: 3 configurations of ${COMPARE_WORKLOAD[0]} (${events.toLocaleString('en')} events each), run and drawn | ${seconds(compares).toFixed(2)} s | under 1.5 s | ${longest(compares).toFixed(0)} ms |`);
  console.log(`| Run sweep: ${points} values of page_size over ${COMPARE_WORKLOAD[0]}, run and drawn | ${seconds(sweeps).toFixed(2)} s | under 3 s | ${longest(sweeps).toFixed(0)} ms |`);
  const ms = (s) => `${(s * 1000).toFixed(0)} ms`;
  const compare = `\`${COMPARE_WORKLOAD[0]}\` ${COMPARE_WORKLOAD[1]} (${eventCount(events)} each)`;
  reportRow({ area: 'page', figure: 'first load, module and catalog, cache off', median: ms(median(loads)), target: '< 1 s', met: median(loads) < 1 });
  reportRow({ area: 'page', figure: `Run: 3 configurations of ${compare}, run and drawn`, median: ms(seconds(compares)), target: '< 1.5 s', met: seconds(compares) < 1.5 });
  reportRow({ area: 'page', figure: `Run sweep: ${points} values of page_size over ${compare}, run and drawn`, median: ms(seconds(sweeps)), target: '< 3 s', met: seconds(sweeps) < 3 });
  reportRow({ area: 'page', figure: 'longest main-thread task during those two, at most', median: ms(Math.max(longest(compares), longest(sweeps)) / 1000) });
  if (trace) {
    const { size } = await stat(TRACE);
    const native = median(trace.native);
    const row = (what, s) =>
      console.log(`| ${what} | ${s.toFixed(2)} s | ${m(trace.events / s)} | ${(s / native).toFixed(2)}x |`);
    console.log(`\n${path.basename(TRACE)} (${trace.events.toLocaleString('en')} events, ${(size / 1e6).toFixed(1)} MB) with size-class, medians of ${ROUNDS}; the page is to take at most 2x the native time:\n`);
    console.log('| what | time | events/s | against native |');
    console.log('|---|---|---|---|');
    row('`heaplab run -w FILE -p size-class` (the whole process)', native);
    row('page: Run with the file just chosen (hashed beside the run), to results drawn', median(trace.chosen));
    row('page: Run again', median(trace.again));
    const file = `${path.basename(TRACE)} (${eventCount(trace.events)}), size-class`;
    for (const [what, runs] of [['with the file just chosen', trace.chosen], ['run again', trace.again]]) {
      const ratio = median(runs) / native;
      reportRow({
        area: 'page',
        figure: `a trace streamed through the page, ${what} / \`heaplab run\`, time, ${file}`,
        median: `${median(runs).toFixed(2)} s / ${native.toFixed(2)} s (${ratio.toFixed(2)}x)`,
        target: 'within 2x',
        met: ratio <= 2,
      });
    }
  } else {
    console.log('\n(no streamed trace: HEAPLAB_BENCH_TRACE is not set; `cargo xtask bench` sets it)');
  }
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
