// The Export menu in headless Chromium: every file says what ran. The comparison's CSVs
// are headed by the provenance (heaplab's version, the workload, the provider, the page
// size, the link, which `heaplab run --link` runs to the same reports) and name each
// configuration as the table does; the charts are SVG that parses, with a title and the
// provenance, and a PNG drawn from it at twice its size; a sweep on screen exports the
// sweep, not the comparison behind it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { RESULTS_DIR, colourPixels, errorText, heaplabJson, heaplabText, openPage, pngReach, ranOnOpen, results, scratch, summaryFields, svgLines, sweepFromForm, useBrowser } from './support.mjs';

useBrowser();

/** Clicks the export `kind` and reads the file the page offered: `{ name, text, bytes }`. */
async function save(page, kind) {
  await page.click('#export summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${kind}"]`)]);
  const where = path.join(scratch, `export-${kind}-${download.suggestedFilename()}`);
  await download.saveAs(where);
  const bytes = await readFile(where);
  return { name: download.suggestedFilename(), bytes, text: bytes.toString() };
}

/** A CSV's `# key: value` lines as an object, and its table's rows split at commas. */
function readCsv(text) {
  const lines = text.trimEnd().split('\n');
  const provenance = Object.fromEntries(
    lines.filter((line) => line.startsWith('# ')).map((line) => {
      const [, key, value] = line.match(/^# ([a-z_]+): (.*)$/);
      return [key, value];
    }),
  );
  // No label the page writes holds a comma, so a plain split reads the rows.
  const [header, ...rows] = lines.filter((line) => !line.startsWith('#')).map((line) => line.split(','));
  return { provenance, header, rows };
}

/** The column headings of the summary table, as a person reads them. */
async function tableLabels(page) {
  return page.$$eval('#summary thead th:not(:first-child)', (cells) => cells.map((cell) => cell.textContent.replace(' (baseline)', '')));
}

/** Whether `svg` parses as one XML document, by the browser's own parser. */
async function parsesAsXml(page, svg) {
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return doc.querySelector('parsererror') === null && doc.documentElement.nodeName === 'svg';
  }, svg);
}

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** How many dark pixels the PNG has in its top `rows` rows: where its title is drawn. */
async function darkPixelsAtTop(page, bytes, rows) {
  return page.evaluate(
    async ({ base64, rows }) => {
      const blob = await (await fetch(`data:image/png;base64,${base64}`)).blob();
      const image = await createImageBitmap(blob);
      const canvas = new OffscreenCanvas(image.width, rows);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, rows).data;
      let dark = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] < 300) dark += 1;
      return dark;
    },
    { base64: bytes.toString('base64'), rows },
  );
}

describe('export', () => {
  it('writes the comparison with the labels the table uses and the provenance of what ran', async () => {
    // The page opens on llvm-bump with 4 KiB slabs (A) against 64 KiB slabs (B); C is a
    // third llvm-bump with 16 KiB slabs, on 16 KiB pages.
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    await page.click('.policy:nth-of-type(2) .duplicate-policy');
    await page.fill('.policy:nth-of-type(3) [data-param="slab_size"]', '16KiB');
    await page.selectOption('#page-size', '16384');
    await page.evaluate(() => {
      document.body.dataset.state = 'before-run';
    });
    await page.click('#run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state));
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await errorText(page));
    const { reports } = await results(page);
    const labels = await tableLabels(page);
    assert.deepEqual(labels, ['A: llvm-bump', 'B: llvm-bump (slab_size=64 KiB)', 'C: llvm-bump (slab_size=16 KiB)']);
    const link = await page.evaluate(() => window.heaplabLink);
    const version = (await heaplabText(['--version'])).trim().split(/\s+/).pop();

    const summary = await save(page, 'summary-csv');
    assert.equal(summary.name, 'heaplab-summary.csv');
    const { provenance, header, rows } = readCsv(summary.text);
    assert.deepEqual(provenance, { heaplab: version, workload: 'jit', provider: 'sim', page_size: '16 KiB (16384 bytes)', link });
    // The link the file names runs to the reports it holds.
    const again = await heaplabJson(['run', '--link', link, '--json']);
    assert.deepStrictEqual(again.map(summaryFields), reports.map(summaryFields));
    assert.equal(header[0], 'configuration');
    assert.deepEqual(rows.map((row) => row[0]), labels);
    for (const [index, row] of rows.entries()) {
      for (const key of ['events', 'peak_resident_bytes', 'page_ops']) {
        assert.equal(Number(row[header.indexOf(key)]), reports[index][key], `${key} of ${labels[index]}`);
      }
      // A column per phase's figures: the table's "Resident at the end of each phase".
      assert.ok(reports[index].phases.length > 0, 'the workload has phases');
      for (const phase of reports[index].phases) {
        assert.equal(Number(row[header.indexOf(`resident_bytes@${phase.label}`)]), phase.resident_bytes, `${phase.label} of ${labels[index]}`);
      }
    }

    const json = await save(page, 'summary-json');
    assert.deepStrictEqual(JSON.parse(json.text), reports);

    const series = readCsv((await save(page, 'series-csv')).text);
    assert.deepEqual(series.provenance, provenance);
    assert.deepEqual(series.header, ['configuration', 'event', 'live_bytes', 'committed_bytes', 'resident_bytes']);
    assert.deepEqual([...new Set(series.rows.map((row) => row[0]))], labels);

    const svg = await save(page, 'chart-svg');
    assert.equal(svg.name, 'heaplab-memory.svg');
    assert.ok(await parsesAsXml(page, svg.text), 'the SVG does not parse');
    for (const wanted of ['Memory over time: jit', labels[1], `heaplab: ${version}`, 'page_size: 16 KiB', 'provider: sim']) {
      assert.ok(svg.text.includes(wanted), `${wanted} is not in the SVG`);
    }
    const [width, height] = svg.text.match(/<svg[^>]*width="(\d+)" height="(\d+)"/).slice(1).map(Number);

    const png = await save(page, 'chart-png');
    assert.equal(png.name, 'heaplab-memory.png');
    // Kept beside the screenshots, for a person to look at.
    await writeFile(path.join(RESULTS_DIR, 'export-memory.png'), png.bytes);
    assert.deepEqual(pngSize(png.bytes), [2 * width, 2 * height]);
    assert.ok(width >= 1200, `the chart is ${width} pixels wide`);
    // The title is drawn in the PNG's top rows, above the legend.
    assert.ok((await darkPixelsAtTop(page, png.bytes, 60)) > 200, 'the PNG has no title');
    // Each run's curve is in the exported SVG and PNG, not only the axes and legend.
    for (const index of reports.keys()) {
      assert.ok((await svgLines(page, svg.text, index, 10)) >= 1, `${labels[index]}'s curve in the SVG`);
      assert.ok((await pngReach(page, index, png.bytes)) > 0.5, `${labels[index]}'s curve in the PNG`);
    }

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'export-labels.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('names all page calls and commits and decommits apart', async () => {
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    assert.equal(await page.textContent('.tab[data-chart="page_ops"]'), 'Commits and decommits');
    await page.click('.tab[data-chart="bars"]');
    assert.match(await page.textContent('#chart-caption'), /Peak and end resident/);
    // Each configuration's bars, far more of its colour than a legend's box.
    const runs = await page.evaluate(() => window.heaplabResults.length);
    for (let index = 0; index < runs; index += 1) {
      assert.ok((await colourPixels(page, index)) > 2000, `configuration ${index}'s bars`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'summary-bars.png') });
    const bars = await save(page, 'chart-svg');
    assert.equal(bars.name, 'heaplab-bars.svg');
    assert.ok(await parsesAsXml(page, bars.text), 'the SVG does not parse');
    assert.match(bars.text, /all page calls/);
    assert.doesNotMatch(bars.text, /page operations/);
    assert.match(await page.textContent('#summary'), /All page calls/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('writes the sweep on screen, not the comparison behind it', async () => {
    const { page, problems } = await openPage();
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const swept = await sweepFromForm(page, { param: 'slab_size', values: '4K..64K', metric: 'page_ops' });
    assert.equal(swept, 'done', await errorText(page));
    const sweep = await page.evaluate(() => window.heaplabSweep);
    const link = await page.evaluate(() => window.heaplabLink);

    const csv = await save(page, 'summary-csv');
    assert.equal(csv.name, 'heaplab-sweep.csv');
    const { provenance, header, rows } = readCsv(csv.text);
    assert.equal(provenance.link, link);
    assert.equal(provenance.workload, 'jit');
    assert.deepEqual(header.slice(0, 2), ['configuration', 'slab_size']);
    assert.deepEqual(rows.map((row) => Number(row[1])), [4096, 8192, 16384, 32768, 65536]);
    assert.deepEqual(rows.map((row) => Number(row[header.indexOf('page_ops')])), sweep.points.map((point) => point.metrics.page_ops));
    assert.deepEqual([...new Set(rows.map((row) => row[0]))], ['A: llvm-bump']);

    const json = await save(page, 'summary-json');
    assert.equal(json.name, 'heaplab-sweep.json');
    assert.deepStrictEqual(JSON.parse(json.text), sweep);

    const svg = await save(page, 'chart-svg');
    assert.equal(svg.name, 'heaplab-sweep.svg');
    assert.ok(await parsesAsXml(page, svg.text), 'the SVG does not parse');
    assert.match(svg.text, /A: llvm-bump, varying slab_size: jit/);
    assert.ok(!svg.text.includes('Memory over time'), 'the sweep export drew the comparison');
    const [width, height] = svg.text.match(/<svg[^>]*width="(\d+)" height="(\d+)"/).slice(1).map(Number);
    const png = await save(page, 'chart-png');
    assert.equal(png.name, 'heaplab-sweep.png');
    await writeFile(path.join(RESULTS_DIR, 'export-sweep.png'), png.bytes);
    assert.deepEqual(pngSize(png.bytes), [2 * width, 2 * height]);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
