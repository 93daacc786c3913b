// The results chart in headless Chromium: reading values off the curves with the pointer,
// zooming by dragging and with the wheel, the page-operations chart, and a link that keeps
// the chart and its zoom. The numbers the hover shows are the runs' own, checked against
// `heaplab run --json` for the same configuration.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { PAGE_URL, RESULTS_DIR, heaplabText, openPage, ranOnOpen, scratch, useBrowser, v2Link } from './support.mjs';

useBrowser();

const problemsSeen = [];

/** A link to tree_churn at a small scale under two policies: phases, and curves that differ. */
const LINK = v2Link({
  workload: { builtin: { id: 'tree_churn', params: { scale: 0.02 } } },
  configs: [{ family: 'size-class' }, { preset: 'glibc-like' }],
});

/** The chart canvas's box on the screen and the frame the module drew into. */
async function chartGeometry(page) {
  const box = await page.locator('#chart').boundingBox();
  const { frame, ratio } = await page.evaluate(() => ({ frame: window.heaplabChart.frame, ratio: document.getElementById('chart').width / document.getElementById('chart').getBoundingClientRect().width }));
  // The screen x of a canvas pixel column.
  const x = (column) => box.x + column / ratio;
  const y = box.y + box.height / 2;
  return { box, frame, x, y };
}

describe('the results chart', () => {
  it('shows each configuration\'s resident and live bytes under the pointer', async () => {
    const { page, problems } = await openPage(LINK);
    assert.equal(await ranOnOpen(page), 'done');
    const { frame, x, y } = await chartGeometry(page);
    assert.ok(frame.right > frame.left && frame.last_event > 0, JSON.stringify(frame));
    await page.mouse.move(x((frame.left + frame.right) / 2), y);
    await page.waitForFunction(() => window.heaplabHover !== undefined && !document.getElementById('chart-hover').hidden);
    const hover = await page.evaluate(() => window.heaplabHover);
    assert.equal(hover.rows.length, 2);
    // The pointer sits half way along the events, give or take a pixel's worth.
    const pixel = frame.last_event / (frame.right - frame.left);
    assert.ok(Math.abs(hover.event - frame.last_event / 2) <= 2 * pixel, `${hover.event} of ${frame.last_event}`);
    // Each row is the run's own sample at that event: the CLI's series, read the same way.
    const file = path.join(scratch, 'hover-series.json');
    await heaplabText(['run', '--link', await page.evaluate(() => window.heaplabLink), '--series', file]);
    const series = JSON.parse(await readFile(file, 'utf8'));
    for (const [k, { series: { t, resident, live } }] of series.entries()) {
      const i = t.findIndex((event) => event >= hover.event);
      assert.deepEqual([hover.rows[k].event, hover.rows[k].solid, hover.rows[k].dashed], [t[i], resident[i], live[i]]);
    }
    const text = await page.textContent('#chart-hover');
    assert.match(text, /event [\d,]+/);
    assert.match(text, /A: size-class: resident [\d.]+ [KMG]?i?B, live/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chart-hover.png') });
    problemsSeen.push(...problems);
    await page.close();
  });

  it('zooms to a dragged window, by the wheel, and back, and the link keeps the zoom', async () => {
    const { page, problems } = await openPage(LINK);
    assert.equal(await ranOnOpen(page), 'done');
    const { frame, x, y } = await chartGeometry(page);
    const width = frame.right - frame.left;
    // Drag from a quarter to a half of the way along the events.
    await page.mouse.move(x(frame.left + width / 4), y);
    await page.mouse.down();
    await page.mouse.move(x(frame.left + width / 2), y, { steps: 6 });
    await page.mouse.up();
    await page.waitForFunction(() => window.heaplabChart.zoom !== null);
    const zoomed = await page.evaluate(() => window.heaplabChart);
    const quarter = frame.last_event / 4;
    const slack = (2 * frame.last_event) / width;
    assert.ok(Math.abs(zoomed.zoom[0] - quarter) <= slack, JSON.stringify(zoomed.zoom));
    assert.ok(Math.abs(zoomed.zoom[1] - 2 * quarter) <= slack, JSON.stringify(zoomed.zoom));
    // The axis follows: the frame now spans the window, and the reset button shows.
    assert.deepEqual([zoomed.frame.first_event, zoomed.frame.last_event], zoomed.zoom);
    assert.equal(await page.isVisible('#reset-zoom'), true);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chart-zoomed.png') });

    // The link carries the chart's view: opened afresh it shows the same window.
    const link = await page.evaluate(() => window.heaplabLink);
    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done');
    assert.deepEqual(await reopened.page.evaluate(() => window.heaplabChart.zoom), zoomed.zoom);
    problemsSeen.push(...reopened.problems);
    await reopened.page.close();

    // The wheel zooms in around the pointer: a narrower window that still holds it.
    const now = await chartGeometry(page);
    const at = now.frame.first_event + (now.frame.last_event - now.frame.first_event) / 2;
    await page.mouse.move(now.x((now.frame.left + now.frame.right) / 2), now.y);
    await page.mouse.wheel(0, -100);
    await page.waitForFunction((before) => window.heaplabChart.zoom[1] - window.heaplabChart.zoom[0] < before, zoomed.zoom[1] - zoomed.zoom[0]);
    const wheeled = await page.evaluate(() => window.heaplabChart.zoom);
    assert.ok(wheeled[0] <= at && at <= wheeled[1], `${wheeled} holds ${at}`);

    // Reset shows the whole run again, and the link forgets the zoom.
    await page.click('#reset-zoom');
    await page.waitForFunction(() => window.heaplabChart.zoom === null);
    assert.equal((await page.evaluate(() => window.heaplabChart.frame)).first_event, 0);
    assert.equal(await page.isVisible('#reset-zoom'), false);
    problemsSeen.push(...problems);
    await page.close();
  });

  it('draws page operations over time, ending at the run\'s own counts', async () => {
    const { page, problems } = await openPage(LINK);
    assert.equal(await ranOnOpen(page), 'done');
    await page.click('.tab[data-chart="page_ops"]');
    await page.waitForFunction(() => window.heaplabChart.kind === 'page_ops');
    const { frame, x, y } = await chartGeometry(page);
    // Just past the plot's right end the pointer reads the last event, where the curves
    // reach the report's totals.
    await page.mouse.move(x(frame.right + 2), y);
    await page.waitForFunction(() => window.heaplabHover?.rows?.length === 2 && !document.getElementById('chart-hover').hidden);
    const { hover, reports } = await page.evaluate(() => ({ hover: window.heaplabHover, reports: window.heaplabResults }));
    assert.equal(hover.event, reports[0].events);
    for (const [i, row] of hover.rows.entries()) {
      assert.equal(row.solid, reports[i].commit_ops);
      assert.equal(row.dashed, reports[i].decommit_ops);
    }
    assert.match(await page.textContent('#chart-hover'), /commits [\d,]+, decommits [\d,]+/);
    // The chart is in the link too.
    const link = await page.evaluate(() => window.heaplabLink);
    const reopened = await openPage(link);
    assert.equal(await ranOnOpen(reopened.page), 'done');
    assert.equal(await reopened.page.evaluate(() => window.heaplabChart.kind), 'page_ops');
    assert.equal(await reopened.page.getAttribute('.tab[data-chart="page_ops"]', 'aria-selected'), 'true');
    await reopened.page.screenshot({ path: path.join(RESULTS_DIR, 'chart-page-ops.png') });
    problemsSeen.push(...problems, ...reopened.problems);
    await reopened.page.close();
    await page.close();
  });

  it('opens the sweep point a click on its marker picks, as a configuration beside the swept one', async () => {
    // Two metrics, one chart under the other, as `heaplab sweep --plot` draws them.
    const link = (
      await heaplabText(['link', '--sweep', '-p', 'bump', '--vary', 'slab_size=4K..64K', '-w', 'tree_churn', '--scale', '0.01', '--metric', 'page_ops', '--metric', 'end_resident_bytes', '--base-url', PAGE_URL])
    ).trim();
    const { page, problems } = await openPage(link);
    assert.equal(await ranOnOpen(page), 'done');
    const { marks, ratio } = await page.evaluate(() => ({
      marks: window.heaplabSweepMarks,
      ratio: document.getElementById('sweep-chart').width / document.getElementById('sweep-chart').getBoundingClientRect().width,
    }));
    assert.equal(marks.length, 10);
    assert.deepEqual(await page.$$eval('#sweep-also input:checked', (boxes) => boxes.map((b) => b.value)), ['end_resident_bytes']);
    const box = await page.locator('#sweep-chart').boundingBox();
    // The third value's marker on the lower chart.
    const third = marks.filter((mark) => mark.point === 2).sort((a, b) => b.y - a.y)[0];
    assert.ok(third.y / ratio > box.height / 2, 'the lower chart is in the lower half');
    // A little off the marker's centre, as a hand clicks.
    await page.mouse.click(box.x + third.x / ratio + 3, box.y + third.y / ratio - 2);
    await page.waitForFunction(() => window.heaplabResults?.length === 2 && document.body.dataset.state === 'done');
    const reports = await page.evaluate(() => window.heaplabResults);
    assert.deepEqual(reports.map((report) => report.config.policy.params.slab_size), [4096, 16384]);
    problemsSeen.push(...problems);
    await page.close();
  });

  it('logged no console errors', () => {
    assert.deepEqual(problemsSeen, []);
  });
});
