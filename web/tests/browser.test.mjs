// End-to-end tests of the heaplab page in headless Chromium: the playground's runs, links,
// traces, scenarios, editor and sweeps against the CLI (the exports are export.test.mjs's). `support.mjs` has the
// browser and the helpers; `cargo xtask test` runs every `*.test.mjs` here.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import {
  HEAPLAB_BIN,
  ONE_CONFIG,
  PAGE_URL,
  RESULTS_DIR,
  RUN_TIMEOUT_MS,
  curveReach,
  clickRun,
  errorText,
  heaplabJson,
  heaplabText,
  openPage,
  ranOnOpen,
  results,
  run,
  scratch,
  settled,
  summaryFields,
  sweepFromForm,
  useBrowser,
  v1Link,
  v2Link,
} from './support.mjs';

useBrowser();

// Console errors and uncaught exceptions seen while the page did only valid things;
// the last test asserts there were none.
const normalRunProblems = [];

describe('heaplab page', () => {
  it('matches the CLI for one policy on churn', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
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
    const { page, problems } = await openPage(ONE_CONFIG);
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
    assert.equal(await ranOnOpen(reopened.page), 'done', await errorText(reopened.page));
    assert.deepEqual((await results(reopened.page)).reports, reports);
    assert.equal(configs.length, 1);
    normalRunProblems.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('compares two policies on tree_churn and draws them', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
    // The link runs when opened; the edits below are made on its results, as a person
    // sees them.
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
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

    // Each run's curve is drawn across the plot, not only its legend swatch.
    for (const index of [0, 1]) {
      const reach = await curveReach(page, index);
      assert.ok(reach > 0.5, `run ${index}'s curve spans ${(100 * reach).toFixed(0)}% of the chart's width`);
    }
    await page.screenshot({ path: path.join(RESULTS_DIR, 'tree_churn-two-policies.png'), fullPage: true });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('reports bad parameters by name and recovers', async () => {
    const { page } = await openPage(ONE_CONFIG);
    await page.selectOption('#workload', 'churn');
    await page.fill('.workload [data-param="scale"]', '0.05');
    await page.selectOption('.policy select.family', 'size-class');
    const pageSize = page.locator('.policy [data-param="page_size"]');

    // Refused by the form itself, before anything reaches the worker, in the words of
    // the core's parser, which `heaplab run --set` uses too.
    await pageSize.fill('-4096');
    // The hint under the field says the value is refused, and reads no size into it.
    const hint = page.locator('.policy label:has([data-param="page_size"]) .hint');
    assert.match(await hint.textContent(), /^not allowed: "-4096" is not a size in bytes/);
    assert.equal(await clickRun(page), 'error');
    assert.ok(await page.isVisible('#error'), 'the error message is not visible');
    assert.match(await errorText(page), /^Configuration A \(size-class\) › page_size: "-4096" is not a size in bytes/);
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
    // The size slider steps from 0, the OS page, straight to the least page taken.
    const pageSlider = page.locator('.policy label:has([data-param="page_size"]) input.pow2');
    await pageSlider.fill('0');
    assert.equal(await hint.textContent(), '= the OS page');
    await pageSlider.fill('1');
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
    assert.match(await errorText(page), /^Configuration A \(size-class\): .*page_size/);
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
    const { page, problems } = await openPage('#c=%7Bnot-json');
    assert.ok(await page.isVisible('#error'), 'a broken link should be reported');
    assert.match(await errorText(page), /^link: the configuration in this link is not JSON/);
    assert.ok((await page.locator('#workload option').count()) > 0, 'the form was not built');
    // A message on the page, never an exception or a console error.
    assert.deepEqual(problems, []);

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
    assert.match(link, /#2\.[A-Za-z0-9_-]+$/);

    // Reloading the page at its own address brings the same form back.
    await first.page.reload({ waitUntil: 'domcontentloaded', timeout: RUN_TIMEOUT_MS });
    await first.page.waitForFunction(() => document.body.dataset.state !== 'loading', null, {
      timeout: RUN_TIMEOUT_MS,
    });
    assert.equal(first.page.url(), link);
    // The link runs by itself; Run is not pressed.
    assert.equal(await ranOnOpen(first.page), 'done', await errorText(first.page));
    assert.equal(await first.page.isVisible('#error'), false, await errorText(first.page));
    assert.deepEqual(await results(first.page), original);
    normalRunProblems.push(...first.problems);
    await first.page.close();

    const second = await openPage(link);
    assert.equal(await ranOnOpen(second.page), 'done', await errorText(second.page));
    assert.equal(await second.page.isVisible('#error'), false, await errorText(second.page));
    assert.deepEqual(await results(second.page), original);
    // Opening the link left its address as it was.
    assert.equal(second.page.url(), link);
    // The CLI reads the page's link as the page does.
    const cli = await heaplabJson(['run', '--link', link, '--json']);
    assert.deepEqual(cli, original.reports);
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

    // A gzip file is not text, so the link names it (with its size and hash) but cannot
    // carry it, and the page says so.
    assert.ok(await page.isVisible('#link-note'), 'no note about the link');
    assert.match(await page.textContent('#link-note'), /small\.trace\.gz.*not the file/);
    assert.match(await page.textContent('#status'), /heaplab \.trace, gzip/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'trace-file.png'), fullPage: true });
    const reopened = await openPage(new URL(page.url()).hash);
    assert.equal(await reopened.page.inputValue('#workload'), 'trace');
    assert.match(await reopened.page.textContent('#link-note'), /small\.trace\.gz.*load it/);
    // Running without the file asks for that file by name.
    assert.equal(await clickRun(reopened.page), 'error');
    assert.match(await errorText(reopened.page), /load small\.trace\.gz/);

    // Another file than the one the link ran: the page warns, and says how they differ.
    const other = path.join(scratch, 'other.trace');
    await writeFile(other, 'a 1 64\nf 1\n');
    await reopened.page.setInputFiles('#trace-file', other);
    // It warns by size at once and adds the file's hash when hashing ends, so the test
    // waits for the second form rather than reading whichever is there.
    const note = reopened.page.locator('#link-note.warning');
    await note.waitFor();
    assert.match(await note.textContent(), /other\.trace is not the file this link ran: it has 11 bytes/);
    await reopened.page.waitForFunction(() => /SHA-256/.test(document.querySelector('#link-note.warning')?.textContent ?? ''));
    assert.match(await note.textContent(), /other\.trace is not the file this link ran: it has 11 bytes, SHA-256 [0-9a-f]{12}…; the link's small\.trace\.gz had \d+ bytes/);
    // The very file clears the warning, whatever its name.
    await reopened.page.setInputFiles('#trace-file', file);
    await reopened.page.locator('#link-note:not(.warning)').waitFor();
    assert.equal(await clickRun(reopened.page), 'done', await errorText(reopened.page));
    assert.deepEqual(await results(reopened.page), { reports, configs });
    normalRunProblems.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('carries a small text trace in its link, so the link alone reruns it', async () => {
    const text = ['p start', 'a 1 100', 'a 2 3000', 'r 1 900', 'p end', 'f 2', 'f 1', ''].join('\n');
    const file = path.join(scratch, 'tiny.trace');
    await writeFile(file, text);

    const first = await openPage(ONE_CONFIG);
    await first.page.selectOption('#workload', 'trace');
    await first.page.setInputFiles('#trace-file', file);
    await first.page.locator('#link-note', { hasText: 'carries tiny.trace itself' }).waitFor();
    assert.equal(await clickRun(first.page), 'done', await errorText(first.page));
    const original = await results(first.page);
    const link = first.page.url();
    normalRunProblems.push(...first.problems);
    await first.page.close();

    // No file is chosen here: the link holds the trace's text.
    const second = await openPage(link);
    assert.equal(await second.page.inputValue('#workload'), 'trace');
    assert.match(await second.page.textContent('#link-note'), /carries the trace tiny\.trace/);
    // The link holds all it runs, so it runs when opened.
    assert.equal(await ranOnOpen(second.page), 'done', await errorText(second.page));
    assert.deepEqual(await results(second.page), original);
    // The CLI reads the trace out of the page's link, and the page out of the CLI's.
    assert.deepEqual(await heaplabJson(['run', '--link', link, '--json']), original.reports);
    const family = original.configs[0].policy.family;
    const cliLink = (await heaplabText(['link', '--base-url', PAGE_URL, '-w', file, '-p', family])).trim();
    const third = await openPage(cliLink);
    assert.match(await third.page.textContent('#link-note'), /carries the trace tiny\.trace/);
    assert.equal(await ranOnOpen(third.page), 'done', await errorText(third.page));
    assert.deepEqual((await results(third.page)).reports, original.reports);
    normalRunProblems.push(...second.problems, ...third.problems);
    await third.page.close();
    await second.page.close();
  });

  it('carries a text trace over 64 KiB that deflates small, and names one that does not', async () => {
    // 140 KiB of text that deflates to a few KiB travels in the link.
    const lines = [];
    for (let i = 0; i < 7000; i += 1) lines.push(`a ${i} ${16 + (i % 5) * 8}`, `f ${i}`);
    const file = path.join(scratch, 'long.trace');
    await writeFile(file, `${lines.join('\n')}\n`);
    const first = await openPage(ONE_CONFIG);
    await first.page.selectOption('#workload', 'trace');
    await first.page.setInputFiles('#trace-file', file);
    await first.page.locator('#link-note', { hasText: 'carries long.trace itself' }).waitFor();
    assert.equal(await clickRun(first.page), 'done', await errorText(first.page));
    const original = await results(first.page);
    const second = await openPage(first.page.url());
    assert.equal(await ranOnOpen(second.page), 'done', await errorText(second.page));
    assert.deepEqual(await results(second.page), original);
    // The CLI makes the same choice for the same file.
    const cliLink = (await heaplabText(['link', '--base-url', PAGE_URL, '-w', file, '-p', 'bump'])).trim();
    const [fromLink] = await heaplabJson(['run', '--link', cliLink, '--json']);
    const [fromFile] = await heaplabJson(['run', '-w', file, '-p', 'bump', '--json']);
    assert.equal(fromLink.config.workload.path, 'long.trace', 'the CLI carried the text, not a path');
    assert.deepEqual(summaryFields(fromLink), summaryFields(fromFile));
    normalRunProblems.push(...first.problems, ...second.problems);
    await second.page.close();

    // Noise that deflates to more than 64 KiB is named by size and hash instead.
    let x = 1n;
    const noisy = [];
    for (let i = 0; i < 12000; i += 1) {
      x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      noisy.push(`a ${i} ${Number(x >> 40n)}`);
    }
    const big = path.join(scratch, 'noisy.trace');
    await writeFile(big, `${noisy.join('\n')}\n`);
    await first.page.setInputFiles('#trace-file', big);
    await first.page.locator('#link-note', { hasText: 'keeps the settings and the name noisy.trace with its size and hash' }).waitFor();
    await first.page.close();
  });

  it('opens a CLI link naming a gzip trace, and runs the file loaded for it as the CLI does', async () => {
    const text = ['a 1 4000', 'a 2 70000', 'f 1', 'a 3 100', 'f 2', 'f 3', ''].join('\n');
    const file = path.join(scratch, 'named.trace.gz');
    await writeFile(file, gzipSync(Buffer.from(text)));
    const link = (await heaplabText(['link', '--base-url', PAGE_URL, '-w', file, '-p', 'free-list'])).trim();

    const { page, problems } = await openPage(link);
    assert.equal(await page.isVisible('#error'), false, await errorText(page));
    assert.match(await page.textContent('#link-note'), /named\.trace\.gz \(\d+ B\).*load it/);
    await page.setInputFiles('#trace-file', file);
    await page.locator('#link-note', { hasText: 'not the file' }).waitFor();
    assert.equal(await page.locator('#link-note.warning').count(), 0, 'the very file was warned about');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    // `run --link` reads a named trace from the current folder.
    const { stdout } = await run(HEAPLAB_BIN, ['run', '--link', link, '--json'], { cwd: scratch });
    assert.deepEqual((await results(page)).reports, JSON.parse(stdout));
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('runs a link to your own allocator that the CLI made, as the CLI runs it', async () => {
    const source = path.join(scratch, 'naive.c');
    const module = path.join(scratch, 'naive.wasm');
    await heaplabText(['mm', 'example', 'naive', '-o', source]);
    await heaplabText(['mm', 'build', source, '-o', module]);
    const link = (await heaplabText(['link', '--base-url', PAGE_URL, '-w', 'random', '-p', module])).trim();
    const { page, problems } = await openPage(link);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.deepEqual((await results(page)).reports, await heaplabJson(['run', '--link', link, '--json']));
    assert.deepEqual(problems, []);
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

  it('runs a trace file as soon as it is chosen, clearing what is stale, and again when lenient is ticked', async () => {
    // A newcomer's way through the README: the page opens on its defaults' results, Run
    // with "Trace file…" and no file yet, then a file chosen, then *lenient* ticked.
    const file = path.join(scratch, 'chosen.rep');
    await writeFile(file, '20000\n2\n6\n1\na 0 16\nf 0\nf 0\nq 1\na 1 32\nf 1\n');
    const { page, problems } = await openPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.ok(await page.isVisible('#chart'), 'the defaults drew no chart');
    await page.selectOption('#workload', 'trace');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /choose a trace file to run/);

    // Choosing the file runs it (auto-run is on): the message about the missing file
    // goes, and so does the chart of the workload before. A bad line of the trace is
    // the trace's, named by file and line whichever configuration read it.
    await page.evaluate(() => {
      document.body.dataset.state = 'before-choose';
    });
    await page.setInputFiles('#trace-file', file);
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await errorText(page), 'chosen.rep:7: double free of id 0 (freed at line 6)');
    assert.equal(await page.isVisible('#chart'), false, "the workload before's chart still shows under the trace");
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'trace-chosen-bad-line.png') });

    // Ticking lenient runs the trace again, skipping the bad lines.
    await page.evaluate(() => {
      document.body.dataset.state = 'before-lenient';
    });
    await page.check('#lenient');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.equal(await page.isVisible('#error'), false, 'a stale error is still shown');
    const { reports, configs } = await results(page);
    assert.equal(reports.length, 2);
    // Configuration B as it ran, through the CLI (from the folder of the file it names).
    await writeFile(path.join(scratch, 'chosen-b.json'), JSON.stringify(configs[1]));
    const { stdout } = await run(HEAPLAB_BIN, ['run', '--config', 'chosen-b.json', '--lenient', '--json'], { cwd: scratch });
    const cli = JSON.parse(stdout);
    assert.deepEqual(reports[1].skipped, cli[0].skipped);
    assert.deepEqual(summaryFields(reports[1]), summaryFields(cli[0]));
    // The status line, long now, is read whole: wrapped, not cut.
    const status = page.locator('#status');
    assert.match(await status.textContent(), /Skipped 2: 1 unknown_op, 1 double_free\.$/);
    const cut = await status.evaluate((element) => element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
    assert.equal(cut, false, 'the status line is cut off');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'trace-chosen-lenient.png') });

    // With auto-run off, another file waits for Run, and the page says so; the chart of
    // the file before is gone meanwhile.
    await page.uncheck('#auto-run');
    const other = path.join(scratch, 'chosen-next.trace');
    await writeFile(other, 'a 1 100\na 2 5000\nf 1\nf 2\n');
    await page.setInputFiles('#trace-file', other);
    await page.locator('#status', { hasText: 'chosen-next.trace is chosen: press Run' }).waitFor();
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done');
    assert.equal(await page.isVisible('#chart'), false);
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal((await results(page)).reports[0].events, 4);
    assert.ok(await page.isVisible('#chart'), 'the run drew no chart');
    assert.doesNotMatch(await page.locator('#status').textContent(), /no events/);

    // An empty trace runs, and the page says it holds no events, as `heaplab run` does.
    const empty = path.join(scratch, 'empty.trace');
    await writeFile(empty, '# a header and nothing else\n');
    await page.setInputFiles('#trace-file', empty);
    await page.locator('#status', { hasText: 'empty.trace is chosen: press Run' }).waitFor();
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal((await results(page)).reports[0].events, 0);
    assert.match(await page.locator('#status').textContent(), /empty\.trace holds no events: every figure is zero\./);
    const cliEmpty = await run(HEAPLAB_BIN, ['run', '-w', empty, '-p', 'glibc-like']);
    assert.match(cliEmpty.stderr, /holds no events: every figure is zero/);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('runs a seed scenario from its link exactly as `heaplab scenario` does', async () => {
    const { page, problems } = await openPage('#s=share-small-large');
    // The link runs the scenario once the page is ready.
    await settled(page);
    const scenario = await page.evaluate(() => window.heaplabScenario);
    const cli = await heaplabJson(['scenario', 'share-small-large', '--json']);
    assert.deepEqual(scenario, cli);
    // The finding is held to bounds written here, worked out from the runs' raw figures
    // (WebKit saw memory at end 2.4x to 22.7x smaller with sharing, peak about the same),
    // not to the verdict the code computes from its own thresholds.
    assert.equal(scenario.runs.length, 4);
    for (let i = 0; i < 4; i += 2) {
      const [shared, separate] = [scenario.runs[i], scenario.runs[i + 1]];
      const end = separate.end_resident_bytes / shared.end_resident_bytes;
      assert.ok(end >= 2, `memory at end ${end.toFixed(1)}x smaller with sharing`);
      const [a, b] = [shared.peak_resident_bytes, separate.peak_resident_bytes];
      assert.ok(Math.abs(a - b) / Math.max(a, b) <= 0.15, `peaks ${a} and ${b}`);
    }
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
    assert.match(page.url(), /#2\./);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('names an unknown scenario in a link and lists the real ones', async () => {
    const { page } = await openPage('#s=no-such-scenario');
    assert.match(await errorText(page), /^link: unknown scenario "no-such-scenario"; valid ones are: .*jit-arenas/);
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

  it('opens a version 1 link as the first page wrote them', async () => {
    // The page's first permalinks: `#c=` and the form's state as JSON. Links like this one
    // are out in the world and must keep opening.
    const link = v1Link({
      v: 1,
      workload: { id: 'churn', params: { seed: 11, scale: 0.05 } },
      provider: { kind: 'sim', page_size: 4096 },
      policies: [
        { family: 'size-class', params: { page_size: 32768, empty_pages: 'decommit' } },
        { family: 'free-list', preset: 'glibc-like', params: { trim_threshold: 1048576 } },
      ],
    });
    const { page, problems } = await openPage(link);
    assert.equal(await page.isVisible('#error'), false, await errorText(page));
    assert.equal(await page.inputValue('#workload'), 'churn');
    assert.equal(await page.inputValue('.workload [data-param="seed"]'), '11');
    assert.equal(await page.inputValue('.workload [data-param="scale"]'), '0.05');
    const families = await page.$$eval('.policy select.family', (selects) => selects.map((s) => s.value));
    assert.deepEqual(families, ['size-class', 'preset:glibc-like']);
    assert.equal(await page.inputValue('.policy:nth-of-type(1) [data-param="page_size"]'), '32768');
    assert.equal(await page.inputValue('.policy:nth-of-type(2) [data-param="trim_threshold"]'), '1048576');

    // The link runs when opened, as the CLI runs the same link.
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const { reports } = await results(page);
    assert.deepEqual(await heaplabJson(['run', '--link', PAGE_URL + link, '--json']), reports);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('opens and runs a version 1 scenario link', async () => {
    const { page, problems } = await openPage('#s=jit-arenas');
    await settled(page);
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.equal(await page.inputValue('#scenario'), 'jit-arenas');
    const scenario = await page.evaluate(() => window.heaplabScenario);
    assert.deepEqual(scenario, await heaplabJson(['scenario', 'jit-arenas', '--json']));
    assert.equal(await page.locator('#finding-checks li').count(), scenario.finding.checks.length);
    // The page now shows its own link to the scenario, which runs it again.
    const link = page.url();
    assert.match(link, /#2\.[A-Za-z0-9_-]+$/);
    const again = await openPage(link);
    await settled(again.page);
    assert.deepEqual(await again.page.evaluate(() => window.heaplabScenario), scenario);
    // A scenario link pasted into an open page runs that scenario.
    await again.page.evaluate(() => {
      delete window.heaplabScenario;
      window.location.hash = '#s=short-strings';
    });
    await settled(again.page);
    assert.equal(await again.page.evaluate(() => window.heaplabScenario.id), 'short-strings');
    normalRunProblems.push(...problems, ...again.problems);
    await again.page.close();
    await page.close();
  });

  it('names what is wrong with a broken link and shows the defaults', async () => {
    const cases = [
      ['#2.garbage', /^link: the payload is not base64url/],
      ['#2.AAAA', /^link: the payload does not inflate/],
      ['#9.x', /^link: version 9 is newer than this heaplab knows/],
      [
        v2Link({
          workload: { builtin: { id: 'churn' } },
          configs: [{ family: 'bump' }],
          provider: { kind: 'sim', page_size: 3 },
        }),
        /^link: page_size 3 is not 4096, 16384 or 65536/,
      ],
      [
        v2Link({ configs: [{ family: 'bump', params: { slab_size: 3 } }] }),
        /^link: configuration 1: slab_size: /,
      ],
    ];
    const defaults = await openPage();
    const defaultWorkload = await defaults.page.inputValue('#workload');
    const defaultFamily = await defaults.page.inputValue('.policy select.family');
    await defaults.page.close();
    for (const [link, message] of cases) {
      const { page, problems } = await openPage(link);
      assert.ok(await page.isVisible('#error'), `${link}: no error shown`);
      assert.match(await errorText(page), message, link);
      assert.match(await errorText(page), /shows its defaults/);
      assert.equal(await page.inputValue('#workload'), defaultWorkload);
      assert.equal(await page.inputValue('.policy select.family'), defaultFamily);
      assert.equal(await page.inputValue('#page-size'), '4096');
      assert.deepEqual(problems, [], `${link}: the page threw or logged an error`);
      await page.close();
    }

    // A broken link pasted into an open page is reported the same way, and the page keeps
    // its editor, its results and the address of what it shows.
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done');
    const before = await page.evaluate(() => ({ link: window.heaplabLink, results: window.heaplabResults, configs: window.heaplabConfigs }));
    await page.evaluate(() => {
      window.location.hash = '#9.x';
    });
    await page.waitForFunction(() => !document.getElementById('error').hidden);
    assert.match(await errorText(page), /^link: version 9.*The page keeps what it showed\.$/);
    const after = await page.evaluate(() => ({ link: window.location.href, results: window.heaplabResults, configs: window.heaplabConfigs }));
    assert.deepEqual(after, { ...before, link: before.link });
    assert.equal(await page.locator('.policy').count(), before.configs.length);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('opens a link the CLI made and gives the CLI\'s numbers', async () => {
    const args = ['-w', 'churn', '--scale', '0.01', '-p', 'glibc-like', '-p', 'size-class:page_size=16KiB'];
    const link = (await heaplabText(['link', '--base-url', PAGE_URL, ...args])).trim();
    assert.match(link, /^https?:\/\/[^#]+#2\.[A-Za-z0-9_-]+$/, `not a page link: ${link}`);

    const { page, problems } = await openPage(link);
    assert.equal(await page.isVisible('#error'), false, await errorText(page));
    assert.equal(await page.inputValue('#workload'), 'churn');
    assert.equal(await page.inputValue('.workload [data-param="scale"]'), '0.01');
    const families = await page.$$eval('.policy select.family', (selects) => selects.map((s) => s.value));
    assert.deepEqual(families, ['preset:glibc-like', 'size-class']);
    assert.equal(await page.inputValue('.policy:nth-of-type(2) [data-param="page_size"]'), '16384');

    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const { reports } = await results(page);
    const cli = JSON.parse(await heaplabText(['run', '--link', link, '--json']));
    assert.equal(reports.length, 2);
    assert.deepStrictEqual(reports, cli);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('says above the table which models are uncalibrated, in the words of heaplab run', async () => {
    const args = ['-w', 'tree_churn', '--scale', '0.02', '-p', 'glibc-like', '-p', 'snmalloc-like', '-p', 'rpmalloc-like'];
    const printed = (await heaplabText(['run', ...args])).split('\n').filter((line) => line.startsWith('Uncalibrated:'));
    assert.equal(printed.length, 1, 'heaplab run printed no uncalibrated line');
    const link = (await heaplabText(['link', '--base-url', PAGE_URL, ...args])).trim();
    const { page, problems } = await openPage(link);
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.equal(await page.isVisible('#calibration-note'), true);
    assert.equal(await page.textContent('#calibration-note'), printed[0]);
    // The line goes with the models: checked models and a textbook policy are silent.
    await page.selectOption('.policy:nth-of-type(2) select.family', 'preset:mimalloc-like');
    await page.selectOption('.policy:nth-of-type(3) select.family', 'preset:buddy');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal(await page.isVisible('#calibration-note'), false, await page.textContent('#calibration-note'));
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('runs a CLI link when opened, without Run, and a link pasted into the open page', async () => {
    const link = (await heaplabText(['link', '-w', 'churn', '--scale', '0.01', '-p', 'bump', '--base-url', PAGE_URL])).trim();
    assert.match(link, /^https?:\/\/[^#]+#2\.[A-Za-z0-9_-]+$/, `not a page link: ${link}`);
    const cli = await heaplabJson(['run', '--link', link, '--json']);

    const { page, problems } = await openPage(link);
    // Run is never clicked: the link alone brings the results.
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabResults), cli);
    assert.equal(await page.isVisible('#results'), true, 'the results are not shown');
    assert.match(await page.textContent('#status'), /^Ran 1 configuration, /);
    assert.equal(page.url(), link, 'opening the link changed the address');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'link-opened-to-results.png') });

    // Another link pasted into the address bar runs too, once.
    const other = (await heaplabText(['link', '-w', 'churn', '--scale', '0.02', '-p', 'bump', '--base-url', PAGE_URL])).trim();
    const otherCli = await heaplabJson(['run', '--link', other, '--json']);
    await page.evaluate((hash) => {
      window.heaplabRunsSeen = 0;
      new MutationObserver(() => {
        if (document.body.dataset.state === 'running') window.heaplabRunsSeen += 1;
      }).observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
      delete window.heaplabResults;
      window.location.hash = hash;
    }, new URL(other).hash);
    await page.waitForFunction(() => window.heaplabResults !== undefined || document.body.dataset.state === 'error', null, {
      timeout: RUN_TIMEOUT_MS,
    });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.equal(await page.inputValue('.workload [data-param="scale"]'), '0.02');
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabResults), otherCli);
    assert.equal(await page.evaluate(() => window.heaplabRunsSeen), 1, 'the pasted link ran more than once');
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('says next to "Run scenario" how the run goes, and loads what ran into the editor', async () => {
    const { page, problems } = await openPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    // The form shows something else than the scenario will run.
    await page.selectOption('#workload', 'churn');
    await page.selectOption('.policy select.family', 'bump');
    assert.equal(await page.locator('#scenario-status').textContent(), '');
    await page.selectOption('#scenario', 'share-small-large');
    await page.evaluate(() => {
      document.body.dataset.state = 'before-click';
    });
    await page.click('#run-scenario');
    await settled(page);
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    const scenario = await page.evaluate(() => window.heaplabScenario);
    assert.equal(scenario.id, 'share-small-large');

    const status = page.locator('.scenario-row #scenario-status');
    assert.ok(await status.isVisible(), 'no status next to the scenario button');
    assert.match(await status.textContent(), /^Ran scenario share-small-large: 4 runs; the finding holds\./);

    // The editor shows the scenario's first workload and its configurations.
    const first = scenario.runs[0].config;
    const perWorkload = scenario.runs.filter((run) => run.config.workload.id === first.workload.id).length;
    assert.equal(await page.inputValue('#workload'), first.workload.id);
    assert.equal(await page.inputValue('.workload [data-param="scale"]'), String(first.workload.params.scale));
    const families = await page.$$eval('.policy select.family', (selects) => selects.map((s) => s.value));
    assert.deepEqual(
      families,
      scenario.runs.slice(0, perWorkload).map(({ config }) => (config.policy.preset ? `preset:${config.policy.preset}` : config.policy.family)),
    );
    // The link stays the scenario's, and the form holds no refused value.
    assert.match(page.url(), /#2\./);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'scenario-run.png') });

    // Showing the runs on the second workload brings that one into the editor.
    await page.selectOption('#scenario-workload', '1');
    assert.equal(await page.inputValue('#workload'), scenario.runs[perWorkload].config.workload.id);

    // A form run afterwards clears the scenario's status: its results are gone.
    await page.fill('.workload [data-param="scale"]', '0.01');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal(await status.textContent(), '');
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('shows a multiplier as "×" after the value, and no stray unit letter', async () => {
    const { page } = await openPage();
    await page.selectOption('#workload', 'churn');
    const scale = page.locator('.workload [data-param="scale"]');
    const hint = page.locator('.workload label:has([data-param="scale"]) .hint');
    await scale.fill('0.05');
    assert.equal(await hint.textContent(), '= 0.05×');
    await scale.fill('');
    assert.equal(await hint.textContent(), '');
    // No hint anywhere is a lone letter.
    const hints = await page.$$eval('.hint', (elements) => elements.map((element) => element.textContent));
    assert.ok(hints.length >= 10, `only ${hints.length} hints on the page`);
    assert.ok(hints.every((text) => !/^\p{L}$/u.test(text.trim())), hints.join(' | '));
    await page.close();
  });

  /**
   * Checks that the field `param` in `scope` says `message` under it as typed, whole
   * (neither cut nor overflowing), and is marked invalid.
   */
  async function atField(page, scope, param, message) {
    const hint = page.locator(`${scope} label:has([data-param="${param}"]) .hint`);
    assert.equal(await hint.textContent(), message);
    assert.equal(await hint.isVisible(), true);
    const cut = await hint.evaluate((element) => element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
    assert.equal(cut, false, `the message under ${param} is cut off`);
    assert.equal(await page.getAttribute(`${scope} [data-param="${param}"]`, 'aria-invalid'), 'true');
  }

  it('names a configuration as its card does, in the field\'s message and in a run\'s', async () => {
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const shown = await results(page);
    const second = '.policy:nth-of-type(2)';
    assert.equal(await page.textContent(`${second} .policy-title`), 'Configuration B');
    await page.fill(`${second} [data-param="slab_size"]`, 'abc');
    await atField(page, second, 'slab_size', 'not allowed: "abc" is not a size in bytes (try 4096, 64KiB or 1MiB)');
    // Nothing runs on a refused value: the results shown stay.
    await page.waitForTimeout(600);
    assert.deepStrictEqual(await results(page), shown);
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^Configuration B \(llvm-bump\) › slab_size: "abc" is not a size in bytes/);
    // An error from the run itself, in a worker, names the card too.
    await page.fill(`${second} [data-param="slab_size"]`, '64KiB');
    await page.selectOption(`${second} select.family`, 'size-class');
    await page.fill(`${second} [data-param="page_size"]`, '4096');
    await page.selectOption('#page-size', '65536');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^Configuration B \(size-class\): .*page_size/);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('shows the core parser\'s words for a value typed wrong', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
    await page.fill('.workload [data-param="scale"]', '0.05');
    await page.selectOption('.policy select.family', 'buddy');
    const minBlock = page.locator('.policy [data-param="min_block"]');
    await minBlock.fill('3000');
    assert.equal(await clickRun(page), 'error');
    assert.equal(await errorText(page), 'Configuration A (buddy) › min_block: 3000 is not a power of two');
    assert.equal(await minBlock.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);

    // Out of range, and not a number at all: the same words `heaplab run --set` prints.
    await page.selectOption('.policy select.family', 'bump');
    const slab = page.locator('.policy [data-param="slab_size"]');
    await slab.fill('100');
    // Said at the field as soon as it is typed, whole, before any Run.
    await atField(page, '.policy', 'slab_size', 'not allowed: 100 is outside the allowed range 256 B..=1 GiB');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^Configuration A \(bump\) › slab_size: 100 is outside the allowed range 256 B\.\.=1 GiB$/);
    await page.fill('.workload [data-param="scale"]', 'lots');
    await atField(page, '.workload', 'scale', 'not allowed: "lots" is not a number');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'refused-at-field.png') });
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^Workload \w+ › scale: "lots" is not a number$/);

    // A size as the CLI spells it is a size here too.
    await page.fill('.workload [data-param="scale"]', '0.05');
    assert.equal(await page.getAttribute('.workload [data-param="scale"]', 'aria-invalid'), null);
    await slab.fill('16KiB');
    assert.match(await page.textContent('.policy label:has([data-param="slab_size"]) .hint'), /^= 16 KiB/);
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal((await results(page)).reports[0].config.policy.params.slab_size, 16384);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'parser-message.png'), fullPage: true });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('keeps Run, the chart and the first configuration in view at 1280x800', async () => {
    const { page, problems } = await openPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const inView = (selector) =>
      page.$eval(selector, (element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && box.height > 0;
      });
    for (const selector of ['#run', '#chart', '.policy .param']) {
      assert.ok(await inView(selector), `${selector} is not in view at 1280x800 without scrolling`);
    }
    // A parameter's documentation is one "?" away, not printed in full.
    assert.equal(await page.isVisible('.policy .param-doc'), false);
    await page.click('.policy .param .help');
    assert.equal(await page.isVisible('.policy .param-doc'), true);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'layout-1280x800.png') });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('reruns by itself when a size slider moves, with the numbers the CLI gives', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    await page.selectOption('.policy select.family', 'bump');
    await page.waitForFunction(() => window.heaplabResults?.[0]?.config.policy.family === 'bump', null, { timeout: RUN_TIMEOUT_MS });
    const before = await page.evaluate(() => window.heaplabResults[0]);
    await page.evaluate(() => {
      document.body.dataset.state = 'before-slide';
    });
    // Two stops up from 4 KiB: 16 KiB.
    const slider = page.locator('.policy label:has([data-param="slab_size"]) input.pow2');
    await slider.fill(String(Number(await slider.inputValue()) + 2));
    assert.equal(await page.inputValue('.policy [data-param="slab_size"]'), '16KiB');
    assert.ok(await page.locator('.policy label.changed:has([data-param="slab_size"])').count(), 'the changed value is not marked');
    await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: RUN_TIMEOUT_MS });
    const { reports, configs } = await results(page);
    assert.equal(reports[0].config.policy.params.slab_size, 16384);
    assert.notDeepEqual(summaryFields(reports[0]), summaryFields(before), 'the numbers did not change');
    const configFile = path.join(scratch, 'slider.json');
    await writeFile(configFile, JSON.stringify(configs[0]));
    const [cli] = await heaplabJson(['run', '--config', configFile, '--json']);
    assert.deepStrictEqual(summaryFields(reports[0]), summaryFields(cli));
    // The reset puts the preset's or family's value back, and the page reruns again.
    await page.click('.policy label:has([data-param="slab_size"]) .reset');
    await page.waitForFunction(() => window.heaplabResults?.[0]?.config.policy.params.slab_size === 4096, null, { timeout: RUN_TIMEOUT_MS });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('duplicates a configuration, compares one knob against the baseline, and a copied link keeps the view', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    await page.selectOption('.policy select.family', 'preset:glibc-like');
    await page.click('.policy .duplicate-policy');
    await page.fill('.policy:nth-of-type(2) [data-param="trim_threshold"]', '1MiB');
    await page.waitForFunction(
      () => window.heaplabResults?.length === 2 && window.heaplabResults[1].config.policy.params.trim_threshold === 1048576,
      null,
      { timeout: RUN_TIMEOUT_MS },
    );
    const { reports } = await results(page);
    const differing = Object.keys(reports[0].config.policy.params).filter(
      (name) => reports[0].config.policy.params[name] !== reports[1].config.policy.params[name],
    );
    assert.deepEqual(differing, ['trim_threshold']);
    // MallocBench's marks, from the core's formatter: B against A.
    const deltas = await page.$$eval('#summary .delta', (marks) => marks.map((mark) => mark.textContent));
    for (const delta of deltas) assert.match(delta, /^[!^] \d+\.\d\dx (smaller|bigger|higher|lower)$|^[!^] (none|from none)$/);
    assert.match(await page.textContent('#summary thead'), /\(baseline\)/);

    await page.selectOption('#baseline', '1');
    assert.match(await page.textContent('#summary thead th:nth-child(3)'), /\(baseline\)/);
    await page.click('#copy-link');
    // A built-in workload: the link alone is the run.
    await page.locator('#status', { hasText: /^Link/ }).waitFor();
    assert.match(await page.textContent('#status'), /whoever opens it sees this run/);
    const link = await page.evaluate(() => window.heaplabLink);
    assert.ok(link.includes('#2.'), `not a link: ${link}`);
    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done', await errorText(reopened.page));
    assert.deepStrictEqual(await reopened.page.evaluate(() => window.heaplabResults), reports);
    assert.equal(await reopened.page.inputValue('#baseline'), '1');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'duplicate-and-baseline.png') });
    normalRunProblems.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('cancels a long run and keeps the results shown before', async () => {
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const before = await page.evaluate(() => window.heaplabResults);
    // The workload's largest scale: each configuration's run takes tens of seconds, and
    // Cancel is clicked within moments of the page saying it runs, so the run cannot end
    // first however slow the machine (the worker is stopped, not waited for).
    await page.selectOption('#workload', 'tree_churn');
    await page.fill('.workload [data-param="scale"]', '10');
    await page.click('#run');
    await page.waitForFunction(() => document.body.dataset.state === 'running');
    assert.equal(await page.isVisible('#progress'), true, 'no progress bar during the run');
    await page.click('#cancel');
    await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: RUN_TIMEOUT_MS });
    assert.match(await page.textContent('#status'), /Cancelled/);
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabResults), before);
    // The page stays usable: a small run afterwards goes through.
    await page.fill('.workload [data-param="scale"]', '0.01');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('runs a trace dropped on the page as the CLI runs the file', async () => {
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const text = 'a 1 100\na 2 5000\nf 1\nr 2 9000\na 3 64\nf 2\nf 3\n';
    const file = path.join(scratch, 'dropped.trace');
    await writeFile(file, text);
    const dataTransfer = await page.evaluateHandle((content) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], 'dropped.trace'));
      return transfer;
    }, text);
    await page.evaluate(() => {
      document.body.dataset.state = 'before-drop';
    });
    await page.dispatchEvent('body', 'dragenter', { dataTransfer });
    await page.dispatchEvent('body', 'drop', { dataTransfer });
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.equal(await page.inputValue('#workload'), 'trace');
    const { reports } = await results(page);
    const policy = reports[0].config.policy;
    const cli = await heaplabJson(['run', '-w', file, '-p', policy.preset ?? policy.family, '--json']);
    assert.deepStrictEqual(summaryFields(reports[0]), summaryFields(cli[0]));
    assert.equal(await page.isVisible('#drop-zone'), false);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('sweeps a parameter as heaplab sweep does, and opens a point as a configuration', async () => {
    const { page, problems } = await openPage(ONE_CONFIG);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    await page.selectOption('#workload', 'tree_churn');
    await page.fill('.workload [data-param="scale"]', '0.01');
    await page.selectOption('.policy select.family', 'bump');
    // B, a copy of A at 8 KiB: a point opened from the sweep comes after it, as C.
    await page.click('.policy .duplicate-policy');
    await page.fill('.policy:nth-of-type(2) [data-param="slab_size"]', '8KiB');
    const swept = await sweepFromForm(page, { param: 'slab_size', values: '4K..64K', metric: 'page_ops' });
    assert.equal(swept, 'done', await errorText(page));
    const sweep = await page.evaluate(() => window.heaplabSweep);
    assert.deepEqual(sweep.points.map((point) => point.values[0]), [4096, 8192, 16384, 32768, 65536]);
    // The page's link holds the sweep, and the CLI runs it to the same object.
    const link = await page.evaluate(() => window.heaplabLink);
    assert.deepStrictEqual(await heaplabJson(['sweep', '--link', link, '--json']), sweep);
    // Each point is the run of that value, as `heaplab run` gives it.
    const [single] = await heaplabJson(['run', '-w', 'tree_churn', '--scale', '0.01', '-p', 'bump', '--set', 'slab_size=16KiB', '--json']);
    assert.equal(sweep.points[2].metrics.page_ops, single.page_ops);
    assert.equal(await page.locator('#sweep-table tbody tr').count(), 5);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'sweep.png') });

    // A row opens its value as the last configuration, after those there were, and the
    // comparison runs.
    await page.evaluate(() => {
      document.body.dataset.state = 'before-open';
    });
    await page.click('#sweep-table tbody tr:nth-child(5)');
    await page.waitForFunction(() => window.heaplabResults?.length === 3 && document.body.dataset.state === 'done', null, { timeout: RUN_TIMEOUT_MS });
    const { reports } = await results(page);
    assert.deepEqual(reports.map((report) => report.config.policy.params.slab_size), [4096, 8192, 65536]);
    const titles = await page.$$eval('.policy .policy-title', (legends) => legends.map((legend) => legend.textContent));
    assert.deepEqual(titles, ['Configuration A', 'Configuration B', 'Configuration C']);
    assert.equal(await page.inputValue('.policy:nth-of-type(3) [data-param="slab_size"]'), '64KiB');
    assert.equal(await page.isVisible('#sweep-results'), false);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('sweeps resident bytes at the end of a phase, as heaplab sweep does', async () => {
    // The page opens on the JIT workload; its phases are offered once it has run.
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const key = 'resident_bytes@compile 3';
    assert.equal(await page.textContent(`#sweep-metric option[value="${key}"]`), 'Resident at end of compile 3');
    const swept = await sweepFromForm(page, { param: 'slab_size', values: '4K,64K', metric: key });
    assert.equal(swept, 'done', await errorText(page));
    const sweep = await page.evaluate(() => window.heaplabSweep);
    assert.equal(sweep.metric, key);
    const { reports } = await results(page);
    for (const [index, point] of sweep.points.entries()) {
      const phase = reports[index].phases.find((p) => p.label === 'compile 3');
      assert.equal(point.metrics[key], phase.resident_bytes);
    }
    // The link holds the sweep of that figure, and the CLI runs it to the same object.
    const link = await page.evaluate(() => window.heaplabLink);
    assert.deepStrictEqual(await heaplabJson(['sweep', '--link', link, '--json']), sweep);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('#sweep-results').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'sweep-phase-metric.png') });
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('opens a sweep link the CLI made and gives heaplab sweep\'s object', async () => {
    const link = (
      await heaplabText(['link', '--sweep', '-p', 'size-class', '--vary', 'page_size=4K,16K,64K', '-w', 'churn', '--scale', '0.01', '--base-url', PAGE_URL])
    ).trim();
    const cli = await heaplabJson(['sweep', '--link', link, '--json']);
    const { page, problems } = await openPage(link);
    await page.waitForFunction(() => window.heaplabSweep !== undefined || document.body.dataset.state === 'error', null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabSweep), cli);
    assert.equal(await page.isVisible('#sweep-chart'), true);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('opens a sweep link naming a trace file at its sweep, and runs it once the file is chosen, as heaplab sweep does', async () => {
    const text = ['a 1 4000', 'a 2 70000', 'f 1', 'a 3 100', 'f 2', 'a 4 300', 'r 4 9000', 'f 3', 'f 4', ''].join('\n');
    const file = path.join(scratch, 'swept.trace.gz');
    await writeFile(file, gzipSync(Buffer.from(text)));
    // A parameter other than the first the menu offers, so the form cannot show it by chance.
    const args = ['-w', 'swept.trace.gz', '-p', 'size-class', '--vary', 'page_size=4K,16K,64K'];
    const link = (await run(HEAPLAB_BIN, ['link', '--sweep', ...args, '--base-url', PAGE_URL], { cwd: scratch })).stdout.trim();
    const cli = JSON.parse((await run(HEAPLAB_BIN, ['sweep', ...args, '--json'], { cwd: scratch })).stdout);

    const { page, problems } = await openPage(link);
    assert.equal(await page.isVisible('#error'), false, await errorText(page));
    assert.match(await page.textContent('#link-note'), /swept\.trace\.gz.*load it/);
    // Before the file, the sweep form already shows the link's sweep.
    assert.equal(await page.inputValue('#sweep-config'), '0');
    assert.equal(await page.inputValue('#sweep-param'), 'page_size');
    assert.equal(await page.inputValue('#sweep-values'), '4096,16384,65536');
    // No empty chart or table stands for results the link has not run yet.
    assert.equal(await page.isVisible('#results'), false);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'sweep-link-waits-for-trace.png') });
    // Choosing the file runs the link's sweep, not a comparison.
    await page.setInputFiles('#trace-file', file);
    await page.waitForFunction(() => window.heaplabSweep !== undefined || document.body.dataset.state === 'error', null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabSweep), cli);
    assert.equal(await page.isVisible('#sweep-chart'), true);
    assert.equal(await page.inputValue('#sweep-param'), 'page_size');
    // "Run sweep" runs the same sweep again.
    assert.equal(await sweepFromForm(page, { param: 'page_size', values: await page.inputValue('#sweep-values'), metric: await page.inputValue('#sweep-metric') }), 'done', await errorText(page));
    assert.deepStrictEqual(await page.evaluate(() => window.heaplabSweep), cli);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'sweep-link-trace.png') });
    // Its link names the trace without carrying it, and Copy link says so.
    await page.click('#copy-link');
    await page.locator('#status', { hasText: /^Link/ }).waitFor();
    const status = await page.textContent('#status');
    assert.match(status, /must choose that file again/);
    assert.doesNotMatch(status, /sees this run/);
    normalRunProblems.push(...problems);
    await page.close();
  });

  it('logged no console errors during valid runs', () => {
    assert.deepEqual(normalRunProblems, []);
  });
});
