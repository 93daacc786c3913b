// A recorded trace streamed through the page with three configurations, against the CLI
// running the same three on the same file: the page's time, the CLI's, their ratio, and
// the most the tab's renderer process held meanwhile.
//
//   HEAPLAB_URL=http://127.0.0.1:PORT/ HEAPLAB_BIN=target/release/heaplab \
//     node web/bench/stream.mjs FILE.trace
//
// The page's time runs from pressing Run to the results drawn; the CLI's is `heaplab run
// --config` of the page's own three configurations, as a whole process. Each figure is the
// median of ROUNDS (default 3), the page and the CLI taking turns round by round so that a
// change of load on this shared machine falls on both. Under `cargo xtask bench --long`
// (which records web/bench/churn-dicts.py for it) the two verdicts go into its report.

import { execFile } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

import { rendererBytes, watchMemory } from '../tests/memory.mjs';
import { launchBench } from './browser.mjs';
import { events as eventCount, reportRow } from './rows.mjs';

const PAGE_URL = process.env.HEAPLAB_URL;
const HEAPLAB_BIN = process.env.HEAPLAB_BIN;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FILE = process.argv[2];
if (!PAGE_URL || !HEAPLAB_BIN || !FILE) {
  console.error('usage: HEAPLAB_URL=… HEAPLAB_BIN=… node web/bench/stream.mjs FILE.trace');
  process.exit(2);
}
const PRESETS = (process.env.PRESETS ?? 'glibc-like,mimalloc-like,jemalloc-like').split(',');
const run = promisify(execFile);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const { profile, context } = await launchBench('heaplab-stream');
const page = await context.newPage();
await page.goto(PAGE_URL);
await page.waitForFunction(() => document.body.dataset.state !== 'running' && document.body.dataset.state !== undefined, null, { timeout: 60_000 });
await page.selectOption('#workload', 'trace');
await page.setInputFiles('#trace-file', FILE);
while ((await page.locator('.policy').count()) < PRESETS.length) await page.click('#add-policy');
while ((await page.locator('.policy').count()) > PRESETS.length) await page.locator('.policy .remove-policy').last().click();
for (const [index, preset] of PRESETS.entries()) {
  await page.locator('.policy select.family').nth(index).selectOption(`preset:${preset}`);
}
const configs = await page.evaluate(() => window.heaplabConfigs ?? null);
const configFile = path.join(profile, 'configs.json');

const pageMs = [];
const cliMs = [];
let peak = 0;
let events = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const memory = watchMemory(profile);
  const started = Date.now();
  await page.click('#run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 600_000, polling: 50 });
  pageMs.push(Date.now() - started);
  peak = Math.max(peak, await memory.stop());
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== 'done') throw new Error(`the page's run ended in ${state}: ${await page.textContent('#status')}`);
  const ran = await page.evaluate(() => ({ configs: window.heaplabConfigs, reports: window.heaplabResults }));
  events = ran.reports[0].events;
  await writeFile(configFile, JSON.stringify((ran.configs ?? configs).map((c) => ({ ...c, workload: { ...c.workload, path: FILE } }))));
  const cliStarted = Date.now();
  await run(HEAPLAB_BIN, ['run', '--config', configFile, '--json'], { maxBuffer: 256 << 20 });
  cliMs.push(Date.now() - cliStarted);
}
const size = (await stat(FILE)).size;
const [p, c] = [median(pageMs), median(cliMs)];
console.log(`\n${path.basename(FILE)}: ${events.toLocaleString('en')} events, ${(size / 1e6).toFixed(1)} MB, ${PRESETS.join(', ')}; medians of ${ROUNDS}:\n`);
console.log('| figure | value | target | met |');
console.log('|---|---|---|---|');
console.log(`| the page, Run to results drawn | ${p} ms | | |`);
console.log(`| \`heaplab run --config\` of the same three (whole process) | ${c} ms | | |`);
console.log(`| page / CLI | ${(p / c).toFixed(2)}x | at most 1.5x | ${p / c <= 1.5 ? 'yes' : 'no'} |`);
console.log(`| the tab's renderer at most | ${(peak / 2 ** 20).toFixed(0)} MiB | under 500 MB | ${peak < 500e6 ? 'yes' : 'no'} |`);
console.log(`| the tab's renderer after | ${((await rendererBytes(profile)) / 2 ** 20).toFixed(0)} MiB | | |`);
const what = `${path.basename(FILE)} (${eventCount(events)}, ${(size / 1e6).toFixed(0)} MB) streamed with ${PRESETS.join(', ')}`;
reportRow({
  area: 'long runs',
  figure: `the page, Run to results drawn, against \`heaplab run --config\` of the same three: ${what} (page ms / CLI ms)`,
  median: `${(p / c).toFixed(2)}x (${p} / ${c} ms)`,
  target: 'at most 1.5x',
  met: p / c <= 1.5,
});
reportRow({
  area: 'long runs',
  figure: `the tab's renderer process at most, ${what}`,
  median: `${(peak / 2 ** 20).toFixed(0)} MiB`,
  target: 'under 500 MB',
  met: peak < 500e6,
});
await context.close();
await rm(profile, { recursive: true, force: true });
