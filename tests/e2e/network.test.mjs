// End-to-end: hostile servers (issue #5, "The network"), in headless chromium against the mock Hub
// (tests/e2e/mock-hub.mjs, `hostile` modes on the CDN's ranged answers). Each case expects the
// exact message; the mock's log proves the request counts (5xx: exactly 3 tries) and bytes. All
// run in one page, which must still open a model at the end.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, resetCounters, waitForSettled, attr, errorBox, loadReference,
  requireFile, files,
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const MAX_HEADER_BYTES = 512 << 20; // crate::source::MAX_HEADER_BYTES, the per-header cap (checked below)
const TIMEOUT_MS = 3000; // the page's read_timeout_ms= test hook (30 s by default)

describe('hostile servers', { timeout: 10 * 60_000 }, () => {
  let browser; let server; let hub; let dir; let page;
  const file = 'gemma-3-270m-q4_k_m.gguf';
  let url;

  before(async () => {
    requireFile(files.gemma);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-net-'));
    fs.symlinkSync(files.gemma, path.join(dir, file));
    server = await startAppServer();
    hub = await startMockHub({ repos: { 'weightpeek/gemma': { dir } } });
    url = `${hub.endpoint}/weightpeek/gemma/resolve/main/${file}`;
    browser = await launchBrowser();
    page = await openApp(browser, server);
    await page.goto(`${server.url}?read_timeout_ms=${TIMEOUT_MS}`);
    await page.waitForFunction(() => ['idle', 'ready', 'error'].includes(document.body.dataset.state));
    await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
    await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
  });

  after(async () => {
    await page?.context().close();
    await browser?.close();
    await server?.close();
    await hub?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open(mode, extra = {}) {
    hub.set({ hostile: mode, ...extra });
    hub.clearLog();
    await resetCounters(page);
    await page.fill('[data-testid=url-input]', url);
    await page.click('[data-testid=url-open]');
  }

  async function expectError(re, label) {
    const state = await waitForSettled(page, { timeout: 60_000 });
    const err = await errorBox(page);
    assert.equal(state, 'error', `${label}: state`);
    for (const r of [].concat(re)) assert.match(err.text, r, `${label}: message`);
    const sent = hub.log.reduce((n, r) => n + r.bytes, 0);
    assert.ok(sent <= MAX_HEADER_BYTES, `${label}: ${sent} bytes`);
    return err.text;
  }

  const range = /bytes 0-\d+/;

  it('source cap constant matches', () => {
    const src = fs.readFileSync(new URL('../../src/source/mod.rs', import.meta.url), 'utf8');
    assert.match(src, /MAX_HEADER_BYTES: u64 = 512 << 20/);
  });

  it('a 206 whose Content-Range differs from the request', async () => {
    await open('badRange');
    await expectError([/other bytes than asked/, /Asked for bytes 0-\d+, got Content-Range "bytes 1-/], 'badRange');
  });

  it('a body shorter than asked, and one cut off mid-transfer', async () => {
    await open('short');
    await expectError([/ended early/, range, new RegExp(url.replace(/[.?]/g, '\\$&')), /Received \d+ of the \d+ bytes/], 'short');
    await open('cut');
    await expectError([/(cut off|ended early)/, range, /of the \d+ bytes asked/], 'cut');
  });

  it('more bytes than asked: stopped, not used', async () => {
    await open('extra');
    await expectError([/more bytes than asked/, range], 'extra');
  });

  it('a redirect loop', async () => {
    await open('loop');
    await expectError([/Following the redirects/, /redirect loop/], 'loop');
    // The ranged GET, then the diagnosis's plain GET, each followed up to the browser's 20
    // redirects; then one GET that does not follow the Hub's redirect.
    const hops = hub.log.filter((r) => r.path.startsWith('/loop')).length;
    assert.ok(hops >= 38 && hops <= 42, `${hops} redirects followed`);
    assert.ok(hub.log.length <= 45, `${hub.log.length} requests in all`);
  });

  it('5xx: exactly 3 tries with backoff, then a message; recovers when the server does', async () => {
    await open('status', { failStatus: 503, failCount: Infinity });
    const t0 = Date.now();
    await expectError([/HTTP 503/, /Tried 3 times/], '503');
    const failed = hub.log.filter((r) => r.server === 'cdn' && r.status === 503);
    assert.equal(failed.length, 3, 'the mock saw exactly 3 tries');
    const gaps = [failed[1].time - failed[0].time, failed[2].time - failed[1].time];
    assert.ok(gaps[0] >= 240 && gaps[1] >= 990, `backoff gaps ${gaps}`);
    assert.ok(Date.now() - t0 < 10_000);
    await open('status', { failStatus: 502, failCount: 2 });
    assert.equal(await waitForSettled(page), 'ready', 'third try succeeds');
    assert.equal(hub.log.filter((r) => r.status === 502).length, 2);
  });

  it(`a server dripping bytes: responsive, progress moves, stops at the ${TIMEOUT_MS} ms read timeout`, async () => {
    await open('drip', { dripMs: 100 });
    const t0 = Date.now();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=remote-progress]')?.dataset.bytes) > 0, null, { timeout: 5000 });
    const p1 = Number(await attr(page, '[data-testid=remote-progress]', 'data-bytes'));
    const e0 = Date.now();
    await page.evaluate(() => document.body.dataset.state); // the page answers
    assert.ok(Date.now() - e0 < 1000, 'page responsive');
    // The next progress update, within the second the check always allowed.
    await page.waitForFunction((p) => Number(document.querySelector('[data-testid=remote-progress]')?.dataset.bytes) > p, p1, { timeout: 1000, polling: 50 }).catch(() => {});
    const p2 = Number(await attr(page, '[data-testid=remote-progress]', 'data-bytes'));
    assert.ok(p2 > p1, `progress moves: ${p1} -> ${p2}`);
    await expectError([/Timed out reading/, /No progress for 3 s/, range], 'drip');
    const took = Date.now() - t0;
    assert.ok(took >= TIMEOUT_MS - 500 && took < TIMEOUT_MS + 5000, `stopped after ${took} ms`);
    // The dripping answer ends when the page drops it (else it drips on for minutes).
    await hub.idle(2000);
    const after1 = hub.log.reduce((n, r) => n + r.bytes, 0);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(hub.log.reduce((n, r) => n + r.bytes, 0), after1, 'the download was stopped');
  });

  it('a server dripping bytes: Cancel stops it', async () => {
    await open('drip', { dripMs: 100 });
    await page.waitForSelector('[data-testid=cancel]:not([hidden])', { timeout: 5000 });
    // Cancelled while bytes are arriving, not before the answer starts.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=remote-progress]')?.dataset.bytes) > 0, null, { timeout: 5000 });
    await page.click('[data-testid=cancel]');
    await expectError(/Cancelled/, 'cancel');
  });

  it('a ranged answer with Content-Encoding: gzip is refused, never misread', async () => {
    // Chromium refuses to decode it (ERR_CONTENT_DECODING_FAILED): the page then finds that the
    // URL answers without Range and says so. (A browser that decoded it would be refused by the
    // exposed Content-Encoding header: Problem::Encoded.)
    await open('gzip');
    await expectError([/Content-Encoding: gzip/, /compress/, /Asked for bytes 0-\d+/], 'gzip');
    assert.equal(await page.locator('[data-testid=tensor-count]').isVisible(), false, 'no numbers shown');
  });

  it('after all of them the same page still opens the model', async () => {
    const ref = loadReference('gemma-3-270m-q4_k_m');
    await open(null);
    assert.equal(await waitForSettled(page), 'ready');
    assert.equal(await attr(page, '[data-testid=tensor-count]', 'data-value'), String(ref.tensor_count));
  });
});
