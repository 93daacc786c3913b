// Your own allocator in the page: an allocator module built by `heaplab mm build` from
// each of heaplab's example allocators is loaded as a person loads it (the "Your
// allocator…" file input), runs beside a preset, and gives the very reports the CLI
// gives for the same link; a link carries the module, a link that only names it waits
// for the file, and a bad module is refused with its reason while the page keeps what
// it showed.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

import {
  HEAPLAB_BIN,
  RESULTS_DIR,
  RUN_TIMEOUT_MS,
  clickRun,
  errorText,
  heaplabJson,
  heaplabText,
  openPage,
  ranOnOpen,
  results,
  run,
  scratch,
  sweepFromForm,
  useBrowser,
  v2Link,
} from './support.mjs';

useBrowser();

const EXAMPLES = ['naive', 'implicit', 'segregated'];
const SOURCES = fileURLToPath(new URL('../../crates/heaplab-mm/c/examples/', import.meta.url));

/** Builds example `name` with the CLI, as the README says, and returns the module's path. */
async function built(name) {
  const out = path.join(scratch, `${name}.wasm`);
  await run(HEAPLAB_BIN, ['mm', 'build', path.join(SOURCES, `${name}.c`), '-o', out]);
  return out;
}

// One preset on a malloc-lab-like workload, small enough to run in a second or two.
const START = v2Link({ workload: { builtin: { id: 'binary', params: { scale: 0.2 } } }, configs: [{ preset: 'glibc-like' }] });

/** Waits for the run a module's loading starts, and returns the state it settled in. */
async function loaded(page, file) {
  await page.evaluate(() => {
    document.body.dataset.state = 'before-load';
  });
  await page.setInputFiles('#module-file', file);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, {
    timeout: RUN_TIMEOUT_MS,
  });
  return page.evaluate(() => document.body.dataset.state);
}

/** The page on START, run, with module `file` loaded beside its preset and run. */
async function pageWithModule(file) {
  const opened = await openPage(START);
  assert.equal(await ranOnOpen(opened.page), 'done', await errorText(opened.page));
  assert.equal(await loaded(opened.page, file), 'done', await errorText(opened.page));
  return opened;
}

describe('your own allocator in the page', () => {
  for (const name of EXAMPLES) {
    it(`runs the ${name} example beside a preset exactly as the CLI does`, async () => {
      const file = await built(name);
      const { page, problems } = await pageWithModule(file);
      const { reports, configs } = await results(page);
      assert.equal(configs.length, 2);
      assert.equal(configs[1].policy.family, 'module');
      // The table and the chart name the module by its file, as the CLI's tables do.
      assert.match(await page.textContent('#summary thead'), new RegExp(`B: ${name}\\.wasm`));
      const mine = reports[1];
      assert.equal(mine.allocs, reports[0].allocs);
      assert.ok(mine.counters.mem_heapsize > 0, JSON.stringify(mine.counters));
      assert.ok(mine.peak_resident_bytes >= mine.counters.mem_heapsize);
      // The link carries the module, and the CLI reading it gives the same reports,
      // heap, committed, resident, live, utilization and page operations alike.
      const link = await page.evaluate(() => window.heaplabLink);
      const cli = await heaplabJson(['run', '--link', link, '--json']);
      assert.deepEqual(cli, reports);
      // So does the CLI given the module file as a policy.
      const flags = await heaplabJson(['run', '--workload', 'binary', '--scale', '0.2', '-p', file, '--json']);
      assert.deepEqual(flags[0].counters, mine.counters);
      for (const field of ['peak_live_bytes', 'peak_resident_bytes', 'end_resident_bytes', 'peak_committed_bytes', 'utilization', 'page_ops']) {
        assert.equal(flags[0][field], mine[field], field);
      }
      if (name === 'implicit') await page.screenshot({ path: path.join(RESULTS_DIR, 'module-implicit.png') });
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('steps through the module in teaching mode, each line naming the call, as `heaplab explain` does', async () => {
    const file = await built('implicit');
    const { page, problems } = await pageWithModule(file);
    const explained = (await heaplabText(['explain', '-w', 'binary', '--scale', '0.2', '-p', file])).trim().split('\n');
    await page.click('#teach-open');
    await page.waitForFunction(() => window.heaplabTeach?.events > 0, null, { timeout: RUN_TIMEOUT_MS });
    await page.selectOption('#teach-config', '1');
    await page.waitForFunction(() => window.heaplabTeach?.config === 1 && window.heaplabTeach.events > 0, null, { timeout: RUN_TIMEOUT_MS });
    await page.focus('#teach-forward');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.heaplabTeach?.event === 1, null, { timeout: RUN_TIMEOUT_MS });
    const t = await page.evaluate(() => window.heaplabTeach);
    assert.equal(t.error, null);
    assert.equal(t.line, explained[0]);
    assert.match(t.line, /mm_malloc\(64\) → 0x[0-9a-f]+; .*the heap grew: mem_sbrk/);
    assert.ok(t.counts, 'the heap map counts its pages');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'module-teach.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('sweeps a knob of the module as heaplab sweep does', async () => {
    const file = await built('segregated');
    const { page, problems } = await pageWithModule(file);
    await page.selectOption('#sweep-config', '1');
    const swept = await sweepFromForm(page, { param: 'max_heap', values: '512K..2M', metric: 'peak_reserved_bytes' });
    assert.equal(swept, 'done', await errorText(page));
    const sweep = await page.evaluate(() => window.heaplabSweep);
    assert.deepEqual(sweep.points.map((point) => point.metrics.peak_reserved_bytes), [524288, 1048576, 2097152]);
    const link = await page.evaluate(() => window.heaplabLink);
    assert.deepStrictEqual(await heaplabJson(['sweep', '--link', link, '--json']), sweep);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'module-sweep.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('opens a link that carries the module, and one that names it waits for the file', async () => {
    const file = await built('implicit');
    const first = await pageWithModule(file);
    const link = await first.page.evaluate(() => window.heaplabLink);
    const { reports } = await results(first.page);
    await first.page.close();

    // Carried: the link alone runs it, in a page that never saw the file.
    const carried = await openPage(link);
    assert.equal(await ranOnOpen(carried.page), 'done', await errorText(carried.page));
    assert.deepEqual((await results(carried.page)).reports, reports);
    await carried.page.close();

    // Named: the page says what it waits for, and runs once the file is loaded.
    const namedOnly = await carriedLinkNamedOnly(link);
    const named = await openPage(namedOnly);
    await named.page.waitForTimeout(300);
    assert.notEqual(await named.page.evaluate(() => document.body.dataset.state), 'running');
    assert.equal(await named.page.evaluate(() => window.heaplabResults), undefined);
    assert.match(await named.page.textContent('#status'), /implicit\.wasm/);
    // Another file is not the module the link was made with.
    const other = await built('naive');
    await named.page.setInputFiles('#module-file', other);
    await named.page.waitForSelector('#error:not([hidden])');
    assert.match(await errorText(named.page), /not the module the link was made with/);
    assert.equal(await loaded(named.page, file), 'done', await errorText(named.page));
    assert.deepEqual((await results(named.page)).reports, reports);
    await named.page.close();
  });

  it('names a planted bug at its event and call, keeps what it showed, and runs on', async () => {
    const file = path.join(scratch, 'outside.wasm');
    const bugs = fileURLToPath(new URL('../../crates/heaplab-mm/tests/c/bugs.c', import.meta.url));
    await run(HEAPLAB_BIN, ['mm', 'build', bugs, '--cflag', '-DBUG_OUTSIDE=1', '-o', file]);
    const { page } = await openPage(START);
    assert.equal(await ranOnOpen(page), 'done');
    const table = await page.textContent('#summary');
    assert.equal(await loaded(page, file), 'error');
    assert.match(await errorText(page), /^Configuration B \(outside\.wasm\): .*event 2: mm_malloc\(\d+\) returned \[0x[0-9a-f]+, 0x[0-9a-f]+\), which is not inside the heap/);
    // The results of the run before stay on screen.
    assert.equal(await page.textContent('#summary'), table);
    // The worker that failed is replaced: without the module, the page runs again.
    await page.click('.policy:nth-of-type(2) .remove-policy');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal((await results(page)).reports.length, 1);
    await page.close();
  });

  it('stops a call that traps, runs past its budget or exits, in the words of the CLI', async () => {
    // The page runs a module in the browser's engine and the CLI in an interpreter: each
    // way a call can end badly must read the same in both.
    const bugs = fileURLToPath(new URL('../../crates/heaplab-mm/tests/c/bugs.c', import.meta.url));
    const { page } = await openPage(START);
    assert.equal(await ranOnOpen(page), 'done');
    for (const bug of ['BUG_TRAP', 'BUG_LOOP', 'BUG_ABORT']) {
      const file = path.join(scratch, `${bug.toLowerCase()}.wasm`);
      await run(HEAPLAB_BIN, ['mm', 'build', bugs, '--cflag', `-D${bug}=1`, '-o', file]);
      const cli = await run(HEAPLAB_BIN, ['run', '-w', 'binary', '--scale', '0.2', '-p', file]).then(
        () => assert.fail(`heaplab run accepted ${bug}`),
        (e) => e.stderr,
      );
      const said = cli.match(/event \d+: .*/)[0];
      assert.equal(await loaded(page, file), 'error', bug);
      const shown = await errorText(page);
      assert.ok(shown.includes(said), `${bug}: the page said ${JSON.stringify(shown)}, the CLI ${JSON.stringify(said)}`);
      await page.click('.policy:nth-of-type(2) .remove-policy');
    }
    await page.close();
  });

  it('refuses a bad module with its reason and keeps what it showed', async () => {
    const { page } = await openPage(START);
    assert.equal(await ranOnOpen(page), 'done');
    const before = await results(page);
    const notWasm = path.join(scratch, 'notes.wasm');
    await writeFile(notWasm, 'int mm_init(void) { return 0; }\n');
    await page.setInputFiles('#module-file', notWasm);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await errorText(page), /^Your allocator › notes\.wasm.*not (a )?WebAssembly/i);
    // The module's own import list is checked too: here one heaplab does not offer.
    const stray = path.join(scratch, 'stray.wasm');
    await writeFile(stray, STRAY_IMPORT);
    await page.setInputFiles('#module-file', stray);
    await page.waitForFunction(() => /fopen/.test(document.querySelector('#error').textContent));
    assert.deepEqual(await results(page), before);
    assert.equal(await page.locator('.policy').count(), 1);
    await page.close();
  });
});

// The smallest module that imports what heaplab does not offer, `env.fopen`, spelled out:
// the header, a type section with one (i32, i32) -> i32, an import section with one entry.
const STRAY_IMPORT = Buffer.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f,
  0x02, 0x0d, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x05, 0x66, 0x6f, 0x70, 0x65, 0x6e, 0x00, 0x00,
]);

/** The same link with its modules named by size and SHA-256 only, through the core's codec. */
async function carriedLinkNamedOnly(link) {
  const { page } = await openPage();
  const fragment = await page.evaluate(async (text) => {
    const { link_decode, link_encode } = await import('./pkg/heaplab_wasm.js');
    const state = link_decode(text);
    for (const module of state.modules) delete module.base64;
    return link_encode(state);
  }, link);
  await page.close();
  return `#${fragment}`;
}
