// End-to-end: open real model files in the built app (dist/) in headless chromium and compare what
// the page shows with the reference facts written by tests/reference/reference.py
// (target/reference/<key>.json). No expected number is written here.
//
// UI contract (data-testid / data-* attributes the app must provide):
//   body[data-state]            'idle' when ready for input, then 'loading' -> 'ready' | 'error'
//   [data-testid=drop-zone]     accepts a `drop` DragEvent with a File in its DataTransfer
//   [data-testid=open-sample]   opens the bundled sample file
//   [data-testid=tensor-count]     data-value = number of tensors
//   [data-testid=parameter-count]  data-value = number of parameters (elements of all tensors)
//   [data-testid=bits-per-weight]  data-value = tensor bytes * 8 / parameters, as a JS number string
//   [data-testid=dtype-histogram] [data-dtype=X][data-count=N]  one element per dtype
//   [data-testid=error]         visible, with a message naming the byte offset, on a bad file;
//                               hidden or empty otherwise

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  readCounters,
  resetCounters,
  attr,
  errorBox,
  dtypeHistogram,
  screenshot,
  loadReference,
  requireFile,
  files,
} from './helpers.mjs';

const MiB = 1024 * 1024;
const FETCH_HINT = 'fetch it with python3 ../shared/scripts/fetch-real-models.py; scripts/install.sh does';

const models = [
  { name: 'Gemma 3 270M Q4_K_M GGUF', key: 'gemma-3-270m-q4_k_m', file: files.gemma, shot: 'gemma-gguf' },
  { name: 'all-MiniLM-L6-v2 safetensors', key: 'all-MiniLM-L6-v2', file: files.minilm, shot: 'minilm-safetensors' },
];

/** Byte length of the file's header: GGUF data_offset, or safetensors header_size (8-byte length + JSON). */
function headerBytes(ref) {
  if (ref.data_offset != null) return Number(ref.data_offset);
  if (ref.header_size != null) return Number(ref.header_size);
  throw new Error('reference has neither data_offset nor header_size');
}

async function assertShowsModel(page, ref, label) {
  const tensorCount = await attr(page, '[data-testid=tensor-count]', 'data-value');
  assert.equal(tensorCount, String(ref.tensor_count), `${label}: tensor-count`);

  const params = await attr(page, '[data-testid=parameter-count]', 'data-value');
  assert.ok(params !== null && /^\d+$/.test(params), `${label}: parameter-count data-value is an integer (got ${params})`);
  assert.equal(BigInt(params), BigInt(ref.parameter_count), `${label}: parameter-count`);

  const bpwText = await attr(page, '[data-testid=bits-per-weight]', 'data-value');
  const bpw = Number(bpwText);
  const expected = (Number(ref.tensor_bytes) * 8) / Number(ref.parameter_count);
  assert.ok(bpwText !== null && Number.isFinite(bpw), `${label}: bits-per-weight data-value is a number (got ${bpwText})`);
  assert.ok(Math.abs(bpw - expected) <= 1e-9 * Math.abs(expected), `${label}: bits-per-weight ${bpw} != ${expected}`);

  const shown = await dtypeHistogram(page);
  const shownMap = new Map();
  for (const { dtype, count } of shown) {
    assert.ok(!shownMap.has(dtype), `${label}: dtype ${dtype} appears twice in the histogram`);
    shownMap.set(dtype, count);
  }
  const expectedMap = new Map(ref.dtypes.map((d) => [String(d.dtype), String(d.tensors)]));
  assert.deepEqual(Object.fromEntries(shownMap), Object.fromEntries(expectedMap), `${label}: tensors per dtype`);

  const err = await errorBox(page);
  assert.ok(!err.visible || err.text === '', `${label}: error box should be hidden or empty, shows: ${err.text}`);
}

describe('weightpeek in a browser', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const model of models) {
    it(`drops the real ${model.name} and shows the reference facts, reading only its header`, { timeout: 180_000 }, async () => {
      const ref = loadReference(model.key);
      requireFile(model.file, FETCH_HINT);
      const page = await openApp(browser, server);
      // A dropped file never leaves the machine: no request at all while it is opened.
      const requests = [];
      page.on('request', (r) => requests.push(r.url()));
      try {
        await dropFile(page, model.file);
        const state = await waitForSettled(page);
        assert.deepEqual(requests, [], 'opening a dropped file made network requests');
        await screenshot(page, model.shot);
        const err = await errorBox(page);
        assert.equal(state, 'ready', `state after drop (error shown: ${err.text}); page errors: ${page.__wpErrors.join(' | ')}`);
        await assertShowsModel(page, ref, model.name);

        const counters = await readCounters(page);
        const limit = headerBytes(ref) + MiB;
        assert.ok(counters.readBytes < limit, `read ${counters.readBytes} bytes from Blobs, limit is header + 1 MiB = ${limit}`);
        assert.ok(counters.slicedBytes < limit, `sliced ${counters.slicedBytes} bytes, limit is header + 1 MiB = ${limit}`);
        assert.ok(counters.sliceCalls > 0, 'the page read the file through Blob.slice in the page context (none counted: is parsing in a Worker? then extend the harness)');
        const checks = await page.locator('[data-testid=checks] h2').textContent();
        assert.equal(checks, 'Checks: no problems found', `${model.name}: checks`);
        assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
      } finally {
        await page.context().close();
      }
    });
  }

  it('opens the bundled sample with one click', { timeout: 120_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      await resetCounters(page);
      await page.click('[data-testid=open-sample]');
      const state = await waitForSettled(page);
      await screenshot(page, 'sample');
      const err = await errorBox(page);
      assert.equal(state, 'ready', `state after opening the sample (error shown: ${err.text})`);
      const ref = loadReference('sample');
      await assertShowsModel(page, ref, 'bundled sample');
      assert.ok(!err.visible || err.text === '', `error box should be hidden or empty, shows: ${err.text}`);
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('reports a real corrupt GGUF with the byte offset and stays usable', { timeout: 180_000 }, async () => {
    requireFile(files.corrupt, 'the shared data folder; set WEIGHTPEEK_SHARED');
    requireFile(files.gemma, FETCH_HINT);
    const gemma = loadReference('gemma-3-270m-q4_k_m');
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.corrupt);
      const state = await waitForSettled(page);
      await screenshot(page, 'corrupt-gguf');
      assert.equal(state, 'error', 'state after dropping the corrupt file');
      const err = await errorBox(page);
      assert.ok(err.visible, 'error box is visible');
      assert.match(err.text, /byte/i, `error names the byte offset: ${err.text}`);
      // The header stopped in its metadata: the tensor table says so, not "no matching tensors".
      const empty = await page.locator('[data-testid=tensor-table] td.empty-row').textContent();
      assert.equal(empty, 'No tensors: the header announces none, and parsing stopped before its tensor list.');

      // The page keeps working: a good file dropped next is shown and the error goes away.
      await dropFile(page, files.gemma);
      const next = await waitForSettled(page);
      await screenshot(page, 'corrupt-then-gemma');
      assert.equal(next, 'ready', 'state after dropping a good file after the corrupt one');
      await assertShowsModel(page, gemma, 'Gemma after the corrupt file');
      const uncaught = page.__wpErrors.filter((e) => e.startsWith('pageerror'));
      assert.deepEqual(uncaught, [], 'no uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });
});
