// Firefox (issue #20, item 1: the first engine beside Chromium). Debian's firefox-esr driven by
// puppeteer-core over WebDriver BiDi (no browser download). The journeys people make, checked
// against the native CLI (the same engine, `weightpeek FILE --json` in the file's folder):
// - local files picked in the page's file input — the real Gemma GGUF, MiniLM safetensors, a
//   silero-vad ONNX export, a NumPy .npz, a PyTorch zip checkpoint, the bundled sample: the page
//   ends `ready` with the CLI's tensor count, and inspect() of the same File gives the CLI's
//   JSON field for field;
// - a tensor preview opened from the table: it draws its heatmap canvas, and preview() gives the
//   CLI's `--tensor NAME --json` first values.
// Screenshots go to target/e2e-screenshots/firefox-*.png.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import puppeteer from 'puppeteer-core';
import { startAppServer, repoRoot, dataDir, files, screenshotDir, differences, requireFile } from './helpers.mjs';

const FIREFOX = process.env.WEIGHTPEEK_FIREFOX || '/usr/bin/firefox-esr';
const CLI = [path.join(repoRoot, 'target', 'debug', 'weightpeek'), path.join(repoRoot, 'target', 'release', 'weightpeek')]
  .find((p) => fs.existsSync(p));

const INPUTS = [
  files.gemma,
  files.minilm,
  path.join(dataDir, 'silero-vad', 'silero_vad.onnx'),
  path.join(repoRoot, 'target', 'numpy-fixtures', 'weights.npz'),
  path.join(repoRoot, 'target', 'torch-fixtures', 'checkpoint.ckpt'),
  path.join(repoRoot, 'www', 'sample.gguf'),
];

/** `weightpeek ARGS --json` in `cwd`: the parsed document. */
function cli(args, cwd) {
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

/** Waits until body[data-state] is ready or error and the doctor's findings are in. */
async function settled(page) {
  await page.waitForFunction(
    () => ['ready', 'error'].includes(document.body.dataset.state) && !document.querySelector('[data-doctor=pending]'),
    { timeout: 120_000, polling: 100 },
  );
  return page.evaluate(() => document.body.dataset.state);
}

async function shot(page, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  // From the top: Firefox draws the sticky top bar where the page was scrolled to otherwise.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(screenshotDir, `firefox-${name}.png`), fullPage: true });
}

describe('Firefox: the same answers as the CLI', { timeout: 15 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    requireFile(FIREFOX, 'install firefox-esr (scripts/install.sh does)');
    assert.ok(CLI, 'build the CLI first (cargo build)');
    for (const f of INPUTS) requireFile(f, 'run scripts/test.sh (it writes the fixtures and fetches the real models)');
    server = await startAppServer();
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi' });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh page of the app, ready for input, collecting its errors. */
  async function app() {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.__wpErrors = [];
    page.on('pageerror', (e) => page.__wpErrors.push(String(e.message ?? e)));
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.state === 'idle', { timeout: 60_000 });
    return page;
  }

  it('picked files show the CLI\'s tensor count, and inspect() gives the CLI\'s JSON', async () => {
    const seen = [];
    for (const file of INPUTS) {
      const name = path.basename(file);
      const want = await cli([name], path.dirname(file));
      const page = await app();
      try {
        const t0 = Date.now();
        await (await page.$('[data-testid=file-input]')).uploadFile(file);
        const state = await settled(page);
        const ms = Date.now() - t0;
        assert.equal(state, want.error ? 'error' : 'ready', `${name}: state`);
        const count = await page.$eval('[data-testid=tensor-count]', (e) => e.dataset.value);
        assert.equal(count, String(want.tensor_count), `${name}: tensor count`);
        if (file === files.gemma) await shot(page, 'gemma');
        // inspect() of the same file, picked into an input of its own.
        await page.evaluate(() => {
          const el = document.createElement('input');
          el.type = 'file';
          el.id = 'wp-test-files';
          el.hidden = true;
          document.body.append(el);
        });
        await (await page.$('#wp-test-files')).uploadFile(file);
        const json = await page.evaluate(async () => {
          const wp = await import('/weightpeek.js');
          return JSON.stringify(await wp.inspect(document.querySelector('#wp-test-files').files[0]));
        });
        assert.deepEqual(differences(want, JSON.parse(json)), [], `${name}: CLI --json vs inspect() in Firefox`);
        assert.deepEqual(page.__wpErrors, [], `${name}: page errors`);
        seen.push(`${name}: ${count} tensors, ${ms} ms`);
      } finally {
        await page.close();
      }
    }
    console.log(`firefox: ${seen.join('; ')}`);
    assert.equal(seen.length, INPUTS.length);
  });

  it('a preview opened from the table draws its heatmap; preview() gives the CLI\'s values', async () => {
    const tensor = 'blk.0.attn_q.weight';
    const want = await cli([path.basename(files.gemma), '--tensor', tensor], path.dirname(files.gemma));
    const page = await app();
    try {
      await (await page.$('[data-testid=file-input]')).uploadFile(files.gemma);
      assert.equal(await settled(page), 'ready');
      await page.type('.tensors input.filter', tensor);
      await page.waitForFunction(
        (n) => [...document.querySelectorAll('tr[data-file-index]')].some((tr) => tr.querySelector('td.col-name')?.textContent === n),
        { timeout: 10_000 },
        tensor,
      );
      await page.evaluate((n) => {
        [...document.querySelectorAll('tr[data-file-index]')].find((tr) => tr.querySelector('td.col-name')?.textContent === n).click();
      }, tensor);
      await page.waitForFunction(
        (n) => { const p = document.querySelector('[data-testid=preview]'); return p && p.dataset.tensor === n && p.dataset.state === 'ready'; },
        { timeout: 60_000 },
        tensor,
      );
      const canvas = await page.$eval('[data-testid=preview] canvas', (c) => [c.width, c.height]);
      assert.ok(canvas[0] > 0 && canvas[1] > 0, `heatmap canvas ${canvas}`);
      await shot(page, 'preview');
      await page.evaluate(() => {
        const el = document.createElement('input');
        el.type = 'file';
        el.id = 'wp-test-files';
        el.hidden = true;
        document.body.append(el);
      });
      await (await page.$('#wp-test-files')).uploadFile(files.gemma);
      const got = await page.evaluate(async (n) => {
        const wp = await import('/weightpeek.js');
        const p = await wp.preview(document.querySelector('#wp-test-files').files[0], n);
        return p.first_values.map((v) => v.text);
      }, tensor);
      assert.deepEqual(got, want.first_values.map((v) => v.text), 'preview() first values vs the CLI');
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.close();
    }
  });
});
