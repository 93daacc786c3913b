// The browser the benches drive: Debian's Chromium, headless, in a fresh profile of its
// own, with the flags that keep it from reaching out or updating itself mid-sitting.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';

/** A fresh profile folder named after `name` and the browser opened on it, at 1280×800. */
export async function launchBench(name) {
  const profile = await mkdtemp(path.join(tmpdir(), `${name}-`));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { profile, context };
}
