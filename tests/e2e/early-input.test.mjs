// End-to-end (issue #20, item 2): nothing given while the WebAssembly module loads is lost. The
// module's response is held back (a slow network); meanwhile a file is picked in the file input,
// or dropped on the page, or a URL is submitted, or the sample asked for. The page says it is still loading, the tab does
// not navigate to the dropped file, and once the module is released what was given opens: the
// tensor count is the reference's (www/sample.gguf; gguf-py through reference.py).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launchBrowser, startAppServer, loadReference, repoRoot, screenshot } from './helpers.mjs';

const sample = path.join(repoRoot, 'www', 'sample.gguf');

/** A page whose wasm module is held until `release()` is called. */
async function heldPage(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.__wpErrors = [];
  page.on('pageerror', (err) => page.__wpErrors.push(`pageerror: ${err.message}`));
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(/\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(server.url);
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
  let want;

  before(async () => {
    want = String(loadReference('sample').tensor_count);
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a file picked before the module is ready opens when it is', async () => {
    const { page, release } = await heldPage(browser, server);
    try {
      await page.setInputFiles('[data-testid=file-input]', sample);
      const status = await page.textContent('#status');
      assert.match(status, /still loading; “sample\.gguf” opens as soon as it is ready/);
      await screenshot(page, 'early-pick-waiting');
      release();
      assert.equal(await tensorCountWhenReady(page), want);
      assert.deepEqual(page.__wpErrors, []);
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
