// End-to-end: what a page downloads before its elements show their first summary (issue #21
// item 2, a lean first load). The docs example page (embed.html: a GGUF and a safetensors
// view) is opened in Chromium against the mock Hub; every request the page makes until both
// views are ready is logged. Checked: the full module is not among them, and the app's files
// fetched (HTML aside; the models' bytes are the Hub's) weigh at most 350 KB gzipped (gzip -9
// of each, as a server compressing them would send). Then a tab of the full module loads it,
// once for the page, and the header is not read again. Sizes and times are printed (#).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { cliBinary, launchBrowser, startAppServer, loadReference, requireFile, files, distDir, repoRoot, screenshotDir, closeAll } from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

/** The budget: 350 KB (KiB, as the README's sizes) gzipped before the first summary. */
const BUDGET = 350 * 1024;
const GGUF_REPO = 'unsloth/gemma-3-270m-it-GGUF';
const GGUF_FILE = 'gemma-3-270m-it-Q4_K_M.gguf';
const ST_REPO = 'sentence-transformers/all-MiniLM-L6-v2';

const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;

describe('a lean first load', { timeout: 5 * 60_000 }, () => {
  let browser; let server; let hub; let dir; let gemmaRef;

  before(async () => {
    requireFile(files.gemma);
    requireFile(files.minilm);
    requireFile(path.join(distDir, 'weightpeek-lite_bg.wasm'), 'build the app: trunk build --release (its hook builds the lean module)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-first-'));
    fs.symlinkSync(files.gemma, path.join(dir, GGUF_FILE));
    hub = await startMockHub({ repos: { [GGUF_REPO]: { dir }, [ST_REPO]: { dir: path.dirname(files.minilm) } } });
    server = await startAppServer();
    browser = await launchBrowser();
    gemmaRef = loadReference('gemma-3-270m-q4_k_m');
  });

  after(() => closeAll([browser, server, hub], [dir]));

  it('the docs page shows both summaries from the lean module alone, within 350 KB gzipped; the full module loads on first use', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const own = [];
    const origin = server.url.replace(/\/$/, '');
    page.on('request', (r) => { if (r.url().startsWith(origin)) own.push(new URL(r.url()).pathname.replace(/^\//, '')); });
    const t0 = Date.now();
    await page.goto(`${origin}/embed.html?hub=${encodeURIComponent(hub.endpoint)}`);
    await page.waitForFunction(() => ['#gguf', '#safetensors'].every((s) => document.querySelector(s)?.dataset.state === 'ready'), null, { timeout: 90_000, polling: 50 });
    const ms = Date.now() - t0;
    const first = [...new Set(own)].filter((p) => !p.endsWith('.html') && p !== '');
    assert.ok(first.includes('weightpeek-lite_bg.wasm'), first.join(', '));
    assert.ok(!first.some((p) => p.startsWith('weightpeek-web')), `the full module was loaded first: ${first.join(', ')}`);
    const sizes = Object.fromEntries(first.map((p) => [p, gz(path.join(distDir, p))]));
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(`# first load (gzip -9): ${JSON.stringify(sizes)} = ${total} B (${(total / 1024).toFixed(1)} KB of ${BUDGET / 1024} KB); both summaries in ${ms} ms`);
    assert.ok(total <= BUDGET, `the first load is ${total} B gzipped, over the ${BUDGET} B budget`);
    const g = page.locator('#gguf');
    assert.equal(await g.locator('[data-testid=tensor-count]').getAttribute('data-value'), String(gemmaRef.tensor_count));
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').dataset.module), 'lite');

    // A tab of the full module: it loads once (both modules' files once in all), the view is
    // the full one, and Gemma's header is not read again.
    hub.clearLog();
    own.length = 0;
    const t1 = Date.now();
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tab', 'fit'));
    await page.waitForFunction(() => { const e = document.querySelector('#gguf'); return e.dataset.module === 'full' && e.dataset.state === 'ready'; }, null, { timeout: 60_000, polling: 50 });
    await g.locator('[data-testid=fit-form]').waitFor({ state: 'attached', timeout: 30_000 });
    const upgradeMs = Date.now() - t1;
    const later = [...new Set(own)];
    assert.deepEqual(later.filter((p) => p.startsWith('weightpeek-web')).sort(), ['weightpeek-web.js', 'weightpeek-web_bg.wasm']);
    assert.deepEqual(hub.log.filter((e) => e.path.endsWith(GGUF_FILE)).map((e) => e.range), [], 'the header was not read again');
    const rest = gz(path.join(distDir, 'weightpeek-web_bg.wasm')) + gz(path.join(distDir, 'weightpeek-web.js'));
    console.log(`# on first use: the full module ${rest} B gzipped, the Fit tab shown in ${upgradeMs} ms`);
    // The other view stays the lean one until it needs more.
    assert.equal(await page.evaluate(() => document.querySelector('#safetensors').dataset.module), 'lite');
    fs.mkdirSync(screenshotDir, { recursive: true });
    await g.screenshot({ path: path.join(screenshotDir, 'first-load-fit-after-upgrade.png') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('the page shows a linked model\'s summary from the lean module alone, within 350 KB gzipped; the full app then takes over reading nothing again', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const own = [];
    const origin = server.url.replace(/\/$/, '');
    page.on('request', (r) => { if (r.url().startsWith(origin)) own.push(new URL(r.url()).pathname.replace(/^\//, '')); });
    // The full module is held back until the summary is shown: the summary needs none of it.
    let release;
    const gate = new Promise((r) => { release = r; });
    await page.route(/\/weightpeek-web(_bg\.wasm|\.js)$/, async (route) => { await gate; await route.continue(); });
    const url = `${hub.endpoint}/${GGUF_REPO}/resolve/main/${GGUF_FILE}`;
    const t0 = Date.now();
    await page.goto(`${origin}/?url=${encodeURIComponent(url)}`);
    const lean = page.locator('[data-testid=lean-view]');
    await page.waitForFunction(() => document.querySelector('[data-testid=lean-view]')?.dataset.state === 'ready', null, { timeout: 90_000, polling: 50 });
    const ms = Date.now() - t0;
    const first = [...new Set(own)].filter((p) => !p.endsWith('.html') && p !== '' && !p.startsWith('weightpeek-web'));
    assert.ok(first.includes('weightpeek-lite_bg.wasm'), first.join(', '));
    const sizes = Object.fromEntries(first.map((p) => [p, gz(path.join(distDir, p))]));
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(`# the page's first load (gzip -9): ${JSON.stringify(sizes)} = ${total} B (${(total / 1024).toFixed(1)} KB of ${BUDGET / 1024} KB); the summary in ${ms} ms`);
    assert.ok(total <= BUDGET, `the page's first load is ${total} B gzipped, over the ${BUDGET} B budget`);
    assert.equal(await lean.locator('[data-testid=tensor-count]').getAttribute('data-value'), String(gemmaRef.tensor_count));
    const headerReads = hub.log.filter((e) => e.path.endsWith(GGUF_FILE)).length;
    assert.ok(headerReads > 0, 'the lean view read the header');
    fs.mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotDir, 'first-load-page-lean.png') });

    // The full app takes over: its view of the same model, the lean view gone, the header not
    // read again (the lean module hands it over), the page ready as before the split.
    release();
    await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 90_000, polling: 50 });
    assert.equal(await page.locator('[data-testid=lean-view]').count(), 0, 'the lean view was removed');
    assert.equal(await page.evaluate(() => document.body.dataset.lean ?? null), null);
    assert.equal(await page.locator('#report [data-testid=tensor-count]').getAttribute('data-value'), String(gemmaRef.tensor_count));
    assert.equal(hub.log.filter((e) => e.path.endsWith(GGUF_FILE)).length, headerReads, `the header was read again: ${JSON.stringify(hub.log.filter((e) => e.path.endsWith(GGUF_FILE)))}`);
    // The progress line: nothing downloaded, until a preview's Range read, which it counts.
    const progress = page.locator('[data-testid=remote-progress]');
    assert.equal(await progress.textContent(), 'Nothing more downloaded: the header was read while the page loaded.');
    await page.click('#report [role=tab][data-tab="tensors"]');
    await page.click('#report tr[data-file-index="1"]');
    await page.waitForFunction(() => document.querySelector('[data-testid=preview]')?.dataset.state === 'ready', null, { timeout: 30_000, polling: 50 });
    const previewReads = hub.log.filter((e) => e.path.endsWith(GGUF_FILE)).slice(headerReads);
    assert.equal(previewReads.length, 1, 'one Range read for the preview');
    assert.equal(await progress.getAttribute('data-requests'), '1');
    assert.equal(Number(await progress.getAttribute('data-bytes')), previewReads[0].bytes);
    assert.match(await progress.textContent(), /^Header read while the page loaded; previews since: 1 request · [\d.]+ (B|KiB|MiB) received$/);
    const later = [...new Set(own)];
    assert.deepEqual(later.filter((p) => p.startsWith('weightpeek-web')).sort(), ['weightpeek-web.js', 'weightpeek-web_bg.wasm']);
    assert.equal(later.filter((p) => p === 'weightpeek-lite_bg.wasm').length, 1);
    await page.screenshot({ path: path.join(screenshotDir, 'first-load-page-full.png') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  /** A page at `query` with the full module held back until `release()`. */
  async function heldPage(query) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    let release;
    const gate = new Promise((r) => { release = r; });
    await page.route(/\/weightpeek-web(_bg\.wasm|\.js)$/, async (route) => { await gate; await route.continue(); });
    // Every body[data-state] the page goes through.
    await page.addInitScript(() => {
      window.__states = [];
      addEventListener('DOMContentLoaded', () => new MutationObserver(() => window.__states.push(document.body.dataset.state))
        .observe(document.body, { attributes: true, attributeFilter: ['data-state'] }));
    });
    await page.goto(`${server.url.replace(/\/$/, '')}/${query}`);
    return { context, page, errors, release };
  }
  const leanReady = (page) => page.waitForFunction(() => document.querySelector('[data-testid=lean-view]')?.dataset.state === 'ready', null, { timeout: 60_000, polling: 50 });
  const appDone = (page, states = ['ready']) => page.waitForFunction((s) => s.includes(document.body.dataset.state) && !document.body.dataset.lean, states, { timeout: 60_000, polling: 50 });
  const stUrl = () => `${hub.endpoint}/${ST_REPO}/resolve/main/model.safetensors`;

  it('what the reader did in the lean view is done again by the app: the tab, a row opened, the focus', async () => {
    const { context, page, errors, release } = await heldPage(`?url=${encodeURIComponent(stUrl())}&tab=tensors`);
    await leanReady(page);
    // The lean view starts on the tab the address asks for (read as the app reads it).
    assert.equal(await page.locator('[data-testid=lean-view] [role=tab][data-tab=tensors]').getAttribute('aria-selected'), 'true');
    await page.locator('[data-testid=lean-view] [role=tab][data-tab=tensors]').click();
    const row = page.locator('[data-testid=lean-view] tr[data-file-index]').nth(3);
    const name = await row.locator('td.col-name').textContent();
    await row.focus();
    await page.keyboard.press('Enter');
    release();
    await appDone(page);
    assert.equal(await page.locator('#report [role=tab][data-tab=preview]').getAttribute('aria-selected'), 'true', 'the app shows the preview of the row opened');
    await page.waitForFunction((n) => document.querySelector(`#report [data-tensor="${n}"]`) !== null, name, { timeout: 30_000 });
    assert.ok(await page.evaluate(() => document.getElementById('report').contains(document.activeElement)), 'the focus moved into the app\'s view');
    // From loading straight to the app's opening: no "idle" in between.
    assert.deepEqual([...new Set(await page.evaluate(() => window.__states))], ['loading', 'ready']);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a URL typed while a linked model is shown lean opens in the app; a repository typed then replaces the lean view', async () => {
    const gemma = `${hub.endpoint}/${GGUF_REPO}/resolve/main/${GGUF_FILE}`;
    const minilm = loadReference('all-MiniLM-L6-v2');
    let { context, page, errors, release } = await heldPage(`?url=${encodeURIComponent(gemma)}`);
    await leanReady(page);
    await page.fill('[data-testid=url-input]', stUrl());
    await page.press('[data-testid=url-input]', 'Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=lean-view]')?.getAttribute('src')?.endsWith('model.safetensors'));
    release();
    await appDone(page);
    assert.equal(await page.locator('#report [data-testid=tensor-count]').getAttribute('data-value'), String(minilm.tensor_count));
    assert.equal(await page.inputValue('[data-testid=url-input]'), stUrl());
    assert.deepEqual(errors, []);
    await context.close();

    ({ context, page, errors, release } = await heldPage(`?url=${encodeURIComponent(stUrl())}`));
    await leanReady(page);
    await page.click('.hub-settings summary');
    await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
    await page.fill('[data-testid=url-input]', GGUF_REPO);
    await page.press('[data-testid=url-input]', 'Enter');
    assert.equal(await page.locator('[data-testid=lean-view]').count(), 0, 'the lean view of the other model stays');
    release();
    await appDone(page, ['listed']);
    assert.ok(await page.locator('[data-testid=repo-files] li').count() > 0);
    assert.equal(await page.locator('#report [data-testid=tensor-count]').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('an element given an ONNX file moves to the full module, which reads it (the CLI\'s tensor count)', async () => {
    const onnx = path.join(path.dirname(path.dirname(files.minilm)), 'silero-vad', 'silero_vad.onnx');
    requireFile(onnx);
    const cli = JSON.parse(execFileSync(requireFile(cliBinary() ?? 'target/debug/weightpeek', 'cargo build --bin weightpeek'), [onnx, '--json'], { maxBuffer: 64 << 20 }).toString());
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url.replace(/\/$/, '')}/embed.html?hub=${encodeURIComponent(hub.endpoint)}`);
    await page.waitForFunction(() => document.querySelector('#gguf')?.dataset.state === 'ready', null, { timeout: 60_000 });
    await page.evaluate(() => {
      const f = document.createElement('input');
      f.type = 'file';
      f.id = 'wp-test-file';
      document.body.append(f);
    });
    await page.setInputFiles('#wp-test-file', onnx);
    await page.evaluate(() => document.querySelector('#gguf').open(document.getElementById('wp-test-file').files));
    await page.waitForFunction(() => { const e = document.querySelector('#gguf'); return e.dataset.module === 'full' && e.dataset.state === 'ready'; }, null, { timeout: 60_000, polling: 50 });
    assert.equal(await page.locator('#gguf [data-testid=tensor-count]').getAttribute('data-value'), String(cli.tensor_count));
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a file dropped while the page loads is shown by the lean module, then by the full app', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The full module waits until the lean view has shown the file.
    let release;
    const gate = new Promise((r) => { release = r; });
    await page.route('**/weightpeek-web_bg.wasm', async (route) => { await gate; await route.continue(); });
    await page.goto(server.url);
    await page.waitForFunction(() => window.__wpEarly !== undefined);
    await page.locator('[data-testid=file-input]').setInputFiles(files.minilm);
    await page.waitForFunction(() => document.querySelector('[data-testid=lean-view]')?.dataset.state === 'ready', null, { timeout: 60_000, polling: 50 });
    const minilm = loadReference('all-MiniLM-L6-v2');
    assert.equal(await page.locator('[data-testid=lean-view] [data-testid=tensor-count]').getAttribute('data-value'), String(minilm.tensor_count));
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'loading', 'the page is not ready before its app is');
    release();
    await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 60_000, polling: 50 });
    assert.equal(await page.locator('[data-testid=lean-view]').count(), 0);
    assert.equal(await page.locator('#report [data-testid=tensor-count]').getAttribute('data-value'), String(minilm.tensor_count));
    assert.deepEqual(errors, []);
    await context.close();
  });
});
