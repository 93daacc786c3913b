// The memory a browser tab holds, read from /proc as the operating system counts it: the
// browser tests hold the page to a bound with it, and the teaching bench reports it.

import { readFile, readdir } from 'node:fs/promises';

/**
 * The resident bytes of the largest renderer process of the browser whose profile is
 * `profileDir`: the tab's, which holds the page and its workers (the others are spare
 * renderers and the browser's own pages, each a fraction of it).
 */
export async function rendererBytes(profileDir) {
  let largest = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // Chromium rewrites its children's command lines as one string of words.
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split(/[\0 ]/);
      if (!cmdline.includes('--type=renderer') || cmdline.includes('--top-chrome-webui')) continue;
      if (!cmdline.includes(`--user-data-dir=${profileDir}`)) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      largest = Math.max(largest, Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // A process that ended while being read holds nothing.
    }
  }
  return largest;
}

/** Samples `rendererBytes(profileDir)` every 200 ms until stopped; `stop` resolves to the highest. */
export function watchMemory(profileDir) {
  let peak = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      peak = Math.max(peak, await rendererBytes(profileDir));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return peak;
  })();
  return {
    stop: async () => {
      stopped = true;
      return done;
    },
  };
}
