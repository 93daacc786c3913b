// The static site `cargo xtask dist` writes, served under a sub-path as a shared static
// host serves it: a link the CLI made for that address opens there with the CLI's
// numbers, teaching mode loads its module there, and the links the page writes keep the
// sub-path. Nothing may be asked of the host's root, where the page is not.
//
// `cargo xtask test` writes the site and sets HEAPLAB_DIST to its folder, besides
// HEAPLAB_URL and HEAPLAB_BIN (see support.mjs).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

import { RESULTS_DIR, RUN_TIMEOUT_MS, errorText, heaplabJson, heaplabText, openPage, ranOnOpen, requiredEnv, results, useBrowser } from './support.mjs';

const DIST = requiredEnv('HEAPLAB_DIST');
const SUB_PATH = '/some/sub/path/';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

useBrowser();

describe('the static site under a sub-path', () => {
  // What was asked for outside the sub-path: a URL written from the host's root
  // (`/pkg/…`) works when the page is served at a root and nowhere else.
  const outside = [];
  let server;
  let base;

  before(async () => {
    server = http.createServer((request, response) => serve(request, response, outside));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}${SUB_PATH}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('holds the page and its wasm, and nothing only the tests need', async () => {
    const wasm = await fetch(`${base}pkg/heaplab_wasm_bg.wasm`);
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    for (const left of ['tests/support.mjs', 'bench/page.mjs', 'package.json', 'node_modules/playwright-core/package.json']) {
      assert.equal((await fetch(`${base}${left}`)).status, 404, `${left} is in the site`);
    }
  });

  it('opens a link the CLI made for the sub-path, with the CLI\'s numbers, and writes its links there', async () => {
    const args = ['-w', 'churn', '--scale', '0.01', '-p', 'glibc-like', '-p', 'size-class'];
    const link = (await heaplabText(['link', '--base-url', base, ...args])).trim();
    assert.ok(link.startsWith(`${base}#2.`), `not a link to the site: ${link}`);

    const { page, problems } = await openPage(link);
    assert.equal(await ranOnOpen(page), 'done', await errorText(page));
    const { reports } = await results(page);
    assert.equal(reports.length, 2);
    assert.deepStrictEqual(reports, await heaplabJson(['run', '--link', link, '--json']));

    // An edit rewrites the address bar's link, and Copy link copies it: both stay on the
    // sub-path, and the CLI replays what the page then shows.
    await page.fill('.policy:nth-of-type(1) [data-param="trim_threshold"]', '1MiB');
    await page.waitForFunction(
      () => window.heaplabResults?.[0]?.config.policy.params.trim_threshold === 1048576,
      null,
      { timeout: RUN_TIMEOUT_MS },
    );
    await page.click('#copy-link');
    const written = await page.evaluate(() => window.heaplabLink);
    assert.ok(written.startsWith(`${base}#2.`), `the page wrote ${written}`);
    assert.equal(page.url(), written);
    assert.notEqual(written, link);
    assert.deepStrictEqual((await results(page)).reports, await heaplabJson(['run', '--link', written, '--json']));

    // Teaching mode's module is loaded only when it opens, from the site too.
    const explain = ['explain', '-w', 'churn', '--scale', '0.01', '-p', 'glibc-like:trim_threshold=1MiB', '--to', '1'];
    const [first] = (await heaplabText(explain)).trim().split('\n');
    await page.click('#teach-open');
    await page.waitForFunction(() => window.heaplabTeach?.event === 0, null, { timeout: RUN_TIMEOUT_MS });
    await page.click('#teach-forward');
    await page.waitForFunction(() => window.heaplabTeach?.event === 1, null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await page.evaluate(() => window.heaplabTeach.line), first);

    await page.screenshot({ path: path.join(RESULTS_DIR, 'dist-sub-path.png') });
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    await page.close();
  });
});

/**
 * Answers a GET under SUB_PATH with the site's file, as a static host does; anything
 * else is a 404, and a path outside SUB_PATH is kept in `outside` for the test to see.
 */
async function serve(request, response, outside) {
  const { pathname } = new URL(request.url, 'http://localhost');
  if (!pathname.startsWith(SUB_PATH)) {
    outside.push(pathname);
    response.writeHead(404).end();
    return;
  }
  const relative = decodeURIComponent(pathname.slice(SUB_PATH.length)) || 'index.html';
  if (relative.split('/').includes('..')) {
    response.writeHead(403).end();
    return;
  }
  const file = path.join(DIST, relative);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, {
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
  });
  createReadStream(file).pipe(response);
}
