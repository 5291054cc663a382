// End-to-end (issue #20, item 2): nothing given while the WebAssembly module loads is lost. The
// module's response is held back (a slow network); meanwhile a file is picked in the file input,
// or dropped on the page, or a URL is submitted, or the sample asked for. The page says it is still loading, the tab does
// not navigate to the dropped file, and once the module is released what was given opens: the
// tensor count is the reference's (www/sample.gguf; gguf-py through reference.py). The page shows
// how far the module has loaded (the bytes of the wasm counted as they arrive, up to its size in
// dist/); a `?url=` address and the <weightpeek-view> element's `src` and open() wait the same
// way.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, startAppServer, loadReference, repoRoot, distDir, screenshot } from './helpers.mjs';

const sample = path.join(repoRoot, 'www', 'sample.gguf');

/** A page whose wasm module is held until `release()` is called. */
async function heldPage(browser, server, where = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Every text the loading line shows, in order.
  await page.addInitScript(() => {
    window.__wpLoadingTexts = [];
    new MutationObserver(() => {
      const t = document.getElementById('loading-text')?.textContent;
      if (t && window.__wpLoadingTexts.at(-1) !== t) window.__wpLoadingTexts.push(t);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  page.__wpErrors = [];
  page.on('pageerror', (err) => page.__wpErrors.push(`pageerror: ${err.message}`));
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(/\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(server.url + where);
  await page.waitForSelector('[data-testid=file-input]', { state: 'attached' });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'loading');
  return { page, release };
}

async function tensorCountWhenReady(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  return page.getAttribute('[data-testid=tensor-count]', 'data-value');
}

describe('input given while the module loads', { timeout: 5 * 60_000 }, () => {
  let browser;
  let server;
  let elementServer;
  let tmp;
  let want;

  before(async () => {
    want = String(loadReference('sample').tensor_count);
    server = await startAppServer();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-early-'));
    fs.writeFileSync(path.join(tmp, 'early-element.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>elements given work early</title>
<script type="module" src="/weightpeek.js"></script></head>
<body><input id="pick" type="file">
<weightpeek-view id="a" src="/sample.gguf" height="300"></weightpeek-view>
<weightpeek-view id="b" height="300"></weightpeek-view></body></html>`);
    elementServer = await startAppServer({ mounts: { '/t/': tmp } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await elementServer?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a file picked before the module is ready opens when it is', async () => {
    const { page, release } = await heldPage(browser, server);
    try {
      await page.setInputFiles('[data-testid=file-input]', sample);
      const status = await page.textContent('#status');
      assert.match(status, /still loading; “sample\.gguf” opens as soon as it is ready/);
      assert.ok(await page.isVisible('[data-testid=loading]'), 'the loading line is not shown');
      assert.match(await page.textContent('#loading-text'), /^Loading the viewer/);
      await screenshot(page, 'early-pick-waiting');
      release();
      assert.equal(await tensorCountWhenReady(page), want);
      assert.deepEqual(page.__wpErrors, []);
      // How far: each module's bytes counted as they arrived, rising to its size in dist/:
      // the lean module first ("the viewer"), then the full one ("the rest of the viewer").
      const texts = await page.evaluate(() => window.__wpLoadingTexts);
      for (const [what, wasm] of [['the viewer', 'weightpeek-lite_bg.wasm'], ['the rest of the viewer', 'weightpeek-web_bg.wasm']]) {
        const total = (fs.statSync(path.join(distDir, wasm)).size / 1e6).toFixed(1);
        const seen = texts.map((t) => t.match(new RegExp(`^Loading ${what}: ([\\d.]+) of ([\\d.]+) MB \\((\\d+)%\\)$`))).filter(Boolean);
        assert.ok(seen.length >= 2, `the loading line did not count ${wasm}'s bytes: ${JSON.stringify(texts)}`);
        assert.ok(seen.every((m) => m[2] === total), `the total is not ${wasm}'s ${total} MB: ${JSON.stringify(texts)}`);
        const done = seen.map((m) => Number(m[1]));
        assert.ok(done.every((d, i) => i === 0 || d >= done[i - 1]), `the bytes went back: ${done}`);
        assert.equal(seen.at(-1)[3], '100');
      }
      const lean = texts.findLastIndex((t) => t.startsWith('Loading the viewer:'));
      const rest = texts.findIndex((t) => t.startsWith('Loading the rest of the viewer'));
      assert.ok(lean < rest, `the modules were counted out of order: ${JSON.stringify(texts)}`);
      assert.equal(await page.isVisible('[data-testid=loading]'), false);
      console.log(`# loading line: ${texts.length} updates, ${texts.at(-1)}`);
    } finally {
      await page.context().close();
    }
  });

  it('a file dropped before the module is ready opens when it is, and the tab stays', async () => {
    const { page, release } = await heldPage(browser, server);
    try {
      const url = page.url();
      const input = await page.evaluateHandle(() => {
        const el = document.createElement('input');
        el.type = 'file';
        el.hidden = true;
        document.body.appendChild(el);
        return el;
      });
      await input.setInputFiles(sample);
      const prevented = await input.evaluate((el) => {
        const dt = new DataTransfer();
        dt.items.add(el.files[0]);
        el.remove();
        const drop = new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt });
        document.querySelector('[data-testid=drop-zone]').dispatchEvent(drop);
        return drop.defaultPrevented;
      });
      assert.ok(prevented, 'the drop was not caught: the browser would open the file in the tab');
      release();
      assert.equal(await tensorCountWhenReady(page), want);
      assert.equal(page.url(), url);
    } finally {
      await page.context().close();
    }
  });

  it('a URL submitted before the module is ready opens when it is', async () => {
    const { page, release } = await heldPage(browser, server);
    try {
      await page.fill('[data-testid=url-input]', `${server.url.replace(/\/$/, '')}/sample.gguf`);
      await page.press('[data-testid=url-input]', 'Enter');
      assert.match(await page.textContent('#status'), /still loading; the URL opens/);
      release();
      assert.equal(await tensorCountWhenReady(page), want);
    } finally {
      await page.context().close();
    }
  });

  it('a ?url= address opened before the module is ready opens when it is', async () => {
    const { page, release } = await heldPage(browser, server, `?url=${encodeURIComponent(`${server.url.replace(/\/$/, '')}/sample.gguf`)}`);
    try {
      release();
      assert.equal(await tensorCountWhenReady(page), want);
    } finally {
      await page.context().close();
    }
  });

  it('<weightpeek-view>: src and open() given before the module is ready open when it is', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    try {
      const page = await context.newPage();
      let release;
      const held = new Promise((r) => { release = r; });
      await page.route(/\.wasm$/, async (route) => { await held; await route.continue(); });
      await page.goto(`${elementServer.url}t/early-element.html`);
      // Both elements wait for the module; the second gets a file through open() meanwhile.
      const input = await page.$('#pick');
      await input.setInputFiles(sample);
      await page.evaluate(() => { window.__opened = document.querySelector('#b').open(document.querySelector('#pick').files); });
      const states = await page.evaluate(() => ['#a', '#b'].map((s) => document.querySelector(s).dataset.state));
      assert.deepEqual(states, ['loading', 'loading']);
      assert.equal(await page.evaluate(() => document.querySelector('#a').shadowRoot.textContent.trim()), 'Loading the viewer…');
      await screenshot(page, 'early-element-waiting');
      release();
      await page.evaluate(() => window.__opened);
      for (const sel of ['#a', '#b']) {
        await page.waitForFunction((s) => ['ready', 'error'].includes(document.querySelector(s).dataset.state), sel, { timeout: 60_000 });
        assert.equal(await page.evaluate((s) => document.querySelector(s).dataset.state, sel), 'ready', sel);
        const count = await page.evaluate((s) => document.querySelector(s).shadowRoot.querySelector('[data-testid=tensor-count]')?.dataset.value, sel);
        assert.equal(count, want, sel);
      }
    } finally {
      await context.close();
    }
  });

  it('the sample asked for before the module is ready opens when it is', async () => {
    const { page, release } = await heldPage(browser, server);
    try {
      await page.click('[data-testid=open-sample]');
      assert.match(await page.textContent('#status'), /still loading; the sample opens/);
      release();
      assert.equal(await tensorCountWhenReady(page), want);
    } finally {
      await page.context().close();
    }
  });
});
