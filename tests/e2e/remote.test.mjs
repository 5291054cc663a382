// End-to-end: remote models over HTTP Range (issue #3), in headless chromium against a local mock
// of the Hub (tests/e2e/mock-hub.mjs: a Hub port answering resolve/ with 302 to a second, CDN
// port). Every URL form is pasted for the Gemma 3 GGUF, the MiniLM safetensors, a split GGUF set
// and a sharded safetensors set (built by tests/reference/remote_fixtures.py with gguf-py and
// safetensors); the page must show the reference facts, and the mock's log proves how many
// requests and bytes were used, that the token never reaches the CDN port, and that a server
// ignoring Range does not send the whole file.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, resetCounters, waitForSettled, attr, errorBox,
  dtypeHistogram, screenshot, loadReference, requireFile, files, dataDir, repoRoot,
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const KiB = 1024;
const fixtures = path.join(repoRoot, 'target', 'remote-fixtures');
const TOKEN = 'hf_test_token_for_the_gated_repo';

function linkDir(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-hub-'));
  for (const f of files) fs.symlinkSync(f, path.join(dir, path.basename(f)));
  return dir;
}

function fixtureRef(name) {
  const f = path.join(fixtures, `${name}.json`);
  requireFile(f, 'run tests/reference/remote_fixtures.py; scripts/test.sh does');
  return JSON.parse(fs.readFileSync(f, 'utf8'));
}

async function expectModel(page, ref, label) {
  const state = await waitForSettled(page, { timeout: 90_000 });
  const err = await errorBox(page);
  assert.equal(state, 'ready', `${label}: state (error: ${err.text}); page errors: ${page.__wpErrors.join(' | ')}`);
  assert.equal(await attr(page, '[data-testid=tensor-count]', 'data-value'), String(ref.tensor_count), `${label}: tensor-count`);
  assert.equal(BigInt(await attr(page, '[data-testid=parameter-count]', 'data-value')), BigInt(ref.parameter_count), `${label}: parameters`);
  const shown = Object.fromEntries((await dtypeHistogram(page)).map((d) => [d.dtype, d.count]));
  assert.deepEqual(shown, Object.fromEntries(ref.dtypes.map((d) => [String(d.dtype), String(d.tensors)])), `${label}: dtypes`);
}

async function paste(page, text) {
  await resetCounters(page);
  await page.fill('[data-testid=url-input]', text);
  await page.click('[data-testid=url-open]');
}

async function pick(page, filePath) {
  await page.waitForSelector(`[data-testid=repo-files] [data-path="${filePath}"]`, { timeout: 30_000 });
  await resetCounters(page);
  await page.click(`[data-testid=repo-files] [data-path="${filePath}"]`);
}

async function settings(page, hub, token = '') {
  await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
  await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
  await page.fill('[data-testid=hub-token]', token);
}

describe('remote models over HTTP Range', { timeout: 15 * 60_000 }, () => {
  let browser; let server; let hub; let gemmaDir;

  before(async () => {
    requireFile(files.gemma);
    requireFile(files.minilm);
    gemmaDir = linkDir([files.gemma]);
    server = await startAppServer();
    hub = await startMockHub({
      repos: {
        'weightpeek/gemma-3-270m-GGUF': { dir: gemmaDir },
        'weightpeek/gated-gemma': { dir: gemmaDir, token: TOKEN },
        'sentence-transformers/all-MiniLM-L6-v2': { dir: path.dirname(files.minilm) },
        'weightpeek/split-gguf': { dir: path.join(fixtures, 'split-gguf') },
        'weightpeek/sharded-safetensors': { dir: path.join(fixtures, 'sharded-safetensors') },
      },
      log: process.env.WEIGHTPEEK_E2E_LOG ? (l) => console.log(`[hub] ${l}`) : null,
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await hub?.close();
    if (gemmaDir) fs.rmSync(gemmaDir, { recursive: true, force: true });
  });

  const gemmaFile = 'gemma-3-270m-q4_k_m.gguf';
  const cases = [
    { label: 'Gemma', key: 'gemma-3-270m-q4_k_m', repo: 'weightpeek/gemma-3-270m-GGUF', file: gemmaFile, shot: 'remote-gemma' },
    { label: 'MiniLM', key: 'all-MiniLM-L6-v2', repo: 'sentence-transformers/all-MiniLM-L6-v2', file: 'model.safetensors', shot: 'remote-minilm' },
    { label: 'split GGUF', fixture: 'split-gguf', repo: 'weightpeek/split-gguf', file: 'tiny-llama-00001-of-00003.gguf', pickPath: 'tiny-llama-00001-of-00003.gguf', shot: 'remote-split-gguf' },
    { label: 'sharded safetensors', fixture: 'sharded-safetensors', repo: 'weightpeek/sharded-safetensors', file: 'model.safetensors.index.json', pickPath: 'model.safetensors.index.json', shot: 'remote-sharded-safetensors' },
  ];

  for (const c of cases) {
    it(`opens ${c.label} from every URL form, reading only its header`, { timeout: 300_000 }, async () => {
      const ref = c.key ? loadReference(c.key) : fixtureRef(c.fixture);
      const page = await openApp(browser, server);
      try {
        await settings(page, hub);
        const ep = hub.endpoint;
        const forms = [
          `${ep}/${c.repo}/resolve/main/${c.file}`,
          `${ep}/${c.repo}/blob/main/${c.file}`,
          `${ep}/${c.repo}/resolve/main/${c.file}?download=true`,
          `${ep}/${c.repo}?show_file_info=${c.file}`,
        ];
        for (const [i, form] of forms.entries()) {
          hub.clearLog();
          await paste(page, form);
          await expectModel(page, ref, `${c.label} via ${form}`);
          if (i === 0) await screenshot(page, c.shot);
          // The page URL reflects what is open.
          const u = new URL(page.url());
          assert.equal(u.searchParams.get('url'), form, 'page URL has ?url=');
          const data = hub.log.filter((r) => r.server === 'cdn' || r.path.includes('/resolve/'));
          const bytes = data.reduce((n, r) => n + r.bytes, 0);
          const header = c.key ? Number(ref.data_offset ?? ref.header_size) : ref.header_bytes;
          const files = c.key ? 1 : ref.parts.length;
          assert.ok(bytes <= header * 1.25 + 256 * KiB * files + 8 * KiB, `${c.label}: ${bytes} bytes for ${header} header bytes`);
          const cdnGets = hub.log.filter((r) => r.server === 'cdn' && r.method === 'GET').length;
          if (c.key === 'gemma-3-270m-q4_k_m') assert.ok(cdnGets <= 2, `Gemma: ${cdnGets} CDN requests`);
          if (c.key === 'all-MiniLM-L6-v2') assert.equal(cdnGets, 1, 'MiniLM: one request');
          if (c.fixture) assert.ok(cdnGets <= 2 * ref.parts.length, `${c.label}: ${cdnGets} requests for ${ref.parts.length} parts`);
          const progress = Number(await attr(page, '[data-testid=remote-progress]', 'data-bytes'));
          assert.ok(progress > 0, 'progress shows bytes');
        }
        // Bare repo id, repo@revision, and the repo page URL: list, then pick.
        for (const form of [c.repo, `${c.repo}@main`, `${ep}/${c.repo}`]) {
          await paste(page, form);
          await pick(page, c.pickPath ?? c.file);
          await expectModel(page, ref, `${c.label} via ${form} + pick`);
        }
        if (c.fixture) {
          // The part column names each tensor's file.
          const cells = await page.$$eval('[data-testid=tensor-table] .col-offset', (els) => els.map((e) => e.textContent));
          const partsShown = new Set(cells.map((t) => /^part (\d+) · /.exec(t)?.[1]).filter(Boolean));
          assert.ok(partsShown.size >= 2, `the offset column names the part: ${cells.slice(0, 5)}`);
        }
        // Opening the page's own link reloads the same model.
        const link = page.url();
        const again = await openApp(browser, server);
        try {
          await again.evaluate(() => { window.__wpStateLog = []; });
          await again.goto(link);
          await again.evaluate(() => { window.__wpStateLog = window.__wpStateLog ?? []; });
          await again.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state) && document.querySelector('[data-testid=tensor-count]'), null, { timeout: 60_000 });
          assert.equal(await attr(again, '[data-testid=tensor-count]', 'data-value'), String(ref.tensor_count), 'link reopens the model');
        } finally {
          await again.context().close();
        }
        assert.deepEqual(page.__wpErrors.filter((e) => e.startsWith('pageerror')), [], 'no uncaught exceptions');
      } finally {
        await page.context().close();
      }
    });
  }

  it('gated repo: 401 without a token says what to do; with it, the token reaches only the Hub port', { timeout: 180_000 }, async () => {
    const ref = loadReference('gemma-3-270m-q4_k_m');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub, '');
      hub.clearLog();
      await paste(page, `${hub.endpoint}/weightpeek/gated-gemma/resolve/main/${gemmaFile}`);
      assert.equal(await waitForSettled(page), 'error');
      const err = await errorBox(page);
      assert.match(err.text, /401/);
      assert.match(err.text, /token/i);
      await screenshot(page, 'remote-gated-401');

      await settings(page, hub, TOKEN);
      hub.clearLog();
      await paste(page, 'weightpeek/gated-gemma');
      await pick(page, gemmaFile);
      await expectModel(page, ref, 'gated Gemma with token');
      const withAuth = hub.log.filter((r) => r.authorization);
      assert.ok(withAuth.length > 0 && withAuth.every((r) => r.server === 'hub'), `token only on the hub: ${JSON.stringify(withAuth.map((r) => r.server))}`);
      const cdn = hub.log.filter((r) => r.server === 'cdn');
      assert.ok(cdn.length > 0, 'the CDN was used');
      assert.ok(cdn.every((r) => r.authorization === null), 'no Authorization header ever reached the CDN port');
    } finally {
      await page.context().close();
    }
  });

  it('a server ignoring Range: the header is read from the stream, the download stopped', { timeout: 180_000 }, async () => {
    const ref = loadReference('gemma-3-270m-q4_k_m');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      hub.set({ noRange: true });
      hub.clearLog();
      await paste(page, `${hub.endpoint}/weightpeek/gemma-3-270m-GGUF/resolve/main/${gemmaFile}`);
      await expectModel(page, ref, 'Gemma without Range');
      await new Promise((r) => setTimeout(r, 1500)); // let the aborted stream settle
      await screenshot(page, 'remote-no-range');
      const sent = hub.log.filter((r) => r.server === 'cdn').reduce((n, r) => n + r.bytes, 0);
      const size = fs.statSync(files.gemma).size;
      assert.ok(sent < size / 4, `the server sent ${sent} of ${size} bytes`);
      const warnings = await page.$eval('[data-testid=checks]', (e) => e.textContent).catch(() => '');
      assert.match(warnings, /ignores Range/);
    } finally {
      hub.set({ noRange: false });
      await page.context().close();
    }
  });

  it('404, an HTML page and an unreachable server give messages with cause and remedy', { timeout: 120_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      await paste(page, `${hub.endpoint}/weightpeek/gemma-3-270m-GGUF/resolve/main/nope.gguf`);
      assert.equal(await waitForSettled(page), 'error');
      assert.match((await errorBox(page)).text, /404.*(path|revision)/s);
      await paste(page, `${hub.cdnOrigin}/page.html`);
      assert.equal(await waitForSettled(page), 'error');
      assert.match((await errorBox(page)).text, /web page/);
      await paste(page, 'http://127.0.0.1:9/model.gguf');
      assert.equal(await waitForSettled(page), 'error');
      assert.match((await errorBox(page)).text, /CORS/);
      await screenshot(page, 'remote-network-error');
    } finally {
      await page.context().close();
    }
  });

  it('cancel stops a slow download', { timeout: 120_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      hub.set({ latencyMs: 3000 });
      await paste(page, `${hub.endpoint}/weightpeek/gemma-3-270m-GGUF/resolve/main/${gemmaFile}`);
      await page.waitForSelector('[data-testid=cancel]:not([hidden])', { timeout: 10_000 });
      await page.click('[data-testid=cancel]');
      assert.equal(await waitForSettled(page), 'error');
      assert.match((await errorBox(page)).text, /Cancelled/);
    } finally {
      hub.set({ latencyMs: 0 });
      await page.context().close();
    }
  });
});
