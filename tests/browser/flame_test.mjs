// Browser test for the JavaScript embedded in flamekit flame graph SVGs.
//
//   node flame_test.mjs FILE.svg
//
// Opens FILE.svg from a file:// URL in headless Chromium and drives it like
// a user: hover, zoom, unzoom, search, ignore-case, URL state.  Every
// expectation is derived from the SVG itself, so any flamekit output works.
// Prints one line per check; exits 1 if any check fails, 2 on usage errors.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const GEOM_EPS = 0.05;  // attributes are written with 1-2 decimals
const ACTION_TIMEOUT = 10000;

/* ---------- reporting ---------- */

let failures = 0;
let checks = 0;

function check(ok, what, detail) {
  checks++;
  if (ok) {
    console.log(`ok   - ${what}`);
  } else {
    failures++;
    console.log(`FAIL - ${what}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}

function note(what) {
  console.log(`note - ${what}`);
}

/* ---------- model of the SVG, computed on the Node side ---------- */

// "NAME (N samples, P%)" or "NAME (N samples, P%; +D%)" -> "NAME"
function nameOf(title) {
  return title.replace(/\s*\([^()]*\)\s*$/, '');
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&');
}

function near(a, b, eps = GEOM_EPS) {
  return Math.abs(a - b) <= eps;
}

function swapCase(s) {
  return [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

// Is frame `a` nearer the root than frame `b`?
function nearerRoot(a, b, inverted) {
  return inverted ? a.y < b.y : a.y > b.y;
}

// Does `outer` span the centre of `inner`?  The renderer rounds x and
// width separately, so a child's edges can poke out of its parent by a
// rounding step; its centre cannot.
function contains(outer, inner) {
  const mid = inner.x + inner.w / 2;
  return outer.x - 1e-4 <= mid && mid <= outer.x + outer.w + 1e-4;
}

// Expected result of zooming into `target`, from original geometry:
// frames nearer the root that span it become parents, frames on its row
// or deeper are shown (rescaled) when it spans them, the rest are hidden.
function expectedZoom(model, target) {
  const ratio = model.fullWidth / target.w;
  return model.frames.map((f) => {
    if (nearerRoot(f, target, model.inverted)) {
      return contains(f, target)
        ? { state: 'parent', x: model.xpad, w: model.fullWidth }
        : { state: 'hide' };
    }
    if (!contains(target, f)) return { state: 'hide' };
    return { state: '', x: (f.x - target.x) * ratio + model.xpad, w: f.w * ratio };
  });
}

// Matched percentage: total width of matched frames that have no matched
// ancestor, over the root width.  Deliberately a different algorithm from
// the one in flamegraph.js (pairwise containment rather than a sweep).
function expectedMatched(model, matched) {
  let total = 0;
  for (const f of matched) {
    const covered = matched.some((g) => g !== f && nearerRoot(g, f, model.inverted) && contains(g, f));
    if (!covered) total += f.w;
  }
  return (100 * total) / model.rootWidth;
}

function formatPct(p) {
  return p === 100 ? '100' : p.toFixed(1);
}

// Accept the rounding either side of p, so summation order cannot flip
// a value sitting exactly on a .x5 boundary.
function pctStrings(p) {
  return new Set([formatPct(p), formatPct(p + 1e-9), formatPct(p - 1e-9)]);
}

function matching(model, term, ignoreCase) {
  const re = new RegExp(term, ignoreCase ? 'i' : '');
  return model.frames.filter((f) => re.test(f.name));
}

/* ---------- page helpers ---------- */

async function readFrames(page) {
  return page.evaluate(() => {
    const attr = (el, name) => (el ? el.getAttribute(name) : null);
    return Array.from(document.getElementById('frames').children).map((el) => {
      const rect = el.querySelector('rect');
      const text = el.querySelector('text');
      const title = el.querySelector('title');
      return {
        tag: el.localName,
        cls: el.getAttribute('class') || '',
        title: title ? title.textContent : '',
        label: text ? text.textContent : '',
        textX: attr(text, 'x'),
        textOrigX: attr(text, '_orig_x'),
        xs: attr(rect, 'x'),
        ys: attr(rect, 'y'),
        ws: attr(rect, 'width'),
        fill: attr(rect, 'fill'),
        origX: attr(rect, '_orig_x'),
        origW: attr(rect, '_orig_width'),
        origFill: attr(rect, '_orig_fill'),
      };
    });
  });
}

async function readModel(page) {
  const info = await page.evaluate(() => {
    const svg = document.getElementById('frames').ownerSVGElement;
    return {
      svgWidth: svg.getAttribute('width'),
      config: typeof fk_config === 'object' ? fk_config : null,
      hasInit: typeof init === 'function',
    };
  });
  const raw = await readFrames(page);
  const frames = raw.map((r, i) => ({
    i,
    tag: r.tag,
    title: r.title,
    name: nameOf(r.title),
    label: r.label,
    textX: r.textX,
    xs: r.xs,
    ys: r.ys,
    ws: r.ws,
    fill: r.fill,
    x: parseFloat(r.xs),
    y: parseFloat(r.ys),
    w: parseFloat(r.ws),
  }));
  const cfg = info.config || {};
  const xpad = Number(cfg.xpad ?? 10);
  const svgWidth = parseFloat(info.svgWidth);
  const root = frames.reduce((a, b) => (b.w > a.w ? b : a), frames[0]);
  return {
    info,
    cfg,
    frames,
    root,
    xpad,
    svgWidth,
    fullWidth: svgWidth - 2 * xpad,
    rootWidth: root ? root.w : 0,
    inverted: Boolean(cfg.inverted),
    nametype: cfg.nametype ?? 'Function:',
    searchcolor: cfg.searchcolor ?? 'rgb(230,0,230)',
    fontsize: Number(cfg.fontsize ?? 12),
    fontwidth: Number(cfg.fontwidth ?? 0.59),
  };
}

const textOf = (page, sel) => page.evaluate((s) => {
  const el = document.querySelector(s);
  return el ? el.textContent : null;
}, sel);

const hasClass = (page, sel, cls) => page.evaluate(([s, c]) => {
  const el = document.querySelector(s);
  return Boolean(el && el.classList.contains(c));
}, [sel, cls]);

const params = async (page) => Object.fromEntries(
  new URLSearchParams(await page.evaluate(() => location.search)));

const frameLocator = (page, f) => page.locator(`#frames > :nth-child(${f.i + 1})`);

async function clickFrame(page, f) {
  // Frames that are links only zoom on Ctrl-click.
  const modifiers = f.tag === 'a' ? ['Control'] : [];
  await frameLocator(page, f).click({ modifiers, timeout: ACTION_TIMEOUT });
}

// Run a search through the real UI: `trigger` opens the prompt, which is
// answered with `term`.  Returns the prompt's message.
async function searchVia(page, trigger, term) {
  let message = null;
  page.once('dialog', async (dialog) => {
    message = dialog.message();
    await dialog.accept(term);
  });
  await trigger();
  for (let i = 0; i < 50 && message === null; i++) await page.waitForTimeout(20);
  return message;
}

/* ---------- state checks ---------- */

async function checkZoomed(page, model, target, label) {
  const now = await readFrames(page);
  const want = expectedZoom(model, target);
  const wrongState = [];
  const wrongGeom = [];
  const badLabels = [];
  const glyph = model.fontsize * model.fontwidth;
  now.forEach((f, i) => {
    const orig = model.frames[i];
    const state = f.cls.split(/\s+/).includes('hide') ? 'hide'
      : f.cls.split(/\s+/).includes('parent') ? 'parent' : '';
    if (state !== want[i].state) wrongState.push(`${orig.name}@${orig.ys}: ${state || 'visible'} != ${want[i].state || 'visible'}`);
    if (want[i].state === 'hide') return;
    const x = parseFloat(f.xs);
    const w = parseFloat(f.ws);
    if (!near(x, want[i].x) || !near(w, want[i].w)) wrongGeom.push(`${orig.name}: x=${f.xs} w=${f.ws}, want ${want[i].x.toFixed(2)}/${want[i].w.toFixed(2)}`);
    if (f.origX !== orig.xs || f.origW !== orig.ws) wrongGeom.push(`${orig.name}: _orig_x/_orig_width ${f.origX}/${f.origW} != ${orig.xs}/${orig.ws}`);
    if (f.textX !== null && !near(parseFloat(f.textX), x + 3)) wrongGeom.push(`${orig.name}: text x ${f.textX} != rect x + 3`);
    const l = f.label;
    const shapeOk = l === '' || l === orig.name || (l.endsWith('..') && l.length > 2 && orig.name.startsWith(l.slice(0, -2)));
    const fits = l === '' || l.length * glyph <= w - 3 + 1e-6;
    if (!shapeOk || !fits) badLabels.push(`${orig.name}: "${l}" in width ${w.toFixed(1)}`);
  });
  check(wrongState.length === 0, `${label}: hide/parent classes match the expected zoom`, wrongState.slice(0, 5).join('; '));
  check(wrongGeom.length === 0, `${label}: visible frames rescaled, originals kept in _orig_x/_orig_width`, wrongGeom.slice(0, 5).join('; '));
  check(badLabels.length === 0, `${label}: labels refitted to the new widths`, badLabels.slice(0, 5).join('; '));
  const tw = parseFloat(now[target.i].ws);
  check(near(tw, model.fullWidth), `${label}: clicked frame is now full width (${tw.toFixed(2)} ≈ ${model.fullWidth})`);
  const hidden = want.filter((w) => w.state === 'hide').length;
  if (hidden > 0) {
    check(now.filter((f) => /\bhide\b/.test(f.cls)).length > 0, `${label}: ${hidden} frame(s) hidden`);
  } else {
    note(`${label}: nothing outside the zoomed frame to hide in this graph`);
  }
  if (target !== model.root) {
    check(/\bparent\b/.test(now[model.root.i].cls), `${label}: root frame has class parent`);
  }
  check(!(await hasClass(page, '#unzoom', 'hide')), `${label}: #unzoom is visible`);
  const p = await params(page);
  check(p.x === target.xs && p.y === target.ys, `${label}: URL has x=${target.xs}&y=${target.ys}`, `got ${JSON.stringify(p)}`);
}

// The label a frame of width w gets when fitted again (as flamegraph.pl's
// unzoom does): the name, or cut to whole glyphs with "..", or nothing.
function refitted(model, name, w) {
  const glyph = model.fontsize * model.fontwidth;
  const room = w - 3;
  if (room < 2 * glyph) return '';
  const fits = Math.floor(room / glyph);
  if (name.length <= fits) return name;
  return fits - 2 >= 1 ? name.substring(0, fits - 2) + '..' : '';
}

async function checkUnzoomed(page, model, label) {
  const now = await readFrames(page);
  const wrong = [];
  now.forEach((f, i) => {
    const orig = model.frames[i];
    const want = refitted(model, orig.name, parseFloat(orig.ws));
    if (f.xs !== orig.xs || f.ws !== orig.ws || f.textX !== orig.textX || f.label !== want) {
      wrong.push(`${orig.name}: x=${f.xs} w=${f.ws} text="${f.label}"`);
    }
    if (/\b(hide|parent)\b/.test(f.cls)) wrong.push(`${orig.name}: class "${f.cls}"`);
    if (f.origX !== null || f.origW !== null || f.textOrigX !== null) wrong.push(`${orig.name}: _orig_* left behind`);
  });
  check(wrong.length === 0, `${label}: original geometry, labels refitted, classes restored`, wrong.slice(0, 5).join('; '));
  const root = model.frames[model.root.i];
  const rootWant = refitted(model, root.name, parseFloat(root.ws));
  check(now[model.root.i].label === rootWant, `${label}: the root is labelled "${rootWant}" (drawn blank, as flamegraph.pl's unzoom labels it)`,
    `got "${now[model.root.i].label}"`);
  check(await hasClass(page, '#unzoom', 'hide'), `${label}: #unzoom hidden again`);
  const p = await params(page);
  check(p.x === undefined && p.y === undefined, `${label}: URL has no x/y`, `got ${JSON.stringify(p)}`);
}

async function checkSearch(page, model, term, ignoreCase, label) {
  const want = matching(model, term, ignoreCase);
  const wantSet = new Set(want.map((f) => f.i));
  const now = await readFrames(page);
  const wrong = [];
  now.forEach((f, i) => {
    const orig = model.frames[i];
    if (wantSet.has(i)) {
      if (f.fill !== model.searchcolor) wrong.push(`${orig.name}: fill ${f.fill}, want search colour`);
      if (f.origFill !== orig.fill) wrong.push(`${orig.name}: _orig_fill ${f.origFill} != ${orig.fill}`);
    } else if (f.fill !== orig.fill) {
      wrong.push(`${orig.name}: fill ${f.fill}, should be untouched`);
    }
  });
  check(wrong.length === 0, `${label}: ${want.length} frame(s) matching /${term}/${ignoreCase ? 'i' : ''} coloured ${model.searchcolor}, others untouched`, wrong.slice(0, 5).join('; '));
  const pct = expectedMatched(model, want);
  const shown = await textOf(page, '#matched');
  const ok = [...pctStrings(pct)].some((s) => shown === `Matched: ${s}%`);
  check(ok, `${label}: #matched reads "Matched: ${formatPct(pct)}%"`, `got "${shown}"`);
  check((await textOf(page, '#search')) === 'Reset Search' && await hasClass(page, '#search', 'show'),
    `${label}: #search shows "Reset Search"`);
  const p = await params(page);
  check(p.s === term, `${label}: URL has s=${encodeURIComponent(term)}`, `got ${JSON.stringify(p)}`);
  return want;
}

async function checkNoSearch(page, model, label) {
  const now = await readFrames(page);
  const wrong = now.filter((f, i) => f.fill !== model.frames[i].fill || f.origFill !== null);
  check(wrong.length === 0, `${label}: all fills restored`, `${wrong.length} frame(s) still coloured`);
  check((await textOf(page, '#matched')) === ' ', `${label}: #matched cleared`);
  check((await textOf(page, '#search')) === 'Search' && !(await hasClass(page, '#search', 'show')),
    `${label}: #search back to "Search"`);
  const p = await params(page);
  check(p.s === undefined, `${label}: URL has no s`, `got ${JSON.stringify(p)}`);
}

// Zoom into a spread of frames at every depth, clicking through
// dispatchEvent for speed, and compare the hide/parent classes with the
// expectation each time.  Catches edge cases (rounded coordinates, frames
// at the right edge) that the single zoom target above may not hit.
async function zoomSweep(page, model) {
  const want = 40;
  const step = Math.max(1, Math.floor(model.frames.length / want));
  const picks = model.frames.filter((f, i) => i % step === 0 || i === model.frames.length - 1);
  const bad = [];
  for (const f of picks) {
    const states = await page.evaluate((i) => {
      const el = document.getElementById('frames').children[i];
      el.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true }));
      return Array.from(document.getElementById('frames').children, (e) => (
        e.classList.contains('hide') ? 'hide' : e.classList.contains('parent') ? 'parent' : ''));
    }, f.i);
    const expected = f === model.root ? model.frames.map(() => ({ state: '' })) : expectedZoom(model, f);
    const diff = states.findIndex((st, i) => st !== expected[i].state);
    if (diff >= 0) {
      bad.push(`zoom into ${f.name}@${f.xs},${f.ys}: ${model.frames[diff].name}@${model.frames[diff].xs},${model.frames[diff].ys} is "${states[diff]}", want "${expected[diff].state}"`);
    }
  }
  check(bad.length === 0, `zoom into ${picks.length} frames across the graph: classes as expected`, bad.slice(0, 3).join('; '));
  await page.evaluate(() => document.getElementById('unzoom').dispatchEvent(new MouseEvent('click', { bubbles: true })));
}

/* ---------- choosing what to exercise ---------- */

// Zoom target: the widest frame narrower than the root, so that zooming
// changes something; failing that, the widest non-root frame.
function pickZoomTarget(model) {
  const others = model.frames.filter((f) => f !== model.root && f.w > 0);
  const narrower = others.filter((f) => f.w < model.rootWidth - GEOM_EPS);
  const pool = narrower.length ? narrower : others;
  return pool.reduce((a, b) => (b.w > a.w ? b : a), pool[0]);
}

// A frame one row deeper than `target` and inside it, to zoom into next.
function pickChild(model, target) {
  const kids = model.frames.filter((f) => f !== target && !nearerRoot(f, target, model.inverted)
    && f.y !== target.y && contains(target, f) && f.w > 0);
  if (!kids.length) return null;
  return kids.reduce((a, b) => (b.w > a.w ? b : a), kids[0]);
}

// Search term: the non-root name that occurs most often (ties: widest),
// escaped so it is matched literally.
function pickSearchName(model) {
  const stats = new Map();
  for (const f of model.frames) {
    if (f === model.root || !f.name.trim()) continue;
    const s = stats.get(f.name) || { name: f.name, count: 0, width: 0 };
    s.count++;
    s.width += f.w;
    stats.set(f.name, s);
  }
  const all = [...stats.values()];
  all.sort((a, b) => b.count - a.count || b.width - a.width);
  return all.length ? all[0].name : null;
}

// A pair of differently named frames, one inside the other, to check that
// nested matches are not counted twice.
function pickNestedPair(model) {
  // Bounded so that huge graphs stay quick; the first few frames suffice.
  for (const outer of model.frames.slice(0, 200)) {
    if (outer === model.root) continue;
    for (const inner of model.frames) {
      if (inner.name !== outer.name && nearerRoot(outer, inner, model.inverted)
          && contains(outer, inner) && inner.w < outer.w - GEOM_EPS) {
        return [outer, inner];
      }
    }
  }
  return null;
}

// A name whose case-swapped form matches something only with ignore-case.
function pickCaseName(model) {
  const names = [...new Set(model.frames.map((f) => f.name))].filter((n) => /[a-z]/i.test(n));
  names.sort((a, b) => b.length - a.length);
  return names.slice(0, 50).find((n) => {
    const t = swapCase(escapeRegExp(n));
    return matching(model, t, true).length > matching(model, t, false).length;
  }) || null;
}

/* ---------- the test ---------- */

async function main() {
  const file = process.argv[2];
  if (!file || !fs.existsSync(file)) {
    console.error('usage: node flame_test.mjs FILE.svg');
    process.exit(2);
  }
  const url = pathToFileURL(path.resolve(file)).href;
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flamekit-chromium-'));
  const errors = [];
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(ACTION_TIMEOUT);
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
    });

    console.log(`# ${file}`);
    await page.goto(url, { waitUntil: 'load' });
    const model = await readModel(page);
    const { frames, root } = model;

    check(model.info.hasInit, 'init() is defined globally');
    check(model.info.config !== null, 'fk_config is defined');
    check(frames.length > 1, `found ${frames.length} frames`);
    if (frames.length < 2) return;
    check(near(model.rootWidth, model.fullWidth), `root "${root.name}" spans the graph (${model.rootWidth} ≈ ${model.fullWidth})`);
    check(errors.length === 0, 'loads without errors', errors.join(' | '));

    /* hover */
    const target = pickZoomTarget(model);
    await frameLocator(page, target).hover();
    const details = await textOf(page, '#details');
    check(details === `${model.nametype} ${target.title}`, `hover sets #details to "${model.nametype} ${target.title}"`, `got "${details}"`);
    await page.mouse.move(1, 1);
    check((await textOf(page, '#details')) === ' ', 'moving off the frame clears #details');

    /* zoom */
    await clickFrame(page, target);
    await checkZoomed(page, model, target, `zoom into "${target.name}"`);

    const child = pickChild(model, target);
    if (child) {
      await clickFrame(page, child);
      await checkZoomed(page, model, child, `zoom further into "${child.name}"`);
      check(await hasClass(page, `#frames > :nth-child(${target.i + 1})`, 'parent'), `"${target.name}" is now a parent`);
      await clickFrame(page, target);
      await checkZoomed(page, model, target, `click parent "${target.name}" to zoom out to it`);
    } else {
      note(`"${target.name}" has no child frame; skipping nested zoom`);
    }

    await page.locator('#unzoom').click();
    await checkUnzoomed(page, model, 'Reset Zoom');

    /* search */
    const name = pickSearchName(model);
    if (name) {
      const term = escapeRegExp(name);
      const message = await searchVia(page, () => page.locator('#search').click(), term);
      check(message !== null && message.startsWith('Enter a search term (regexp allowed, eg: ^ext4_)')
        && message.includes('\nPress Ctrl-i to toggle case sensitivity') && !message.includes('ignoring case'),
        'clicking #search opens the search prompt', JSON.stringify(message));
      await checkSearch(page, model, term, false, `search "${term}"`);

      // Zooming keeps the search; the figure is for the whole profile.
      await clickFrame(page, target);
      await checkSearch(page, model, term, false, 'search survives zoom');
      await page.locator('#unzoom').click();

      await page.locator('#search').click();
      await checkNoSearch(page, model, 'reset search');
    }

    const pair = pickNestedPair(model);
    if (pair) {
      const term = `^(?:${escapeRegExp(pair[0].name)}|${escapeRegExp(pair[1].name)})$`;
      await searchVia(page, () => page.keyboard.press('Control+f'), term);
      await checkSearch(page, model, term, false, 'Ctrl-F search with nested matches');
      await page.keyboard.press('F3');
      await checkNoSearch(page, model, 'F3 resets search');
    } else {
      note('no nested pair of differently named frames; skipping nested-match search');
    }

    /* ignore case */
    await page.keyboard.press('Control+i');
    check(await hasClass(page, '#ignorecase', 'show'), 'Ctrl-I turns ignore-case on (#ignorecase.show)');
    const caseName = pickCaseName(model);
    if (caseName) {
      const term = swapCase(escapeRegExp(caseName));
      const message = await searchVia(page, () => page.keyboard.press('F3'), term);
      check(message !== null && message.includes(', ignoring case'), 'prompt mentions ignoring case', JSON.stringify(message));
      const hits = await checkSearch(page, model, term, true, `case-insensitive search "${term}"`);
      check(hits.length > 0, `"${term}" matches ${hits.length} frame(s) only when ignoring case`);
      await page.locator('#ignorecase').click();
      check(!(await hasClass(page, '#ignorecase', 'show')), 'clicking #ignorecase turns it off');
      // Case-sensitively the term matches nothing: nothing is shown (as in
      // flamegraph.pl), and the term is kept for the next toggle.
      await checkNoSearch(page, model, 'search re-run case-sensitively matches nothing');
      await page.locator('#ignorecase').click();
      await checkSearch(page, model, term, true, 'ignore-case on again: the kept term matches');
      await page.locator('#search').click();
      await checkNoSearch(page, model, 'reset search');
      await page.locator('#ignorecase').click();
      check(!(await hasClass(page, '#ignorecase', 'show')), 'ignore-case off again');
    } else {
      note('no frame name with letters; skipping case-insensitive search');
      await page.keyboard.press('Control+i');
    }

    /* a search that matches nothing shows nothing, as in flamegraph.pl */
    await searchVia(page, () => page.locator('#search').click(), 'no-frame-is-named-this-zq');
    await checkNoSearch(page, model, 'search without a match');

    /* invalid regex */
    const before = errors.length;
    await searchVia(page, () => page.locator('#search').click(), '(unclosed[');
    check(errors.length === before, 'invalid regex raises no page error', errors.slice(before).join(' | '));
    const matched = await textOf(page, '#matched');
    check(/invalid regex/i.test(matched || ''), 'invalid regex is reported in #matched', `got "${matched}"`);
    const coloured = (await readFrames(page)).filter((f, i) => f.fill !== frames[i].fill);
    check(coloured.length === 0, 'invalid regex colours nothing');

    /* URL state restored on load */
    const term = name ? escapeRegExp(name) : null;
    let restoreUrl = `${url}?x=${encodeURIComponent(target.xs)}&y=${encodeURIComponent(target.ys)}`;
    if (term) restoreUrl += `&s=${encodeURIComponent(term)}`;
    await page.goto(restoreUrl, { waitUntil: 'load' });
    await checkZoomed(page, model, target, 'zoom restored from URL');
    if (term) await checkSearch(page, model, term, false, 'search restored from URL');

    // Round trip: the URL the page itself writes must bring the state
    // back, even for a term full of characters special in URLs.
    await page.locator('#unzoom').click();
    await page.locator('#search').click();
    await checkNoSearch(page, model, 'reset before round trip');
    const oddTerm = `${term || '.'}|&=#+% ?`;
    await clickFrame(page, target);
    await searchVia(page, () => page.locator('#search').click(), oddTerm);
    await checkSearch(page, model, oddTerm, false, 'search for a term with URL metacharacters');
    const written = await page.evaluate(() => location.href);
    await page.goto('about:blank');
    await page.goto(written, { waitUntil: 'load' });
    await checkZoomed(page, model, target, 'zoom restored from the URL the page wrote');
    await checkSearch(page, model, oddTerm, false, 'search restored from the URL the page wrote');

    await zoomSweep(page, model);

    const beforeJunk = errors.length;
    await page.goto(`${url}?s=%E0%A4%A&x=&y=1&junk`, { waitUntil: 'load' });
    check(errors.length === beforeJunk, 'malformed query string is ignored without errors', errors.slice(beforeJunk).join(' | '));

    check(errors.length === 0, 'no page errors or console errors during the run', errors.join(' | '));
  } finally {
    if (context) await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

main().then(() => {
  console.log(`# ${checks - failures}/${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}, (err) => {
  console.log(`FAIL - test aborted: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});
