// What every browser test file of the heaplab page shares: one headless Chromium per
// file, opening the page, running it, reading its test hooks, and running the CLI whose
// numbers the page's must equal.
//
// Run by `cargo xtask test`, which serves web/ and sets:
//   HEAPLAB_URL  the page, e.g. http://127.0.0.1:PORT/
//   HEAPLAB_BIN  the absolute path of the `heaplab` CLI, whose reports the page's
//                must equal exactly, since both run the same core on the same config.
//   HEAPLAB_DIST the static site `cargo xtask dist` writes, which dist.test.mjs serves
//                under a sub-path.

import { after, before } from 'node:test';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';

import { chromium } from 'playwright-core';

export const PAGE_URL = requiredEnv('HEAPLAB_URL');
export const HEAPLAB_BIN = requiredEnv('HEAPLAB_BIN');
const CHROMIUM = '/usr/bin/chromium';
export const RESULTS_DIR = fileURLToPath(new URL('../test-results/', import.meta.url));
// Runs are small, but the machine is shared and noisy; a generous bound only matters
// when something is genuinely stuck.
export const RUN_TIMEOUT_MS = 60_000;

export const run = promisify(execFile);

/** The value of an environment variable `cargo xtask test` sets; a test file without it fails. */
export function requiredEnv(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set; run this test through \`cargo xtask test\``);
  }
  return value;
}

// The browser of this test file, and a folder for its files, both made by `useBrowser`.
export let context;
export let scratch;

/** Starts the file's browser before its tests and ends it after them. */
export function useBrowser() {
  before(startBrowser);
  after(async () => {
    await context?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
}

async function startBrowser() {
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
  // A first page, outside any test: on some runs of the gate on this shared machine the
  // browser's first navigation has waited minutes for its document while another
  // browser reached the same server at once, and a fresh navigation then got through.
  // So the first page is tried on a short bound a few times, outside the tests, and the
  // attempts are printed so a slow start is seen rather than guessed at.
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    const warmup = await context.newPage();
    try {
      await warmup.goto(PAGE_URL, { waitUntil: 'domcontentloaded', timeout: 20_000 });
      await warmup.waitForFunction(() => document.body.dataset.state !== 'loading', null, {
        timeout: RUN_TIMEOUT_MS,
      });
      console.log(`the browser's first page started in ${Date.now() - started} ms (attempt ${attempt})`);
      break;
    } catch (error) {
      console.log(`the browser's first page, attempt ${attempt}: ${error.message.split('\n')[0]}`);
      if (attempt === 8) throw error;
    } finally {
      await warmup.close();
    }
  }
}

/**
 * Opens the page and waits until it has finished starting. `where` is a fragment
 * ("#2.…") added to the page's address, or a whole URL (a link the CLI printed).
 */
export async function openPage(where = '') {
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
  // The page says itself when it has started (data-state); waiting for the document
  // alone, not every subresource's load event, keeps a slow favicon or a stalled
  // connection of the browser's own from failing a test that has nothing to do with it.
  await page.goto(/^https?:/.test(where) ? where : PAGE_URL + where, {
    waitUntil: 'domcontentloaded',
    timeout: RUN_TIMEOUT_MS,
  });
  await page.waitForFunction(() => document.body.dataset.state !== 'loading', null, {
    timeout: RUN_TIMEOUT_MS,
  });
  return { page, problems };
}

/** Clicks Run and returns the state the page settles in, "done" or "error". */
export async function clickRun(page, timeout = RUN_TIMEOUT_MS) {
  // Overwriting the state first means a "done" left over from an earlier run cannot
  // satisfy the wait below; the page sets "running" as soon as Run is clicked.
  await page.evaluate(() => {
    document.body.dataset.state = 'before-click';
  });
  await page.click('#run');
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.body.dataset.state),
    null,
    { timeout },
  );
  return page.evaluate(() => document.body.dataset.state);
}

export async function results(page) {
  return page.evaluate(() => ({
    reports: window.heaplabResults,
    configs: window.heaplabConfigs,
  }));
}

export async function errorText(page) {
  return (await page.textContent('#error')).trim();
}

/** The numeric top-level fields of a report: the summary both front ends must agree on. */
export function summaryFields(report) {
  return Object.fromEntries(Object.entries(report).filter(([, value]) => typeof value === 'number'));
}

export async function heaplabJson(args) {
  const { stdout } = await run(HEAPLAB_BIN, args, { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

export async function heaplabText(args) {
  const { stdout } = await run(HEAPLAB_BIN, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * A link that leaves every field out: one configuration of the first family on the first
 * workload, where tests that edit the form start (the bare page opens on a comparison).
 */
export const ONE_CONFIG = v2Link({});

/** A version 1 link, as the page's first permalinks were written: `#c=` and the JSON. */
export function v1Link(state) {
  return `#c=${encodeURIComponent(JSON.stringify(state))}`;
}

/** A version 2 link made by hand: the state's JSON, deflated, in base64url. */
export function v2Link(state) {
  return `#2.${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;
}

/**
 * Waits for the run a link with configurations starts by itself when opened, and
 * returns the state it settled in, "done" or "error". `openPage` returns once start-up
 * ends, by when that run is already under way.
 */
export async function ranOnOpen(page) {
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.body.dataset.state),
    null,
    { timeout: RUN_TIMEOUT_MS },
  );
  return page.evaluate(() => document.body.dataset.state);
}

/** Waits for a run the page started by itself (a scenario link) to settle. */
export async function settled(page) {
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.body.dataset.state) && window.heaplabScenario !== undefined,
    null,
    { timeout: RUN_TIMEOUT_MS },
  );
}

/**
 * Fills the sweep form (`param`, `values`, `metric`) and presses "Run sweep"; returns the
 * state the page settles in, "done" or "error".
 */
export async function sweepFromForm(page, { param, values, metric }) {
  await page.selectOption('#sweep-param', param);
  await page.fill('#sweep-values', values);
  await page.selectOption('#sweep-metric', metric);
  await page.evaluate(() => {
    document.body.dataset.state = 'before-sweep';
  });
  await page.click('#run-sweep');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: RUN_TIMEOUT_MS });
  return page.evaluate(() => document.body.dataset.state);
}

/**
 * The first colours of the charts' palette (heaplab-plot's `PALETTE`, written out here so
 * that a change to it is a change a test sees): run `i` is drawn in `PALETTE[i]`.
 */
export const PALETTE = [[0, 114, 178], [213, 94, 0], [0, 158, 115], [204, 121, 167]];

/**
 * How far across the chart canvas run `index`'s colour reaches: the share of the canvas's
 * pixel columns holding a pixel of that colour. A curve drawn over the run spans most of
 * the plot; a legend's swatch, a few columns, so an empty chart with its legend scores
 * near zero.
 */
export async function curveReach(page, index) {
  return reachOn(page, index, null);
}

/**
 * [`curveReach`] on an exported PNG (its bytes): the picture is drawn on a canvas of the
 * page and read the same way.
 */
export async function pngReach(page, index, bytes) {
  return reachOn(page, index, `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`);
}

/** How many pixels of run `index`'s colour the chart canvas holds: its bars, say. */
export async function colourPixels(page, index) {
  return page.evaluate((rgb) => {
    const canvas = document.getElementById('chart');
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let at = 0; at < pixels.length; at += 4) {
      if (Math.abs(pixels[at] - rgb[0]) <= 12 && Math.abs(pixels[at + 1] - rgb[1]) <= 12 && Math.abs(pixels[at + 2] - rgb[2]) <= 12) count += 1;
    }
    return count;
  }, PALETTE[index]);
}

/**
 * The polylines an exported SVG draws in run `index`'s colour with at least `minPoints`
 * points: its curves, not a legend's two-point swatch. The page's own XML parser reads
 * the file, so a document that is not XML fails here too.
 */
export async function svgLines(page, svg, index, minPoints) {
  const [r, g, b] = PALETTE[index];
  const colour = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
  return page.evaluate(({ svg, colour, minPoints }) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    if (doc.querySelector('parsererror')) throw new Error(`not an XML document: ${doc.querySelector('parsererror').textContent}`);
    return [...doc.querySelectorAll('polyline')]
      .filter((line) => line.getAttribute('stroke')?.toUpperCase() === colour)
      .filter((line) => (line.getAttribute('points') ?? '').trim().split(/\s+/).length >= minPoints).length;
  }, { svg, colour, minPoints });
}

async function reachOn(page, index, pngUrl) {
  return page.evaluate(async ({ rgb, pngUrl }) => {
    let canvas = document.getElementById('chart');
    if (pngUrl) {
      const image = new Image();
      image.src = pngUrl;
      await image.decode();
      canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      canvas.getContext('2d').drawImage(image, 0, 0);
    }
    const { width, height } = canvas;
    const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const near = (at) => Math.abs(pixels[at] - rgb[0]) <= 12 && Math.abs(pixels[at + 1] - rgb[1]) <= 12 && Math.abs(pixels[at + 2] - rgb[2]) <= 12;
    let columns = 0;
    for (let x = 0; x < width; x += 1) {
      for (let y = 0; y < height; y += 1) {
        if (near(4 * (y * width + x))) {
          columns += 1;
          break;
        }
      }
    }
    return columns / width;
  }, { rgb: PALETTE[index], pngUrl });
}
