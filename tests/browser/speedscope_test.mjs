// Browser test of stackfold --format speedscope: the file is opened in the
// real speedscope (its npm package's release build, served over localhost
// and loaded with #profileURL=, as speedscope.app loads a URL).
//
//   node speedscope_test.mjs FILE.json FOLDED[@HZ]...
//
// One folded text file per profile the document should hold, in order (the
// same stacks as stackfold writes them as folded text): every expectation
// comes from those, not from the JSON. FOLDED@HZ: a thread in time order
// (evented), its values samples of 10^6/HZ us each; speedscope's total
// weight of such a profile is its time span, so only its frames are checked. Checks that speedscope imports the
// file as speedscope JSON without errors; that its profile list has one
// entry per file with the folded total as its "Total Weight"; and, profile
// by profile (key "n" goes to the next), that the sandwich table lists
// exactly the folded frames with their self and total values (total counted
// once per stack, as speedscope counts it). Values are compared as
// speedscope shows them: exact for unit "none", within the rounding of
// its 2 decimals for times and bytes.
// SPEEDSCOPE_IMPORTER names the importer speedscope must use (default
// "speedscope json file"; "Trace Event Format profile" for Chrome traces).
// Prints one line per check; exits 1 if any check fails, 2 on usage errors.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const here = path.dirname(fileURLToPath(import.meta.url));
const release = path.join(here, 'node_modules', 'speedscope', 'dist', 'release');
let failures = 0;

function check(ok, what, detail) {
  if (ok) console.log(`ok   - ${what}`);
  else { failures++; console.log(`FAIL - ${what}${detail ? `: ${detail}` : ''}`); }
}

if (process.argv.length < 4) {
  console.error('usage: node speedscope_test.mjs FILE.json FOLDED...');
  process.exit(2);
}
const file = path.resolve(process.argv[2]);
const folded = process.argv.slice(3);

// A folded file's frames: self (leaf) and total (once per stack) values,
// and the sum of all values.
function expected(arg) {
  const at = arg.lastIndexOf('@');
  const f = at > 0 ? arg.slice(0, at) : arg;
  const factor = at > 0 ? 1e6 / Number(arg.slice(at + 1)) : 1;
  const frames = new Map();
  let sum = 0;
  for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
    const m = /^(.*) ([0-9.]+)$/.exec(line);
    if (!m) continue;
    const v = Number(m[2]) * factor;
    if (v === 0) continue;
    sum += v;
    const names = m[1].split(';');
    const seen = new Set();
    names.forEach((n, i) => {
      const e = frames.get(n) || { self: 0, total: 0 };
      if (i === names.length - 1) e.self += v;
      if (!seen.has(n)) e.total += v;
      seen.add(n);
      frames.set(n, e);
    });
  }
  return { frames, sum, evented: at > 0 };
}

// A value as speedscope shows it ("1.55s", "12.00 KB", "1,234"), in the
// profile's unit (us, bytes, none), with how far its rounding may be off.
const TIME = { ns: 1e-3, 'µs': 1, ms: 1e3, s: 1e6 };
const BYTES = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
function shown(text) {
  let m = /^([0-9.]+) ?(ns|µs|ms|s)$/.exec(text);
  if (m) return { v: Number(m[1]) * TIME[m[2]], slack: 0.005 * TIME[m[2]] + 1e-9 };
  m = /^([0-9.]+) (B|KB|MB|GB)$/.exec(text);
  if (m) return { v: Number(m[1]) * BYTES[m[2]], slack: m[2] === 'B' ? 0.5 : 0.005 * BYTES[m[2]] };
  const raw = text.replace(/,/g, '');
  return /^[0-9.]+$/.test(raw) ? { v: Number(raw), slack: 0.0005 } : { v: NaN, slack: 0 };
}
const near = (s, want) => Math.abs(s.v - want) <= s.slack + Math.abs(want) * 1e-12;

const server = http.createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  const f = p === '/profile.json' ? file : path.join(release, path.normalize(p));
  if (!f.startsWith(release) && f !== file) { res.writeHead(403); res.end(); return; }
  fs.readFile(f, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': f.endsWith('.html') ? 'text/html' : f.endsWith('.js')
      ? 'text/javascript' : f.endsWith('.css') ? 'text/css' : 'application/octet-stream' });
    res.end(data);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 4000 } });
  const errors = [], logs = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { logs.push(m.text()); if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${base}/index.html#profileURL=${base}/profile.json&view=sandwich`);
  // The sandwich table appears once the profile is imported.
  await page.waitForFunction(() => [...document.querySelectorAll('th')]
    .some((th) => th.textContent.trim() === 'Symbol Name'), null, { timeout: 30000 })
    .catch(() => {});
  const importer = process.env.SPEEDSCOPE_IMPORTER || 'speedscope json file';
  check(logs.some((l) => l.includes(`Importing as ${importer}`)),
        `speedscope imports it as a ${importer}`, logs.join(' | ').slice(0, 300));

  // The profile list: one row per profile, name and total weight.
  const list = await page.evaluate(() => {
    const t = [...document.querySelectorAll('table')].find((x) =>
      [...x.querySelectorAll('th')].some((th) => th.textContent.trim() === 'Total Weight'));
    return t ? [...t.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())) : null;
  });
  const want = folded.map(expected);
  if (folded.length > 1 || list) {
    check(list && list.length === folded.length, `${folded.length} profiles listed`,
          list ? list.map((r) => r[1]).join(', ') : 'no profile list');
    for (let k = 0; list && k < Math.min(list.length, want.length); k++) {
      if (want[k].evented) continue;
      const s = shown(list[k][2]);
      check(near(s, want[k].sum), `profile ${k + 1} (${list[k][1]}): total weight ${list[k][2]} is the folded total ${want[k].sum}`);
    }
  }

  // SPEEDSCOPE_TOTALS_ONLY: the profiles and their totals, not the frames
  // (see suite.sh: speedscope's Chrome trace import adds ts and dur in
  // binary floating point, so a slice ending exactly where the next starts
  // may end a ulp after it and take the next one as its child).
  const framesChecked = !process.env.SPEEDSCOPE_TOTALS_ONLY;
  for (let k = 0; framesChecked && k < want.length; k++) {
    if (k > 0) {
      await page.keyboard.press('n');
      await page.waitForFunction((n) => document.body.innerText.includes(`(${n}/`), k + 1,
                                 { timeout: 10000 }).catch(() => {});
    }
    // The sandwich table: a header table ("Total", "Self", "Symbol Name"),
    // its rows in the table after it.
    const tableRows = () => {
      const all = [...document.querySelectorAll('table')];
      const h = all.findIndex((x) =>
        [...x.querySelectorAll('th')].some((th) => th.textContent.trim() === 'Symbol Name'));
      return h >= 0 && all[h + 1] ? [...all[h + 1].querySelectorAll('tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())) : [];
    };
    const names = [...want[k].frames.keys()].sort();
    // The rows are a virtual list drawn a frame or more after the header
    // (on a loaded machine, long after it): read them until this profile's
    // frames are all shown, for 20 s at most; the check below says which
    // never were.
    let rows = [];
    for (const end = Date.now() + 20000; ; await page.waitForTimeout(100)) {
      rows = await page.evaluate(tableRows);
      const shownNames = new Set(rows.map((r) => r[2]));
      if (names.every((n) => shownNames.has(n)) || Date.now() > end) break;
    }
    const title = await page.evaluate(() => document.body.innerText.split('\n')[1] || '');
    const label = `profile ${k + 1}/${want.length} (${title})`;
    const got = new Map(rows.map(([total, self, name]) => [name, {
      total: shown(total.replace(/ \(.*\)$/, '')), self: shown(self.replace(/ \(.*\)$/, '')) }]));
    check(got.size === names.length && names.every((n) => got.has(n)),
          `${label}: the sandwich table lists the ${names.length} folded frames`,
          `shown ${got.size}: ${[...got.keys()].filter((n) => !want[k].frames.has(n)).slice(0, 5).join(', ')}`
          + ` missing: ${names.filter((n) => !got.has(n)).slice(0, 5).join(', ')}`);
    const bad = names.filter((n) => got.has(n) && !(near(got.get(n).self, want[k].frames.get(n).self)
      && near(got.get(n).total, want[k].frames.get(n).total)));
    check(bad.length === 0, `${label}: every frame's self and total are the folded sums`,
          bad.slice(0, 3).map((n) => `${n}: shown ${got.get(n).self.v}/${got.get(n).total.v}, folded `
            + `${want[k].frames.get(n).self}/${want[k].frames.get(n).total}`).join('; '));
  }
  check(errors.length === 0, 'no script errors', errors.join('; ').slice(0, 300));
} finally {
  await browser.close();
  server.close();
}
process.exit(failures ? 1 : 0);
