// The model's clock in the page: the clock control, which goes into every configuration
// run, round-trips through the link and gives `heaplab run --link`'s numbers; a clock the
// core refuses, named by its field; and memory drawn over model time.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';

import { PAGE_URL, PALETTE, RESULTS_DIR, clickRun, errorText, heaplabJson, heaplabText, openPage, ranOnOpen, results, scratch, summaryFields, useBrowser } from './support.mjs';

useBrowser();

const problemsSeen = [];

// A time-driven preset on a built-in workload long enough for its purge delay to pass at
// a microsecond per event, so the clock changes what stays resident at the end.
const RUN = ['-w', 'jit', '-p', 'mimalloc2-like'];
const RATE = 'rate=1000';

/** The page link the CLI makes for `RUN`, with `--clock` when a clock is given. */
async function cliLink(clock) {
  const args = ['link', '--base-url', PAGE_URL, ...RUN, ...(clock ? ['--clock', clock] : [])];
  return (await heaplabText(args)).trim();
}

/** Clicks the export `kind` and reads the file the page offered, as text. */
async function saveText(page, kind) {
  await page.click('#export summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${kind}"]`)]);
  const where = path.join(scratch, `clock-${kind}-${download.suggestedFilename()}`);
  await download.saveAs(where);
  return readFile(where, 'utf8');
}

/**
 * Whether run `index`'s colour is drawn in the last few pixel columns of the plot the
 * chart's frame names: where the curve ends when it reaches the axis's end.
 */
async function reachesRightEdge(page, index) {
  return page.evaluate((rgb) => {
    const { frame } = window.heaplabChart;
    const canvas = document.getElementById('chart');
    const context = canvas.getContext('2d');
    const from = frame.right - 3;
    const pixels = context.getImageData(from, frame.top, 4, frame.bottom - frame.top).data;
    for (let at = 0; at < pixels.length; at += 4) {
      if (Math.abs(pixels[at] - rgb[0]) <= 12 && Math.abs(pixels[at + 1] - rgb[1]) <= 12 && Math.abs(pixels[at + 2] - rgb[2]) <= 12) return true;
    }
    return false;
  }, PALETTE[index]);
}

describe('the clock', () => {
  it('opens a CLI link with a clock at that clock, and gives the CLI\'s numbers, which the clock changed', async () => {
    const link = await cliLink(RATE);
    const cli = await heaplabJson(['run', '--link', link, '--json']);
    const unclocked = await heaplabJson(['run', '--link', await cliLink(null), '--json']);
    assert.equal(cli[0].time.clock, RATE);
    assert.equal(unclocked[0].time.clock, null);
    // The clock reached the model: a time-driven preset ends elsewhere with it.
    assert.notEqual(cli[0].end_resident_bytes, unclocked[0].end_resident_bytes, 'the clock changed nothing, so this test would prove nothing');

    const { page, problems } = await openPage(link);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.equal(await page.inputValue('#clock-kind'), 'rate');
    assert.equal(await page.inputValue('#clock-rate'), '1000');
    const { reports, configs } = await results(page);
    assert.equal(configs[0].clock, RATE);
    assert.deepStrictEqual(reports, cli);

    // Back to no clock: the page runs what the CLI runs without one.
    await page.selectOption('#clock-kind', '');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.deepStrictEqual((await results(page)).reports, unclocked);
    assert.deepStrictEqual(await heaplabJson(['run', '--link', await page.evaluate(() => window.heaplabLink), '--json']), unclocked);
    problemsSeen.push(...problems);
    await page.close();
  });

  it('runs a MallocBench port at its real pace by default, and counts events when told to, as the CLI does', async () => {
    const port = ['link', '--base-url', PAGE_URL, '-w', 'tree_churn', '--scale', '0.01', '-p', 'mimalloc2-like'];
    const { page, problems } = await openPage((await heaplabText(port)).trim());
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.equal(await page.inputValue('#clock-kind'), '');
    // The default says which pace it is.
    assert.equal(await page.textContent('#clock-kind option[value=""]'), "default: this port's real pace, 110 ns/event");
    const paced = (await results(page)).reports;
    // tree_churn's declared pace, 110 ns per event, written out here.
    assert.equal(paced[0].time.clock, 'rate=110');
    assert.equal(paced[0].time.elapsed_ns, 110 * paced[0].events);

    await page.selectOption('#clock-kind', 'events');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(configs[0].clock, 'events');
    assert.equal(reports[0].time.clock, 'events');
    assert.equal(reports[0].time.elapsed_ns, null);
    // Within a few milliseconds nothing reaches mimalloc 2.0's 25 ms; counted in events, pages go back.
    assert.equal(paced[0].decommit_ops, 0);
    assert.ok(reports[0].decommit_ops > 0, 'counting events purged nothing');
    const link = await page.evaluate(() => window.heaplabLink);
    assert.deepStrictEqual(await heaplabJson(['run', '--link', link, '--json']), reports);
    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done', await errorText(reopened.page));
    assert.equal(await reopened.page.inputValue('#clock-kind'), 'events');
    problemsSeen.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('puts a clock set in the page into its runs and its link, which reopens at that clock', async () => {
    const { page, problems } = await openPage(await cliLink(null));
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.equal(await page.inputValue('#clock-kind'), '');
    assert.equal(await page.isVisible('#clock-rate'), false);
    await page.selectOption('#clock-kind', 'rate');
    await page.fill('#clock-rate', '2500');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const { reports, configs } = await results(page);
    assert.equal(configs[0].clock, 'rate=2500');
    assert.equal(reports[0].time.clock, 'rate=2500');
    const link = await page.evaluate(() => window.heaplabLink);
    assert.deepStrictEqual(await heaplabJson(['run', '--link', link, '--json']), reports);

    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done', await errorText(reopened.page));
    assert.equal(await reopened.page.inputValue('#clock-kind'), 'rate');
    assert.equal(await reopened.page.inputValue('#clock-rate'), '2500');
    assert.deepStrictEqual((await results(reopened.page)).reports, reports);
    problemsSeen.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('reports a bad clock by its field, in the core\'s words, and keeps the last good link', async () => {
    const { page } = await openPage(await cliLink(RATE));
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const before = await page.evaluate(() => window.heaplabLink);
    const rate = page.locator('#clock-rate');

    await rate.fill('fast');
    // Marked as it is typed, with the parser's reason under the control.
    assert.match(await page.textContent('#clock-hint'), /^not allowed: clock: bad rate "fast": expected nanoseconds per event/);
    assert.equal(await rate.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => window.heaplabLink), before, 'a refused clock changed the link');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^clock: bad rate "fast": expected nanoseconds per event/);
    assert.equal(await page.evaluate(() => window.heaplabResults), undefined);

    await rate.fill('0');
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /^clock: rate 0 ns per event is outside 0 \(excluded\)/);
    assert.equal(await page.evaluate(() => window.heaplabLink), before, 'a refused clock changed the link');

    // A built-in workload has no time marks: the core refuses the trace's clock for it,
    // naming the field, through the worker.
    await page.selectOption('#clock-kind', 'trace');
    assert.equal(await page.isVisible('#clock-hint'), false);
    assert.equal(await clickRun(page), 'error');
    assert.match(await errorText(page), /clock: `trace` runs on a trace's time marks, and the built-in workload jit has none/);

    // Fixed, it runs again.
    await page.selectOption('#clock-kind', 'rate');
    await rate.fill('1000');
    assert.equal(await rate.getAttribute('aria-invalid'), null);
    assert.equal(await clickRun(page), 'done', await errorText(page));
    assert.equal(await page.isVisible('#error'), false, 'a stale error is still shown');
    assert.equal((await results(page)).reports[0].time.clock, RATE);
    await page.close();
  });

  it('draws memory over model time, ending at the run\'s elapsed time', async () => {
    const { page, problems } = await openPage(await cliLink(RATE));
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const { reports } = await results(page);
    const elapsed = reports[0].time.elapsed_ns;
    assert.ok(elapsed > 0, JSON.stringify(reports[0].time));

    // Events by default; the choice shows for runs with a clock.
    assert.equal(await page.evaluate(() => window.heaplabChart.x), 'events');
    assert.equal(await page.isVisible('#x-axis'), true);
    await page.selectOption('#x-axis', 'time');
    await page.waitForFunction(() => window.heaplabChart.x === 'time');
    const { frame } = await page.evaluate(() => window.heaplabChart);
    // The axis spans the run's model time, and the curve reaches its end.
    assert.deepEqual(frame.time, [0, elapsed]);
    assert.equal(frame.last_event, reports[0].events);
    assert.ok(await reachesRightEdge(page, 0), 'the curve does not reach the end of the time axis');
    // The clock and the axis's choice are in view beside the chart, without scrolling.
    for (const selector of ['#clock-kind', '#clock-rate', '#x-axis', '#chart']) {
      const inView = await page.$eval(selector, (element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && box.height > 0;
      });
      assert.ok(inView, `${selector} is not in view at 1280x800 without scrolling`);
    }
    await page.screenshot({ path: path.join(RESULTS_DIR, 'clock-time-axis.png') });

    // The link keeps the axis: it opens over time.
    const link = await page.evaluate(() => window.heaplabLink);
    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done', await errorText(reopened.page));
    assert.equal(await reopened.page.evaluate(() => window.heaplabChart.x), 'time');
    assert.equal(await reopened.page.inputValue('#x-axis'), 'time');
    assert.deepStrictEqual(await heaplabJson(['run', '--link', link, '--json']), reports);
    problemsSeen.push(...reopened.problems);
    await reopened.page.close();

    // The pointer still reads events, with their time beside them.
    await page.mouse.move(...(await (async () => {
      const box = await page.locator('#chart').boundingBox();
      const ratio = await page.evaluate(() => document.getElementById('chart').width / document.getElementById('chart').getBoundingClientRect().width);
      return [box.x + (frame.left + frame.right) / 2 / ratio, box.y + box.height / 2];
    })()));
    await page.waitForFunction(() => !document.getElementById('chart-hover').hidden);
    assert.match(await page.textContent('#chart-hover .hover-event'), /^event [\d,]+, [\d.]+ (µs|ms|s)$/);
    // Half way along the time is half way through the events under a rate, give or take
    // a pixel's worth.
    const { event } = await page.evaluate(() => window.heaplabHover);
    const pixel = frame.last_event / (frame.right - frame.left);
    assert.ok(Math.abs(event - frame.last_event / 2) <= 2 * pixel, `${event} of ${frame.last_event}`);

    // The exported SVG is drawn by the same function: an axis of model time, in the unit
    // the run's length calls for, with its ticks.
    const unit = elapsed >= 1e9 ? 's' : elapsed >= 1e6 ? 'ms' : 'µs';
    const svg = await saveText(page, 'chart-svg');
    assert.ok(svg.includes(`model time (${unit})`), `no time axis in the SVG: ${svg.slice(0, 400)}`);
    const ticks = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return [...doc.querySelectorAll('text')].map((t) => t.textContent.trim()).filter((t) => /^\d+(\.\d+)?$/.test(t));
    }, svg);
    const scale = { s: 1e9, ms: 1e6, 'µs': 1e3 }[unit];
    const onAxis = ticks.map(Number).filter((v) => v <= elapsed / scale);
    assert.ok(onAxis.length >= 4, `too few time ticks: ${ticks.join(' ')}`);

    // Back to events: the axis counts events again.
    await page.selectOption('#x-axis', 'events');
    await page.waitForFunction(() => window.heaplabChart.x === 'events');
    assert.equal(await page.evaluate(() => window.heaplabChart.frame.time ?? null), null);
    problemsSeen.push(...problems);
    await page.close();
  });

  it('runs an uploaded trace on its own time marks, as the CLI runs that file', async () => {
    // A medium page and five small ones of one block each stay in use (slots 0-12 of the
    // segment), four pages of small blocks (13-16) are freed whole, then 30 ms of the
    // program's time pass, then a request for a medium page of another class. mimalloc 2.0
    // keeps the last of the four, its class's only page, and decommits a segment's waiting
    // pages once its expiry has passed (25 ms, 1 ms later for each page freed after the
    // first) on its next slow-path call. That request takes fresh pages in the next 1 MiB,
    // so it does not reset the expiry, and on the trace's clock the three freed pages go
    // back, together.
    const lines = ['t 0', 'a 20001 16400'];
    [8, 16, 32, 48, 96].forEach((size, i) => lines.push(`a ${20002 + i} ${size}`));
    for (let id = 1; id <= 4000; id += 1) lines.push(`a ${id} 64`);
    for (let id = 1; id <= 4000; id += 1) lines.push(`f ${id}`);
    lines.push('t 30000000', 'a 9000 40960', 'f 9000', '');
    const file = path.join(scratch, 'clocked.trace');
    await writeFile(file, lines.join('\n'));
    const cli = await heaplabJson(['run', '--workload', file, '-p', 'mimalloc2-like', '--json']);
    assert.equal(cli[0].time.clock, 'trace');
    assert.equal(cli[0].time.elapsed_ns, 30_000_000);
    assert.equal(cli[0].time.marks, 2);

    const { page, problems } = await openPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.selectOption('#workload', 'trace');
    await page.setInputFiles('#trace-file', file);
    await page.selectOption('.policy select.family', 'preset:mimalloc2-like');
    // No clock chosen: a trace that opens with a mark runs on its marks, as the default says.
    assert.equal(await page.inputValue('#clock-kind'), '');
    assert.match(await page.textContent('#clock-kind option[value=""]'), /^default: the trace's time marks/);
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const onMarks = (await results(page)).reports;
    assert.deepStrictEqual(summaryFields(onMarks[0]), summaryFields(cli[0]));
    assert.deepStrictEqual(onMarks[0].time, cli[0].time);
    assert.equal(onMarks[0].decommit_ops, 1, 'the freed pages were not purged 30 ms after the heap was freed');

    // Over time, the axis ends at the last mark.
    await page.selectOption('#x-axis', 'time');
    await page.waitForFunction(() => window.heaplabChart.x === 'time');
    assert.deepEqual((await page.evaluate(() => window.heaplabChart)).frame.time, [0, 30_000_000]);
    // Nothing happened between the marks, so half way through the pause the resident curve
    // is still at the freed heap's height, near the top, and not on a line sloping down
    // to the end: A's colour at mid-time is in the top quarter or, for the live curve,
    // at the bottom, and nowhere between.
    const column = await page.evaluate((rgb) => {
      const { frame } = window.heaplabChart;
      const context = document.getElementById('chart').getContext('2d');
      const x = Math.round((frame.left + frame.right) / 2);
      const pixels = context.getImageData(x, frame.top, 1, frame.bottom - frame.top).data;
      const rows = [];
      for (let at = 0; at < pixels.length; at += 4) {
        if (Math.abs(pixels[at] - rgb[0]) <= 12 && Math.abs(pixels[at + 1] - rgb[1]) <= 12 && Math.abs(pixels[at + 2] - rgb[2]) <= 12) rows.push(at / 4 / (frame.bottom - frame.top));
      }
      return rows;
    }, PALETTE[0]);
    assert.ok(column.some((y) => y < 0.25), `no resident curve near the top at mid-time: ${column}`);
    assert.deepEqual(column.filter((y) => y >= 0.25 && y < 0.9), [], 'the curve slopes through the pause');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'clock-trace-marks.png') });

    // At a nanosecond per event the same 8,008 events take 8 µs, and nothing is purged:
    // the marks, not the events, made the difference.
    await page.selectOption('#clock-kind', 'rate');
    await page.fill('#clock-rate', '1');
    assert.equal(await clickRun(page), 'done', await errorText(page));
    const fast = (await results(page)).reports;
    assert.equal(fast[0].time.clock, 'rate=1');
    assert.equal(fast[0].decommit_ops, 0);
    const cliFast = await heaplabJson(['run', '--workload', file, '-p', 'mimalloc2-like', '--clock', 'rate=1', '--json']);
    assert.deepStrictEqual(summaryFields(fast[0]), summaryFields(cliFast[0]));
    assert.deepStrictEqual(fast[0].time, cliFast[0].time);
    problemsSeen.push(...problems);
    await page.close();
  });

  it('logged no console errors during valid runs', () => {
    assert.deepEqual(problemsSeen, []);
  });
});
