// End-to-end: the embeddable <weightpeek-view> element and the JavaScript API (issue #6), in
// headless chromium against the mock Hub. The example pages of www/ are loaded as a reader
// would open them (embed.html: a docs page with a GGUF and a safetensors view between
// paragraphs; api.html: a table printed with inspect() and preview()), with ?hub= pointing
// their Hugging Face URLs at the mock. Checked: the reference facts in both views, one wasm
// instance for the page, the host page's CSS kept out (and ours kept in), tabs with ARIA roles
// and keyboard movement, attribute changes (src, tab, tensor, filter, theme), removal stopping
// requests and removing listeners, the API's results against the reference readers (counts,
// parameters, dtypes; preview values bit for bit), and a screenshot of every tab in both
// themes at 390 and 2560 px wide.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, loadReference, requireFile, files, repoRoot, referenceDir, screenshotDir, distDir,
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const GGUF_REPO = 'unsloth/gemma-3-270m-it-GGUF';
const GGUF_FILE = 'gemma-3-270m-it-Q4_K_M.gguf';
const ST_REPO = 'sentence-transformers/all-MiniLM-L6-v2';
const fixtures = path.join(repoRoot, 'target', 'remote-fixtures');

function previewRef(file, tensor, rows, cols) {
  const f = path.join(referenceDir, 'preview.json');
  requireFile(f, 'run tests/reference/preview_reference.py; scripts/test.sh does');
  const all = JSON.parse(fs.readFileSync(f, 'utf8'));
  const c = all.cases.find((x) => x.file === file && x.tensor === tensor
    && JSON.stringify(x.request.rows) === JSON.stringify(rows) && JSON.stringify(x.request.cols) === JSON.stringify(cols));
  assert.ok(c, `no reference case ${file} ${tensor} ${rows} ${cols}`);
  return c;
}

/** Opens an example page; collects page errors and counts wasm downloads. */
async function openPage(browser, url, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  page.__wpErrors = [];
  page.__wasmFetches = 0;
  page.on('pageerror', (e) => page.__wpErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon\.ico/.test(m.location()?.url ?? '')) page.__wpErrors.push(`console.error: ${m.text()}`);
  });
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) page.__wasmFetches += 1; });
  await page.goto(url);
  return page;
}

/** Waits until the element matching `selector` has data-state ready (or error: fails). */
async function waitReady(page, selector, timeout = 90_000) {
  try {
    await page.waitForFunction((s) => ['ready', 'error'].includes(document.querySelector(s)?.dataset.state), selector, { timeout, polling: 50 });
  } catch {
    throw new Error(`${selector} never settled (state ${await page.evaluate((s) => document.querySelector(s)?.dataset.state, selector)}); errors: ${page.__wpErrors.join(' | ')}`);
  }
  const state = await page.evaluate((s) => document.querySelector(s).dataset.state, selector);
  const err = await page.locator(selector).locator('[data-testid=error]').first().textContent().catch(() => '');
  assert.equal(state, 'ready', `${selector}: ${err}; page errors: ${page.__wpErrors.join(' | ')}`);
}

/** Facts shown by the view `sel` (Playwright's CSS engine pierces the open shadow root). */
async function shownFacts(page, sel) {
  const v = page.locator(sel);
  const tensors = await v.locator('[data-testid=tensor-count]').getAttribute('data-value');
  const params = await v.locator('[data-testid=parameter-count]').getAttribute('data-value');
  const dtypes = await v.locator('[data-testid=dtype-histogram] [data-dtype]').evaluateAll((els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-dtype'), e.getAttribute('data-count')])));
  return { tensors, params, dtypes };
}

function refDtypes(ref) {
  return Object.fromEntries(ref.dtypes.map((d) => [String(d.dtype), String(d.tensors)]));
}

async function tabsOf(page, sel) {
  return page.locator(sel).locator('[role=tab]').evaluateAll((els) =>
    els.map((e) => ({ tab: e.dataset.tab, selected: e.getAttribute('aria-selected'), tabindex: e.getAttribute('tabindex') })));
}

async function shoot(locator, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  await locator.screenshot({ path: path.join(screenshotDir, `${name}.png`) });
}

/** Event listeners registered on window and document (Chrome DevTools Protocol). */
async function globalListeners(page) {
  const cdp = await page.context().newCDPSession(page);
  let n = 0;
  for (const expression of ['window', 'document']) {
    const { result } = await cdp.send('Runtime.evaluate', { expression });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
    n += listeners.length;
  }
  await cdp.detach();
  return n;
}

describe('the <weightpeek-view> element and the JavaScript API', { timeout: 15 * 60_000 }, () => {
  let browser; let server; let hub; let ggufDir; let gemmaRef; let minilmRef; let embedUrl; let apiUrl;

  before(async () => {
    requireFile(files.gemma);
    requireFile(files.minilm);
    requireFile(path.join(distDir, 'embed.html'), 'build the app: trunk build --release');
    ggufDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-widget-'));
    fs.symlinkSync(files.gemma, path.join(ggufDir, GGUF_FILE));
    // The same bytes under other names: readings no view of the page has made yet (a header
    // read once is kept for the page's later views and calls).
    for (const n of ['gemma-single.gguf', 'gemma-shared.gguf', 'gemma-slow.gguf']) fs.symlinkSync(files.gemma, path.join(ggufDir, n));
    server = await startAppServer();
    hub = await startMockHub({
      repos: {
        [GGUF_REPO]: { dir: ggufDir },
        [ST_REPO]: { dir: path.dirname(files.minilm) },
        'weightpeek/split-gguf': { dir: path.join(fixtures, 'split-gguf') },
        'weightpeek/mlx-4bit': { dir: path.join(repoRoot, 'target', 'quant-fixtures', 'mlx-4bit-mixed') },
      },
    });
    browser = await launchBrowser();
    gemmaRef = loadReference('gemma-3-270m-q4_k_m');
    minilmRef = loadReference('all-MiniLM-L6-v2');
    const base = server.url.replace(/\/?$/, '/');
    embedUrl = `${base}embed.html?hub=${encodeURIComponent(hub.endpoint)}`;
    apiUrl = `${base}api.html?hub=${encodeURIComponent(hub.endpoint)}`;
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await hub?.close();
    if (ggufDir) fs.rmSync(ggufDir, { recursive: true, force: true });
  });

  it('the example pages ask for no favicon: their icon is a data: URL, nothing answers 404', async () => {
    for (const url of [embedUrl, apiUrl]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const failed = [];
      const asked = [];
      page.on('request', (r) => { if (/favicon/.test(r.url())) asked.push(r.url()); });
      page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
      await page.goto(url, { waitUntil: 'load' });
      await new Promise((r) => setTimeout(r, 1000)); // a browser asks for /favicon.ico after load
      const icon = await page.getAttribute('link[rel=icon]', 'href');
      assert.ok(icon?.startsWith('data:image/svg+xml,'), `${url}: icon ${icon}`);
      assert.deepEqual(asked, [], `${url}: favicon requests`);
      assert.deepEqual(failed, [], `${url}: failed requests`);
      await context.close();
    }
  });

  it('the docs page shows both models with the reference facts, one wasm instance, header bytes only', async () => {
    hub.clearLog();
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    await waitReady(page, '#safetensors');

    const g = await shownFacts(page, '#gguf');
    assert.equal(g.tensors, String(gemmaRef.tensor_count));
    assert.equal(BigInt(g.params), BigInt(gemmaRef.parameter_count));
    assert.deepEqual(g.dtypes, refDtypes(gemmaRef));
    const s = await shownFacts(page, '#safetensors');
    assert.equal(s.tensors, String(minilmRef.tensor_count));
    assert.equal(BigInt(s.params), BigInt(minilmRef.parameter_count));
    assert.deepEqual(s.dtypes, refDtypes(minilmRef));

    // One module, one wasm download and instance for both views.
    assert.equal(page.__wasmFetches, 1, 'wasm fetched once for two views');

    // tab="histogram" on the GGUF view; tab="tensors" + filter on the safetensors view.
    const gt = await tabsOf(page, '#gguf');
    assert.deepEqual(gt.map((t) => t.tab), ['summary', 'metadata', 'tensors', 'histogram', 'preview', 'checks', 'tokenizer', 'memory', 'fit']);
    assert.deepEqual(gt.filter((t) => t.selected === 'true').map((t) => t.tab), ['histogram']);
    assert.deepEqual(gt.filter((t) => t.tabindex === '0').map((t) => t.tab), ['histogram'], 'roving tabindex');
    const st = await tabsOf(page, '#safetensors');
    assert.deepEqual(st.map((t) => t.tab), ['summary', 'metadata', 'tensors', 'histogram', 'preview', 'checks'], 'no tokenizer, memory or fit tab for safetensors');
    assert.deepEqual(st.filter((t) => t.selected === 'true').map((t) => t.tab), ['tensors']);
    const expected = minilmRef.tensors.filter((t) => t.name.includes('layer.0.attention')).map((t) => t.name).sort();
    const rows = await page.locator('#safetensors [data-testid=tensor-table] tbody tr[data-file-index] td.col-name').allTextContents();
    assert.deepEqual([...rows].sort(), expected, 'filter attribute applied to the tensor table');
    assert.equal(await page.locator('#safetensors [role=tabpanel]:not([hidden])').count(), 1, 'one panel shown');

    // Header bytes only: the Gemma header is 6.2 MiB of a 253 MB file; MiniLM's 11 KiB.
    const bytes = (file) => hub.log.filter((e) => e.path.endsWith(file)).reduce((a, e) => a + e.bytes, 0);
    assert.ok(bytes(GGUF_FILE) <= Number(gemmaRef.data_offset) * 1.25 + 256 * 1024, `GGUF bytes ${bytes(GGUF_FILE)} for a ${gemmaRef.data_offset}-byte header`);
    assert.ok(bytes('model.safetensors') <= 256 * 1024, `safetensors bytes ${bytes('model.safetensors')}`);
    assert.deepEqual(page.__wpErrors, []);
    await page.screenshot({ path: path.join(screenshotDir, 'widget-docs-page.png'), fullPage: true });
    await page.context().close();
  });

  it('two elements and three API calls on one URL read its header once; a hidden preview reads nothing until shown', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    const url = (f) => `${hub.endpoint}/${GGUF_REPO}/resolve/main/${f}`;
    const requests = (f) => hub.log.filter((e) => e.path.endsWith(`/${f}`)).map((e) => `${e.server} ${e.method} ${e.range ?? ''}`);
    const add = (u, id, attrs = {}) => page.evaluate(([u, id, attrs]) => {
      const e = document.createElement('weightpeek-view');
      e.id = id;
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      e.setAttribute('src', u);
      document.querySelector('article').append(e);
    }, [u, id, attrs]);

    // One element alone on a file: what reading its header takes.
    hub.clearLog();
    await add(url('gemma-single.gguf'), 'single');
    await waitReady(page, '#single');
    const single = requests('gemma-single.gguf');
    assert.ok(single.length >= 2, `a header reading: ${single}`);

    // Two elements and inspect() + preview() + fit() on another copy, all at once.
    const win = previewRef('gemma', 'blk.0.attn_q.weight', [7, 8], [33, 35]);
    const shown = previewRef('gemma', 'blk.0.attn_output.weight', null, null);
    hub.clearLog();
    const calls = page.evaluate(async (u) => {
      const wp = await import('./weightpeek.js');
      const [m, p, f] = await Promise.all([
        wp.inspect(u),
        wp.preview(u, 'blk.0.attn_q.weight', { rows: [7, 8], cols: [33, 35] }),
        wp.fit(u, { gpus: [{ size: '24GiB' }], ram: '64GiB' }),
      ]);
      return { tensors: m.tensor_count, first: Array.from(p.values.slice(0, 2)), fits: f.fits };
    }, url('gemma-shared.gguf'));
    await add(url('gemma-shared.gguf'), 'shared-a');
    await add(url('gemma-shared.gguf'), 'shared-b', { tab: 'tensors', tensor: 'blk.0.attn_output.weight' });
    const got = await calls;
    await waitReady(page, '#shared-a');
    await waitReady(page, '#shared-b');
    assert.equal(got.tensors, gemmaRef.tensor_count);
    assert.ok(['gpu', 'offload', 'no'].includes(got.fits), got.fits);
    const winRange = `cdn GET bytes=${win.read_offset}-${win.read_offset + win.read_len - 1}`;
    assert.deepEqual(requests('gemma-shared.gguf').sort(), [...single, winRange].sort(),
      'the header read once (the requests of one element alone) and the preview() window');

    // The elements are the lean module's; the API calls loaded the full one.
    const module = (sel) => page.evaluate((s) => document.querySelector(s).dataset.module, sel);
    assert.deepEqual([await module('#shared-a'), await module('#shared-b')], ['lite', 'lite']);
    // The second element's preview (tab="tensors" with a tensor) is not read while its tab is
    // hidden (the lean view has no preview: its row is marked); shown, the view becomes the
    // full module's, whose reading takes the lean one's header bytes: exactly the window is
    // read, nothing of the header again.
    const b = page.locator('#shared-b');
    assert.equal(await b.locator('[data-testid=preview]').count(), 0);
    assert.deepEqual(await b.locator('[data-testid=tensor-table] tbody tr[aria-selected=true] td.col-name').allTextContents(), ['blk.0.attn_output.weight']);
    hub.clearLog();
    await page.evaluate(() => document.querySelector('#shared-b').setAttribute('tab', 'preview'));
    await b.locator('[data-testid=preview][data-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
    assert.equal(await module('#shared-b'), 'full');
    assert.equal((await shownFacts(page, '#shared-b')).tensors, String(gemmaRef.tensor_count));
    assert.deepEqual(requests('gemma-shared.gguf'), [`cdn GET bytes=${shown.read_offset}-${shown.read_offset + shown.read_len - 1}`]);

    // Removing one element of two sharing a reading in flight does not stop the other's.
    hub.clearLog();
    hub.set({ latencyMs: 300 });
    try {
      await add(url('gemma-slow.gguf'), 'slow-a');
      await add(url('gemma-slow.gguf'), 'slow-b');
      await page.evaluate(() => document.querySelector('#slow-a').remove());
      await waitReady(page, '#slow-b');
    } finally {
      hub.set({ latencyMs: 0 });
    }
    assert.deepEqual(requests('gemma-slow.gguf').sort(), [...single].sort(), 'one reading, not cancelled');
    assert.equal((await shownFacts(page, '#slow-b')).tensors, String(gemmaRef.tensor_count));
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('keeps the host page CSS out and its own CSS in (shadow DOM)', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#safetensors');
    // Inside: the docs page's button, table and paragraph rules do not apply.
    const inside = await page.locator('#safetensors').evaluate((host) => {
      const root = host.shadowRoot;
      const tab = getComputedStyle(root.querySelector('[role=tab]'));
      const table = getComputedStyle(root.querySelector('table'));
      const wp = getComputedStyle(root.querySelector('.wp'));
      return { tabFont: tab.fontFamily, tabTransform: tab.textTransform, tableBorder: table.borderTopStyle, font: wp.fontFamily, size: wp.fontSize, align: wp.textAlign };
    });
    assert.ok(!/Comic/.test(inside.tabFont), `tab font ${inside.tabFont}`);
    assert.equal(inside.tabTransform, 'none');
    assert.notEqual(inside.tableBorder, 'double');
    assert.ok(/system-ui/.test(inside.font) && !/Georgia/.test(inside.font), `view font ${inside.font}`);
    assert.equal(inside.size, '15px');
    assert.equal(inside.align, 'start');
    // Outside: the page's own look is untouched by the widget's stylesheet.
    const outside = await page.evaluate(() => ({
      p: getComputedStyle(document.querySelector('article p')).fontFamily,
      bg: getComputedStyle(document.body).backgroundColor,
      button: (() => { const b = document.createElement('button'); document.body.append(b); const f = getComputedStyle(b).fontFamily; b.remove(); return f; })(),
    }));
    assert.ok(/Georgia/.test(outside.p), outside.p);
    assert.equal(outside.bg, 'rgb(253, 252, 248)');
    assert.ok(/Comic/.test(outside.button), outside.button);
    // A hostile host rule on every element still does not reach inside.
    await page.addStyleTag({ content: '* { color: red !important; letter-spacing: 5px; } table { display: none; }' });
    const after = await page.locator('#safetensors').evaluate((host) => {
      const t = host.shadowRoot.querySelector('table');
      return { display: getComputedStyle(t).display, color: getComputedStyle(host.shadowRoot.querySelector('.wp')).color, spacing: getComputedStyle(host.shadowRoot.querySelector('.wp')).letterSpacing };
    });
    assert.equal(after.display, 'table');
    assert.notEqual(after.color, 'rgb(255, 0, 0)');
    assert.equal(after.spacing, 'normal');
    await page.context().close();
  });

  it('tabs: ARIA roles, arrow keys, Home/End, the tab attribute follows', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    const v = page.locator('#gguf');
    assert.equal(await v.locator('[role=tablist]').count(), 1);
    assert.equal(await v.locator('[role=tabpanel]').count(), 9);
    await v.locator('[role=tab][aria-selected=true]').focus();
    const selected = async () => (await tabsOf(page, '#gguf')).find((t) => t.selected === 'true').tab;
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'preview');
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').getAttribute('tab')), 'preview');
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').shadowRoot.activeElement?.dataset.tab), 'preview', 'focus moves with the selection');
    // The Preview tab is the full module's: the view becomes its, the focus stays on the tab.
    await page.waitForFunction(() => { const e = document.querySelector('#gguf'); return e.dataset.module === 'full' && e.dataset.state === 'ready'; }, null, { timeout: 30_000 });
    assert.equal(await selected(), 'preview');
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').shadowRoot.activeElement?.dataset.tab), 'preview', 'the focus stays on the tab in the full view');
    await page.keyboard.press('End');
    assert.equal(await selected(), 'fit');
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'summary', 'wraps around');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await selected(), 'fit');
    await page.keyboard.press('Home');
    assert.equal(await selected(), 'summary');
    // The keys move between tabs only: the host page does not scroll (the docs page is taller
    // than the window), and nothing is logged.
    await page.evaluate(() => window.scrollTo(0, 200));
    await v.locator('[role=tab][aria-selected=true]').focus();
    const y0 = await page.evaluate(() => window.scrollY);
    await page.keyboard.press('End');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => window.scrollY), y0, 'Home/End on the tabs scrolled the page');
    assert.deepEqual(page.__wpErrors, []);
    // Only the selected panel is shown; it is labelled by its tab.
    const shown = await v.locator('[role=tabpanel]:not([hidden])').evaluateAll((els) => els.map((e) => e.getAttribute('aria-labelledby')));
    assert.deepEqual(shown, ['wp-tab-summary']);
    // Setting the attribute selects the tab.
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tab', 'checks'));
    assert.equal(await selected(), 'checks');
    // A type clicked in the chart filters the table and shows the Tensors tab.
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tab', 'histogram'));
    await v.locator('[data-testid=dtype-histogram] [data-dtype=Q6_K]').first().click();
    assert.equal(await selected(), 'tensors');
    const types = await v.locator('[data-testid=tensor-table] tbody tr[data-file-index] td.col-type').allTextContents();
    assert.ok(types.length > 0 && types.every((t) => t.includes('Q6_K')), `types after the chart click: ${types.slice(0, 5)}`);
    await page.context().close();
  });

  it('tensor attribute opens its preview; src change loads the new model; theme attribute', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    const ref = previewRef('gemma', 'blk.0.attn_output.weight', null, null);
    hub.clearLog();
    await page.evaluate(() => { const e = document.querySelector('#gguf'); e.removeAttribute('tab'); e.setAttribute('tensor', 'blk.0.attn_output.weight'); });
    const v = page.locator('#gguf');
    await v.locator('[data-testid=preview][data-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
    const shownTab = (await tabsOf(page, '#gguf')).find((t) => t.selected === 'true').tab;
    assert.equal(shownTab, 'preview', 'a tensor without a tab shows the preview');
    const marked = await v.locator('[data-testid=tensor-table] tbody tr[aria-selected=true] td.col-name').allTextContents();
    assert.deepEqual(marked, ['blk.0.attn_output.weight'], 'the tensor attribute selects its row');
    const pageScroll = await page.evaluate(() => window.scrollY);
    assert.equal(pageScroll, 0, 'the host page did not scroll');
    const ranged = hub.log.filter((e) => e.server === 'cdn' && e.range);
    assert.deepEqual(ranged.map((e) => e.range), [`bytes=${ref.read_offset}-${ref.read_offset + ref.read_len - 1}`], 'one Range request of exactly the window');
    // A tensor the model does not have: a message, not a crash; a good one clears it.
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tensor', 'no.such.tensor'));
    assert.match(await v.locator('[data-testid=error]').first().textContent(), /no tensor "no\.such\.tensor"/);
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tensor', 'blk.0.attn_q.weight'));
    assert.equal(await v.locator('[data-testid=error]').first().isVisible(), false, 'the old message is gone');
    // Moving the element keeps its view: nothing is read again.
    hub.clearLog();
    await page.evaluate(() => document.querySelector('article').prepend(document.querySelector('#gguf')));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').dataset.state), 'ready');
    assert.deepEqual(hub.log.map((e) => e.path), [], 'a moved view reads nothing');
    assert.equal(await v.locator('[data-testid=preview]').getAttribute('data-tensor'), 'blk.0.attn_q.weight');

    // src change: the view now shows MiniLM (no tokenizer or memory tab).
    await page.evaluate((u) => {
      const e = document.querySelector('#gguf');
      e.removeAttribute('tensor');
      e.setAttribute('tab', 'summary');
      e.setAttribute('src', u);
    }, `${hub.endpoint}/${ST_REPO}/resolve/main/model.safetensors`);
    await page.waitForFunction(() => document.querySelector('#gguf').dataset.state === 'loading' || document.querySelector('#gguf').dataset.state === 'ready');
    await waitReady(page, '#gguf');
    const f = await shownFacts(page, '#gguf');
    assert.equal(f.tensors, String(minilmRef.tensor_count));
    assert.equal((await tabsOf(page, '#gguf')).length, 6);

    // theme="dark" under a light system: dark colours; "light": light ones.
    const bg = () => page.locator('#safetensors').evaluate((h) => getComputedStyle(h.shadowRoot.querySelector('.wp')).backgroundColor);
    await page.evaluate(() => document.querySelector('#safetensors').setAttribute('theme', 'dark'));
    assert.equal(await bg(), 'rgb(15, 17, 21)');
    await page.evaluate(() => document.querySelector('#safetensors').setAttribute('theme', 'light'));
    assert.equal(await bg(), 'rgb(246, 247, 249)');
    // height: the body of the view is that tall.
    await page.evaluate(() => document.querySelector('#safetensors').setAttribute('height', '300'));
    const h = await page.locator('#safetensors').evaluate((host) => host.shadowRoot.querySelector('.wp-body').getBoundingClientRect().height);
    assert.equal(Math.round(h), 300);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('the tensor attribute follows the preview the reader opens', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    const v = page.locator('#gguf');
    await page.evaluate(() => document.querySelector('#gguf').setAttribute('tab', 'tensors'));
    const row = v.locator('[data-testid=tensor-table] tbody tr[data-file-index]').nth(2);
    const name = await row.locator('td.col-name').textContent();
    await row.click();
    await v.locator(`[data-testid=preview][data-state=ready][data-tensor="${name}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').getAttribute('tensor')), name);
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').getAttribute('tab')), 'preview');
    // Setting the attribute to the tensor shown reads nothing again.
    hub.clearLog();
    await page.evaluate((n) => document.querySelector('#gguf').setAttribute('tensor', n), name);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(hub.log.map((e) => e.path), []);
    // A new src drops the reader's choice instead of looking for it in the other model.
    await page.evaluate((u) => document.querySelector('#gguf').setAttribute('src', u), `${hub.endpoint}/${ST_REPO}/resolve/main/model.safetensors`);
    // (MiniLM's header, read by the other view, is not read again: the view may be ready at
    // once.)
    await page.waitForFunction((n) => document.querySelector('#gguf').shadowRoot.querySelector('[data-testid=tensor-count]')?.getAttribute('data-value') === n, String(minilmRef.tensor_count));
    await waitReady(page, '#gguf');
    assert.equal(await page.evaluate(() => document.querySelector('#gguf').getAttribute('tensor')), null);
    assert.equal(await v.locator('[data-testid=error]').first().isVisible(), false);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('open(file) shows a local file, header only, with no request', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#safetensors');
    await waitReady(page, '#gguf'); // its requests are over before ours are counted
    const sample = loadReference('sample');
    await page.evaluate(async () => {
      const bytes = await (await fetch('sample.gguf')).arrayBuffer();
      window.__sampleFile = new File([bytes], 'sample.gguf');
    });
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.evaluate(() => {
      window.__states = [];
      // On this view only: the other view on the page may still be loading.
      const view = document.querySelector('#safetensors');
      view.addEventListener('weightpeek-state', (e) => window.__states.push(e.detail));
      return view.open(window.__sampleFile);
    });
    await page.waitForFunction(() => window.__states.includes('ready') || window.__states.includes('error'), null, { timeout: 30_000 });
    assert.deepEqual(await page.evaluate(() => window.__states), ['loading', 'ready'], 'weightpeek-state events');
    await waitReady(page, '#safetensors');
    const f = await shownFacts(page, '#safetensors');
    assert.equal(f.tensors, String(sample.tensor_count));
    assert.equal(BigInt(f.params), BigInt(sample.parameter_count));
    assert.deepEqual(requests, [], 'a local file makes no request');
    assert.equal((await tabsOf(page, '#safetensors')).length, 9, 'a GGUF now: tokenizer, memory and fit tabs');
    const wrong = await page.evaluate(async () => { try { await document.querySelector('#safetensors').open('x'); return 'accepted'; } catch (e) { return e.name; } });
    assert.equal(wrong, 'TypeError');

    // An export button in the lean view, by keyboard: the view moves to the full module
    // without a blank frame or a state event (the new view is drawn beside the old one), the
    // file is downloaded, and the focus is on the same button in the new view.
    assert.equal(await page.evaluate(() => document.querySelector('#safetensors').dataset.module), 'lite');
    await page.evaluate(() => {
      // (The buttons are on the Summary tab; this view starts on Tensors.)
      document.querySelector('#safetensors').setAttribute('tab', 'summary');
      window.__states = [];
      window.__blank = 0;
      const v = document.querySelector('#safetensors');
      const look = () => {
        if (!v.shadowRoot.querySelector('.wp:not([style*="hidden"]) [role=tablist]')) window.__blank += 1;
        if (v.dataset.module !== 'full') requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await page.locator('#safetensors [data-testid=export-json]').focus();
    await page.keyboard.press('Enter');
    const file = await download;
    assert.equal(file.suggestedFilename(), 'sample.gguf.weightpeek.json');
    await page.waitForFunction(() => document.querySelector('#safetensors').dataset.module === 'full', null, { timeout: 30_000 });
    assert.deepEqual(await page.evaluate(() => [window.__states, window.__blank]), [[], 0], 'no state event, no blank frame');
    assert.equal(await page.evaluate(() => document.querySelector('#safetensors').shadowRoot.activeElement?.dataset.testid), 'export-json', 'the focus on the same button');
    assert.equal(await page.evaluate(() => document.querySelector('#safetensors').shadowRoot.querySelectorAll('.wp').length), 1, 'one view');
    assert.equal(await page.evaluate(async () => (await import('./weightpeek.js')).liveViews()), 2, 'the lean view was freed');
    assert.deepEqual(requests.map((u) => new URL(u).pathname).sort(), ['/weightpeek-web.js', '/weightpeek-web_bg.wasm'], 'the full module, and nothing of the file');
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('removing a view stops its requests and removes its listeners', async () => {
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    await waitReady(page, '#safetensors');
    const live = () => page.evaluate(async () => (await import('./weightpeek.js')).liveViews());
    assert.equal(await live(), 2);
    // A preview open: its panel's listeners hold the card, which the view's removal must free.
    await page.evaluate(() => { const e = document.querySelector('#gguf'); e.removeAttribute('tab'); e.setAttribute('tensor', 'blk.0.attn_q.weight'); });
    await page.locator('#gguf [data-testid=preview][data-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
    assert.equal(await live(), 3, 'two views and a preview panel');
    await page.evaluate(() => { document.querySelector('#gguf').remove(); document.querySelector('#safetensors').remove(); });
    assert.equal(await live(), 0, 'both views and the preview freed');
    const base = await globalListeners(page);

    // A view that loads and is removed: the listeners it added are gone again.
    await page.evaluate((u) => {
      const e = document.createElement('weightpeek-view');
      e.id = 'added';
      e.setAttribute('src', u);
      e.setAttribute('tab', 'tensors');
      document.querySelector('article').append(e);
    }, `${hub.endpoint}/${GGUF_REPO}/resolve/main/${GGUF_FILE}`);
    await waitReady(page, '#added');
    const during = await globalListeners(page);
    assert.ok(during > base, `a view adds window listeners (${base} -> ${during})`);
    await page.evaluate(() => document.querySelector('#added').remove());
    assert.equal(await live(), 0);
    assert.equal(await globalListeners(page), base, 'no listener left behind');

    // Removed while its header is being fetched (a file no view has read: the header of
    // GGUF_FILE is kept for the page): the request is aborted, nothing follows.
    const SLOW = 'gemma-slow.gguf';
    hub.clearLog();
    hub.set({ latencyMs: 1500 });
    try {
      await page.evaluate((u) => {
        const e = document.createElement('weightpeek-view');
        e.id = 'slow';
        e.setAttribute('src', u);
        document.querySelector('article').append(e);
      }, `${hub.endpoint}/${GGUF_REPO}/resolve/main/${SLOW}`);
      const t0 = Date.now();
      while (!hub.log.some((e) => e.path.endsWith(SLOW)) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
      assert.ok(hub.log.some((e) => e.server === 'hub' && e.path.endsWith(SLOW)), 'the first request was made');
      await page.evaluate(() => document.querySelector('#slow').remove());
      await new Promise((r) => setTimeout(r, 4000));
      assert.deepEqual(hub.log.filter((e) => e.server === 'cdn').map((e) => e.range), [], 'no request reached the CDN after removal');
      assert.equal(hub.log.filter((e) => e.path.endsWith(SLOW)).length, 1, 'nothing was asked after removal');
      assert.equal(await live(), 0);
    } finally {
      hub.set({ latencyMs: 0 });
    }
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('the API page prints its table; inspect() and preview() match the references', async () => {
    hub.clearLog();
    const page = await openPage(browser, apiUrl);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 90_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready', await page.locator('[data-testid=api-status]').textContent());
    const rows = await page.$$eval('[data-testid=api-table] tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const fmt = new Intl.NumberFormat('en');
    assert.deepEqual(rows.map((r) => r.slice(0, 4)), [
      [GGUF_FILE, 'gguf', fmt.format(gemmaRef.tensor_count), fmt.format(gemmaRef.parameter_count)],
      ['model.safetensors', 'safetensors', fmt.format(minilmRef.tensor_count), fmt.format(minilmRef.parameter_count)],
    ]);
    const q = gemmaRef.tensors.find((t) => t.name === 'blk.0.attn_q.weight');
    assert.ok(q, 'blk.0.attn_q.weight in the reference');
    assert.match(await page.locator('[data-testid=api-preview]').textContent(), new RegExp(`^blk\\.0\\.attn_q\\.weight \\(${q.dtype}\\), rows 0\\.\\.2, cols 0\\.\\.8`));
    assert.match(await page.locator('[data-testid=api-fit]').textContent(), /^yes, every layer on the GPU \(-ngl 19; GPU [\d,]+ of 7,516,192,768 bytes\)\nllama-server -m gemma-3-270m-it-Q4_K_M\.gguf -c 8192 -ngl 19 -fa on$/);
    await page.screenshot({ path: path.join(screenshotDir, 'widget-api-page.png'), fullPage: true });

    // inspect(): the CLI's JSON schema, equal to the reference readers.
    const hubUrl = `${hub.endpoint}/${GGUF_REPO}/resolve/main/${GGUF_FILE}`;
    const got = await page.evaluate(async (u) => {
      const m = await (await import('./weightpeek.js')).inspect(u);
      return { tensor_count: m.tensor_count, parameter_count: m.parameter_count, tensor_bytes: m.tensor_bytes, dtypes: m.dtypes, names: m.tensors.map((t) => t.name), meta: m.metadata.length, keys: Object.keys(m), tensorKeys: Object.keys(m.tensors[0]), dtypeKeys: Object.keys(m.dtypes[0]), metaKeys: Object.keys(m.metadata[0]), format: m.format, metaTypes: m.metadata.map((e) => e.type) };
    }, hubUrl);
    // Every field weightpeek.d.ts declares is there.
    for (const k of ['format', 'version', 'endianness', 'alignment', 'file_size', 'header_size', 'tensor_count', 'metadata_count', 'parameter_count', 'tensor_bytes', 'bits_per_weight', 'dtypes', 'tensors', 'metadata', 'warnings', 'findings', 'architecture', 'layers']) assert.ok(got.keys.includes(k), `inspect() has ${k}`);
    assert.equal(got.format, 'gguf');
    assert.ok(got.metaTypes.every((t) => /^(U?INT(8|16|32|64)|FLOAT(32|64)|BOOL|STRING|ARRAY)$/.test(t)), `metadata types ${[...new Set(got.metaTypes)]}`);
    for (const k of ['name', 'dtype', 'shape', 'elements', 'bytes', 'offset']) assert.ok(got.tensorKeys.includes(k), `tensors[] have ${k}`);
    for (const k of ['dtype', 'tensors', 'elements', 'bytes', 'bits_per_weight']) assert.ok(got.dtypeKeys.includes(k), `dtypes[] have ${k}`);
    assert.deepEqual(got.metaKeys, ['key', 'type', 'value']);
    assert.equal(got.tensor_count, gemmaRef.tensor_count);
    assert.equal(got.parameter_count, gemmaRef.parameter_count);
    assert.equal(got.tensor_bytes, gemmaRef.tensor_bytes);
    assert.deepEqual(Object.fromEntries(got.dtypes.map((d) => [d.dtype, d.tensors])), Object.fromEntries(gemmaRef.dtypes.map((d) => [String(d.dtype), d.tensors])));
    assert.deepEqual(got.names, gemmaRef.tensors.map((t) => t.name));
    assert.equal(got.meta, gemmaRef.metadata_count);

    // preview(): values bit for bit equal to gguf-py's, reading exactly the window.
    for (const c of [previewRef('gemma', 'blk.3.attn_output.weight', [5, 9], [300, 700]), previewRef('gemma', 'blk.0.attn_q.weight', [7, 8], [33, 35])]) {
      hub.clearLog();
      const p = await page.evaluate(async ([u, c]) => {
        const r = await (await import('./weightpeek.js')).preview(u, c.tensor, { rows: c.request.rows, cols: `${c.request.cols[0]}..${c.request.cols[1]}` });
        const bits = Array.from(new Uint32Array(r.values.buffer, r.values.byteOffset, r.values.length));
        return { keys: Object.keys(r), statKeys: Object.keys(r.stats), isF32: r.values instanceof Float32Array, n: r.values.length, bits: bits.slice(0, 64), stats: r.stats, offset: r.window.read_offset, len: r.window.read_len, dtype: r.dtype };
      }, [hubUrl, c]);
      assert.ok(p.isF32);
      for (const k of ['tensor', 'dtype', 'shape', 'window', 'bytes_read', 'stats', 'histogram', 'first_values', 'values']) assert.ok(p.keys.includes(k), `preview() has ${k}`);
      assert.deepEqual(p.statKeys, ['count', 'finite', 'zeros', 'nan', 'pos_inf', 'neg_inf', 'min', 'max', 'mean', 'std', 'mean_abs']);
      assert.equal(p.dtype, c.dtype);
      assert.equal(p.n, c.stats.count);
      assert.deepEqual(p.bits, c.first_bits);
      assert.equal(Math.fround(p.stats.min), Math.fround(c.stats.min));
      assert.equal(Math.fround(p.stats.max), Math.fround(c.stats.max));
      assert.deepEqual([p.offset, p.len], [c.read_offset, c.read_len]);
      const window = hub.log.filter((e) => e.server === 'cdn' && e.range !== `bytes=0-${256 * 1024 - 1}`);
      assert.ok(window.some((e) => e.range === `bytes=${c.read_offset}-${c.read_offset + c.read_len - 1}`), `window read: ${window.map((e) => e.range)}`);
    }

    // A File: only its header is read; a list of shard URLs is one model; errors reject.
    const sample = loadReference('sample');
    const local = await page.evaluate(async () => {
      const bytes = await (await fetch('sample.gguf')).arrayBuffer();
      const file = new File([bytes], 'sample.gguf');
      const m = await (await import('./weightpeek.js')).inspect(file);
      return { tensor_count: m.tensor_count, parameter_count: m.parameter_count };
    });
    assert.deepEqual(local, { tensor_count: sample.tensor_count, parameter_count: sample.parameter_count });
    const splitRef = JSON.parse(fs.readFileSync(path.join(fixtures, 'split-gguf.json'), 'utf8'));
    const parts = [1, 2, 3].map((i) => `${hub.endpoint}/weightpeek/split-gguf/resolve/main/tiny-llama-0000${i}-of-00003.gguf`);
    const split = await page.evaluate(async (urls) => {
      const m = await (await import('./weightpeek.js')).inspect(urls);
      return { tensor_count: m.tensor_count, parameter_count: m.parameter_count };
    }, parts);
    assert.deepEqual(split, { tensor_count: splitRef.tensor_count, parameter_count: splitRef.parameter_count });
    assert.deepEqual(page.__wpErrors, []);
    // (the browser logs the 404 below as a console error: expected)
    // A damaged header rejects, naming the field and offset, with what was read in e.partial.
    const corrupt = await page.evaluate(async () => {
      const wp = await import('./weightpeek.js');
      const bytes = await (await fetch('sample.gguf')).arrayBuffer();
      const cut = new File([bytes.slice(0, 3000)], 'cut.gguf');
      try { await wp.inspect(cut); return 'resolved'; } catch (e) { return { message: e.message, partial: e.partial?.format, metadata: e.partial?.metadata?.length }; }
    });
    assert.equal(corrupt.partial, 'gguf', JSON.stringify(corrupt));
    assert.match(corrupt.message, /byte \d+/, corrupt.message);
    const failure = await page.evaluate(async (u) => {
      try { await (await import('./weightpeek.js')).inspect(u); return 'resolved'; } catch (e) { return `${e instanceof Error}: ${e.message}`; }
    }, `${hub.endpoint}/${ST_REPO}/resolve/main/missing.safetensors`);
    assert.match(failure, /^true: .*404/);
    const aborted = await page.evaluate(async (u) => {
      const c = new AbortController();
      c.abort();
      try { await (await import('./weightpeek.js')).inspect(u, { signal: c.signal }); return 'resolved'; } catch (e) { return e.name; }
    }, hubUrl);
    assert.equal(aborted, 'AbortError');
    // A File/Blob honours the signal too; a timeout's reason is a TimeoutError.
    const blobAbort = await page.evaluate(async () => {
      const wp = await import('./weightpeek.js');
      const file = new File([await (await fetch('sample.gguf')).arrayBuffer()], 'sample.gguf');
      const c = new AbortController();
      c.abort();
      const out = [];
      for (const call of [() => wp.inspect(file, { signal: c.signal }), () => wp.preview(file, 'token_embd.weight', {}, { signal: c.signal })]) {
        try { await call(); out.push('resolved'); } catch (e) { out.push(e.name); }
      }
      try { await wp.inspect(file, { signal: AbortSignal.timeout(0) }); out.push('resolved'); } catch (e) { out.push(e.name); }
      return out;
    });
    assert.deepEqual(blobAbort, ['AbortError', 'AbortError', 'TimeoutError']);
    // Wrong argument types are TypeErrors, before anything is read.
    const typeErrors = await page.evaluate(async (u) => {
      const wp = await import('./weightpeek.js');
      const out = [];
      for (const call of [() => wp.preview(u, 5), () => wp.preview(u), () => wp.preview(u, 'x', { row: [0, 2] }), () => wp.inspect(u, 5), () => wp.inspect(u, { signal: 'x' }), () => wp.inspect(u, { endpoint: 'not a url' })]) {
        try { await call(); out.push('resolved'); } catch (e) { out.push(e.name); }
      }
      return out;
    }, hubUrl);
    assert.deepEqual(typeErrors, Array(6).fill('TypeError'));
    await page.context().close();
  });

  it('a quantised safetensors model: config.json beside it is read, logical parameters and bpw as computed in Python', async () => {
    const expectedFile = path.join(repoRoot, 'target', 'quant-fixtures', 'expected.json');
    requireFile(expectedFile, 'run tests/reference/quant_safetensors.py; scripts/test.sh does');
    const want = JSON.parse(fs.readFileSync(expectedFile, 'utf8')).cases.find((c) => c.case === 'mlx-4bit-mixed');
    hub.clearLog();
    const page = await openPage(browser, embedUrl);
    await waitReady(page, '#gguf');
    await waitReady(page, '#safetensors'); // both views done: request logs are ours alone
    await page.evaluate((u) => document.querySelector('#gguf').setAttribute('src', u), `${hub.endpoint}/weightpeek/mlx-4bit/resolve/main/model.safetensors`);
    await page.waitForFunction(() => document.querySelector('#gguf').dataset.state === 'loading');
    await waitReady(page, '#gguf');
    const v = page.locator('#gguf');
    assert.ok((await v.locator('[data-testid=quant-layout]').getAttribute('data-value')).startsWith(want.layout), 'layout');
    assert.equal(Number(await v.locator('[data-testid=parameter-count]').getAttribute('data-value')), want.logical_parameters);
    assert.ok(Math.abs(Number(await v.locator('[data-testid=bits-per-weight]').getAttribute('data-value')) - want.bits_per_weight) < 1e-9);
    assert.equal(hub.log.filter((e) => e.path.endsWith('/config.json')).length, 1, 'config.json read once');
    const q = await page.evaluate(async (u) => (await (await import('./weightpeek.js')).inspect(u)).quantization, `${hub.endpoint}/weightpeek/mlx-4bit/resolve/main/model.safetensors`);
    assert.ok(q.layout.startsWith(want.layout), q.layout);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  // The tensor table says which side hides columns: a fade on the right at 390 px, then on
  // both sides and on the left as it scrolls; none at 2560 px, where it fits.
  async function sidesMarked(v, width) {
    const marks = await v.evaluate(async (host) => {
      const frame = host.shadowRoot.querySelector('.tensors .table-frame');
      const scroller = frame.querySelector('.tensor-scroll');
      const seen = [frame.dataset.more ?? null];
      const fade = host.shadowRoot.querySelector('.more-fade.right');
      seen.push(getComputedStyle(fade).display);
      if (scroller.scrollWidth <= scroller.clientWidth + 1) return seen;
      // A scroll that does not move fires no event: the wait ends after 2 s anyway.
      const scrolled = () => new Promise((r) => {
        scroller.addEventListener('scroll', r, { once: true });
        setTimeout(r, 2000);
      });
      for (const left of [100, scroller.scrollWidth]) {
        scroller.scrollLeft = left;
        await scrolled();
        seen.push(frame.dataset.more ?? null);
      }
      scroller.scrollLeft = 0;
      await scrolled();
      return seen;
    });
    const want = width < 1000 ? ['right', 'block', 'both', 'left'] : [null, 'none'];
    assert.deepEqual(marks, want, `${width} px: ${marks}`);
  }

  it('every tab, light and dark, 390 and 2560 px wide (screenshots)', { timeout: 600_000 }, async () => {
    for (const width of [390, 2560]) {
      for (const colorScheme of ['light', 'dark']) {
        const page = await openPage(browser, embedUrl, { width, height: 900, colorScheme });
        if (width > 1000) await page.addStyleTag({ content: 'article { max-width: none !important; }' });
        await waitReady(page, '#gguf');
        // (In the Preview tab: a preview in a hidden tab reads nothing until it is shown.)
        await page.evaluate(() => { const e = document.querySelector('#gguf'); e.setAttribute('tab', 'preview'); e.setAttribute('tensor', 'blk.0.attn_q.weight'); });
        await page.locator('#gguf [data-testid=preview][data-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
        const v = page.locator('#gguf');
        for (const tab of ['summary', 'metadata', 'tensors', 'histogram', 'preview', 'checks', 'tokenizer', 'memory', 'fit']) {
          await page.evaluate((t) => document.querySelector('#gguf').setAttribute('tab', t), tab);
          // Every tab is on screen (narrow views wrap the tab bar).
          const clipped = await v.evaluate((host) => {
            const bar = host.shadowRoot.querySelector('[role=tablist]').getBoundingClientRect();
            return [...host.shadowRoot.querySelectorAll('[role=tab]')].filter((t) => {
              const r = t.getBoundingClientRect();
              return r.left < bar.left - 0.5 || r.right > bar.right + 0.5;
            }).map((t) => t.dataset.tab);
          });
          assert.deepEqual(clipped, [], `tabs off the edge at ${width} px`);
          // Nothing of the view is wider than the page (no horizontal scrolling at 390 px).
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${tab} at ${width} px ${colorScheme}: page scrolls sideways by ${overflow} px`);
          await shoot(v, `widget-${tab}-${colorScheme}-${width}`);
          if (tab === 'tensors') await sidesMarked(v, width);
        }
        assert.deepEqual(page.__wpErrors, []);
        await page.context().close();
      }
    }
  });
});
