// End-to-end (issue #12): PyTorch checkpoints, NumPy arrays and ONNX models in the page, read
// without running anything. NumPy and ONNX: a few files of their reference scripts, listed and
// previewed with numpy's / the onnx package's values. PyTorch: each file
// tests/reference/torch_fixtures.py wrote or checked (zip state dicts and checkpoints, a
// re-zipped archive, ZIP64, the legacy format, malicious pickles, the real lpips legacy .pth and
// silero-vad TorchScript archive; target/torch-fixtures/expected.json) is dropped on the page:
// the Download JSON lists the reference reader's tensors (names, dtypes, shapes, bytes), the
// summary's pickle verdict is "dangerous" exactly for the malicious files, and previews of
// tensors in every format show the reference's first values. No expected value is written here.
//
// UI contract: [data-testid=pickle-verdict][data-value=safe|unknown|dangerous] in the summary;
// the preview contract of preview.test.mjs.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, dropFile, waitForSettled, readCounters, resetCounters,
  requireFile, repoRoot, screenshotDir, kindOf, sameValue, tensorRow,
} from './helpers.mjs';

const dir = path.join(repoRoot, 'target', 'torch-fixtures');

async function downloadJson(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-json]')]);
  return JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
}

async function previewValues(page, name) {
  await page.click(await tensorRow(page, name));
  await page.waitForFunction(
    (name) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === name && ['ready', 'error'].includes(p.dataset.state);
    },
    name,
    { timeout: 30_000 },
  );
  const state = await page.getAttribute('[data-testid=preview]', 'data-state');
  if (state !== 'ready') assert.fail(`preview of ${name}: ${await page.textContent('[data-testid=preview-error]')}`);
  return page.$$eval('[data-testid=preview-values] tr[data-index]', (els) => els.map((e) => e.dataset.value));
}

/** NumPy and ONNX files in the page: the listing and previews of their reference's tensors
 * (tests/reference/numpy_fixtures.py: numpy; tests/reference/onnx_fixtures.py: the onnx
 * package), a few tensors of each file. */
describe('NumPy and ONNX files in the page', { timeout: 10 * 60_000 }, () => {
  let browser; let server;
  before(async () => {
    browser = await launchBrowser();
    server = await startAppServer();
  });
  after(async () => { await browser?.close(); await server?.close(); });

  for (const [key, folder, files] of [
    ['numpy', 'numpy-fixtures', ['f32.npy', 'i64.npy', 'fortran.npy', 'c64.npy', 'weights.npz', 'compressed.npz']],
    ['onnx', 'onnx-fixtures', ['dtypes.onnx', 'subgraphs.onnx', 'silero_vad.onnx']],
  ]) {
    it(`${key}: names, dtypes, shapes and previewed values are the reference's`, async () => {
      const base = path.join(repoRoot, 'target', folder);
      requireFile(path.join(base, 'expected.json'), `run the ${key} reference script; scripts/test.sh does`);
      const ref = JSON.parse(fs.readFileSync(path.join(base, 'expected.json'), 'utf8'));
      const page = await openApp(browser, server, { width: 1280, height: 1000 });
      let previewed = 0;
      for (const file of files) {
        const f = ref.files[file];
        assert.ok(f, `${file} in the reference`);
        await dropFile(page, f.path ?? path.join(base, file));
        assert.equal(await waitForSettled(page), 'ready', file);
        const j = await downloadJson(page);
        assert.deepEqual(j.tensors.map((t) => t.name), f.tensors.map((t) => t.name), `${file}: names`);
        assert.deepEqual(j.tensors.map((t) => t.shape), f.tensors.map((t) => t.shape.map(Number)), `${file}: shapes`);
        const wanted = f.tensors.filter((t) => t.first && String(t.previewable) !== 'false' && String(t.previewable) !== 'False').slice(0, 3);
        for (const t of wanted) {
          const shown = await previewValues(page, t.name);
          const kind = kindOf(t.dtype);
          assert.equal(shown.length, t.first.length, `${file} ${t.name}: first values`);
          shown.forEach((raw, k) => assert.ok(sameValue(kind, raw, t.first[k]), `${file} ${t.name}: value ${k} shown ${raw}, reference ${t.first[k]}`));
          previewed += 1;
        }
      }
      assert.ok(previewed >= files.length, `${previewed} previews`);
      await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/${key}-summary.png` });
      assert.deepEqual(page.__wpErrors, []);
      await page.context().close();
    });
  }
});

describe('PyTorch checkpoints in the page', { timeout: 10 * 60_000 }, () => {
  let browser; let server; let doc;
  before(async () => {
    requireFile(path.join(dir, 'expected.json'), 'run tests/reference/torch_fixtures.py; scripts/test.sh does');
    doc = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    browser = await launchBrowser();
    server = await startAppServer();
  });
  after(async () => { await browser?.close(); await server?.close(); });

  it('every file lists the reference tensors, with the right pickle verdict', async () => {
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    let previewed = 0;
    for (const [file, f] of Object.entries(doc.files)) {
      if (file === 'big.pt') continue; // the remote tests' 500 MB file
      await resetCounters(page);
      await dropFile(page, f.path);
      assert.equal(await waitForSettled(page), 'ready', file);
      const j = await downloadJson(page);
      assert.equal(j.format, f.format, file);
      assert.deepEqual(j.tensors.map((t) => t.name), f.tensors.map((t) => t.name), `${file}: names`);
      assert.deepEqual(j.tensors.map((t) => t.dtype), f.tensors.map((t) => t.dtype), `${file}: dtypes`);
      assert.deepEqual(j.tensors.map((t) => t.shape), f.tensors.map((t) => t.shape), `${file}: shapes`);
      assert.deepEqual(j.tensors.map((t) => t.bytes), f.tensors.map((t) => t.bytes), `${file}: bytes`);
      const verdict = await page.getAttribute('[data-testid=pickle-verdict]', 'data-value');
      if (file.startsWith('malicious-')) assert.equal(verdict, 'dangerous', file);
      else if (file.startsWith('silero')) assert.equal(verdict, 'unknown', `${file}: TorchScript classes are not known imports`);
      else assert.equal(verdict, 'safe', file);
      const size = fs.statSync(f.path).size;
      const c = await readCounters(page);
      assert.ok(c.slicedBytes <= Math.max(512 * 1024, size / 2) || c.slicedBytes <= size, `${file}: sliced ${c.slicedBytes} of ${size}`);
      if (['state-dict.pt', 'rezipped.pt', 'legacy.pth', 'silero_vad.jit', 'zip64.pt'].includes(file)) {
        for (const t of f.tensors.filter((t) => t.first).slice(0, 4)) {
          const shown = await previewValues(page, t.name);
          assert.equal(shown.length, t.first.length, `${file} ${t.name}: first values`);
          const kind = kindOf(t.dtype);
          shown.forEach((raw, k) => assert.ok(sameValue(kind, raw, t.first[k]), `${file} ${t.name}: value ${k} shown ${raw}, reference ${t.first[k]}`));
          previewed += 1;
        }
      }
      if (['malicious-os-system.pt', 'silero_vad.jit', 'state-dict.pt'].includes(file)) {
        await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/torch-${file.replace(/\W+/g, '-')}-summary.png` });
        await page.locator('[data-testid=checks]').screenshot({ path: `${screenshotDir}/torch-${file.replace(/\W+/g, '-')}-checks.png` });
      }
    }
    assert.ok(previewed >= 12, `${previewed} previews`);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });
});
