// End-to-end: remote models over HTTP Range (issue #3), in headless chromium against a local mock
// of the Hub (tests/e2e/mock-hub.mjs: a Hub port answering resolve/ with 302 to a second, CDN
// port). Every URL form is pasted for the Gemma 3 GGUF, the MiniLM safetensors, a split GGUF set
// and a sharded safetensors set (built by tests/reference/remote_fixtures.py with gguf-py and
// safetensors); the page must show the reference facts, and the mock's log proves how many
// requests and bytes were used, that the token never reaches the CDN port, and that a server
// ignoring Range does not send the whole file. Also: datasets/ and spaces/ repositories, a
// 163-shard set (≤ 2 requests per shard, ≤ 6 in flight), a remote tensor preview (one Range
// request of exactly the window, values equal to preview_reference.py's), `?url=…&tensor=`
// links, the remembered Hub endpoint, and the wasm memory a 10 MB index takes.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, resetCounters, waitForSettled, showTab, attr, errorBox,
  dtypeHistogram, screenshot, loadReference, requireFile, files, dataDir, repoRoot, screenshotDir,
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
        'weightpeek/shards-163': { dir: path.join(fixtures, 'shards-163') },
        'datasets/weightpeek/gemma-data': { dir: gemmaDir },
        'spaces/weightpeek/minilm-space': { dir: path.dirname(files.minilm) },
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
          // The part column names each tensor's file; the offset column is a plain number.
          const rows = await page.$$eval('[data-testid=tensor-table] tbody tr[aria-rowindex]', (trs) => trs.map((tr) => ({
            name: tr.querySelector('td.col-name')?.textContent, part: tr.querySelector('td.col-part')?.textContent,
            offset: tr.querySelector('td.col-offset')?.textContent,
          })));
          assert.ok(rows.length > 0);
          for (const r of rows) {
            const t = ref.tensors.find((x) => x.name === r.name);
            assert.equal(r.part, ref.parts[t.part - 1], `${r.name}: part column`);
            assert.match(r.offset, /^[\d,]+$/, `${r.name}: offset`);
          }
          // Sorting by part: the last part's tensors first after two clicks.
          await showTab(page, 'tensors');
          await page.click('[data-testid=tensor-table] th.col-part button');
          await page.click('[data-testid=tensor-table] th.col-part button');
          const first = await page.$eval('[data-testid=tensor-table] tbody tr[aria-rowindex="2"] td.col-part', (e) => e.textContent);
          assert.equal(first, ref.parts[ref.parts.length - 1], 'sorted by part, descending');
          await showTab(page, 'tensors');
          await page.locator('[data-testid=tensor-table]').screenshot({ path: path.join(screenshotDir, `${c.shot}-parts.png`) });
        } else {
          assert.equal(await page.$$eval('[data-testid=tensor-table] th.col-part', (e) => e.length), 0, 'no part column for one file');
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
      await hub.idle(); // every answer closed: the stream was dropped, or sent whole
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
  /** The reference preview case (preview_reference.py) of a tensor's default window. */
  function previewCase(file, tensor) {
    const c = loadReference('preview').cases.find((x) => x.file === file && x.tensor === tensor && x.request.rows === null && x.request.cols === null);
    assert.ok(c, `reference preview of ${tensor}`);
    return c;
  }

  async function waitPreview(page, name) {
    await page.waitForFunction((name) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === name && ['ready', 'error'].includes(p.dataset.state);
    }, name, { timeout: 60_000 });
    const state = await page.getAttribute('[data-testid=preview]', 'data-state');
    if (state !== 'ready') assert.fail(`preview of ${name}: ${await page.textContent('[data-testid=preview-error]')}`);
  }

  /** The shown preview equals the reference: statistics, histogram, first values' bits, bytes. */
  async function checkPreviewValues(page, label, ref) {
    const shown = await page.$$eval('[data-testid=preview-stats] [data-stat]', (els) => Object.fromEntries(els.map((e) => [e.dataset.stat, e.dataset.value])));
    for (const k of ['count', 'zeros', 'nan', 'pos_inf', 'neg_inf']) assert.equal(Number(shown[k]), ref.stats[k], `${label}: ${k}`);
    assert.equal(Math.fround(Number(shown.min)), Math.fround(ref.stats.min), `${label}: min`);
    assert.equal(Math.fround(Number(shown.max)), Math.fround(ref.stats.max), `${label}: max`);
    for (const k of ['mean', 'std', 'mean_abs']) {
      const tol = 1e-9 * Math.max(Math.abs(ref.stats[k]), ref.stats.mean_abs);
      assert.ok(Math.abs(Number(shown[k]) - ref.stats[k]) <= tol, `${label}: ${k}`);
    }
    const counts = await page.$$eval('[data-testid=preview-histogram] rect[data-count]', (els) => els.map((e) => Number(e.dataset.count)));
    assert.deepEqual(counts, ref.stats.histogram.counts, `${label}: histogram`);
    const bits = await page.$$eval('[data-testid=preview-values] tr[data-bits]', (els) => els.map((e) => Number(e.dataset.bits)));
    assert.deepEqual(bits, ref.first_bits, `${label}: first values (bit patterns)`);
    assert.equal(Number(await attr(page, '[data-testid=preview-bytes-read]', 'data-value')), ref.read_len, `${label}: bytes read`);
  }

  it('previews a remote tensor with one Range request of its window; ?tensor= links reopen it', { timeout: 240_000 }, async () => {
    const ref = previewCase('gemma', 'blk.0.attn_output.weight');
    assert.equal(ref.dtype, 'Q4_K');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      const url = `${hub.endpoint}/weightpeek/gemma-3-270m-GGUF/resolve/main/${gemmaFile}`;
      await paste(page, url);
      await expectModel(page, loadReference('gemma-3-270m-q4_k_m'), 'Gemma for a preview');
      await showTab(page, 'tensors');
      await page.fill('.tensors input.filter', ref.tensor);
      const row = await page.waitForFunction((name) => [...document.querySelectorAll('tr[data-file-index]')]
        .find((tr) => tr.querySelector('td.col-name')?.textContent === name)?.dataset.fileIndex, ref.tensor, { timeout: 10_000 });
      hub.clearLog();
      const progress = async () => ({
        requests: Number(await attr(page, '[data-testid=remote-progress]', 'data-requests')),
        bytes: Number(await attr(page, '[data-testid=remote-progress]', 'data-bytes')),
        line: await page.textContent('[data-testid=remote-progress] .progress-total'),
      });
      const before = await progress();
      await page.click(`tr[data-file-index="${await row.jsonValue()}"]`);
      await waitPreview(page, ref.tensor);
      await checkPreviewValues(page, 'remote Q4_K preview', ref);
      // The progress line counts the preview's Range read too (one request, its window).
      const after = await progress();
      assert.deepEqual([after.requests, after.bytes], [before.requests + 1, before.bytes + ref.read_len], `progress ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      assert.ok(after.line.startsWith(`${after.requests} requests · `) && after.line.endsWith(' received'), after.line);
      const gets = hub.log.filter((r) => r.method === 'GET');
      console.log(`# remote preview of ${ref.tensor}: ${gets.length} GET(s) ${JSON.stringify(gets.map((r) => [r.server, r.range, r.bytes]))}`);
      assert.equal(gets.length, 1, 'one request for the preview');
      const [g] = gets;
      assert.equal(g.server, 'cdn', 'straight to the redirect target');
      assert.equal(g.range, `bytes=${ref.read_offset}-${ref.read_offset + ref.read_len - 1}`, 'exactly the window');
      assert.equal(g.bytes, ref.read_len, 'the window\'s bytes, no more');
      assert.equal(g.authorization, null);
      await page.locator('[data-testid=preview]').screenshot({ path: path.join(screenshotDir, 'remote-preview-q4_k.png') });
      // The page URL names the tensor; the link opens the model and that preview.
      const link = new URL(page.url());
      assert.equal(link.searchParams.get('url'), url);
      assert.equal(link.searchParams.get('tensor'), ref.tensor);
      const again = await openApp(browser, server);
      try {
        hub.clearLog();
        await again.goto(link.href);
        await waitPreview(again, ref.tensor);
        await checkPreviewValues(again, 'preview from a ?tensor= link', ref);
        assert.equal(new URL(again.url()).searchParams.get('tensor'), ref.tensor);
        // The linked tensor's row is marked in the table (scrolled into the table's view).
        const marked = await again.$$eval('[data-testid=tensor-table] tbody tr[aria-selected=true] td.col-name', (tds) => tds.map((td) => td.textContent));
        assert.deepEqual(marked, [ref.tensor], 'the ?tensor= row is selected');
        await screenshot(again, 'remote-tensor-link');
        // Closing the preview takes the tensor out of the URL.
        await again.click('[data-testid=preview] button[aria-label="close the preview"]');
        await again.waitForFunction(() => !new URL(location.href).searchParams.has('tensor'), null, { timeout: 5_000 });
        // A link to a tensor the model lacks says so, and the model is still shown.
        const bad = new URL(link.href);
        bad.searchParams.set('tensor', 'no.such.tensor');
        await again.goto(bad.href);
        await again.waitForFunction(() => document.body.dataset.state === 'ready' && !document.querySelector('#error').hidden, null, { timeout: 60_000 });
        assert.match((await errorBox(again)).text, /no\.such\.tensor/);
        assert.deepEqual(again.__wpErrors.filter((e) => e.startsWith('pageerror')), []);
      } finally {
        await again.context().close();
      }
      // A local file: no url= or tensor= (a link cannot reopen it).
      await page.setInputFiles('#file-input', files.minilm);
      assert.equal(await waitForSettled(page), 'ready');
      const local = new URL(page.url());
      assert.ok(!local.searchParams.has('url') && !local.searchParams.has('tensor'), `local file: ${local.search}`);
      await showTab(page, 'tensors');
      await page.click('tr[data-file-index="0"]');
      await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('[data-testid=preview]')?.dataset.state), null, { timeout: 30_000 });
      assert.ok(!new URL(page.url()).searchParams.has('tensor'), 'no tensor= for a local file');
    } finally {
      await page.context().close();
    }
  });

  it('an expired signed CDN URL is asked of the Hub again: 403, then the Hub, then the window', { timeout: 120_000 }, async () => {
    const ref = previewCase('gemma', 'blk.0.attn_output.weight');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      await paste(page, `${hub.endpoint}/weightpeek/gemma-3-270m-GGUF/resolve/main/${gemmaFile}`);
      await expectModel(page, loadReference('gemma-3-270m-q4_k_m'), 'Gemma before its signature expires');
      await showTab(page, 'tensors');
      await page.fill('.tensors input.filter', ref.tensor);
      const row = await page.waitForFunction((name) => [...document.querySelectorAll('tr[data-file-index]')]
        .find((tr) => tr.querySelector('td.col-name')?.textContent === name)?.dataset.fileIndex, ref.tensor, { timeout: 10_000 });
      hub.set({ expireSignatures: true });
      hub.clearLog();
      await page.click(`tr[data-file-index="${await row.jsonValue()}"]`);
      await waitPreview(page, ref.tensor);
      await checkPreviewValues(page, 'preview after the signature expired', ref);
      const gets = hub.log.filter((r) => r.method === 'GET');
      console.log(`# expired signature: ${JSON.stringify(gets.map((r) => [r.server, r.status, r.range, r.bytes]))}`);
      const window = `bytes=${ref.read_offset}-${ref.read_offset + ref.read_len - 1}`;
      assert.deepEqual(gets.map((r) => [r.server, r.status, r.range]), [
        ['cdn', 403, window],
        ['hub', 302, window],
        ['cdn', 206, window],
      ], 'the expired URL, the Hub, its new CDN URL');
      assert.equal(gets[2].bytes, ref.read_len, 'the window\'s bytes, no more');
    } finally {
      hub.set({ expireSignatures: false });
      await page.context().close();
    }
  });

  it('previews a tensor of a sharded set from its own part', { timeout: 120_000 }, async () => {
    const ref = fixtureRef('sharded-safetensors');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      await paste(page, `${hub.endpoint}/weightpeek/sharded-safetensors/resolve/main/model.safetensors.index.json`);
      await expectModel(page, ref, 'sharded set for a preview');
      const t = ref.tensors.find((x) => x.part === ref.parts.length);
      await showTab(page, 'tensors');
      await page.fill('.tensors input.filter', t.name);
      const row = await page.waitForFunction((name) => [...document.querySelectorAll('tr[data-file-index]')]
        .find((tr) => tr.querySelector('td.col-name')?.textContent === name)?.dataset.fileIndex, t.name, { timeout: 10_000 });
      hub.clearLog();
      await page.click(`tr[data-file-index="${await row.jsonValue()}"]`);
      await waitPreview(page, t.name);
      const gets = hub.log.filter((r) => r.method === 'GET');
      assert.equal(gets.length, 1, 'one request');
      assert.ok(gets[0].path.endsWith(`/${ref.parts[ref.parts.length - 1]}`), `the part's URL: ${gets[0].path}`);
      // The whole (small) tensor, at its offset within its own part.
      assert.equal(gets[0].range, `bytes=${t.offset}-${t.offset + t.bytes - 1}`);
      assert.equal(gets[0].bytes, t.bytes);
      assert.equal(Number(await attr(page, '[data-testid=preview-bytes-read]', 'data-value')), t.bytes);
      const count = t.shape.reduce((a, b) => a * b, 1);
      assert.equal(Number(await attr(page, '[data-testid=preview-stats] [data-stat=count]', 'data-value')), count);
    } finally {
      await page.context().close();
    }
  });

  it('163 shards: at most 2 requests per shard, at most 6 in flight', { timeout: 180_000 }, async () => {
    const ref = fixtureRef('shards-163');
    assert.equal(ref.parts.length, 163);
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      hub.set({ latencyMs: 20 }); // lets requests pile up if the pool did not bound them
      hub.clearLog();
      await paste(page, `${hub.endpoint}/weightpeek/shards-163/resolve/main/model.safetensors.index.json`);
      await expectModel(page, ref, '163 shards');
      const real = hub.log.filter((r) => r.method !== 'OPTIONS');
      const perShard = new Map(ref.parts.map((p) => [p, 0]));
      for (const r of real) {
        const f = r.path.split('/').pop();
        if (perShard.has(f)) perShard.set(f, perShard.get(f) + 1);
      }
      const most = Math.max(...perShard.values());
      const c = hub.concurrency;
      console.log(`# 163 shards: ${real.length} requests (${real.filter((r) => r.server === 'hub').length} hub + ${real.filter((r) => r.server === 'cdn').length} cdn), ${hub.log.length - real.length} preflights, most per shard ${most}; in flight at most ${c.requests} (hub ${c.hub}, cdn ${c.cdn}); open connections at most hub ${c.hubSockets}, cdn ${c.cdnSockets}`);
      assert.ok([...perShard.values()].every((n) => n >= 1 && n <= 2), `requests per shard ≤ 2 (most ${most})`);
      assert.ok(c.requests <= 6, `${c.requests} requests in flight at once`);
      assert.ok(c.hubSockets <= 6 && c.cdnSockets <= 6, `connections: hub ${c.hubSockets}, cdn ${c.cdnSockets}`);
      assert.ok(c.requests >= 2, 'the shards were read concurrently');
      await screenshot(page, 'remote-163-shards');
    } finally {
      hub.set({ latencyMs: 0 });
      await page.context().close();
    }
  });

  it('datasets/ and spaces/ repositories open from file URLs and repo ids', { timeout: 180_000 }, async () => {
    const gemma = loadReference('gemma-3-270m-q4_k_m');
    const minilm = loadReference('all-MiniLM-L6-v2');
    const page = await openApp(browser, server);
    try {
      await settings(page, hub);
      const ep = hub.endpoint;
      for (const [form, ref] of [
        [`${ep}/datasets/weightpeek/gemma-data/resolve/main/${gemmaFile}`, gemma],
        [`${ep}/datasets/weightpeek/gemma-data/blob/main/${gemmaFile}`, gemma],
        [`${ep}/spaces/weightpeek/minilm-space/blob/main/model.safetensors`, minilm],
        [`${ep}/spaces/weightpeek/minilm-space/resolve/main/model.safetensors?download=true`, minilm],
      ]) {
        hub.clearLog();
        await paste(page, form);
        await expectModel(page, ref, form);
        assert.ok(hub.log.some((r) => r.server === 'cdn'), `${form}: read through the CDN`);
      }
      for (const [form, file, ref, api] of [
        ['datasets/weightpeek/gemma-data', gemmaFile, gemma, '/api/datasets/weightpeek/gemma-data/tree/main'],
        [`${ep}/spaces/weightpeek/minilm-space`, 'model.safetensors', minilm, '/api/spaces/weightpeek/minilm-space/tree/main'],
      ]) {
        hub.clearLog();
        await paste(page, form);
        await pick(page, file);
        await expectModel(page, ref, `${form} + pick`);
        assert.ok(hub.log.some((r) => r.path === api), `${form}: listed through ${api}`);
      }
      await screenshot(page, 'remote-space');
    } finally {
      await page.context().close();
    }
  });

  it('the Hub endpoint is remembered (localStorage); the token is not', { timeout: 60_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      await settings(page, hub, 'hf_not_to_be_stored');
      await paste(page, `${hub.endpoint}/sentence-transformers/all-MiniLM-L6-v2/resolve/main/model.safetensors`);
      await waitForSettled(page);
      await page.goto(new URL(page.url()).origin + '/');
      await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 30_000 });
      assert.equal(await page.inputValue('[data-testid=hub-endpoint]'), hub.endpoint);
      assert.equal(await page.inputValue('[data-testid=hub-token]'), '', 'the token was not kept (not ticked)');
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
      assert.ok(!stored.includes('hf_not_to_be_stored'), `no token in storage: ${stored}`);
      // Back to the default: forgotten.
      await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
      await page.fill('[data-testid=hub-endpoint]', 'https://huggingface.co');
      await page.dispatchEvent('[data-testid=hub-endpoint]', 'change');
      assert.equal(await page.evaluate(() => localStorage.length), 0);
    } finally {
      await page.context().close();
    }
  });

  it('a 10 MB safetensors index is held once in wasm memory', { timeout: 120_000 }, async () => {
    // Generated here: ~10 MB of weight_map entries across 100 shard files that are not served
    // (their 404s end the opening; the index was parsed by then).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-index-'));
    const weightMap = {};
    let n = 0;
    for (let bytes = 0; bytes < 10_000_000; n++) {
      const k = `model.layers.${n % 997}.mlp.experts.${n}.down_proj.weight`;
      const f = `model-${String((n % 100) + 1).padStart(5, '0')}-of-00100.safetensors`;
      weightMap[k] = f;
      bytes += k.length + f.length + 10;
    }
    fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: 1 }, weight_map: weightMap }, null, 2));
    const size = fs.statSync(path.join(dir, 'model.safetensors.index.json')).size;
    hub.addRepo?.('weightpeek/big-index', { dir });
    const page = await openApp(browser, server);
    try {
      await page.addInitScript(() => addEventListener('weightpeek-started', (e) => { window.__wpWasm = e.detail.wasm; }));
      await page.reload();
      await page.waitForFunction(() => window.__wpWasm && document.body.dataset.state === 'idle', null, { timeout: 30_000 });
      const before = await page.evaluate(() => window.__wpWasm.memory.buffer.byteLength);
      await settings(page, hub);
      hub.clearLog();
      await paste(page, `${hub.endpoint}/weightpeek/big-index/resolve/main/model.safetensors.index.json`);
      await waitForSettled(page, { timeout: 90_000 });
      const after = await page.evaluate(() => window.__wpWasm.memory.buffer.byteLength);
      const shards = hub.log.filter((r) => /-of-00100\.safetensors$/.test(r.path)).length;
      console.log(`# index of ${size} bytes (${n} tensors): wasm memory ${before} -> ${after} bytes (+${after - before}, ${((after - before) / size).toFixed(2)}× the index); ${shards} shard requests`);
      assert.ok(shards > 0, 'the index was parsed (its shards were asked for)');
      assert.ok(after - before < 2.5 * size, `wasm memory grew by ${after - before} for a ${size}-byte index`);
    } finally {
      await page.context().close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
