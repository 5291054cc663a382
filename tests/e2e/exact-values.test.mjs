// End-to-end (issue #11): the page previews every safetensors dtype and every plain GGUF type
// (both byte orders) with the stored type's exact values: the first values and the last row,
// the exact min and max, the counts and the histogram equal what tests/reference/
// exact_values.py computed with numpy and ml_dtypes (target/exact-fixtures/expected.json).
// Integers are compared as BigInt (JavaScript numbers stop at 2^53), floats with Object.is
// (so -0 and NaN count). No expected number is written here.
//
// UI contract: [data-testid=preview-values] tr[data-index][data-value] (the exact value as
// text: Number() gives the double, BigInt() every digit of an integer, "re,im" for complex,
// 0/1 for a boolean); [data-testid=preview-stats] [data-stat][data-value];
// [data-testid=preview-empty] for a tensor with a zero dimension.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, dropFile, waitForSettled, readCounters, resetCounters,
  requireFile, repoRoot, screenshotDir, sameValue, tensorRow,
} from './helpers.mjs';

const dir = path.join(repoRoot, 'target', 'exact-fixtures');

async function waitPreview(page, name, firstIndex) {
  await page.waitForFunction(
    ([name, first]) => {
      const p = document.querySelector('[data-testid=preview]');
      if (!p || p.dataset.tensor !== name || !['ready', 'error'].includes(p.dataset.state)) return false;
      if (first === null || p.dataset.state === 'error') return true;
      return document.querySelector('[data-testid=preview-values] tr[data-index]')?.dataset.index === first;
    },
    [name, firstIndex],
    { timeout: 30_000 },
  );
  const state = await page.getAttribute('[data-testid=preview]', 'data-state');
  if (state !== 'ready') assert.fail(`preview of ${name} failed: ${await page.textContent('[data-testid=preview-error]')}`);
}

async function checkWindow(page, label, kind, w) {
  const values = await page.$$eval('[data-testid=preview-values] tr[data-index]', (els) => els.map((e) => e.dataset.value));
  assert.equal(values.length, w.first.length, `${label}: first values`);
  values.forEach((raw, k) => assert.ok(sameValue(kind, raw, w.first[k]), `${label}: value ${k} shown ${raw}, numpy ${w.first[k]}`));
  const stats = await page.$$eval('[data-testid=preview-stats] [data-stat]', (els) => Object.fromEntries(els.map((e) => [e.dataset.stat, e.dataset.value])));
  const s = w.stats;
  for (const k of ['count', 'zeros', 'nan', 'pos_inf', 'neg_inf']) assert.equal(Number(stats[k]), s[k], `${label}: ${k}`);
  for (const k of ['min', 'max']) assert.ok(sameValue(kind === 'complex' ? 'float' : kind, stats[k], s[k]), `${label}: ${k} shown ${stats[k]}, numpy ${s[k]}`);
  for (const k of ['mean', 'std', 'mean_abs']) {
    const got = Number(stats[k]);
    assert.ok(Math.abs(got - s[k]) <= 1e-12 * Math.max(Math.abs(s[k]), 1e-300) || got === s[k], `${label}: ${k} ${got} vs ${s[k]}`);
  }
  const counts = await page.$$eval('[data-testid=preview-histogram] rect[data-count]', (els) => els.map((e) => Number(e.dataset.count)));
  assert.deepEqual(counts, s.histogram, `${label}: histogram`);
  assert.equal(Number(await page.getAttribute('[data-testid=preview-bytes-read]', 'data-value')), w.read_len, `${label}: bytes read`);
}

describe('exact values of every dtype in the page', { timeout: 10 * 60_000 }, () => {
  let browser; let server; let page; let doc;
  before(async () => {
    requireFile(path.join(dir, 'expected.json'), 'run tests/reference/exact_values.py; scripts/test.sh does');
    doc = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    browser = await launchBrowser();
    server = await startAppServer();
    page = await openApp(browser, server, { width: 1280, height: 1000 });
  });
  after(async () => { await browser?.close(); await server?.close(); });

  for (const key of ['st', 'gguf', 'gguf_be']) {
    it(`${key}: every tensor's first values, last row, min/max and histogram are numpy's`, async () => {
      await dropFile(page, path.join(dir, doc.files[key]));
      assert.equal(await waitForSettled(page), 'ready');
      const shots = new Set(['u64', 'c64', 'f64', 'i64', 'empty_rows', 'bool']);
      let checked = 0;
      for (const t of doc.tensors.filter((t) => t.file === key)) {
        const label = `${key} ${t.tensor}`;
        const [w0, last] = t.windows;
        await resetCounters(page);
        await page.click(await tensorRow(page, t.tensor));
        await waitPreview(page, t.tensor, null);
        if (w0.stats.count === 0) {
          const empty = await page.textContent('[data-testid=preview-empty]');
          assert.match(empty, /^0 values/, `${label}: ${empty}`);
          assert.equal((await readCounters(page)).slicedBytes, 0, `${label}: nothing read`);
        } else {
          const cols = w0.cols[1];
          await waitPreview(page, t.tensor, String(w0.rows[0] * cols));
          await checkWindow(page, label, t.kind, w0);
          assert.equal((await readCounters(page)).slicedBytes, w0.read_len, `${label}: bytes sliced`);
        }
        if (key !== 'gguf_be' && shots.has(t.tensor)) {
          await page.locator('[data-testid=preview]').screenshot({ path: `${screenshotDir}/exact-${key}-${t.tensor}.png` });
        }
        if (last) {
          await page.fill('[data-testid=preview-rows]', `${last.rows[0]}..${last.rows[1]}`);
          await page.click('[data-testid=preview-apply]');
          await waitPreview(page, t.tensor, String(last.rows[0] * last.cols[1]));
          await checkWindow(page, `${label} last row`, t.kind, last);
        }
        checked += 1;
      }
      assert.ok(checked >= 9, `${checked} tensors`);
      assert.deepEqual(page.__wpErrors, []);
    });
  }
});
