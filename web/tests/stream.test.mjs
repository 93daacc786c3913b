// A large trace streamed through the page: the page's reports equal `heaplab run --json`
// on the same file, the tab's memory stays flat, progress is by bytes, teaching mode
// opens at its middle event as `heaplab explain` says it, a bad line is named, and a
// file over the page's limits is refused before it is read.
//
// Run by `cargo xtask test` beside browser.test.mjs, with the same HEAPLAB_URL and
// HEAPLAB_BIN. The trace has ten million events (about 120 MB of text), as the page must
// take, in every run: a page that held the file whole would pass the memory bound below
// only with a smaller trace. HEAPLAB_STREAM_EVENTS sets another count for a quick look.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { rendererBytes as tabBytes, watchMemory as watchTab } from './memory.mjs';
import { HEAPLAB_BIN, RESULTS_DIR, clickRun as click, errorText, openPage as open, run, scratch, useBrowser } from './support.mjs';

useBrowser();

const EVENTS = Number(process.env.HEAPLAB_STREAM_EVENTS ?? 10_000_000);
// The tab may hold this much at most while it streams the trace: the file is over 100 MB
// at ten million events, so a page that read it whole would pass this several times over
// (a copy as bytes, one in each worker).
const MAX_TAB_BYTES = 500 * 1024 * 1024;
// Ten million events take the page tens of seconds on this shared 2-core machine.
const RUN_TIMEOUT_MS = 300_000;

/** The page at 1280x800, once the run of its defaults is over; a crashed tab is a problem. */
async function openPage() {
  const opened = await open();
  await opened.page.setViewportSize({ width: 1280, height: 800 });
  opened.page.on('crash', () => opened.problems.push('the tab crashed'));
  await opened.page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 60_000 });
  return opened;
}

const clickRun = (page) => click(page, RUN_TIMEOUT_MS);

/**
 * Writes a program of `events` events: up to ten thousand blocks live, each allocation
 * beside a free of a random live block once that many are live, a realloc in sixteen,
 * sizes 8 B to 1 KiB with one in 64 up to 64 KiB. Seeded, so every run writes the same.
 */
async function writeProgram(file, events) {
  const out = createWriteStream(file);
  let seed = 0x9e3779b9;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed;
  };
  const live = [];
  let id = 0;
  let written = 0;
  let text = '';
  const line = (l) => {
    text += l;
    written += 1;
  };
  while (written < events) {
    // The high bits: an LCG's low bits repeat with short periods.
    const r = next() >>> 8;
    if (live.length >= 10_000 || (live.length > 0 && r % 3 === 0)) {
      const at = (next() >>> 8) % live.length;
      const victim = live[at];
      live[at] = live[live.length - 1];
      live.pop();
      line(`f ${victim}\n`);
    } else if (live.length > 0 && r % 16 === 1) {
      line(`r ${live[(next() >>> 8) % live.length]} ${8 + ((next() >>> 8) % 1017)}\n`);
    } else {
      const size = r % 64 === 5 ? 1024 + ((next() >>> 8) % 64512) : 8 + ((next() >>> 8) % 1017);
      line(`a ${id} ${size}\n`);
      live.push(id);
      id += 1;
    }
    if (text.length > 1 << 20) {
      if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
      text = '';
    }
  }
  out.end(text);
  await new Promise((resolve, reject) => out.on('finish', resolve).on('error', reject));
}

const profileDir = () => path.join(scratch, 'profile');
const rendererBytes = () => tabBytes(profileDir());
const watchMemory = () => watchTab(profileDir());

const summaryFields = (report) => Object.fromEntries(Object.entries(report).filter(([, value]) => typeof value === 'number'));

describe(`a trace of ${EVENTS.toLocaleString('en')} events streamed through the page`, () => {
  it('runs to the CLI numbers with the tab under 500 MB and progress by bytes', async () => {
    const file = path.join(scratch, 'large.trace');
    await writeProgram(file, EVENTS);
    const size = (await stat(file)).size;
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'trace');
    await page.setInputFiles('#trace-file', file);
    await page.selectOption('.policy select.family', 'size-class');
    // The progress bar moves by bytes read while the run goes on.
    const seen = page.evaluate(
      () =>
        new Promise((resolve) => {
          const shares = new Set();
          const timer = setInterval(() => {
            shares.add(document.getElementById('progress').value);
            if (['done', 'error'].includes(document.body.dataset.state)) {
              clearInterval(timer);
              resolve({ shares: [...shares], status: document.getElementById('status').textContent });
            }
          }, 50);
          window.heaplabStatusSeen = [];
          new MutationObserver(() => window.heaplabStatusSeen.push(document.getElementById('status').textContent)).observe(document.getElementById('status'), { childList: true, subtree: true, characterData: true });
        }),
    );
    const before = await rendererBytes();
    const memory = watchMemory();
    const started = Date.now();
    const running = clickRun(page);
    // Half-way through, as a person would see it: the bar and the bytes read.
    await page.waitForFunction(() => (document.body.dataset.state === 'running' && document.getElementById('progress').value >= 0.5) || document.body.dataset.state === 'done', null, { timeout: RUN_TIMEOUT_MS, polling: 50 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'stream-running.png') });
    const state = await running;
    const pageMs = Date.now() - started;
    const peak = await memory.stop();
    assert.equal(state, 'done', await errorText(page));
    await seen;
    const statuses = await page.evaluate(() => window.heaplabStatusSeen);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'stream-large-trace.png') });

    const { reports, configs } = await page.evaluate(() => ({ reports: window.heaplabResults, configs: window.heaplabConfigs }));
    assert.equal(reports[0].events, EVENTS);
    const cliStarted = Date.now();
    const config = path.join(scratch, 'configs.json');
    await writeFile(config, JSON.stringify(configs.map((c) => ({ ...c, workload: { ...c.workload, path: file } }))));
    const { stdout } = await run(HEAPLAB_BIN, ['run', '--config', config, '--json'], { maxBuffer: 64 << 20 });
    const cliMs = Date.now() - cliStarted;
    const cli = JSON.parse(stdout);
    assert.equal(cli.length, reports.length);
    for (const [index, report] of reports.entries()) {
      assert.deepEqual(summaryFields(report), summaryFields(cli[index]), `configuration ${index + 1}`);
      assert.deepEqual(report.trace, cli[index].trace);
    }
    console.log(
      `# ${EVENTS} events, ${(size / 1e6).toFixed(1)} MB: page ${pageMs} ms (${((EVENTS / pageMs) * 1e3 / 1e6).toFixed(2)} M events/s), ` +
        `CLI ${cliMs} ms, the tab's renderer ${(before / 2 ** 20).toFixed(0)} MiB before, ${(peak / 2 ** 20).toFixed(0)} MiB at most`,
    );
    assert.ok(peak > 0, 'the renderer processes were not found');
    assert.ok(peak < MAX_TAB_BYTES, `the tab held ${(peak / 2 ** 20).toFixed(0)} MiB while streaming`);
    assert.ok(statuses.some((text) => /^Read [\d.]+ [KMG]iB of [\d.]+ [KMG]iB of the trace/.test(text)), `no progress by bytes in ${statuses.slice(0, 5)}`);

    // Teaching mode opens on the same file at its middle event, and back one step, as
    // `heaplab explain` says them, with the tab still under the bound: the run's events
    // are held a few bytes each, and a step back starts from a checkpoint.
    const middle = Math.floor(EVENTS / 2);
    const [beforeLine, middleLine] = (
      await run(HEAPLAB_BIN, ['explain', '-w', file, '-p', 'size-class', '--from', String(middle - 1), '--to', String(middle)], { maxBuffer: 1 << 20 })
    ).stdout.trim().split('\n');
    const teaching = watchMemory();
    await page.click('#teach-open');
    await page.waitForFunction((n) => window.heaplabTeach?.events === n && !window.heaplabTeach.busy, EVENTS, { timeout: RUN_TIMEOUT_MS });
    await page.fill('#teach-goto', String(middle));
    await page.press('#teach-goto', 'Enter');
    await page.waitForFunction((k) => window.heaplabTeach.event === k && !window.heaplabTeach.busy, middle, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => window.heaplabTeach.line), middleLine);
    await page.click('#teach-back');
    await page.waitForFunction((k) => window.heaplabTeach.event === k && !window.heaplabTeach.busy, middle - 1, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => window.heaplabTeach.line), beforeLine);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'stream-teach-middle.png') });
    const teachingPeak = await teaching.stop();
    console.log(`# teaching mode at event ${middle} of ${EVENTS}: the tab's renderer ${(teachingPeak / 2 ** 20).toFixed(0)} MiB at most`);
    assert.ok(teachingPeak < MAX_TAB_BYTES, `the tab held ${(teachingPeak / 2 ** 20).toFixed(0)} MiB in teaching mode`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('hashes a file too large to read whole from the chunks its run reads, for the link', async () => {
    // Over the 192 KiB a page reads whole: the run is what reads it, once, and the link
    // names its size at once and its hash once it has run.
    const body = (size) => Array.from({ length: 40_000 }, (_, i) => `a ${i} ${size}\nf ${i}\n`).join('');
    const one = path.join(scratch, 'one');
    const two = path.join(scratch, 'two');
    await mkdir(one, { recursive: true });
    await mkdir(two, { recursive: true });
    await writeFile(path.join(one, 'hashed.trace'), body(16));
    // The same name and size, other bytes.
    await writeFile(path.join(two, 'hashed.trace'), body(32));
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'trace');
    await page.setInputFiles('#trace-file', path.join(one, 'hashed.trace'));
    await page.selectOption('.policy select.family', 'size-class');
    await page.locator('#link-note', { hasText: 'with its size and hash' }).waitFor();
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const link = await page.evaluate(() => window.heaplabLink);
    const { reports } = await page.evaluate(() => ({ reports: window.heaplabResults }));
    // The CLI runs the link on the very file, and refuses the other by its hash.
    const { stdout } = await run(HEAPLAB_BIN, ['run', '--link', link, '--json'], { cwd: one, maxBuffer: 64 << 20 });
    assert.deepEqual(JSON.parse(stdout).map(summaryFields), reports.map(summaryFields));
    await assert.rejects(run(HEAPLAB_BIN, ['run', '--link', link, '--json'], { cwd: two }), /not the file the link was made from/);

    // The link opened again with the other file: its size says nothing against it, its
    // run's hash does.
    const again = await open(new URL(link).hash);
    assert.match(await again.page.textContent('#link-note'), /hashed\.trace \(\d+ KiB\).*load it/);
    await again.page.setInputFiles('#trace-file', path.join(two, 'hashed.trace'));
    assert.equal(await again.page.locator('#link-note.warning').count(), 0, 'warned before the hash was known');
    assert.equal(await clickRun(again.page), 'done', await errorText(again.page));
    const note = again.page.locator('#link-note.warning');
    await note.waitFor();
    assert.match(await note.textContent(), /hashed\.trace is not the file this link ran: it has \d+ bytes, SHA-256 [0-9a-f]{12}…; the link's hashed\.trace had \d+ bytes, SHA-256 [0-9a-f]{12}…/);
    assert.deepEqual([...problems, ...again.problems], []);
    await again.page.close();
    await page.close();
  });

  it('names the line of a bad trace deep in a streamed file', async () => {
    const file = path.join(scratch, 'bad.trace');
    const good = Array.from({ length: 300_000 }, (_, i) => `a ${i} 16\nf ${i}\n`).join('');
    // The checker remembers at least the latest 65,536 deaths: a block freed twice
    // within them is named with the line of its first free.
    await writeFile(file, `${good}f 299999\n`);
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'trace');
    await page.setInputFiles('#trace-file', file);
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /bad\.trace:600001: double free of id 299999 \(freed at line 600000\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('refuses a trace over the page limit up front, naming the limit', async () => {
    const file = path.join(scratch, 'over.trace');
    await writeFile(file, Array.from({ length: 1000 }, (_, i) => `a ${i} 16\n`).join(''));
    const { page, problems } = await openPage();
    // The page's limits are the core's (2 GiB of text); a test lowers them rather than
    // writing gigabytes.
    await page.evaluate(() => {
      window.heaplabTraceLimits = { max_bytes: 4096, max_gzip_bytes: 1024 };
    });
    await page.selectOption('#workload', 'trace');
    await page.setInputFiles('#trace-file', file);
    await page.locator('#error', { hasText: 'limit' }).waitFor();
    assert.match(await errorText(page), /over\.trace is [\d.]+ KiB, over the page's limit of 4 KiB for a trace; run it with `heaplab run -w over\.trace`/);
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /over the page's limit of 4 KiB/);
    // Nothing of the file ran: the results shown are still those of the page's defaults.
    assert.equal(await page.evaluate(() => window.heaplabResults?.some((report) => report.trace !== undefined) ?? false), false);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
