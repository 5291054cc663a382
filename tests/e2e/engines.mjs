// The journeys of the cross-engine suite (issue #20, item 1), written once against a small
// driver interface that firefox.test.mjs (puppeteer-core over WebDriver BiDi) and
// webkit.test.mjs (selenium-webdriver against WebKitWebDriver) implement:
//
//   open(url)                 a fresh page at url, returns a Page:
//   page.pick(selector, file) put a file from disk into the <input type=file> at selector
//   page.run(fn, arg)         run fn(arg) in the page (fn may return a promise), its result
//   page.shot(name)           a full-page screenshot target/e2e-screenshots/<engine>-<name>.png
//   page.errors()             uncaught page errors seen (engines that report them; else [])
//   page.close()
//
// Each journey is checked against the native CLI (the same engine: `weightpeek FILE --json` in
// the file's folder), never against numbers written here.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { repoRoot, dataDir, files, differences, requireFile } from './helpers.mjs';

const CLI = [path.join(repoRoot, 'target', 'debug', 'weightpeek'), path.join(repoRoot, 'target', 'release', 'weightpeek')]
  .find((p) => fs.existsSync(p));

/** The files picked: real models of three formats, an .npz, a PyTorch checkpoint, the sample. */
export const INPUTS = [
  files.gemma,
  files.minilm,
  path.join(dataDir, 'silero-vad', 'silero_vad.onnx'),
  path.join(repoRoot, 'target', 'numpy-fixtures', 'weights.npz'),
  path.join(repoRoot, 'target', 'torch-fixtures', 'checkpoint.ckpt'),
  path.join(repoRoot, 'www', 'sample.gguf'),
];

/** Fails early, with what to run, when a file or the CLI is missing. */
export function requireInputs() {
  assert.ok(CLI, 'build the CLI first (cargo build)');
  for (const f of INPUTS) requireFile(f, 'run scripts/test.sh (it writes the fixtures and fetches the real models)');
}

/** `weightpeek ARGS --json` in `cwd`: the parsed document. */
export function cli(args, cwd) {
  return new Promise((resolve, reject) => {
    execFile(CLI, [...args, '--json'], { cwd, maxBuffer: 1 << 30, env: { ...process.env, HF_TOKEN: '' } }, (err, stdout) => {
      if (err && typeof err.code !== 'number') return reject(err);
      try {
        resolve(JSON.parse(stdout));
      } catch (e) {
        reject(new Error(`${args.join(' ')}: ${e.message}`));
      }
    });
  });
}

/** Polls `fn(arg)` in the page until it is truthy; fails after `ms` with `what`. */
async function until(page, fn, arg, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await page.run(fn, arg)) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the app and waits until it is ready for input. */
async function app(open, url) {
  const page = await open(url);
  await until(page, () => document.body.dataset.state === 'idle', null, 60_000, 'body[data-state=idle]');
  return page;
}

/** Waits until the page has opened what it was given (and the doctor's findings are in). */
async function settled(page) {
  await until(page, () => ['ready', 'error'].includes(document.body.dataset.state) && !document.querySelector('[data-doctor=pending]'),
    null, 120_000, 'body[data-state] ready or error');
  return page.run(() => document.body.dataset.state);
}

/** Puts `file` into an <input type=file id=wp-test-files> of its own (for the JS API). */
async function pickForApi(page, file) {
  await page.run(() => {
    document.querySelector('#wp-test-files')?.remove();
    const el = document.createElement('input');
    el.type = 'file';
    el.id = 'wp-test-files';
    document.body.append(el);
  });
  await page.pick('#wp-test-files', file);
}

/**
 * Every input picked in the page: the state and tensor count the CLI gives, and inspect() of
 * the same File equal to the CLI's --json. Returns one line per file.
 */
export async function pickedFilesJourney(open, url) {
  const seen = [];
  for (const file of INPUTS) {
    const name = path.basename(file);
    const want = await cli([name], path.dirname(file));
    const page = await app(open, url);
    try {
      const t0 = Date.now();
      await page.pick('[data-testid=file-input]', file);
      const state = await settled(page);
      const ms = Date.now() - t0;
      assert.equal(state, want.error ? 'error' : 'ready', `${name}: state`);
      const count = await page.run(() => document.querySelector('[data-testid=tensor-count]')?.dataset.value ?? null);
      assert.equal(count, String(want.tensor_count), `${name}: tensor count`);
      if (file === files.gemma) await page.shot('gemma');
      await pickForApi(page, file);
      const json = await page.run(() => import('/weightpeek.js')
        .then((wp) => wp.inspect(document.querySelector('#wp-test-files').files[0]))
        .then((doc) => JSON.stringify(doc), (e) => `ERROR ${e.message}`));
      assert.ok(!json.startsWith('ERROR'), `${name}: inspect() failed: ${json}`);
      assert.deepEqual(differences(want, JSON.parse(json)), [], `${name}: CLI --json vs inspect()`);
      assert.deepEqual(await page.errors(), [], `${name}: page errors`);
      seen.push(`${name}: ${count} tensors, ${ms} ms`);
    } finally {
      await page.close();
    }
  }
  assert.equal(seen.length, INPUTS.length);
  return seen;
}

/**
 * A tensor preview opened from the table (click on its row): it draws its heatmap canvas, and
 * preview() of the same tensor gives the CLI's `--tensor NAME --json` first values.
 */
export async function previewJourney(open, url) {
  const tensor = 'blk.0.attn_q.weight';
  const want = await cli([path.basename(files.gemma), '--tensor', tensor], path.dirname(files.gemma));
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', files.gemma);
    assert.equal(await settled(page), 'ready');
    await page.run((n) => {
      const f = document.querySelector('.tensors input.filter');
      f.value = n;
      f.dispatchEvent(new Event('input', { bubbles: true }));
    }, tensor);
    await until(page, (n) => [...document.querySelectorAll('tr[data-file-index]')]
      .some((tr) => tr.querySelector('td.col-name')?.textContent === n), tensor, 10_000, `the row of ${tensor}`);
    await page.run((n) => [...document.querySelectorAll('tr[data-file-index]')]
      .find((tr) => tr.querySelector('td.col-name')?.textContent === n).click(), tensor);
    await until(page, (n) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === n && p.dataset.state === 'ready';
    }, tensor, 60_000, `the preview of ${tensor}`);
    const canvas = await page.run(() => {
      const c = document.querySelector('[data-testid=preview-heatmap]');
      return c ? [c.width, c.height] : null;
    });
    assert.ok(canvas && canvas[0] > 0 && canvas[1] > 0, `heatmap canvas ${canvas}`);
    await page.shot('preview');
    await pickForApi(page, files.gemma);
    const got = await page.run((n) => import('/weightpeek.js')
      .then((wp) => wp.preview(document.querySelector('#wp-test-files').files[0], n))
      .then((p) => p.first_values.map((v) => v.text), (e) => `ERROR ${e.message}`), tensor);
    assert.deepEqual(got, want.first_values.map((v) => v.text), 'preview() first values vs the CLI');
    assert.deepEqual(await page.errors(), []);
  } finally {
    await page.close();
  }
}

/**
 * The scan of every weight (issue #22) in a Web Worker: the page's "Scan all weights" on a
 * generated file of NaN/Inf values and block scales lists the findings `weightpeek scan --json`
 * gives, in order, and scan() of Gemma gives (on two Workers: nested ones) the CLI's counts, extremes and (to 1e-12 relative)
 * means and standard deviations for every tensor. Returns a line saying how long each took.
 */
export async function scanJourney(open, url) {
  const bad = requireFile(path.join(repoRoot, 'target', 'scan-fixtures', 'bad.gguf'), 'run tests/reference/scan_reference.py; scripts/test.sh does');
  const wantBad = await cli(['scan', path.basename(bad), '--threads', '2'], path.dirname(bad));
  const wantGemma = await cli(['scan', path.basename(files.gemma), '--threads', '2'], path.dirname(files.gemma));
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', bad);
    await settled(page);
    await until(page, () => document.querySelector('[data-testid=scan]')?.dataset.scan === 'idle', null, 30_000, 'the scan card');
    let t0 = Date.now();
    await page.run(() => document.querySelector('[data-testid=scan-start]').click());
    await until(page, () => ['done', 'error'].includes(document.querySelector('[data-testid=scan]')?.dataset.scan), null, 120_000, 'the page scan');
    const badMs = Date.now() - t0;
    const state = await page.run(() => [document.querySelector('[data-testid=scan]').dataset.scan, document.querySelector('[data-testid=scan-status]')?.textContent]);
    assert.equal(state[0], 'done', `page scan: ${state[1]}`);
    const codes = await page.run(() => [...document.querySelectorAll('[data-testid=checks] [data-source=scan] li[data-code]')].map((li) => li.dataset.code));
    assert.deepEqual(codes, wantBad.findings.map((f) => f.code), 'the Checks card lists the CLI scan\'s findings');
    await page.shot('scan');
    await pickForApi(page, files.gemma);
    t0 = Date.now();
    const json = await page.run(() => import('/weightpeek.js')
      .then((wp) => wp.scan(document.querySelector('#wp-test-files').files[0], { workers: 2 }))
      .then((doc) => JSON.stringify(doc), (e) => `ERROR ${e.message}`));
    const gemmaMs = Date.now() - t0;
    assert.ok(!json.startsWith('ERROR'), `scan(): ${json}`);
    const got = JSON.parse(json);
    assert.equal(got.tensors.length, wantGemma.tensors.length);
    got.tensors.forEach((t, i) => {
      const w = wantGemma.tensors[i];
      for (const k of ['name', 'count', 'nan', 'inf', 'zeros', 'min', 'max', 'blocks', 'scale_nan', 'scale_inf']) {
        assert.equal(t[k], w[k], `${w.name}: ${k}`);
      }
      for (const k of ['mean', 'std']) assert.ok(Math.abs(t[k] - w[k]) <= 1e-12 * Math.abs(w[k]), `${w.name}: ${k} ${t[k]} vs ${w[k]}`);
    });
    assert.deepEqual(got.findings.map((f) => f.code), wantGemma.findings.map((f) => f.code));
    assert.deepEqual(await page.errors(), []);
    return `page scan of bad.gguf ${badMs} ms; scan() of Gemma (${got.bytes_read} bytes) ${gemmaMs} ms`;
  } finally {
    await page.close();
  }
}
