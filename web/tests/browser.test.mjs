// End-to-end test of the heaplab page in headless Chromium.
//
// Run by `cargo xtask test`, which serves web/ and sets:
//   HEAPLAB_URL  the page, e.g. http://127.0.0.1:PORT/
//   HEAPLAB_BIN  the absolute path of the `heaplab` CLI, whose reports the page's
//                must equal exactly, since both run the same core on the same config.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';

const PAGE_URL = requiredEnv('HEAPLAB_URL');
const HEAPLAB_BIN = requiredEnv('HEAPLAB_BIN');
const CHROMIUM = '/usr/bin/chromium';
const RESULTS_DIR = fileURLToPath(new URL('../test-results/', import.meta.url));
// Runs are small, but the machine is shared and noisy; a generous bound only matters
// when something is genuinely stuck.
const RUN_TIMEOUT_MS = 60_000;

const run = promisify(execFile);

function requiredEnv(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set; run this test through \`cargo xtask test\``);
  }
  return value;
}

let context;
let scratch;
// Console errors and uncaught exceptions seen while the page did only valid things;
// the last test asserts there were none.
const normalRunProblems = [];

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'heaplab-browser-'));
  await mkdir(RESULTS_DIR, { recursive: true });
  // A fresh profile per run keeps caches and stored state from earlier runs, or from
  // a developer's own browsing, out of the test.
  context = await chromium.launchPersistentContext(path.join(scratch, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1100 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Opens the page (with an optional hash) and waits until it has finished starting. */
async function openPage(hash = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('worker', (worker) => {
    worker.on('console', (message) => {
      if (message.type() === 'error') problems.push(`worker console error: ${message.text()}`);
    });
  });
  await page.goto(PAGE_URL + hash);
  await page.waitForFunction(() => document.body.dataset.state !== 'loading');
  return { page, problems };
}

/** Clicks Run and returns the state the page settles in, "done" or "error". */
async function clickRun(page) {
  // Overwriting the state first means a "done" left over from an earlier run cannot
  // satisfy the wait below; the page sets "running" as soon as Run is clicked.
  await page.evaluate(() => {
    document.body.dataset.state = 'before-click';
  });
  await page.click('#run');
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.body.dataset.state),
    null,
    { timeout: RUN_TIMEOUT_MS },
  );
  return page.evaluate(() => document.body.dataset.state);
}

async function results(page) {
  return page.evaluate(() => ({
    reports: window.heaplabResults,
    configs: window.heaplabConfigs,
  }));
}

async function errorText(page) {
  return (await page.textContent('#error')).trim();
}

/** The numeric top-level fields of a report: the summary both front ends must agree on. */
function summaryFields(report) {
  return Object.fromEntries(Object.entries(report).filter(([, value]) => typeof value === 'number'));
}

async function heaplabJson(args) {
  const { stdout } = await run(HEAPLAB_BIN, args, { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/** Reads every RGBA colour on the chart canvas and returns how many distinct ones there are. */
async function chartColourCount(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('chart');
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    const view = new Uint32Array(pixels.buffer);
    for (const pixel of view) colours.add(pixel);
    return colours.size;
  });
}

describe('heaplab page', () => {
  it('matches the CLI for one policy on churn', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'churn');
    await page.fill('.workload [data-param="seed"]', '7');
    await page.fill('.workload [data-param="scale"]', '0.05');
    await page.selectOption('.policy select.family', 'size-class');
    await page.fill('.policy [data-param="page_size"]', '32768');
    await page.selectOption('.policy [data-param="empty_pages"]', 'decommit');

    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(reports.length, 1);
    assert.equal(configs.length, 1);
    assert.equal(configs[0].workload.id, 'churn');
    assert.equal(configs[0].workload.params.seed, 7);
    assert.equal(configs[0].workload.params.scale, 0.05);
    assert.equal(configs[0].policy.family, 'size-class');
    assert.equal(configs[0].policy.params.page_size, 32768);
    assert.equal(configs[0].policy.params.empty_pages, 'decommit');
    assert.ok(reports[0].events > 0, 'the run replayed no events');

    // The config the page ran, replayed by the CLI, must give the identical report.
    const configFile = path.join(scratch, 'churn-config.json');
    await writeFile(configFile, JSON.stringify(configs[0], null, 2));
    const fromConfig = await heaplabJson(['run', '--config', configFile, '--json']);
    assert.deepEqual(fromConfig, reports);

    // The same run spelled as flags checks that the page's form means what the CLI's
    // flags mean; the resolved configs may differ in presentation, the numbers not.
    const flags = [
      'run',
      '--workload', 'churn',
      '--seed', '7',
      '--scale', '0.05',
      '--policy', 'size-class',
      '--set', 'page_size=32768',
      '--set', 'empty_pages=decommit',
      '--provider', configs[0].provider.kind,
      '--page-size', String(configs[0].provider.page_size),
      '--json',
    ];
    const fromFlags = await heaplabJson(flags);
    assert.equal(fromFlags.length, 1);
    assert.deepEqual(summaryFields(fromFlags[0]), summaryFields(reports[0]));

    const rows = await page.locator('#summary tbody tr').count();
    assert.ok(rows >= 10, `the summary table has only ${rows} rows`);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'churn-size-class.png'), fullPage: true });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('runs a preset with an override exactly as the CLI does', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'medium');
    await page.fill('.workload [data-param="scale"]', '0.005');
    await page.selectOption('.policy select.family', 'preset:glibc-like');
    // The preset's own values fill the editor.
    assert.equal(await page.isChecked('.policy [data-param="dynamic_mmap_threshold"]'), true);
    await page.fill('.policy [data-param="trim_threshold"]', '1048576');

    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(reports[0].config.policy.preset, 'glibc-like');
    assert.equal(reports[0].config.policy.family, 'free-list');
    assert.equal(reports[0].config.policy.params.trim_threshold, 1048576);
    const fromFlags = await heaplabJson([
      'run', '--workload', 'medium', '--scale', '0.005',
      '--policy', 'glibc-like', '--set', 'trim_threshold=1MiB', '--json',
    ]);
    assert.deepEqual(fromFlags, reports);
    // Reloading the link brings the preset back, not just its family.
    const reopened = await openPage(new URL(page.url()).hash);
    assert.equal(await reopened.page.inputValue('.policy select.family'), 'preset:glibc-like');
    assert.equal(configs.length, 1);
    normalRunProblems.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('compares two policies on tree_churn and draws them', async () => {
    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'tree_churn');
    await page.fill('.workload [data-param="scale"]', '0.05');
    await page.selectOption('.policy select.family', 'size-class');
    await page.click('#add-policy');
    const families = await page.$$eval('.policy select.family', (selects) => selects.map((s) => s.value));
    assert.equal(families.length, 2);
    assert.notEqual(families[0], families[1], 'a new policy card should offer a different family');

    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(reports.length, 2);
    assert.deepEqual(
      configs.map((config) => config.policy.family),
      families,
    );
    for (const [index, report] of reports.entries()) {
      assert.equal(report.config.policy.family, families[index]);
      assert.equal(report.config.workload.id, 'tree_churn');
    }
    assert.equal(await page.locator('#summary thead th').count(), 3);

    const colours = await chartColourCount(page);
    assert.ok(colours > 1, `the chart canvas is blank (${colours} colour)`);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'tree_churn-two-policies.png'), fullPage: true });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('reports bad parameters by name and recovers', async () => {
    const { page } = await openPage();
    await page.selectOption('#workload', 'churn');
    await page.fill('.workload [data-param="scale"]', '0.05');
    await page.selectOption('.policy select.family', 'size-class');
    const pageSize = page.locator('.policy [data-param="page_size"]');

    // Refused by the form itself, before anything reaches the worker.
    await pageSize.fill('-4096');
    // The hint under the field says the value is refused, and reads no size into it.
    const hint = page.locator('.policy label:has([data-param="page_size"]) .hint');
    assert.match(await hint.textContent(), /^not allowed: must be at least 4096 \(4 KiB\)$/);
    assert.equal(await clickRun(page), 'error');
    assert.ok(await page.isVisible('#error'), 'the error message is not visible');
    assert.match(await errorText(page), /page_size/);
    assert.equal(await pageSize.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'bad-parameter.png'), fullPage: true });

    await pageSize.fill('');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /page_size/);

    // Each value is fine on its own, but the core refuses an allocator page smaller
    // than the OS page: this error comes back from the wasm module through the worker.
    await pageSize.fill('4096');
    assert.match(await hint.textContent(), /^= 4 KiB/);

    // Where 0 stands for a size worked out from other knobs, the hint says so, not "0 B".
    const commit = page.locator('.policy [data-param="commit_granularity"]');
    const commitHint = page.locator('.policy label:has([data-param="commit_granularity"]) .hint');
    assert.equal(await commitHint.textContent(), '= one page');
    await commit.fill('65536');
    assert.equal(await commitHint.textContent(), '= 64 KiB');
    await commit.fill('0');
    assert.equal(await commitHint.textContent(), '= one page');
    await page.selectOption('#page-size', '65536');
    assert.equal(await clickRun(page), 'error');
    assert.ok(await page.isVisible('#error'), 'the error message is not visible');
    assert.match(await errorText(page), /Policy 1 \(size-class\).*page_size/);
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);

    await page.selectOption('#page-size', '4096');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal(await page.isVisible('#error'), false, 'a stale error is still shown');
    const { reports } = await results(page);
    assert.equal(reports.length, 1);
    assert.equal(reports[0].config.policy.params.page_size, 4096);
    await page.close();
  });

  it('survives a broken link and stays usable', async () => {
    const { page } = await openPage('#c=%7Bnot-json');
    assert.ok(await page.isVisible('#error'), 'a broken link should be reported');
    assert.match(await errorText(page), /link/);
    assert.ok((await page.locator('#workload option').count()) > 0, 'the form was not built');

    await page.fill('.workload [data-param="scale"]', '0.05');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal(await page.isVisible('#error'), false);
    await page.close();
  });

  it('reproduces a run from its link', async () => {
    const first = await openPage();
    await first.page.selectOption('#workload', 'churn');
    await first.page.fill('.workload [data-param="seed"]', '11');
    await first.page.fill('.workload [data-param="scale"]', '0.05');
    await first.page.click('#add-policy');
    assert.equal(await clickRun(first.page), 'done', await errorText(first.page));
    const original = await results(first.page);
    const link = first.page.url();
    assert.match(link, /#c=/);
    normalRunProblems.push(...first.problems);
    await first.page.close();

    const second = await openPage(new URL(link).hash);
    assert.equal(await second.page.isVisible('#error'), false, await errorText(second.page));
    assert.equal(await clickRun(second.page), 'done', await errorText(second.page));
    assert.deepEqual(await results(second.page), original);
    normalRunProblems.push(...second.problems);
    await second.page.close();
  });

  it('runs an uploaded gzip trace exactly as the CLI runs that file', async () => {
    // Phases, arenas and a realloc, gzip'd: the page must sniff and inflate it in wasm.
    const text = [
      '# a small program',
      'p start',
      'a 1 100',
      'a 2 5000',
      'arena 1',
      'a 3 64 arena=1',
      'a 4 4000 arena=1',
      'r 1 300',
      'p middle',
      'f 2',
      'reset 1',
      'a 5 70000',
      'p end',
      'f 5',
      'f 1',
      '',
    ].join('\n');
    const file = path.join(scratch, 'small.trace.gz');
    await writeFile(file, gzipSync(Buffer.from(text)));

    const { page, problems } = await openPage();
    await page.selectOption('#workload', 'trace');
    assert.ok(await page.isVisible('#trace-file'), 'the trace file input is not shown');
    await page.setInputFiles('#trace-file', file);
    await page.selectOption('.policy select.family', 'size-class');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(configs[0].workload.id, 'trace');
    assert.equal(configs[0].workload.path, 'small.trace.gz');
    assert.equal(reports[0].trace.format, 'trace');
    assert.equal(reports[0].trace.gzip, true);
    assert.equal(reports[0].events, 14);

    const cli = await heaplabJson(['run', '--workload', file, '--policy', 'size-class', '--json']);
    assert.equal(cli.length, 1);
    assert.deepEqual(summaryFields(reports[0]), summaryFields(cli[0]));
    assert.deepEqual(reports[0].phases, cli[0].phases);
    assert.deepEqual(reports[0].trace, cli[0].trace);

    // The link keeps the settings but cannot carry the file, and the page says so.
    assert.ok(await page.isVisible('#link-note'), 'no note about the link');
    assert.match(await page.textContent('#link-note'), /small\.trace\.gz.*not the file/);
    assert.match(await page.textContent('#status'), /heaplab \.trace, gzip/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'trace-file.png'), fullPage: true });
    const reopened = await openPage(new URL(page.url()).hash);
    assert.equal(await reopened.page.inputValue('#workload'), 'trace');
    assert.match(await reopened.page.textContent('#link-note'), /small\.trace\.gz.*load it/);
    normalRunProblems.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('names file and line of a bad trace, and skips it when lenient', async () => {
    const file = path.join(scratch, 'bad.rep');
    await writeFile(file, '20000\n2\n6\n1\na 0 16\nf 0\nf 0\nq 1\na 1 32\nf 1\n');
    const { page } = await openPage();
    await page.selectOption('#workload', 'trace');
    // Running without a file is refused by the form.
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /choose a trace file/);

    await page.setInputFiles('#trace-file', file);
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /bad\.rep:7: double free of id 0 \(freed at line 6\)/);
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'bad-trace.png') });

    await page.check('#lenient');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports } = await results(page);
    const cli = await heaplabJson(['run', '--workload', file, '--policy', reports[0].config.policy.family, '--lenient', '--json']);
    assert.deepEqual(reports[0].skipped, { unknown_op: 1, double_free: 1 });
    assert.deepEqual(reports[0].skipped, cli[0].skipped);
    assert.deepEqual(summaryFields(reports[0]), summaryFields(cli[0]));
    assert.match(await page.textContent('#status'), /Skipped 2: 1 unknown_op, 1 double_free/);
    await page.close();
  });

  it('runs a seed scenario from its link exactly as `heaplab scenario` does', async () => {
    const { page, problems } = await openPage('#s=share-small-large');
    // The link runs the scenario once the page is ready.
    await page.waitForFunction(
      () => ['done', 'error'].includes(document.body.dataset.state) && window.heaplabScenario !== undefined,
      null,
      { timeout: RUN_TIMEOUT_MS },
    );
    const scenario = await page.evaluate(() => window.heaplabScenario);
    const cli = await heaplabJson(['scenario', 'share-small-large', '--json']);
    assert.deepEqual(scenario, cli);
    assert.equal(scenario.finding.holds, true);
    // Every claim is listed with its verdict.
    const claims = await page.locator('#finding-checks li').allTextContents();
    assert.equal(claims.length, cli.finding.checks.length);
    assert.ok(claims.every((claim) => claim.startsWith('✓')), claims.join('\n'));
    // Two workloads: the table follows the one chosen.
    await page.selectOption('#scenario-workload', '1');
    const events = await page.locator('#summary tbody tr', { hasText: 'Events' }).first().textContent();
    assert.match(events, /3,238/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'scenario-share-small-large.png'), fullPage: true });

    // Opening it in the editor loads the chosen workload and both configurations.
    await page.click('#edit-scenario');
    assert.equal(await page.inputValue('#workload'), 'big');
    assert.equal(await page.locator('.policy').count(), 2);
    assert.equal(await page.isChecked('.policy:nth-of-type(2) [data-param="share_small_large"]'), false);
    assert.match(page.url(), /#c=/);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('names an unknown scenario in a link and lists the real ones', async () => {
    const { page } = await openPage('#s=no-such-scenario');
    assert.match(await errorText(page), /no scenario "no-such-scenario".*jit-arenas/);
    // The page stays usable: a scenario picked from the menu runs.
    await page.selectOption('#scenario', 'short-strings');
    await page.evaluate(() => {
      document.body.dataset.state = 'before-click';
    });
    await page.click('#run-scenario');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, {
      timeout: RUN_TIMEOUT_MS,
    });
    assert.equal(await page.evaluate(() => window.heaplabScenario.id), 'short-strings');
    await page.close();
  });

  it('logged no console errors during valid runs', () => {
    assert.deepEqual(normalRunProblems, []);
  });
});
