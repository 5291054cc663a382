// End-to-end: tensor previews in the built app (dist/) in headless chromium, against the
// reference previews written by tests/reference/preview_reference.py (target/reference/
// preview.json: gguf-py GGUFReader + quants.dequantize, safetensors + numpy, float64 stats).
// No expected number is written here.
//
// UI contract:
//   tensor rows: tr[data-file-index] (click or Enter opens the preview)
//   [data-testid=preview]  data-state loading|ready|error, data-tensor, data-render-ms
//   [data-testid=preview-stats] [data-stat=min|max|mean|std|mean_abs|zeros|nan|pos_inf|neg_inf|count][data-value]
//   [data-testid=preview-histogram] rect[data-count]
//   [data-testid=preview-heatmap]   the canvas
//   [data-testid=preview-values]    tr[data-bits] (f32 bit patterns of the first values)
//   [data-testid=preview-bytes-read][data-value]
//   [data-testid=preview-rows|preview-cols|preview-apply]  the window control
//   [data-testid=preview-error]

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  showTab,
  readCounters,
  resetCounters,
  screenshot,
  screenshotDir,
  loadReference,
  files,
} from './helpers.mjs';

const preview = loadReference('preview');
const gemmaRef = loadReference('gemma-3-270m-q4_k_m');
const minilmRef = loadReference('all-MiniLM-L6-v2');

/** A tensor's [columns, rows] (ggml order) as the reference reader gives them. */
function colsRows(ref, name) {
  const t = ref.tensors.find((t) => t.name === name);
  assert.ok(t, `${name} in the reference`);
  return t.shape;
}

function refCase(tensor, { rows = null, cols = null } = {}) {
  const c = preview.cases.find(
    (c) => c.tensor === tensor && JSON.stringify(c.request.rows) === JSON.stringify(rows) && JSON.stringify(c.request.cols) === JSON.stringify(cols),
  );
  assert.ok(c, `reference case for ${tensor}`);
  return c;
}

/** Shows `name` in the tensor table (filter box) and returns its row's selector. */
async function findRow(page, ref, name) {
  assert.ok(ref.tensors.some((t) => t.name === name), `${name} in the reference`);
  await showTab(page, 'tensors');
  await page.fill('.tensors input.filter', name);
  const handle = await page.waitForFunction(
    (name) => [...document.querySelectorAll('tr[data-file-index]')].find((tr) => tr.querySelector('td.col-name')?.textContent === name)?.dataset.fileIndex,
    name,
    { timeout: 10_000 },
  );
  return `tr[data-file-index="${await handle.jsonValue()}"]`;
}

/** A screenshot of the preview card alone (easier to look at than the whole page). */
async function shootPreview(page, name) {
  await page.locator('[data-testid=preview]').screenshot({ path: `${screenshotDir}/${name}.png` });
}

async function waitPreview(page, name) {
  await page.waitForFunction(
    (name) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === name && ['ready', 'error'].includes(p.dataset.state);
    },
    name,
    { timeout: 60_000 },
  );
  const state = await page.getAttribute('[data-testid=preview]', 'data-state');
  if (state !== 'ready') {
    const err = await page.textContent('[data-testid=preview-error]');
    assert.fail(`preview of ${name} failed: ${err}`);
  }
}

/** Stats shown by the page: {key: raw string}. */
async function shownStats(page) {
  return page.$$eval('[data-testid=preview-stats] [data-stat]', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.stat, e.dataset.value])),
  );
}

function checkStats(label, shown, ref) {
  const s = ref.stats;
  for (const k of ['count', 'zeros', 'nan', 'pos_inf', 'neg_inf']) {
    assert.equal(Number(shown[k]), s[k], `${label}: ${k}`);
  }
  // min / max are f32 values: equal after rounding to f32 (the JSON text is f64).
  assert.equal(Math.fround(Number(shown.min)), Math.fround(s.min), `${label}: min`);
  assert.equal(Math.fround(Number(shown.max)), Math.fround(s.max), `${label}: max`);
  // mean / std / mean |x| are f64 sums; numpy sums pairwise, the page in window order.
  for (const k of ['mean', 'std', 'mean_abs']) {
    const got = Number(shown[k]);
    const tol = 1e-9 * Math.max(Math.abs(s[k]), s.mean_abs);
    assert.ok(Math.abs(got - s[k]) <= tol, `${label}: ${k} ${got} vs reference ${s[k]}`);
  }
}

async function checkPreview(page, label, ref) {
  checkStats(label, await shownStats(page), ref);
  const counts = await page.$$eval('[data-testid=preview-histogram] rect[data-count]', (els) => els.map((e) => Number(e.dataset.count)));
  assert.deepEqual(counts, ref.stats.histogram.counts, `${label}: histogram`);
  const bits = await page.$$eval('[data-testid=preview-values] tr[data-bits]', (els) => els.map((e) => Number(e.dataset.bits)));
  assert.deepEqual(bits, ref.first_bits, `${label}: first values (bit patterns)`);
  const bytes = Number(await page.getAttribute('[data-testid=preview-bytes-read]', 'data-value'));
  assert.equal(bytes, ref.read_len, `${label}: bytes read shown`);
  const c = await readCounters(page);
  // Blob.slice handed out exactly the window's bytes, in one slice.
  assert.equal(c.slicedBytes, ref.read_len, `${label}: bytes sliced from the file`);
  assert.equal(c.sliceCalls, 1, `${label}: slices`);
  const cells = await page.getAttribute('[data-testid=preview-heatmap]', 'data-cells');
  const [h, w] = cells.split('x').map(Number);
  assert.ok(h >= 1 && h <= 512 && w >= 1 && w <= 512, `${label}: heatmap ${cells}`);
  return { bytes, renderMs: Number(await page.getAttribute('[data-testid=preview]', 'data-render-ms')) };
}

describe('tensor previews', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;
  let page;
  const timings = [];

  before(async () => {
    server = await startAppServer();
    browser = await launchBrowser();
    page = await openApp(browser, server, { width: 1280, height: 1000 });
    await dropFile(page, files.gemma);
    assert.equal(await waitForSettled(page), 'ready');
    // Long tasks (> 50 ms) on the main thread, to show decoding never freezes the page.
    await page.evaluate(() => {
      window.__wpLongTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__wpLongTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: false });
    });
  });

  after(async () => {
    if (timings.length) console.log(`preview timings: ${JSON.stringify(timings)}`);
    await browser?.close();
    await server?.close();
  });

  for (const [name, type, shot] of [
    ['blk.0.attn_output.weight', 'Q4_K', 'preview-gemma-q4_k'],
    ['blk.0.ffn_down.weight', 'Q6_K', 'preview-gemma-q6_k'],
    ['output_norm.weight', 'F32', 'preview-gemma-f32'],
    ['token_embd.weight', 'Q8_0', 'preview-gemma-q8_0-embeddings'],
  ]) {
    it(`Gemma ${type} ${name}: statistics, histogram, first values and bytes read match the reference`, async () => {
      const ref = refCase(name);
      assert.equal(ref.dtype, type);
      const row = await findRow(page, gemmaRef, name);
      await resetCounters(page);
      await page.evaluate(() => { window.__wpLongTasks = []; });
      await page.click(row);
      await waitPreview(page, name);
      const t = await checkPreview(page, name, ref);
      const longTasks = await page.evaluate(() => window.__wpLongTasks);
      timings.push({ name, type, values: ref.stats.count, bytes: t.bytes, renderMs: t.renderMs, longTasksMs: longTasks.map(Math.round) });
      // Render time and long tasks are reported (timings above), not asserted: speed is
      // measured by benchmarks, and a loaded CI machine would fail a timed test.
      await shootPreview(page, shot);
    });
  }

  it('Enter on a focused tensor row opens its preview', async () => {
    const name = 'blk.3.attn_output.weight';
    const row = await findRow(page, gemmaRef, name);
    await page.focus(row);
    await page.keyboard.press('Enter');
    await waitPreview(page, name);
  });

  it('a crop reads only the rows it shows, from its first block to its last', async () => {
    const name = 'token_embd.weight';
    const ref = refCase(name, { rows: [1000, 1100], cols: [100, 300] });
    const row = await findRow(page, gemmaRef, name);
    await page.click(row);
    await waitPreview(page, name);
    await page.fill('[data-testid=preview-rows]', '1000..1100');
    await page.fill('[data-testid=preview-cols]', '100..300');
    await resetCounters(page);
    await page.click('[data-testid=preview-apply]');
    const [width] = colsRows(gemmaRef, name);
    await page.waitForFunction((first) => document.querySelector('[data-testid=preview-values] tr[data-index]')?.dataset.index === first, String(1000 * width + 100), { timeout: 30_000 });
    await waitPreview(page, name);
    await checkPreview(page, `${name} crop`, ref);
    await page.click('[data-testid=preview-scales-toggle]');
    await shootPreview(page, 'preview-gemma-q8_0-crop-scales');
  });

  it('a bad window says why and the page stays usable', async () => {
    await page.fill('[data-testid=preview-rows]', '9..3');
    await page.click('[data-testid=preview-apply]');
    const err = page.locator('[data-testid=preview-error]');
    await err.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await err.textContent(), /empty/);
    const [, rows] = colsRows(gemmaRef, 'token_embd.weight');
    assert.ok(rows < 300000, 'the window below ends past the last row');
    await page.fill('[data-testid=preview-rows]', '0..300000');
    await page.click('[data-testid=preview-apply]');
    await page.waitForFunction(() => document.querySelector('[data-testid=preview]')?.dataset.state === 'error', null, { timeout: 10_000 });
    assert.match(await page.textContent('[data-testid=preview-error]'), new RegExp(`${rows} rows`));
    await screenshot(page, 'preview-error');
    // Still usable: another tensor opens.
    const name = 'output_norm.weight';
    await page.click(await findRow(page, gemmaRef, name));
    await waitPreview(page, name);
    assert.deepEqual(page.__wpErrors, []);
  });

  it('MiniLM safetensors F32 tensor', async () => {
    await dropFile(page, files.minilm);
    assert.equal(await waitForSettled(page), 'ready');
    const name = 'encoder.layer.0.attention.self.query.weight';
    const ref = refCase(name);
    const row = await findRow(page, minilmRef, name);
    await resetCounters(page);
    await page.click(row);
    await waitPreview(page, name);
    await checkPreview(page, name, ref);
    await shootPreview(page, 'preview-minilm-f32');
    assert.deepEqual(page.__wpErrors, []);
  });
});
