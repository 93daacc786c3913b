// Teaching mode in the page, in headless Chromium, against the CLI: for each family on a
// small hand-written trace, step three times and compare each line with `heaplab
// explain`'s; the heap map's counts at several events against `heaplab run` of the
// trace cut at that event; scrub; click a page; zoom; a link that reopens at its step;
// a long trace opened at a far event and the jumps, the page's own long run opened where
// its memory chart is clicked, a typed trace, and blame by call site for a typed trace
// with sites.
//
// Run by `cargo xtask test` with HEAPLAB_URL (the page) and HEAPLAB_BIN (the CLI), as
// browser.test.mjs is.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';

import { PAGE_URL, RESULTS_DIR, RUN_TIMEOUT_MS as TIMEOUT_MS, heaplabText as cli, openPage as open, scratch, useBrowser } from './support.mjs';

useBrowser();

// The trace of the CLI's own teaching snapshots.
const TRACE = ['a 1 48', 'a 2 100', 'a 3 5000', 'f 1', 'a 4 40', 'f 3', 'f 2', 'a 5 64'];
const FAMILIES = ['bump', 'free-list', 'size-class', 'buddy', 'pool'];

let tracePath;

/** A page at 1280x800, once the run its link starts has settled. */
async function openPage(url) {
  const opened = await open(url);
  await opened.page.setViewportSize({ width: 1280, height: 800 });
  await opened.page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: TIMEOUT_MS });
  return opened;
}

const teach = (page) => page.evaluate(() => window.heaplabTeach && JSON.parse(JSON.stringify(window.heaplabTeach)));

async function waitEvent(page, event) {
  await page.waitForFunction((k) => window.heaplabTeach?.event === k, event, { timeout: TIMEOUT_MS });
  return teach(page);
}

/** The simulation's counters after `k` events: `heaplab run` of the trace cut there. */
async function countersAt(k, family) {
  const cut = path.join(scratch, `cut-${family}-${k}.trace`);
  await writeFile(cut, `${TRACE.slice(0, k).join('\n')}\n`);
  const [report] = JSON.parse(await cli(['run', '-w', cut, '-p', family, '--json']));
  return report;
}

/** Screenshots at 1280x800: the panel's top, then scrolled to the block map and blame. */
async function shot(page, name) {
  await page.locator('#teach').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(RESULTS_DIR, `teach-${name}.png`) });
  await page.locator('#teach-blocks').evaluate((canvas) => canvas.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(RESULTS_DIR, `teach-${name}-lower.png`) });
}

describe('teaching mode', () => {
  // Inside the suite, so that it runs once the browser and its folder exist.
  before(async () => {
    tracePath = path.join(scratch, 'small.trace');
    await writeFile(tracePath, `${TRACE.join('\n')}\n`);
  });

  for (const family of FAMILIES) {
    it(`${family}: three steps explain as heaplab explain does, and the map counts as the simulation`, async () => {
      const link = (await cli(['link', '-w', tracePath, '-p', family, '--base-url', PAGE_URL])).trim();
      const explained = (await cli(['explain', '-w', tracePath, '-p', family])).trim().split('\n');
      assert.equal(explained.length, TRACE.length);
      const { page, problems } = await openPage(link);
      await page.click('#teach-open');
      let t = await waitEvent(page, 0);
      assert.equal(t.events, TRACE.length);
      assert.equal(t.error, null);
      for (let k = 1; k <= 3; k += 1) {
        await page.click('#teach-forward');
        t = await waitEvent(page, k);
        assert.equal(t.line, explained[k - 1], `${family} event ${k}`);
        assert.equal(await page.textContent('#teach-line'), explained[k - 1]);
        assert.equal(t.op, TRACE[k - 1]);
      }
      // Scrub to several events; the map's counts are the simulation's at each.
      for (const k of [3, 5, 8, 6]) {
        await page.locator('#teach-scrub').fill(String(k));
        t = await waitEvent(page, k);
        assert.equal(t.line, explained[k - 1], `${family} scrubbed to ${k}`);
        const report = await countersAt(k, family);
        const ps = report.config.provider.page_size;
        assert.equal(t.counts.resident_pages * ps, report.end_resident_bytes, `${family} resident at ${k}`);
        assert.equal(t.counts.committed_pages * ps, report.end_committed_bytes, `${family} committed at ${k}`);
        assert.equal(t.counts.live_bytes, report.end_live_bytes, `${family} live at ${k}`);
        assert.equal(t.blame.resident, report.end_resident_bytes);
      }
      // Step back lands where scrubbing does.
      await page.click('#teach-back');
      t = await waitEvent(page, 5);
      assert.equal(t.line, explained[4]);
      // Click page 0: its blocks, as blame names them at that event.
      const cell = await page.evaluate(() => window.heaplabTeach.cell(0));
      assert.ok(cell, 'page 0 is on the map');
      const box = await page.locator('#teach-heap').boundingBox();
      await page.mouse.click(box.x + cell.x + cell.size / 2, box.y + cell.y + cell.size / 2);
      await page.waitForFunction(() => window.heaplabTeach?.page === 0, null, { timeout: TIMEOUT_MS });
      t = await teach(page);
      const blame = JSON.parse(await cli(['blame', '-w', tracePath, '-p', family, '--at', '5', '--json']));
      const pinnerIds = new Set(blame.pinners.map((p) => p.id));
      assert.ok(t.pageInfo, `${family}: page 0 is committed at event 5`);
      for (const b of t.pageInfo.blocks) assert.ok(b.id >= 1 && b.id <= 4, `${family}: block ${b.id} lives at event 5`);
      if (t.pageInfo.resident && t.pageInfo.blocks.length) {
        assert.ok(t.pageInfo.blocks.some((b) => pinnerIds.has(b.id)), `${family}: a block of page 0 pins it, as blame says`);
      }
      assert.match(await page.textContent('#teach-page'), /^Page 0/);
      await shot(page, family);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('a link with the teaching position reopens at that step, page selected; an old link with the event alone too', async () => {
    const link = (await cli(['link', '-w', tracePath, '-p', 'free-list', '-p', 'buddy', '--base-url', PAGE_URL])).trim();
    const explained = (await cli(['explain', '-w', tracePath, '-p', 'buddy'])).trim().split('\n');
    const { page, problems } = await openPage(link);
    await page.click('#teach-open');
    await waitEvent(page, 0);
    await page.selectOption('#teach-config', '1');
    await page.waitForFunction(() => window.heaplabTeach?.config === 1, null, { timeout: TIMEOUT_MS });
    // The arrow keys step once the focus is on the panel's controls.
    await page.focus('#teach-forward');
    for (let k = 1; k <= 3; k += 1) await page.keyboard.press('ArrowRight');
    let t = await waitEvent(page, 3);
    assert.equal(t.line, explained[2]);
    const cell = await page.evaluate(() => window.heaplabTeach.cell(0));
    const box = await page.locator('#teach-heap').boundingBox();
    await page.mouse.click(box.x + cell.x + 2, box.y + cell.y + 2);
    await page.waitForFunction(() => window.heaplabTeach?.page === 0, null, { timeout: TIMEOUT_MS });
    const shared = await page.evaluate(() => window.heaplabLink);
    await page.close();

    const again = await openPage(shared);
    t = await waitEvent(again.page, 3);
    assert.equal(t.config, 1);
    assert.equal(t.page, 0);
    assert.equal(t.line, explained[2]);
    assert.equal(await again.page.textContent('#teach-line'), explained[2]);
    // The CLI reads the same link: its runs are the two configurations.
    const runs = JSON.parse(await cli(['run', '--link', shared, '--json']));
    assert.equal(runs.length, 2);
    await again.page.close();

    const old = `${PAGE_URL}#2.${deflateRawSync(
      Buffer.from(
        JSON.stringify({
          workload: { embedded: { name: 'small.trace', text: `${TRACE.join('\n')}\n` } },
          configs: [{ family: 'free-list' }],
          view: { teach: 2 },
        }),
      ),
    ).toString('base64url')}`;
    const opened = await openPage(old);
    t = await waitEvent(opened.page, 2);
    const freeList = (await cli(['explain', '-w', tracePath, '-p', 'free-list'])).trim().split('\n');
    assert.equal(t.line, freeList[1]);
    assert.deepEqual([...problems, ...again.problems, ...opened.problems], []);
    await opened.page.close();
  });

  it('zooms into a region of the heap map and out again', async () => {
    const link = (await cli(['link', '-w', 'churn', '--scale', '0.0005', '-p', 'size-class', '--base-url', PAGE_URL])).trim();
    const { page, problems } = await openPage(link);
    await page.click('#teach-open');
    await waitEvent(page, 0);
    await page.locator('#teach-scrub').fill('3000');
    let t = await waitEvent(page, 3000);
    assert.ok(t.counts.committed_pages > 4, `${t.counts.committed_pages} committed pages`);
    const box = await page.locator('#teach-heap').boundingBox();
    const [a, b] = await page.evaluate(() => [window.heaplabTeach.cell(0), window.heaplabTeach.cell(3)]);
    await page.mouse.move(box.x + a.x + 3, box.y + a.y + 3);
    await page.mouse.down();
    await page.mouse.move(box.x + b.x + 3, box.y + b.y + 3, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() => window.heaplabTeach?.zoom?.[1] === 3, null, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.deepEqual(t.zoom, [0, 3]);
    const zoomed = await page.evaluate(() => window.heaplabTeach.cell(0));
    assert.ok(zoomed.size > a.size, `a zoomed page is drawn larger: ${zoomed.size} > ${a.size}`);
    assert.equal(await page.evaluate(() => window.heaplabTeach.cell(4)), null);
    await shot(page, 'zoomed');
    // The zoom travels in the link: copied and opened in a new page, the same region at
    // the same event.
    await page.click('#copy-link');
    const copied = await page.evaluate(() => window.heaplabLink);
    const again = await openPage(copied);
    t = await waitEvent(again.page, 3000);
    assert.deepEqual(t.zoom, [0, 3]);
    assert.equal(await again.page.evaluate(() => window.heaplabTeach.cell(4)), null);
    assert.deepEqual(await again.page.evaluate(() => window.heaplabTeach.cell(0)), zoomed);
    assert.deepEqual(again.problems, []);
    await again.page.close();
    await page.click('#teach-zoom-out');
    await page.waitForFunction(() => window.heaplabTeach?.zoom === null, null, { timeout: TIMEOUT_MS });
    // Play runs on by itself, and pause stops it.
    await page.selectOption('#teach-speed', '100');
    await page.click('#teach-play');
    await page.waitForFunction(() => window.heaplabTeach?.event >= 3010, null, { timeout: TIMEOUT_MS });
    assert.equal((await teach(page)).playing, true);
    await page.click('#teach-play');
    // Paused, the player holds no timer; a step from there moves exactly one event.
    const stopped = await teach(page);
    assert.equal(stopped.playing, false);
    await page.click('#teach-forward');
    await page.waitForFunction((at) => window.heaplabTeach?.event === at + 1, stopped.event, { timeout: TIMEOUT_MS });
    assert.equal((await teach(page)).playing, false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('draws the free list links on the block map, and first fit leaves other holes than best fit', async () => {
    const fits = path.join(scratch, 'fits.trace');
    await writeFile(fits, 'a 1 200\na 2 16\na 3 80\na 4 16\na 6 48\na 7 16\nf 1\nf 3\nf 6\na 5 64\n');
    const holes = {};
    for (const fit of ['first', 'best']) {
      const link = (await cli(['link', '-w', fits, '-p', 'free-list', '--set', `fit=${fit}`, '--base-url', PAGE_URL])).trim();
      const { page, problems } = await openPage(link);
      await page.click('#teach-open');
      await waitEvent(page, 0);
      await page.click('#teach-last');
      const t = await waitEvent(page, 10);
      // The block map's pieces, read back by pointing at each pixel of page 0's bar.
      const found = await page.evaluate(async () => {
        const canvas = document.querySelector('#teach-blocks');
        const box = canvas.getBoundingClientRect();
        const seen = new Map();
        for (let x = 0; x < box.width; x += 1) {
          for (const y of [18, 23, 28]) {
            canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
            const note = document.querySelector('#teach-blocks-note').textContent;
            if (/^free, kept in the policy's (free list|bin|free chunks of)/.test(note)) seen.set(note, x);
          }
        }
        return [...seen.keys()];
      });
      holes[fit] = found;
      if (fit === 'first') {
        // First fit keeps one address-ordered list of its three holes: two links.
        assert.equal(t.blocks.links, 2, JSON.stringify(t.blocks));
        assert.ok(found.some((n) => /first out of free list/.test(n)), found.join('\n'));
        assert.match(await page.textContent('#teach-blocks-legend'), /arrow: a list's next free piece/);
      }
      await page.screenshot({ path: path.join(RESULTS_DIR, `teach-fit-${fit}.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    }
    // First fit split the 200-byte hole and keeps three; best fit used up the 80-byte one.
    assert.equal(holes.first.length, 3, JSON.stringify(holes));
    assert.equal(holes.best.length, 2, JSON.stringify(holes));
    assert.notDeepEqual(holes.first, holes.best);
  });

  it('zooms the block map into a page down to its bytes: a 32-byte chunk and its header where heaplab explain places them', async () => {
    const fits = path.join(scratch, 'zoom.trace');
    await writeFile(fits, 'a 1 200\na 2 16\na 3 80\na 4 16\na 6 48\na 7 16\nf 1\nf 3\nf 6\na 5 64\n');
    const explained = (await cli(['explain', '-w', fits, '-p', 'free-list', '--set', 'fit=first'])).trim().split('\n');
    // Block 2 asked for 16 bytes; explain says where its payload went.
    const placed = BigInt(explained[1].match(/placed at (0x[0-9a-f]+)/)[1]);
    const link = (await cli(['link', '-w', fits, '-p', 'free-list', '--set', 'fit=first', '--base-url', PAGE_URL])).trim();
    const { page, problems } = await openPage(link);
    await page.click('#teach-open');
    await waitEvent(page, 0);
    await page.click('#teach-last');
    await waitEvent(page, 10);
    const canvasBox = () => page.locator('#teach-blocks').boundingBox();
    // Every piece of the block map along its bars, read through the pointer's hook:
    // `{ id or kind, addr, size, from, to }` with the CSS pixels it spans.
    const scan = () =>
      page.evaluate(() => {
        const canvas = document.querySelector('#teach-blocks');
        const { width, height } = canvas.getBoundingClientRect();
        const seen = new Map();
        for (let y = 0; y < Math.min(height, 60); y += 2) {
          for (let x = 0; x < width; x += 1) {
            const hit = window.heaplabTeach.piece(x, y);
            if (!hit) continue;
            const key = `${hit.piece.addr}:${hit.piece.kind}`;
            const had = seen.get(key) ?? { ...hit.piece, text: hit.text, from: x, to: x, y };
            had.from = Math.min(had.from, x);
            had.to = Math.max(had.to, x);
            seen.set(key, had);
          }
        }
        return [...seen.values()];
      });
    const chunkWidth = (pieces) => pieces.filter((p) => p.id === 2).reduce((w, p) => w + p.to - p.from + 1, 0);
    const whole = await scan();
    assert.ok(chunkWidth(whole) < 12, `unzoomed, the 32-byte chunk is ${chunkWidth(whole)} pixels wide`);
    // 256 bytes of page 0 around the chunk, typed as offsets.
    await page.fill('#teach-bytes', '0xc0..0x1c0');
    await page.press('#teach-bytes', 'Enter');
    await page.waitForFunction(() => window.heaplabTeach?.blocks?.bytes?.from === 0xc0, null, { timeout: TIMEOUT_MS });
    let t = await teach(page);
    assert.deepEqual(t.bytes, { page: 0, from: 0xc0, to: 0x1c0 });
    assert.equal(t.blocks.rows, 1);
    let pieces = await scan();
    assert.ok(chunkWidth(pieces) >= 80, `zoomed, the 32-byte chunk is ${chunkWidth(pieces)} pixels wide`);
    const payload = pieces.find((p) => p.kind === 'block' && p.id === 2);
    assert.equal(BigInt(payload.addr), placed, `block 2 is where heaplab explain placed it: ${payload.text}`);
    assert.equal(payload.size, 16);
    const header = pieces.find((p) => p.kind === 'header' && p.id === 2);
    assert.equal(BigInt(header.addr) + BigInt(header.size), placed, 'its header lies just in front of it');
    assert.match(header.text, /^header of block id 2: 8 B at 0x/);
    // The wheel over the payload zooms in around it: the piece under the pointer stays.
    const box = await canvasBox();
    const x = box.x + (payload.from + payload.to) / 2;
    const y = box.y + payload.y;
    await page.mouse.move(x, y);
    await page.mouse.wheel(0, -120);
    await page.waitForFunction(() => window.heaplabTeach?.bytes && window.heaplabTeach.bytes.to - window.heaplabTeach.bytes.from < 256, null, { timeout: TIMEOUT_MS });
    t = await teach(page);
    const under = await page.evaluate(([px, py]) => window.heaplabTeach.piece(px, py), [(payload.from + payload.to) / 2, payload.y]);
    assert.equal(under.piece.kind, 'block');
    assert.equal(under.piece.id, 2);
    assert.match(await page.textContent('#teach-blocks-note'), /^page 0, bytes \+0x/);
    await page.locator('#teach-blocks').evaluate((canvas) => canvas.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: path.join(RESULTS_DIR, 'teach-bytes.png') });
    // The zoom travels in the link.
    await page.click('#copy-link');
    const copied = await page.evaluate(() => window.heaplabLink);
    const again = await openPage(copied);
    const reopened = await waitEvent(again.page, 10);
    assert.deepEqual(reopened.bytes, t.bytes);
    assert.deepEqual(await again.page.evaluate(([px, py]) => window.heaplabTeach.piece(px, py)?.piece, [(payload.from + payload.to) / 2, payload.y]), under.piece);
    assert.deepEqual(again.problems, []);
    await again.page.close();
    // A range that is not one is refused in words; the zoom stays as it was.
    await page.fill('#teach-bytes', '0x1c0..0xc0');
    await page.press('#teach-bytes', 'Enter');
    await page.waitForFunction(() => !document.querySelector('#teach-error').hidden, null, { timeout: TIMEOUT_MS });
    assert.match(await page.textContent('#teach-error'), /^bytes: "0x1c0\.\.0xc0" is not FROM\.\.TO/);
    assert.deepEqual((await teach(page)).bytes, t.bytes);
    // − all the way out comes back to whole pages.
    for (let i = 0; i < 8 && (await teach(page)).bytes; i += 1) await page.click('#teach-bytes-out');
    t = await teach(page);
    assert.equal(t.bytes, null);
    assert.equal(t.blocks.bytes, null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows a second configuration side by side, stepping with the first, each as heaplab explain and blame say', async () => {
    const link = (await cli(['link', '-w', tracePath, '-p', 'free-list', '-p', 'buddy', '--base-url', PAGE_URL])).trim();
    const explained = {};
    for (const family of ['free-list', 'buddy']) explained[family] = (await cli(['explain', '-w', tracePath, '-p', family])).trim().split('\n');
    const { page, problems } = await openPage(link);
    await page.click('#teach-open');
    await waitEvent(page, 0);
    await page.selectOption('#teach-compare', '1');
    await page.waitForFunction(() => window.heaplabTeach?.compare?.event === 0, null, { timeout: TIMEOUT_MS });
    const both = async (k) => {
      await page.waitForFunction((e) => window.heaplabTeach?.event === e && window.heaplabTeach?.compare?.event === e, k, { timeout: TIMEOUT_MS });
      return teach(page);
    };
    let t;
    for (let k = 1; k <= 3; k += 1) {
      await page.click('#teach-forward');
      t = await both(k);
      assert.equal(t.line, explained['free-list'][k - 1]);
      assert.equal(t.compare.line, explained.buddy[k - 1]);
      assert.equal(t.compare.config, 1);
      assert.match(await page.textContent('#teach-compare-line'), new RegExp(`^B: buddy: ${explained.buddy[k - 1].slice(0, 20).replace(/[()]/g, '\\$&')}`));
    }
    // Scrubbed, at the end and stepped back: both at the same event, with blame's figures.
    for (const [how, k] of [['scrub', 6], ['last', TRACE.length], ['back', TRACE.length - 1]]) {
      if (how === 'scrub') await page.locator('#teach-scrub').fill(String(k));
      else await page.click(how === 'last' ? '#teach-last' : '#teach-back');
      t = await both(k);
      for (const [family, seen] of [['free-list', t], ['buddy', t.compare]]) {
        const blamed = JSON.parse(await cli(['blame', '-w', tracePath, '-p', family, '--at', String(k), '--json']));
        assert.equal(seen.line, explained[family][k - 1], `${family} at ${k}`);
        for (const field of ['resident', 'live', 'pinned', 'kept_by_policy']) assert.equal(seen.blame[field], blamed[field], `${family} ${field} at ${k}`);
      }
    }
    // The table says both runs' figures and the difference.
    const table = await page.textContent('#teach-versus');
    assert.match(table, /A: free-list/);
    assert.match(table, /B: buddy/);
    assert.match(table, /pinned by live blocks/);
    assert.equal(await page.isVisible('#teach-heap-b'), true);
    assert.equal(await page.isVisible('#teach-blocks-b'), true);
    await page.locator('.teach-controls').first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(RESULTS_DIR, 'teach-side-by-side.png') });
    await page.locator('#teach-heap').evaluate((canvas) => canvas.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(RESULTS_DIR, 'teach-side-by-side-maps.png') });
    // The link carries the comparison.
    await page.click('#copy-link');
    const copied = await page.evaluate(() => window.heaplabLink);
    const again = await openPage(copied);
    await again.page.waitForFunction((e) => window.heaplabTeach?.compare?.event === e, TRACE.length - 1, { timeout: TIMEOUT_MS });
    const reopened = await teach(again.page);
    assert.equal(reopened.compare.config, 1);
    assert.equal(reopened.compare.line, explained.buddy[TRACE.length - 2]);
    assert.deepEqual(again.problems, []);
    await again.page.close();
    // The compared block map answers the pointer, and its wheel zooms both maps into
    // the page under it.
    const bBox = await page.locator('#teach-blocks-b').boundingBox();
    await page.mouse.move(bBox.x + bBox.width * 0.5, bBox.y + 23);
    assert.match(await page.textContent('#teach-blocks-note'), /^B: buddy: /);
    await page.mouse.wheel(0, -120);
    await page.waitForFunction(() => window.heaplabTeach?.bytes && window.heaplabTeach.compare?.blocks?.bytes, null, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.equal(t.blocks.rows, 1);
    assert.deepEqual(t.compare.blocks.bytes, t.blocks.bytes);
    await page.locator('#teach-blocks').evaluate((canvas) => canvas.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(RESULTS_DIR, 'teach-side-by-side-bytes.png') });
    // Nothing compared: the second run's parts go away.
    await page.selectOption('#teach-compare', '');
    await page.waitForFunction(() => window.heaplabTeach?.compare === null, null, { timeout: TIMEOUT_MS });
    assert.equal(await page.isVisible('#teach-heap-b'), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('opens a long trace at a far event and jumps, as heaplab explain and blame say', async () => {
    // 600,000 events: far past what one step at a time reaches.
    const long = path.join(scratch, 'long.trace');
    const lines = [];
    for (let i = 0; i < 200_000; i += 1) lines.push(`a ${i} ${16 + (i % 7) * 600}`);
    for (let i = 0; i < 200_000; i += 1) lines.push(`f ${i * 7919 % 200_000}`, `a ${200_000 + i} 24`);
    await writeFile(long, `${lines.join('\n')}\n`);
    const at = 500_000;
    const [line] = (await cli(['explain', '-w', long, '-p', 'glibc-like', '--from', String(at), '--to', String(at)])).trim().split('\n');
    const blamed = JSON.parse(await cli(['blame', '-w', long, '-p', 'glibc-like', '--at', String(at), '--json']));
    const peak = JSON.parse(await cli(['blame', '-w', long, '-p', 'glibc-like', '--at', 'peak', '--json']));
    const link = (await cli(['link', '-w', long, '-p', 'glibc-like', '--base-url', PAGE_URL])).trim();
    // The link names the trace; the file is chosen here, as a colleague would.
    const { page, problems } = await open(link);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.setInputFiles('#trace-file', long);
    await page.click('#teach-open');
    let t = await waitEvent(page, 0);
    assert.equal(t.events, 600_000);
    await page.fill('#teach-goto', String(at));
    await page.press('#teach-goto', 'Enter');
    t = await waitEvent(page, at);
    assert.equal(t.busy, false);
    assert.equal(t.line, line);
    assert.equal(t.blame.resident, blamed.resident);
    assert.equal(t.blame.pinned, blamed.pinned);
    assert.equal(t.blame.kept_by_policy, blamed.kept_by_policy);
    // Back one event replays from the start, and says the event before.
    await page.click('#teach-back');
    t = await waitEvent(page, at - 1);
    assert.match(t.line, new RegExp(`^event ${at - 1}: `));
    await page.click('#teach-peak');
    t = await waitEvent(page, peak.event);
    assert.equal(t.blame.resident, peak.resident);
    // The page operation before the peak is one the line says.
    await page.click('#teach-prev-op');
    await page.waitForFunction((k) => window.heaplabTeach.event < k && !window.heaplabTeach.busy, peak.event, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.match(t.line, /commit|decommit|reserve|release|trim|gave back|give back/i, t.line);
    const [opLine] = (await cli(['explain', '-w', long, '-p', 'glibc-like', '--from', String(t.event), '--to', String(t.event)])).trim().split('\n');
    assert.equal(t.line, opLine);
    await shot(page, 'far');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('opens on the page\'s own long run where the memory chart is clicked, and steps through a typed trace', async () => {
    // Two configurations of a built-in workload far longer than a lesson.
    const link = (await cli(['link', '-w', 'browser', '--scale', '0.1', '-p', 'glibc-like', '-p', 'mimalloc-like', '--base-url', PAGE_URL])).trim();
    const { page, problems } = await openPage(link);
    await page.waitForFunction(() => window.heaplabChart?.frame, null, { timeout: TIMEOUT_MS });
    const frame = await page.evaluate(() => window.heaplabChart.frame);
    const box = await page.locator('#chart').boundingBox();
    const size = await page.locator('#chart').evaluate((c) => ({ w: c.width, h: c.height }));
    // Two thirds of the way along the plot, in the middle of its height.
    const x = frame.left + ((frame.right - frame.left) * 2) / 3;
    const y = (frame.top + frame.bottom) / 2;
    const event = frame.first_event + Math.round(((x - frame.left) / (frame.right - frame.left)) * (frame.last_event - frame.first_event));
    await page.mouse.click(box.x + (x * box.width) / size.w, box.y + (y * box.height) / size.h);
    let t = await waitEvent(page, event);
    assert.ok(t.events > 100_000, `${t.events} events`);
    assert.equal(t.error, null);
    const [line] = (await cli(['explain', '-w', 'browser', '--scale', '0.1', '-p', 'glibc-like', '--from', String(event), '--to', String(event)])).trim().split('\n');
    assert.equal(t.line, line);
    const blamed = JSON.parse(await cli(['blame', '-w', 'browser', '--scale', '0.1', '-p', 'glibc-like', '--at', String(event), '--json']));
    assert.equal(t.blame.resident, blamed.resident);
    assert.equal(t.blame.live, blamed.live);
    assert.equal(await page.isVisible('#teach-heap'), true);
    await shot(page, 'clicked');
    // The next phase: the event that marks it, with the CLI's line.
    await page.click('#teach-next-phase');
    await page.waitForFunction((k) => window.heaplabTeach.event > k && !window.heaplabTeach.busy, event, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.match(t.op, /^p /, `${t.op}: not a phase mark`);
    await page.click('#teach-type');
    assert.equal(await page.isVisible('#teach-trace'), true);
    // The button opens the box to type in, however often it is pressed (teaching a
    // workload too long to step through opens it by itself first); it never hides it.
    await page.click('#teach-type');
    assert.equal(await page.isVisible('#teach-trace'), true, '"Type a trace…" hid the box');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'teach-trace');
    await page.fill('#teach-trace', 'a 1 48\na 2 100\nf 1\nf 9');
    await page.click('#teach-use-trace');
    // A bad line of the typed trace is named by its line.
    await page.waitForFunction(() => /typed\.trace/.test(window.heaplabTeach?.error ?? ''), null, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.match(t.error, /^typed\.trace:4: /);
    await page.fill('#teach-trace', 'a 1 48\na 2 100\nf 1');
    await page.click('#teach-use-trace');
    await page.waitForFunction(() => window.heaplabTeach?.events === 3, null, { timeout: TIMEOUT_MS });
    t = await teach(page);
    assert.equal(t.event, 0);
    assert.equal(t.error, null);
    await page.click('#teach-forward');
    t = await waitEvent(page, 1);
    assert.match(t.line, /^event 1: a 48 B \(id 1\)/);
    // The typed trace is the editor's workload now, so the comparison can run it too.
    assert.equal(await page.inputValue('#workload'), 'trace');
    await shot(page, 'typed');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a click on the memory chart opens teaching mode on the configuration it follows, with the one compared beside it', async () => {
    const args = ['-w', 'browser', '--scale', '0.02'];
    const link = (await cli(['link', ...args, '-p', 'glibc-like', '-p', 'mimalloc-like', '--base-url', PAGE_URL])).trim();
    const { page, problems } = await openPage(link);
    await page.waitForFunction(() => window.heaplabChart?.frame, null, { timeout: TIMEOUT_MS });
    // Teaching mode follows B, with A beside it.
    await page.click('#teach-open');
    await waitEvent(page, 0);
    await page.selectOption('#teach-config', '1');
    await page.waitForFunction(() => window.heaplabTeach?.config === 1 && window.heaplabTeach.event === 0, null, { timeout: TIMEOUT_MS });
    await page.selectOption('#teach-compare', '0');
    await page.waitForFunction(() => window.heaplabTeach?.compare?.event === 0, null, { timeout: TIMEOUT_MS });
    /** Clicks the memory chart `share` of the way along its plot; answers the event under the pointer. */
    const clickChart = async (share) => {
      await page.locator('#chart').scrollIntoViewIfNeeded();
      const frame = await page.evaluate(() => window.heaplabChart.frame);
      const box = await page.locator('#chart').boundingBox();
      const size = await page.locator('#chart').evaluate((c) => ({ w: c.width, h: c.height }));
      const x = frame.left + (frame.right - frame.left) * share;
      // Low in the plot, nearer A's curve than B's wherever they part.
      const y = frame.top + (frame.bottom - frame.top) * 0.9;
      await page.mouse.click(box.x + (x * box.width) / size.w, box.y + (y * box.height) / size.h);
      return frame.first_event + Math.round(((x - frame.left) / (frame.right - frame.left)) * (frame.last_event - frame.first_event));
    };
    let event = await clickChart(0.55);
    await page.waitForFunction((k) => window.heaplabTeach?.event === k && window.heaplabTeach.compare?.event === k, event, { timeout: TIMEOUT_MS });
    let t = await teach(page);
    assert.equal(t.config, 1, 'the configuration followed stays B');
    assert.equal(await page.inputValue('#teach-config'), '1');
    const [line] = (await cli(['explain', ...args, '-p', 'mimalloc-like', '--from', String(event), '--to', String(event)])).trim().split('\n');
    assert.equal(t.line, line);
    const [compared] = (await cli(['explain', ...args, '-p', 'glibc-like', '--from', String(event), '--to', String(event)])).trim().split('\n');
    assert.equal(t.compare.config, 0);
    assert.equal(t.compare.line, compared);
    // Closed and opened again by a click: still B.
    await page.click('#teach-close');
    event = await clickChart(0.3);
    t = await waitEvent(page, event);
    assert.equal(t.config, 1);
    const [again] = (await cli(['explain', ...args, '-p', 'mimalloc-like', '--from', String(event), '--to', String(event)])).trim().split('\n');
    assert.equal(t.line, again);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('groups blame by call site for a typed trace with sites, as heaplab blame does', async () => {
    // The CLI tests' trace: three named sites, one unnamed, blocks without one.
    const sitesPath = new URL('../../crates/heaplab-cli/tests/teach/sites.trace', import.meta.url);
    const text = await readFile(sitesPath, 'utf8');
    const expected = JSON.parse(await cli(['blame', '-w', sitesPath.pathname, '-p', 'glibc-like', '--json']));
    assert.ok(expected.by_site.length >= 4);
    const link = (await cli(['link', '-w', tracePath, '-p', 'glibc-like', '--base-url', PAGE_URL])).trim();
    const { page, problems } = await openPage(link);
    await page.click('#teach-open');
    await waitEvent(page, 0);
    // A trace without sites: no call-site grouping.
    await page.click('#teach-last');
    let t = await waitEvent(page, TRACE.length);
    assert.deepEqual(t.blame.by_site, []);
    assert.equal(await page.locator('#teach-blame-sites').count(), 0);
    await page.click('#teach-type');
    await page.fill('#teach-trace', text);
    await page.click('#teach-use-trace');
    await page.waitForFunction((n) => window.heaplabTeach?.events === n, expected.event, { timeout: TIMEOUT_MS });
    await page.click('#teach-last');
    t = await waitEvent(page, expected.event);
    assert.equal(t.error, null);
    assert.equal(t.blame.pinned, expected.pinned);
    assert.deepEqual(t.blame.by_site, expected.by_site);
    const rows = await page.locator('#teach-blame-sites tbody tr').allTextContents();
    assert.equal(rows.length, Math.min(5, expected.by_site.length));
    assert.match(rows[0], new RegExp(`^${expected.by_site[0].key.replace(/[()]/g, '\\$&')}`));
    assert.match(await page.textContent('#teach-blame'), /parse_json \(json\.c:212\)/);
    await page.locator('#teach-blame').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'teach-sites.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
