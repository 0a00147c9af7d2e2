// Browser test of a memtimeline HTML page.
//
//   node memory_test.mjs FILE.html [SCREENSHOT.png]
//
// Opens the page from a file:// URL in headless Chromium and checks that the
// embedded plot decodes as a 1600x960 image and is shown at that size, that
// torch's page title is kept, and that the report (peak, categories,
// allocations) is there. Saves a screenshot for a human to look at.
// Prints one line per check; exits 1 if any check fails, 2 on usage errors.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
let failures = 0;

function check(ok, what, detail) {
  if (ok) console.log(`ok   - ${what}`);
  else { failures++; console.log(`FAIL - ${what}${detail ? `: ${detail}` : ''}`); }
}

if (process.argv.length < 3) {
  console.error('usage: node memory_test.mjs FILE.html [SCREENSHOT.png]');
  process.exit(2);
}
const file = path.resolve(process.argv[2]);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1700, height: 1400 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
  const img = await page.evaluate(async () => {
    const el = document.querySelector('img');
    if (!el) return null;
    if (!el.complete) await new Promise((r) => { el.onload = r; el.onerror = r; });
    const box = el.getBoundingClientRect();
    return { w: el.naturalWidth, h: el.naturalHeight, shownW: box.width, shownH: box.height,
             src: el.src.slice(0, 22) };
  });
  check(img !== null, 'the page has the plot image');
  if (img) {
    check(img.src === 'data:image/png;base64,', 'the plot is an embedded PNG', img.src);
    check(img.w === 1600 && img.h === 960, 'the PNG decodes as 1600x960', `${img.w}x${img.h}`);
    check(img.shownW === 1600 && img.shownH === 960, 'the plot is shown at its size',
          `${img.shownW}x${img.shownH}`);
  }
  check((await page.title()) === 'GPU Memory Timeline HTML', "torch's page title");
  const report = await page.evaluate(() => {
    const s = document.getElementById('flamekit-report');
    return s ? s.innerText : '';
  });
  check(/Peak: [0-9.]+ [KMGT]?i?B/.test(report), 'the report gives the peak', report.slice(0, 60));
  for (const c of ['PARAMETER', 'OPTIMIZER_STATE', 'INPUT', 'TEMPORARY', 'ACTIVATION',
                   'GRADIENT', 'AUTOGRAD_DETAIL', 'Unknown'])
    check(report.includes(c), `the report lists ${c}`);
  check(report.includes('Largest allocations live at the peak'), 'the report lists allocations');
  check(errors.length === 0, 'no script errors', errors.join('; '));
  if (process.argv[3]) await page.screenshot({ path: process.argv[3], fullPage: true });
  // A window narrower than the plot: it shrinks to fit, keeping its shape.
  await page.setViewportSize({ width: 1200, height: 900 });
  const narrow = await page.evaluate(() => {
    const b = document.querySelector('img').getBoundingClientRect();
    return { w: b.width, h: b.height, page: document.documentElement.scrollWidth };
  });
  check(narrow.w <= 1200 && narrow.page <= 1200, 'in a 1200 px window the plot fits (no sideways scroll)',
        `${narrow.w}x${narrow.h}, page ${narrow.page} px wide`);
  check(Math.abs(narrow.h / narrow.w - 960 / 1600) < 0.01, 'the shrunk plot keeps its shape',
        `${narrow.w}x${narrow.h}`);
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
