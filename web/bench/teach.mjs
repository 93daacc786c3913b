// Teaching mode at a far event of a long trace, as a person opens it: what `cargo xtask
// bench --teach` prints for the page's target (event 5,000,000 of a 10-million-event
// trace reached within 3 s, with the tab under 500 MB). It drives the real page in
// headless Chromium.
//
//   HEAPLAB_URL=http://127.0.0.1:PORT/ HEAPLAB_BIN=target/release/heaplab \
//     HEAPLAB_TEACH_TRACE=FILE node web/bench/teach.mjs
//
// For each configuration, round by round: the trace chosen in the page, teaching mode
// opened (the file read into it: "read"), then event 5,000,000 asked for in the event box
// and shown with its line, heap map and blame ("reach"), then one step back from it
// ("back"), which starts from the checkpoint kept on the way. The tab's renderer memory
// is sampled all along; the table gives its highest. The event's line is checked against
// `heaplab explain --from N --to N` of the same file, so a fast wrong answer does not
// pass. Every time is the median of ROUNDS (default 3). With HEAPLAB_BENCH_QUICK set
// (`cargo xtask bench --quick`, which hands it a trace a tenth as long) the event asked
// for is 500,000; each figure also goes to the report (`rows.mjs`).

import { execFile } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

import { launchBench } from './browser.mjs';
import { events as eventCount, QUICK, reportRow } from './rows.mjs';

import { rendererBytes, watchMemory } from '../tests/memory.mjs';

const PAGE_URL = process.env.HEAPLAB_URL;
const HEAPLAB_BIN = process.env.HEAPLAB_BIN;
const TRACE = process.env.HEAPLAB_TEACH_TRACE;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const AT = Number(process.env.HEAPLAB_TEACH_AT ?? (QUICK ? 500_000 : 5_000_000));
const PRESETS = ['mimalloc-like', 'glibc-like'];
if (!PAGE_URL || !HEAPLAB_BIN || !TRACE) {
  console.error('set HEAPLAB_URL, HEAPLAB_BIN and HEAPLAB_TEACH_TRACE, or run `cargo xtask bench --teach`');
  process.exit(2);
}
const run = promisify(execFile);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function heaplab(args) {
  const { stdout } = await run(HEAPLAB_BIN, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Waits until teaching mode shows event `k`, not busy; answers `window.heaplabTeach`. */
async function shown(page, k) {
  try {
    await page.waitForFunction(
      (k) => window.heaplabTeach?.event === k && !window.heaplabTeach.busy && window.heaplabTeach.counts,
      k,
      { timeout: 120_000, polling: 20 },
    );
  } catch (error) {
    // What the page showed instead, and a picture of it, so a stall can be told apart
    // from a wrong event or an error the page reported.
    const seen = await page
      .evaluate(() => ({
        state: document.body.dataset.state,
        status: document.getElementById('status')?.textContent,
        error: document.getElementById('error')?.textContent,
        teach: window.heaplabTeach && { event: window.heaplabTeach.event, busy: window.heaplabTeach.busy, events: window.heaplabTeach.events },
      }))
      .catch((e) => String(e));
    await page.screenshot({ path: 'web/test-results/teach-bench-stalled.png' }).catch(() => {});
    throw new Error(`teaching mode did not show event ${k} within 120 s; the page: ${JSON.stringify(seen)}`, { cause: error });
  }
  return page.evaluate(() => ({ line: window.heaplabTeach.line, events: window.heaplabTeach.events }));
}

/** Seconds from `act` until teaching mode shows event `k`, measured in the page. */
async function timed(page, k, act) {
  await page.evaluate(() => {
    window.heaplabBenchStart = performance.now();
  });
  await act();
  const t = await shown(page, k);
  const seconds = await page.evaluate(() => (performance.now() - window.heaplabBenchStart) / 1000);
  return { ...t, seconds };
}

/**
 * A new tab on `link`, once the page has started (its state past "loading"). Runs of this
 * bench have stalled on a first load now and then; the error says which of the page's
 * requests were still unanswered and what the page showed, rather than only that it timed
 * out.
 */
async function openTab(context, link) {
  const page = await context.newPage();
  const pending = new Set();
  page.on('request', (request) => pending.add(request.url()));
  for (const done of ['requestfinished', 'requestfailed']) page.on(done, (request) => pending.delete(request.url()));
  try {
    await page.goto(link, { waitUntil: 'commit', timeout: 60_000 });
    await page.waitForFunction(() => document.body?.dataset.state && document.body.dataset.state !== 'loading', null, { timeout: 60_000 });
  } catch (error) {
    const state = await page.evaluate(() => `state ${document.body?.dataset.state}, status "${document.getElementById('status')?.textContent ?? ''}"`).catch(() => 'no document');
    throw new Error(`the page did not start within 60 s (${state}); requests unanswered: ${[...pending].join(', ') || 'none'}`, { cause: error });
  }
  return page;
}

async function rounds(context, profile, preset, expected) {
  const link = (await heaplab(['link', '--base-url', PAGE_URL, '-w', TRACE, '-p', preset])).trim();
  const read = [];
  const reach = [];
  const back = [];
  let peak = 0;
  let events = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const page = await openTab(context, link);
    // The page opened on a link naming a trace it does not have, so it is already
    // "ready"; a state no run leaves marks the moment before the file is chosen, so the
    // wait below sees the end of the run choosing it starts, not the state before it.
    // (Teaching opened while that run still went found no run to step through.)
    await page.evaluate(() => {
      document.body.dataset.state = 'before-choose';
    });
    await page.setInputFiles('#trace-file', TRACE);
    // The link's run of the whole trace goes first; teaching is timed once it is over.
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 300_000 });
    const state = await page.evaluate(() => document.body.dataset.state);
    if (state !== 'done') throw new Error(`${preset}: the trace did not run: ${await page.textContent('#error')}`);
    const memory = watchMemory(profile);
    const opened = await timed(page, 0, () => page.click('#teach-open'));
    events = opened.events;
    read.push(opened.seconds);
    const far = await timed(page, AT, async () => {
      await page.fill('#teach-goto', String(AT));
      await page.press('#teach-goto', 'Enter');
    });
    if (far.line !== expected.at) throw new Error(`${preset}: the page says\n  ${far.line}\nheaplab explain says\n  ${expected.at}`);
    reach.push(far.seconds);
    const stepped = await timed(page, AT - 1, () => page.click('#teach-back'));
    if (stepped.line !== expected.before) throw new Error(`${preset}: back a step, the page says\n  ${stepped.line}\nheaplab explain says\n  ${expected.before}`);
    back.push(stepped.seconds);
    peak = Math.max(peak, await memory.stop(), await rendererBytes(profile));
    await page.close();
  }
  return { events, read, reach, back, peak };
}

const { profile, context } = await launchBench('heaplab-teach-bench');

try {
  const { size } = await stat(TRACE);
  const rows = [];
  for (const preset of PRESETS) {
    const lines = (await heaplab(['explain', '-w', TRACE, '-p', preset, '--from', String(AT - 1), '--to', String(AT)])).trim().split('\n');
    const expected = { before: lines[0], at: lines[1] };
    rows.push({ preset, ...(await rounds(context, profile, preset, expected)) });
  }
  const s = (x) => `${x.toFixed(2)} s`;
  const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `\nteaching mode in the page at event ${AT.toLocaleString('en')} of ${path.basename(TRACE)} ` +
      `(${rows[0].events.toLocaleString('en')} events, ${(size / 1e6).toFixed(0)} MB), medians of ${ROUNDS}; ` +
      'target: read and reach within 3 s, the tab under 500 MiB:\n',
  );
  console.log('| preset | open (read the trace) | reach the event | read + reach | one step back | tab at most | met |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const total = median(r.read.map((x, i) => x + r.reach[i]));
    const met = total <= 3 && r.peak < 500 * 2 ** 20 ? 'yes' : 'no';
    console.log(`| ${r.preset} | ${s(median(r.read))} | ${s(median(r.reach))} | ${s(total)} | ${s(median(r.back))} | ${mib(r.peak)} | ${met} |`);
    reportRow({
      area: 'teaching',
      figure: `the page at event ${AT.toLocaleString('en')} of ${path.basename(TRACE)} (${eventCount(r.events)}), ${r.preset}: read + reach (one step back; the tab at most)`,
      median: `${s(total)} (${s(median(r.back))}; ${mib(r.peak)})`,
      target: 'within 3 s, the tab under 500 MiB',
      met: met === 'yes',
    });
  }
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
