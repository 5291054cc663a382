// End-to-end (issue #20, item 4): the page works offline after its first visit. The service
// worker (www/sw.js, its file list and version written by scripts/sw_hook.py) caches every file
// of the built app; with the browser context offline the page opens again and reads a local file
// (the tensor count is gguf-py's, through reference.py), while a remote URL fails with the
// "You are offline" message. A new build (another version in sw.js, a changed index.html) is
// installed on the next visit, the old cache dropped, and shown on the visit after.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, startAppServer, loadReference, repoRoot, distDir, screenshot } from './helpers.mjs';

const sample = path.join(repoRoot, 'www', 'sample.gguf');

const settled = (page) => page.waitForFunction(() => ['idle', 'ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });

/** The weightpeek caches and how many entries each holds. */
const cacheState = (page) => page.evaluate(async () => {
  const out = {};
  for (const key of await caches.keys()) {
    if (key.startsWith('weightpeek:')) out[key] = (await (await caches.open(key)).keys()).length;
  }
  return out;
});

describe('offline after the first visit (service worker)', { timeout: 5 * 60_000 }, () => {
  let browser;
  let server;
  let site;
  let models;
  let want;

  before(async () => {
    want = String(loadReference('sample').tensor_count);
    // A copy of dist/, so the update test can publish "a new build" without touching dist/.
    site = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-offline-site-'));
    fs.cpSync(distDir, site, { recursive: true });
    models = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-offline-models-'));
    fs.copyFileSync(sample, path.join(models, 'remote.gguf'));
    server = await startAppServer({ root: site, mounts: { '/m/': models } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    for (const d of [site, models]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('opens and reads a local file with the network off; a remote URL says offline; a new build comes on the next visit', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));

      // First visit: the worker installs and caches every file the build lists.
      await page.goto(server.url);
      await settled(page);
      const files = JSON.parse(fs.readFileSync(path.join(site, 'sw.js'), 'utf8').match(/^const BUILD = (\{.*\});$/m)[1]);
      assert.ok(files.files.includes('index.html') && files.files.some((f) => f.endsWith('_bg.wasm')), 'sw.js lists no app files');
      assert.match(files.version, /^[0-9a-f]{16}$/);
      await page.evaluate(() => navigator.serviceWorker.ready);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
      const caches1 = await cacheState(page);
      // Named by scope and version (two copies of the app on one origin keep theirs apart).
      assert.deepEqual(caches1, { [`weightpeek:/:${files.version}`]: files.files.length });

      // Offline: the page opens from the cache, and a local file is read.
      await context.setOffline(true);
      const before = server.requests.length;
      await page.goto(`${server.url}#tab=tensors`);
      await settled(page);
      assert.equal(await page.evaluate(() => navigator.onLine), false);
      assert.equal(await page.evaluate(() => document.body.dataset.state), 'idle');
      await page.setInputFiles('[data-testid=file-input]', sample);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60_000 });
      assert.equal(await page.getAttribute('[data-testid=tensor-count]', 'data-value'), want);
      assert.equal(await page.getAttribute('#report [role=tab][aria-selected=true]', 'data-tab'), 'tensors');
      await screenshot(page, 'offline-local-file');

      // A remote model needs the network: the page says so.
      await page.fill('[data-testid=url-input]', `${server.url}m/remote.gguf`);
      await page.press('[data-testid=url-input]', 'Enter');
      await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 60_000 });
      const message = await page.textContent('[data-testid=error]');
      assert.match(message, /You are offline/);
      assert.match(message, /local files still open/);
      await screenshot(page, 'offline-remote-url');
      assert.equal(server.requests.length, before, 'a request reached the server while offline');

      // A new build is published: the next visit installs it in the background and still shows
      // the old one (an open page never gets another build's files); once no tab shows the old
      // build, the next visit shows the new one, and the old cache is gone.
      await context.setOffline(false);
      const swPath = path.join(site, 'sw.js');
      const next = { ...files, version: 'feedfacecafe0002' };
      fs.writeFileSync(swPath, fs.readFileSync(swPath, 'utf8').replace(/^const BUILD = \{.*\};$/m, `const BUILD = ${JSON.stringify(next)};`));
      const indexPath = path.join(site, 'index.html');
      fs.writeFileSync(indexPath, fs.readFileSync(indexPath, 'utf8').replace('</body>', '<div id="wp-new-build" hidden></div></body>'));
      await page.goto(server.url);
      await settled(page);
      assert.equal(await page.$('#wp-new-build'), null, 'the visit that installs the new build already shows it');
      const waiting = () => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting != null);
      for (const end = Date.now() + 30_000; !(await waiting());) {
        assert.ok(Date.now() < end, 'the new build was never installed');
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(Object.keys(await cacheState(page)).sort(), [`weightpeek:/:${files.version}`, 'weightpeek:/:feedfacecafe0002'].sort());
      await page.close();
      let shown = false;
      for (let i = 0; i < 20 && !shown; i++) {
        const again = await context.newPage();
        again.on('pageerror', (e) => errors.push(e.message));
        await again.goto(server.url);
        await settled(again);
        shown = (await again.$('#wp-new-build')) !== null;
        if (shown) {
          const deadline = Date.now() + 10_000;
          let now = await cacheState(again);
          while (Object.keys(now).length > 1 && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 200));
            now = await cacheState(again);
          }
          assert.deepEqual(now, { 'weightpeek:/:feedfacecafe0002': files.files.length });
        }
        await again.close();
        if (!shown) await new Promise((r) => setTimeout(r, 300));
      }
      assert.ok(shown, 'the visit after every tab of the old build closed still shows the old build');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
