// The malformed-input corpus in the page: every bad trace and link of
// crates/heaplab-cli/tests/malformed/ (the corpus `heaplab` is held to by the CLI's
// tests/malformed.rs), fed to the page as a person would, choosing the file or pasting
// the link. The page must show the very message the CLI prints for it (from the same
// cases.json), keep what it showed, and never throw. The page takes no config files, so
// the corpus's configs are the CLI's alone.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ONE_CONFIG, RESULTS_DIR, RUN_TIMEOUT_MS, curveReach, errorText, openPage, ranOnOpen, scratch, useBrowser } from './support.mjs';

const CORPUS = fileURLToPath(new URL('../../crates/heaplab-cli/tests/malformed/', import.meta.url));
const manifest = JSON.parse(await readFile(path.join(CORPUS, 'cases.json'), 'utf8'));

useBrowser();

/** What the page's test hooks and editor show, which a refused input must leave as it was. */
async function shown(page) {
  return page.evaluate(() => ({
    results: window.heaplabResults,
    configs: window.heaplabConfigs,
    families: [...document.querySelectorAll('.policy select.family')].map((select) => select.value),
  }));
}

/** A generated case's file, written into the browser's scratch folder. */
async function generatedFile(entry) {
  const file = path.join(scratch, entry.file);
  await writeFile(file, entry.start + entry.fill.repeat(entry.count) + entry.end);
  return file;
}

/** Whether the error box lies wholly inside the window, seen without scrolling. */
async function errorInView(page) {
  return page.evaluate(() => {
    const box = document.getElementById('error').getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
  });
}

describe('malformed input', () => {
  it('names each bad trace file as the CLI does, and keeps the trace that ran before', async () => {
    const traces = [
      ...manifest.traces.map((entry) => ({ ...entry, path: path.join(CORPUS, 'traces', entry.file) })),
      ...(await Promise.all(manifest.generated.map(async (entry) => ({ ...entry, path: await generatedFile(entry) })))),
    ];
    assert.ok(traces.length >= 30, `only ${traces.length} traces in the corpus`);
    const { page, problems } = await openPage(ONE_CONFIG);
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    // The CLI's messages were made with this policy; the corpus's traces are named alike
    // by every policy, but the run is the same one only if the page runs it too.
    const opened = await shown(page);
    assert.deepEqual(opened.families, [manifest.policy]);
    await page.selectOption('#workload', 'trace');

    const choose = async (file) => {
      await page.evaluate(() => {
        document.body.dataset.state = 'before-choose';
      });
      await page.setInputFiles('#trace-file', file);
      await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, {
        timeout: RUN_TIMEOUT_MS,
      });
      return page.evaluate(() => document.body.dataset.state);
    };
    const chosenName = () => page.evaluate(() => document.getElementById('trace-file').files[0]?.name ?? null);

    // Before any trace ran, a refused one leaves the configurations; the built-in
    // workload's results say nothing of a trace and are gone.
    const [first] = traces;
    assert.equal(await choose(first.path), 'error', `${first.file} ran`);
    assert.equal(await errorText(page), first.message, first.file);
    const afterFirst = await shown(page);
    assert.equal(afterFirst.results, undefined, `${first.file} left the built-in workload's results`);
    assert.deepEqual(afterFirst.families, opened.families, first.file);

    // Once a trace ran, every refused file after it leaves that trace, its results and
    // its chart, as they were.
    const good = path.join(scratch, 'good.trace');
    await writeFile(good, 'a 1 16\na 2 32\nf 1\na 3 4096\nf 2\n');
    assert.equal(await choose(good), 'done', await errorText(page));
    const before = await shown(page);
    assert.equal(before.results.length, 1);
    const status = await page.textContent('#status');
    for (const [index, entry] of traces.entries()) {
      assert.equal(await choose(entry.path), 'error', `${entry.file} ran`);
      assert.equal(await errorText(page), entry.message, entry.file);
      const after = await shown(page);
      assert.deepEqual(after.results, before.results, `${entry.file} cost the results of good.trace`);
      assert.deepEqual(after.configs, before.configs, entry.file);
      assert.deepEqual(after.families, before.families, entry.file);
      assert.equal(await page.inputValue('#workload'), 'trace');
      assert.equal(await chosenName(), 'good.trace', `${entry.file}: the file input lost good.trace`);
      assert.match(await page.textContent('#status'), /still those of good\.trace/, entry.file);
      if (index === 0) {
        assert.ok(await errorInView(page), 'the message is out of view at 1280x800');
        assert.equal(await page.isVisible('#results'), true, 'the results of good.trace were hidden');
        assert.ok((await curveReach(page, 0)) > 0.5, "good.trace's curve is gone from the chart");
        await page.screenshot({ path: path.join(RESULTS_DIR, 'malformed-trace.png') });
      }
    }

    // The page is still of use: Run runs the trace that stayed loaded, as before.
    await page.evaluate(() => {
      document.body.dataset.state = 'before-run';
    });
    await page.click('#run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, {
      timeout: RUN_TIMEOUT_MS,
    });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    assert.deepEqual((await shown(page)).results, before.results);
    assert.equal(await page.textContent('#status'), status);
    assert.equal(await page.isVisible('#error'), false, 'a stale error is still shown');
    assert.deepEqual(problems, [], 'the page threw or logged an error');
    await page.close();
  });

  it('names each bad link as the CLI does, and keeps what it showed and its address', async () => {
    assert.ok(manifest.links.length >= 10, `only ${manifest.links.length} links in the corpus`);
    // The limits a link can ask past (the address space, a sweep's runs, the events it
    // names) are among them.
    for (const file of ['address-space.link', 'sweep-too-many.link', 'sweep-grid-too-big.link', 'teach-past-events.link']) {
      assert.ok(manifest.links.some((entry) => entry.file === file), `no ${file} in the corpus`);
    }
    const { page, problems } = await openPage(ONE_CONFIG);
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const before = { ...(await shown(page)), link: await page.evaluate(() => window.heaplabLink) };
    assert.ok(before.results, 'the first run left no results');

    for (const [index, entry] of manifest.links.entries()) {
      const link = (await readFile(path.join(CORPUS, 'links', entry.file), 'utf8')).trim();
      // The page ends the CLI's message as a sentence and says what it kept.
      const end = /[.?!]$/.test(entry.message) ? '' : '.';
      const expected = `${entry.message}${end} The page keeps what it showed.`;
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, link);
      try {
        await page.waitForFunction(
          (text) => document.getElementById('error').textContent.trim() === text,
          expected,
          { timeout: 10_000 },
        );
      } catch {
        assert.equal(await errorText(page), expected, entry.file);
      }
      assert.ok(await page.isVisible('#error'), `${entry.file}: no error shown`);
      const after = { ...(await shown(page)), link: await page.evaluate(() => window.location.href) };
      assert.deepEqual(after, before, `${entry.file}: the page did not keep what it showed`);
      if (index === 0) {
        assert.ok(await errorInView(page), 'the message is out of view at 1280x800');
        await page.screenshot({ path: path.join(RESULTS_DIR, 'malformed-link.png') });
      }
    }
    assert.deepEqual(problems, [], 'the page threw or logged an error');
    await page.close();
  });
});
