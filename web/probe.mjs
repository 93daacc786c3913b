import { chromium } from 'playwright-core';
const ctx = await chromium.launchPersistentContext('/tmp/prof-'+Date.now(), { executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 800 }, args: ['--no-sandbox','--disable-gpu'] });
const page = await ctx.newPage();
page.on('console', m => console.log('console', m.type(), m.text()));
page.on('pageerror', e => console.log('pageerror', e.message));
await page.goto(process.argv[2] ?? 'http://127.0.0.1:8000/');
await page.waitForFunction(() => ['done','error'].includes(document.body.dataset.state), null, {timeout: 60000});
console.log(await page.evaluate(() => document.body.dataset.state), await page.textContent('#error'));
if (process.argv[3]) {
  await page.setInputFiles('#module-file', process.argv[3]);
  await page.waitForTimeout(500);
  await page.waitForFunction(() => ['done','error'].includes(document.body.dataset.state), null, {timeout: 60000});
  console.log(await page.evaluate(() => document.body.dataset.state), await page.textContent('#error'), await page.textContent('#status'));
}
await page.screenshot({ path: '/tmp/probe.png' });
await ctx.close();
