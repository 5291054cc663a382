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
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, dropFile, dropFiles, waitForSettled, readCounters, resetCounters,
  requireFile, repoRoot, screenshotDir, kindOf, sameValue, tensorRow, screenshot, showTab
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const dir = path.join(repoRoot, 'target', 'torch-fixtures');

async function downloadJson(page) {
  await showTab(page, 'summary');
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
      await showTab(page, 'summary');
      await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/${key}-summary.png` });
      assert.deepEqual(page.__wpErrors, []);
      await page.context().close();
    });
  }

  it("numpy: a structured array previews one field at a time, each numpy's arr['x']", async () => {
    const base = path.join(repoRoot, 'target', 'numpy-fixtures');
    const ref = JSON.parse(fs.readFileSync(path.join(base, 'expected.json'), 'utf8'));
    const t = ref.files['compressed.npz'].tensors.find((x) => x.name === 'records');
    assert.ok(t?.field_values?.length, 'records in the reference, with its fields');
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    await dropFile(page, path.join(base, 'compressed.npz'));
    assert.equal(await waitForSettled(page), 'ready');
    const shownField = async (field) => {
      await page.waitForFunction(
        (field) => {
          const p = document.querySelector('[data-testid=preview]');
          return p && p.dataset.tensor === 'records' && p.dataset.field === field && ['ready', 'error'].includes(p.dataset.state);
        },
        field,
        { timeout: 30_000 },
      );
      const state = await page.getAttribute('[data-testid=preview]', 'data-state');
      if (state !== 'ready') assert.fail(`records['${field}']: ${await page.textContent('[data-testid=preview-error]')}`);
      return page.$$eval('[data-testid=preview-values] tr[data-index]', (els) => els.map((e) => e.dataset.value));
    };
    // Opening the array shows its first decodable field; the menu lists every field, the text
    // one disabled.
    await page.click(await tensorRow(page, 'records'));
    const first = t.field_values.find((f) => f.previewable);
    let shown = await shownField(first.field);
    const options = await page.$$eval('[data-testid=preview-field] option', (os) => os.map((o) => ({ value: o.value, disabled: o.disabled })));
    assert.deepEqual(options.map((o) => o.value), t.field_values.map((f) => f.field));
    assert.deepEqual(options.filter((o) => o.disabled).map((o) => o.value), t.field_values.filter((f) => !f.previewable).map((f) => f.field));
    let checked = 0;
    for (const f of t.field_values.filter((x) => x.previewable)) {
      if (f !== first) {
        await page.selectOption('[data-testid=preview-field]', f.field);
        shown = await shownField(f.field);
      }
      const kind = kindOf(f.dtype);
      assert.equal(shown.length, Math.min(f.first.length, 64), `${f.field}: first values`);
      shown.forEach((raw, k) => assert.ok(sameValue(kind, raw, f.first[k]), `records['${f.field}'] value ${k}: shown ${raw}, numpy ${f.first[k]}`));
      assert.equal(await page.textContent('.preview-title'), `records['${f.field}']`);
      checked += 1;
    }
    assert.equal(checked, t.field_values.filter((x) => x.previewable).length);
    // A window typed for the field shown keeps that field: its last row is numpy's.
    const last = t.field_values.filter((x) => x.previewable).at(-1);
    const rows = last.shape.slice(0, -1).reduce((a, b) => a * b, 1);
    await page.fill('[data-testid=preview-rows]', `${rows - 1}..${rows}`);
    await page.click('[data-testid=preview-apply]');
    await page.waitForFunction((r) => document.querySelector('.preview-window-line')?.textContent.startsWith(`rows ${r - 1}..${r}`), rows, { timeout: 30_000 });
    shown = await shownField(last.field);
    shown.forEach((raw, k) => assert.ok(sameValue(kindOf(last.dtype), raw, last.last_row[k]), `records['${last.field}'] last row value ${k}: shown ${raw}, numpy ${last.last_row[k]}`));
    assert.equal(shown.length, last.last_row.length);
    await page.locator('[data-testid=preview]').screenshot({ path: `${screenshotDir}/numpy-structured-field.png` });
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });
});

/** A preview that must fail: its error text. */
async function previewError(page, name) {
  await page.click(await tensorRow(page, name));
  await page.waitForFunction(
    (name) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === name && ['ready', 'error'].includes(p.dataset.state);
    },
    name,
    { timeout: 30_000 },
  );
  assert.equal(await page.getAttribute('[data-testid=preview]', 'data-state'), 'error', `${name} previewed`);
  return (await page.textContent('[data-testid=preview-error]')).trim();
}

/** ONNX external data (tests/reference/onnx_fixtures.py: the onnx package's
 * load_external_data_for_tensor): the side file dropped with the model, or beside a pasted
 * URL, is read only for a preview, exactly its window; alone, a preview names the file to add. */
describe('ONNX external data in the page', { timeout: 10 * 60_000 }, () => {
  const base = path.join(repoRoot, 'target', 'onnx-fixtures');
  let browser; let server; let ref;
  before(async () => {
    requireFile(path.join(base, 'expected.json'), 'run the onnx reference script; scripts/test.sh does');
    ref = JSON.parse(fs.readFileSync(path.join(base, 'expected.json'), 'utf8'));
    browser = await launchBrowser();
    server = await startAppServer({ mounts: { '/onnx/': base } });
  });
  after(async () => { await browser?.close(); await server?.close(); });

  const external = (file) => ref.files[file].tensors.filter((t) => t.external && t.side_first);

  async function sideValues(page, file, t, readSide) {
    await resetCounters(page);
    const shown = await previewValues(page, t.name);
    const kind = kindOf(t.dtype);
    assert.equal(shown.length, t.side_first.length, `${file} ${t.name}: first values`);
    shown.forEach((raw, k) => assert.ok(sameValue(kind, raw, t.side_first[k]), `${file} ${t.name}: value ${k} shown ${raw}, reference ${t.side_first[k]}`));
    const window = Number(await page.getAttribute('[data-testid=preview-bytes-read]', 'data-value'));
    assert.equal(await readSide(), window, `${file} ${t.name}: bytes read for the preview`);
  }

  it('dropped together (either order), previews read only their window of the side file', async () => {
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    let previewed = 0;
    for (const file of ['external.onnx', 'external-sub.onnx']) {
      const sides = [...new Set(external(file).map((t) => path.join(base, t.external.location)))];
      const onnxSize = fs.statSync(path.join(base, file)).size;
      for (const list of [[path.join(base, file), ...sides], [...sides, path.join(base, file)]]) {
        await dropFiles(page, list);
        assert.equal(await waitForSettled(page), 'ready', file);
        const listed = await readCounters(page);
        assert.ok(listed.slicedBytes <= onnxSize, `${file}: listing sliced ${listed.slicedBytes} bytes (the model has ${onnxSize})`);
        for (const t of external(file)) {
          await sideValues(page, file, t, async () => (await readCounters(page)).slicedBytes);
          previewed += 1;
        }
      }
      await showTab(page, 'summary');
      await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/onnx-external-${file.replace(/\W+/g, '-')}-summary.png` });
    }
    assert.ok(previewed >= 8, `${previewed} previews`);
    // The model alone: listed, and a preview names the side file to add.
    await dropFile(page, path.join(base, 'external.onnx'));
    assert.equal(await waitForSettled(page), 'ready');
    const t = external('external.onnx')[0];
    const e = await previewError(page, t.name);
    assert.match(e, new RegExp(t.external.location.replace(/\./g, '\\.')), e);
    assert.match(e, /drop both files together/, e);
    await page.locator('[data-testid=preview]').screenshot({ path: `${screenshotDir}/onnx-external-missing.png` });
    // A tensor past its side file's end: refused, an error in the checks.
    await dropFiles(page, [path.join(base, 'external-outside.onnx'), path.join(base, 'external-outside.onnx.data')]);
    assert.equal(await waitForSettled(page), 'ready');
    const sideSize = fs.statSync(path.join(base, 'external-outside.onnx.data')).size;
    assert.match(await previewError(page, 'outside'), new RegExp(`outside the ${sideSize}-byte side file`));
    assert.match(await page.textContent('[data-testid=checks]'), /onnx-external-beyond-eof|lies outside/);
    await showTab(page, 'checks');
    await page.locator('[data-testid=checks]').screenshot({ path: `${screenshotDir}/onnx-external-checks.png` });
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });

  it('a pasted URL reads its sibling side file only for a preview, one request of the window', async () => {
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    for (const file of ['external.onnx', 'external-sub.onnx']) {
      const start = server.requests.length;
      await resetCounters(page);
      await page.fill('[data-testid=url-input]', `${server.url}onnx/${file}`);
      await page.click('[data-testid=url-open]');
      assert.equal(await waitForSettled(page), 'ready', file);
      const side = (from) => server.requests.slice(from).filter((r) => r.path.startsWith('/onnx/') && !r.path.endsWith('.onnx'));
      assert.deepEqual(side(start), [], `${file}: the listing asked nothing of the side file`);
      for (const t of external(file)) {
        const from = server.requests.length;
        await sideValues(page, file, t, async () => {
          const got = side(from);
          assert.equal(got.length, 1, `${file} ${t.name}: ${JSON.stringify(got)}`);
          assert.ok(got[0].path.endsWith(t.external.location.replace(/^\.\//, '')), got[0].path);
          return got[0].bytes;
        });
      }
    }
    await page.locator('[data-testid=preview]').screenshot({ path: `${screenshotDir}/onnx-external-remote-preview.png` });
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });
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
      // The verdict is styled by its severity (src/view decides it, www/style.css draws it):
      // danger in red on a red tint, caution in amber, safe as any figure; text at AA contrast.
      const look = await verdictLook(page);
      const severity = { dangerous: 'danger', unknown: 'caution', safe: 'safe' }[verdict];
      assert.equal(look.severity, severity, `${file}: data-severity`);
      assert.ok(look.contrast >= 4.5, `${file}: verdict contrast ${look.contrast}`);
      if (severity === 'danger') assert.ok(look.red > look.green + 80 && look.bg !== 'rgba(0, 0, 0, 0)', `${file}: danger looks like danger: ${JSON.stringify(look)}`);
      if (severity === 'safe') assert.ok(look.bg === 'rgba(0, 0, 0, 0)' && !(look.red > look.green + 80), `${file}: safe as before: ${JSON.stringify(look)}`);
      // One name for the format: the line under the file name starts with the format figure.
      const sub = await page.locator('[data-testid=summary] .file-sub').textContent();
      const fmt = await page.locator('[data-testid=summary] .fact dd.fact-value').first().textContent();
      assert.ok(sub === fmt || sub.startsWith(`${fmt} · `), `${file}: subtitle ${sub} vs format ${fmt}`);
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
        await showTab(page, 'summary');
        await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/torch-${file.replace(/\W+/g, '-')}-summary.png` });
        await showTab(page, 'checks');
        await page.locator('[data-testid=checks]').screenshot({ path: `${screenshotDir}/torch-${file.replace(/\W+/g, '-')}-checks.png` });
      }
    }
    assert.ok(previewed >= 12, `${previewed} previews`);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });
});

/** The pickle verdict figure's severity, text colour (its red and green) and background, and
 * the contrast of its text on the card (WCAG relative luminance). */
async function verdictLook(page) {
  return page.evaluate(() => {
    const dd = document.querySelector('[data-testid=pickle-verdict]');
    const item = dd.closest('.fact');
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const fg = rgb(getComputedStyle(dd).color);
    const own = getComputedStyle(item).backgroundColor;
    let bg = own;
    for (let el = item; el && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); el = el.parentElement) bg = getComputedStyle(el).backgroundColor;
    if (/rgba\(0, 0, 0, 0\)|transparent/.test(bg)) bg = 'rgb(255, 255, 255)';
    const [a, b] = [lum(fg), lum(rgb(bg))].sort((x, y) => y - x);
    return { severity: item.dataset.severity, red: fg[0], green: fg[1], bg: own, contrast: (a + 0.05) / (b + 0.05) };
  });
}

/** A PyTorch repository over the mock Hub (tests/e2e/mock-hub.mjs): the repo URL pasted, its
 * pytorch_model.bin (the reference script's 500 MB big.pt) picked from the listing, its tensors
 * and pickle verdict shown from under 1 MiB of the file (the mock's log), and a preview of one
 * tensor with the reference's values. */
describe('a PyTorch repository over the mock Hub', { timeout: 10 * 60_000 }, () => {
  let browser; let server; let hub; let repoDir; let doc;
  before(async () => {
    requireFile(path.join(dir, 'big.pt'), 'run tests/reference/torch_fixtures.py --big; scripts/test.sh does');
    doc = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    repoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-torch-repo-'));
    fs.symlinkSync(path.join(dir, 'big.pt'), path.join(repoDir, 'pytorch_model.bin'));
    fs.writeFileSync(path.join(repoDir, 'README.md'), '# a PyTorch model\n');
    server = await startAppServer();
    hub = await startMockHub({ repos: { 'weightpeek/torch-model': { dir: repoDir } } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close(); await server?.close(); await hub?.close();
    if (repoDir) fs.rmSync(repoDir, { recursive: true, force: true });
  });

  it('lists pytorch_model.bin with its pickle verdict reading under 1 MiB', async () => {
    const ref = doc.files['big.pt'];
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
    await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
    await page.fill('[data-testid=url-input]', `${hub.endpoint}/weightpeek/torch-model`);
    await page.click('[data-testid=url-open]');
    await page.waitForSelector('[data-testid=repo-files] [data-path="pytorch_model.bin"]', { timeout: 30_000 });
    hub.clearLog();
    await resetCounters(page);
    await page.click('[data-testid=repo-files] [data-path="pytorch_model.bin"]');
    assert.equal(await waitForSettled(page, { timeout: 90_000 }), 'ready');
    await hub.idle(10_000);
    const bytes = hub.log.reduce((n, r) => n + r.bytes, 0);
    const size = fs.statSync(path.join(dir, 'big.pt')).size;
    assert.ok(bytes < 1024 * 1024, `listing read ${bytes} bytes of the ${size}-byte file: ${JSON.stringify(hub.log.map((r) => [r.server, r.range, r.bytes]))}`);
    assert.equal(await page.getAttribute('[data-testid=tensor-count]', 'data-value'), String(ref.tensors.length));
    assert.equal(await page.getAttribute('[data-testid=pickle-verdict]', 'data-value'), 'safe');
    const j = await downloadJson(page);
    assert.deepEqual(j.tensors.map((t) => t.name), ref.tensors.map((t) => t.name), 'names');
    assert.deepEqual(j.tensors.map((t) => t.shape), ref.tensors.map((t) => t.shape), 'shapes');
    await showTab(page, 'summary');
    await page.locator('[data-testid=summary]').screenshot({ path: `${screenshotDir}/torch-hub-summary.png` });
    // A preview: the window only (and the storage's local header), with the reference's values.
    hub.clearLog();
    const t = ref.tensors[3];
    const shown = await previewValues(page, t.name);
    shown.forEach((raw, k) => assert.ok(sameValue(kindOf(t.dtype), raw, t.first[k]), `${t.name}: value ${k} shown ${raw}, reference ${t.first[k]}`));
    await hub.idle(10_000);
    const window = Number(await page.getAttribute('[data-testid=preview-bytes-read]', 'data-value'));
    const previewBytes = hub.log.reduce((n, r) => n + r.bytes, 0);
    assert.ok(previewBytes <= window + 4096, `preview read ${previewBytes} bytes for a ${window}-byte window`);
    await screenshot(page, 'torch-hub-preview');
    console.log(`pytorch_model.bin (${size} bytes): listed from ${bytes} bytes; a ${window}-byte window read ${previewBytes} bytes`);
    assert.deepEqual(page.__wpErrors, []);
    await page.context().close();
  });
});
