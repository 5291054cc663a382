// End-to-end: the scan of every weight (issue #22) in the built app (dist/), headless Chromium:
// scan() of weightpeek.js and the page's "Scan all weights" card, both in a Web Worker, against
// tests/reference/scan_reference.py (target/scan-fixtures/expected.json: numpy in float64 over
// gguf-py's dequantised values; safetensors + numpy for MiniLM). No expected number is written
// here.
//
// UI contract:
//   [data-testid=scan][data-scan=idle|confirm|running|done|cancelled|error]  the card
//   [data-testid=scan-start|scan-go|scan-not-now|scan-cancel]  its buttons
//   [data-testid=scan-question]  a remote scan's question (bytes it downloads)
//   [data-testid=scan-progress]  <progress value max>; [data-testid=scan-status] its line
//   [data-testid=scan-table][data-drawn=N] (all N rows drawn) tr[data-tensor] td × 11 (name, type, values, NaN, Inf, zeros, min,
//     max, mean, std, block scales); [data-testid=scan-filter]
//   [data-testid=checks] [data-source=scan] li[data-code]  the scan's findings in the Checks card

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  showTab,
  screenshot,
  screenshotDir,
  requireFile,
  repoRoot,
  loadReference,
  files,
} from './helpers.mjs';

const fixtureDir = path.resolve(process.env.WEIGHTPEEK_SCAN_FIXTURES || path.join(repoRoot, 'target', 'scan-fixtures'));
const expected = JSON.parse(fs.readFileSync(requireFile(path.join(fixtureDir, 'expected.json'), 'run tests/reference/scan_reference.py; scripts/test.sh does'), 'utf8'));
const fileOf = (key) => expected.files[key].path ?? path.join(fixtureDir, key);

/** f32 values are written as the shortest text that reads back as that f32 (JSON cannot
 * tell an integer from a whole float: integers compare equal either way). */
function sameExtreme(got, want) {
  if (want === null || want === undefined) return got === null || got === undefined;
  return got === want || (Math.fround(got) === Math.fround(want) && Math.fround(want) === want);
}

const close = (got, want, rel = 1e-9) => got === want || Math.abs(got - want) <= rel * Math.abs(want);

/** One tensor of scan()'s result against the reference's. */
function sameTensor(at, got, want) {
  if (want.unreadable) {
    assert.equal(got.failed, true, `${at}: ${JSON.stringify(got)}`);
    return;
  }
  for (const k of ['count', 'nan', 'inf', 'zeros', 'scale_nan', 'scale_inf', 'blocks', 'first_bad_offset']) {
    assert.equal(got[k], want[k], `${at}: ${k}`);
  }
  for (const k of ['min', 'max']) assert.ok(sameExtreme(got[k], want[k]), `${at}: ${k} ${got[k]} vs ${want[k]}`);
  for (const k of ['mean', 'std']) {
    if (want[k] === null) assert.equal(got[k], null, `${at}: ${k}`);
    else assert.ok(close(got[k], want[k]), `${at}: ${k} ${got[k]} vs numpy's ${want[k]}`);
  }
  assert.equal(got.failed, false, `${at}: ${JSON.stringify(got)}`);
}

const findingKeys = (list) => list.map((f) => [f.code, f.tensor ?? '', f.offset ?? null]);

/** Runs scan() of weightpeek.js in the page on local files (paths), with progress and tensor
 * events counted; resolves to {result, progress, tensors, error}. */
async function apiScan(page, paths, extra = '') {
  const input = await page.evaluateHandle(() => {
    const el = document.createElement('input');
    el.type = 'file';
    el.multiple = true;
    el.hidden = true;
    document.body.appendChild(el);
    return el;
  });
  await input.setInputFiles(paths);
  const out = await input.evaluate(async (el, extra) => {
    const { scan } = await import('./weightpeek.js');
    const progress = [];
    let tensors = 0;
    try {
      const opts = { onProgress: (p) => progress.push(p), onTensor: () => { tensors += 1; } };
      if (typeof extra === 'number') opts.workers = extra;
      if (extra === 'abort') {
        const c = new AbortController();
        opts.signal = c.signal;
        setTimeout(() => c.abort(), 30);
      }
      const result = await scan([...el.files], opts);
      return { result, progress, tensors };
    } catch (e) {
      return { error: `${e.name}: ${e.message}`, progress, tensors };
    } finally {
      el.remove();
    }
  }, extra);
  await input.dispose();
  return out;
}

/** The page's scan table, once every row is drawn (in tasks of a few dozen): one object per row. */
async function tableRows(page) {
  await page.waitForSelector('[data-testid=scan-table][data-drawn]', { timeout: 30_000 });
  return page.$$eval('[data-testid=scan-table] tbody tr[data-tensor]', (trs) => trs.map((tr) => {
    const td = [...tr.querySelectorAll('td')].map((c) => c.textContent);
    return { name: tr.dataset.tensor, cls: tr.className, td };
  }));
}

/** A screenshot of the scan card alone (the page's full-length one is too tall to read). */
async function cardShot(page, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  await page.locator('[data-testid=scan]').screenshot({ path: path.join(screenshotDir, `${name}.png`) });
}

const num = (s) => Number(s.replaceAll(',', ''));

/** Shows the Checks tab of the model being opened (its scan card is there) once the view is drawn. */
async function checksTab(page) {
  await page.waitForSelector('#report [role=tab][data-tab=checks]', { state: 'attached', timeout: 60_000 });
  await showTab(page, 'checks');
}

describe('scan every weight in a Web Worker (Chromium)', { timeout: 10 * 60_000 }, () => {
  let browser; let server;

  before(async () => {
    browser = await launchBrowser();
    // A docs page in a folder of its own, loading the module from the site's root: the
    // element's scan must find its Worker beside weightpeek.js, not beside the page.
    const docs = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-docs-'));
    fs.writeFileSync(path.join(docs, 'page.html'), '<!doctype html><meta charset="utf-8"><title>docs</title>'
      + '<script type="module" src="/weightpeek.js"></script><p>A model:</p><weightpeek-view id="v" tab="checks"></weightpeek-view>');
    server = await startAppServer({ mounts: { '/scan/': fixtureDir, '/data/': path.dirname(files.gemma), '/docs/': docs } });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('scan() gives numpy\'s counts and statistics and the reference\'s findings for every generated file and MiniLM', async () => {
    const page = await openApp(browser, server);
    for (const key of ['types.gguf', 'bad.gguf', 'truncated.gguf', 'minilm']) {
      const want = expected.files[key];
      const { result, progress, tensors, error } = await apiScan(page, [fileOf(key)]);
      assert.equal(error, undefined, `${key}: ${error}`);
      assert.equal(result.tensors.length, Object.keys(want.tensors).length, key);
      for (const t of result.tensors) sameTensor(`${key} ${t.name}`, t, want.tensors[t.name]);
      assert.deepEqual(findingKeys(result.findings), findingKeys(want.findings), `${key}: findings`);
      assert.equal(tensors, result.tensors.length, `${key}: one onTensor per tensor`);
      const last = progress.at(-1);
      assert.ok(last && last.done === result.bytes_read && last.total >= last.done, `${key}: last progress ${JSON.stringify(last)} vs ${result.bytes_read} read`);
    }
    // Three Workers, each a share of the tensors, merged: the same results and findings (the
    // outlier among siblings that fall in different shares too).
    for (const key of ['types.gguf', 'bad.gguf']) {
      const want = expected.files[key];
      const { result, error, progress } = await apiScan(page, [fileOf(key)], 3);
      assert.equal(error, undefined, `${key}: ${error}`);
      // Progress is told once every Worker knows its share: one total, done only growing.
      assert.ok(progress.length > 0 && progress.every((p) => p.total === progress[0].total), `${key}: totals ${JSON.stringify(progress)}`);
      assert.ok(progress.every((p, i) => i === 0 || p.done >= progress[i - 1].done), `${key}: done only grows`);
      assert.equal(progress.at(-1).done, result.bytes_read, `${key}: all read`);
      assert.equal(result.threads, 6, `${key}: 3 Workers of 2 lanes`);
      assert.deepEqual(result.tensors.map((t) => t.name), Object.keys(want.tensors), `${key}: model order`);
      for (const t of result.tensors) sameTensor(`${key} ${t.name} (3 Workers)`, t, want.tensors[t.name]);
      assert.deepEqual(findingKeys(result.findings), findingKeys(want.findings), `${key}: findings (3 Workers)`);
    }
    assert.deepEqual(page.__wpErrors, []);
    await page.close();
  });

  it('scan() rejects with the signal\'s reason when aborted, and for a file that is not a model', async () => {
    const page = await openApp(browser, server);
    const aborted = await apiScan(page, [files.gemma], 'abort');
    assert.match(aborted.error ?? '', /^AbortError/, JSON.stringify(aborted.error));
    const notModel = await apiScan(page, [path.join(repoRoot, 'README.md')]);
    assert.ok(notModel.error && !/AbortError/.test(notModel.error), `not a model: ${notModel.error}`);
    await page.close();
  });

  it('the page scans Gemma in a Worker: progress, no long main-thread task, the table and the Checks card equal the reference', async () => {
    const want = expected.files.gemma;
    const ref = loadReference('gemma-3-270m-q4_k_m');
    const page = await openApp(browser, server);
    await dropFile(page, files.gemma);
    assert.equal(await waitForSettled(page, { timeout: 90_000 }), 'ready');
    await showTab(page, 'checks');
    await page.waitForSelector('[data-testid=scan][data-scan=idle]');
    await page.evaluate(() => {
      window.__wpLongTasks = [];
      window.__wpBar = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__wpLongTasks.push(e.duration); }).observe({ type: 'longtask' });
      const watch = new MutationObserver(() => {
        const b = document.querySelector('[data-testid=scan-progress]');
        if (b) window.__wpBar.push(Number(b.getAttribute('value')));
      });
      watch.observe(document.querySelector('[data-testid=scan]'), { subtree: true, attributes: true, attributeFilter: ['value'] });
    });
    const t0 = Date.now();
    await page.click('[data-testid=scan-start]');
    await page.waitForSelector('[data-testid=scan][data-scan=done]', { timeout: 180_000 });
    const ms = Date.now() - t0;
    const { longTasks, bar, drawMs } = await page.evaluate(() => ({ longTasks: window.__wpLongTasks, bar: window.__wpBar, drawMs: document.querySelector('[data-testid=scan]').dataset.drawMs }));
    const bytes = ref.tensors.reduce((n, t) => n + t.bytes, 0);
    console.log(`# page scan of Gemma: ${ms} ms (${(bytes / ms / 1e3).toFixed(0)} MB/s), ${bar.length} progress updates, main-thread long tasks: ${longTasks.length} (longest ${Math.max(0, ...longTasks).toFixed(0)} ms), results drawn in ${drawMs} ms`);
    assert.ok(bar.length >= 2, `progress updates: ${bar.length}`);
    await tableRows(page);
    const late = await page.evaluate(() => window.__wpLongTasks);
    assert.deepEqual(late.filter((d) => d > 50), [], 'no main-thread task over 50 ms while scanning and drawing the results');
    assert.ok(bar.every((v, i) => i === 0 || v >= bar[i - 1]), 'the bar only moves forward');
    const rows = await tableRows(page);
    assert.equal(rows.length, Object.keys(want.tensors).length);
    for (const r of rows) {
      const w = want.tensors[r.name];
      const [, , values, nan, inf, zeros, min, max, mean, std] = r.td;
      assert.deepEqual([num(values), num(nan), num(inf), num(zeros)], [w.count, w.nan, w.inf, w.zeros], r.name);
      assert.ok(sameExtreme(Number(min), w.min) && sameExtreme(Number(max), w.max), `${r.name}: ${min}..${max} vs ${w.min}..${w.max}`);
      // Six significant digits on the page.
      assert.ok(close(Number(mean), w.mean, 1e-5) && close(Number(std), w.std, 1e-5), `${r.name}: ${mean} ${std} vs ${w.mean} ${w.std}`);
    }
    const codes = await page.$$eval('[data-testid=checks] [data-source=scan] li[data-code]', (l) => l.map((li) => li.dataset.code));
    assert.deepEqual(codes, want.findings.map((f) => f.code), 'the Checks card lists the scan\'s findings');
    const status = await page.textContent('[data-testid=scan-status]');
    assert.match(status, new RegExp(`Scanned ${rows.length} of ${rows.length} tensors`));
    // Sorting by NaN, then filtering by name.
    await page.click('[data-testid=scan-table] th:nth-child(8) button');
    const byMax = (await tableRows(page)).map((r) => Number(r.td[7]));
    assert.ok(byMax.every((v, i) => i === 0 || v <= byMax[i - 1]), 'sorted by max, largest first');
    assert.equal(await page.getAttribute('[data-testid=scan-table] th:nth-child(8)', 'aria-sort'), 'descending');
    await page.fill('[data-testid=scan-filter]', 'attn_q');
    const filtered = await tableRows(page);
    assert.ok(filtered.length > 0 && filtered.every((r) => r.name.includes('attn_q')), 'the filter keeps attn_q rows');
    await screenshot(page, 'scan-gemma');
    await cardShot(page, 'scan-card-gemma');
    // Scan again: every row again, unfiltered (the new filter box is empty).
    await page.click('[data-testid=scan-start]');
    await page.waitForSelector('[data-testid=scan][data-scan=done]', { timeout: 180_000 });
    assert.equal((await tableRows(page)).length, Object.keys(want.tensors).length, 'scan again: every row');
    assert.deepEqual(page.__wpErrors, []);
    await page.close();
  });

  it('the page shows a generated file\'s NaN/Inf findings and bad rows', async () => {
    const want = expected.files['bad.gguf'];
    const page = await openApp(browser, server);
    await dropFile(page, fileOf('bad.gguf'));
    await waitForSettled(page);
    await showTab(page, 'checks');
    await page.click('[data-testid=scan-start]');
    await page.waitForSelector('[data-testid=scan][data-scan=done]', { timeout: 60_000 });
    const rows = await tableRows(page);
    for (const r of rows) {
      const w = want.tensors[r.name];
      const bad = w.nan + w.inf + w.scale_nan + w.scale_inf > 0;
      assert.equal(r.cls.includes('scan-error'), bad, `${r.name}: row class ${r.cls}`);
    }
    const codes = await page.$$eval('[data-testid=checks] [data-source=scan] li[data-code]', (l) => l.map((li) => li.dataset.code));
    assert.deepEqual(codes, want.findings.map((f) => f.code));
    // The card's title counts the scan's errors with the header's.
    const scanErrors = want.findings.filter((f) => /^scan-(non-finite|unreadable)/.test(f.code)).length;
    const headerErrors = await page.$$eval('[data-testid=checks] li[data-severity=error]:not([data-source=scan] li)', (l) => l.length);
    assert.match(await page.textContent('[data-testid=checks] .card-head h2'), new RegExp(`^Checks: ${scanErrors + headerErrors} errors?`));
    await screenshot(page, 'scan-bad');
    await cardShot(page, 'scan-card-bad');
    await showTab(page, 'checks');
    await page.locator('[data-testid=checks]').screenshot({ path: path.join(screenshotDir, 'scan-checks-bad.png') });
    await page.close();
  });

  it('the element offers the scan in its Checks tab, on a page in another folder than the module', async () => {
    const want = expected.files['bad.gguf'];
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}docs/page.html`);
    await page.waitForFunction(() => customElements.get('weightpeek-view'));
    const input = await page.evaluateHandle(() => { const el = document.createElement('input'); el.type = 'file'; el.hidden = true; document.body.append(el); return el; });
    await input.setInputFiles(fileOf('bad.gguf'));
    await input.evaluate((el) => document.querySelector('#v').open(el.files[0]));
    await page.waitForSelector('#v[data-state=ready]', { timeout: 30_000 });
    await page.locator('#v [data-testid=scan-start]').click();
    await page.waitForSelector('#v [data-testid=scan][data-scan=done]', { timeout: 60_000 });
    const codes = await page.locator('#v [data-testid=checks] [data-source=scan] li[data-code]').evaluateAll((l) => l.map((li) => li.dataset.code));
    assert.deepEqual(codes, want.findings.map((f) => f.code));
    await page.locator('#v').screenshot({ path: path.join(screenshotDir, 'scan-element.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('a remote scan asks first, downloads the data and the header once more, and Cancel stops its reads', async () => {
    const page = await openApp(browser, server);
    // A small file, scanned whole: the bytes served equal its data plus the header read again.
    const badUrl = `${server.url}scan/bad.gguf`;
    let before = server.requests.length;
    await page.fill('[data-testid=url-input]', badUrl);
    await page.click('[data-testid=url-open]');
    await checksTab(page);
    await page.waitForSelector('[data-testid=scan][data-scan=idle]', { timeout: 60_000 });
    const header = server.requests.slice(before).filter((r) => r.path === '/scan/bad.gguf').reduce((n, r) => n + r.bytes, 0);
    await page.click('[data-testid=scan-start]');
    await page.waitForSelector('[data-testid=scan][data-scan=confirm]');
    await cardShot(page, 'scan-card-confirm');
    const question = await page.textContent('[data-testid=scan-question]');
    const local = await apiScan(page, [fileOf('bad.gguf')]);
    assert.ok(question.includes(`(${local.result.bytes_read.toLocaleString('en-US')} bytes)`), question);
    before = server.requests.length;
    await page.click('[data-testid=scan-go]');
    await page.waitForSelector('[data-testid=scan][data-scan=done]', { timeout: 60_000 });
    const served = server.requests.slice(before).filter((r) => r.path === '/scan/bad.gguf').reduce((n, r) => n + r.bytes, 0);
    assert.equal(served, local.result.bytes_read + header, `served ${served}: data ${local.result.bytes_read} + header ${header}`);
    const codes = await page.$$eval('[data-testid=checks] [data-source=scan] li[data-code]', (l) => l.map((li) => li.dataset.code));
    assert.deepEqual(codes, expected.files['bad.gguf'].findings.map((f) => f.code));

    // Gemma remote: cancel once reading has begun; no request starts after that.
    await page.fill('[data-testid=url-input]', `${server.url}data/${path.basename(files.gemma)}`);
    await page.click('[data-testid=url-open]');
    await checksTab(page);
    await page.waitForSelector('[data-testid=scan][data-scan=idle]', { timeout: 60_000 });
    await page.click('[data-testid=scan-start]');
    await page.click('[data-testid=scan-go]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=scan-progress]')?.getAttribute('value')) > 0, null, { timeout: 60_000 });
    await page.click('[data-testid=scan-cancel]');
    await page.waitForSelector('[data-testid=scan][data-scan=cancelled]');
    // Requests for the model only: the page's service worker may still be caching the app.
    // Cancel terminates the Worker at once; reads the browser had already sent may still reach
    // this server a moment later on a loaded machine, so the count is taken once it has been
    // still for 300 ms, and then must not move for 1.5 s (a scan that went on would keep asking).
    const modelRequests = () => server.requests.filter((r) => r.path.startsWith('/data/')).length;
    let atCancel = modelRequests();
    for (const end = Date.now() + 5_000; Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 300));
      const now = modelRequests();
      if (now === atCancel) break;
      atCancel = now;
    }
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(modelRequests(), atCancel, 'no request after Cancel');
    const gemmaServed = server.requests.filter((r) => r.path.startsWith('/data/')).reduce((n, r) => n + r.bytes, 0);
    assert.ok(gemmaServed < fs.statSync(files.gemma).size / 2, `cancelled early: ${gemmaServed} bytes served`);
    await cardShot(page, 'scan-card-cancelled');
    await page.close();
  });
});
