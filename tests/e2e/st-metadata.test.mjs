// End-to-end (issue #11): a safetensors file whose `__metadata__` holds values that are not
// strings (a number, an object, null) opens on the page like any other: its tensor is shown,
// every value appears as its JSON text, and the Checks card has a warning naming each such key.
// The file is built here; the expected texts are JSON.stringify of the values written.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, startAppServer, openApp, dropFile, waitForSettled, errorBox, attr, screenshot } from './helpers.mjs';

describe('safetensors metadata values that are not strings', { timeout: 120_000 }, () => {
  let browser; let server; let dir; let file;
  const values = { format: 'pt', step: 1200, cfg: { lr: 0.1 }, none: null };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-stmeta-'));
    const header = Buffer.from(JSON.stringify({ __metadata__: values, w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] } }));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(header.length));
    file = path.join(dir, 'meta.safetensors');
    fs.writeFileSync(file, Buffer.concat([len, header, Buffer.alloc(16)]));
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the tensor, every value as JSON text, and a warning per key', async () => {
    const page = await openApp(browser, server);
    try {
      await dropFile(page, file);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.equal(await attr(page, '[data-testid=tensor-count]', 'data-value'), '1');
      const table = await page.textContent('[data-testid=metadata-table]');
      for (const [k, v] of Object.entries(values)) {
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        assert.ok(table.includes(k) && table.includes(text), `${k}: ${text} in ${table}`);
      }
      const checks = await page.$$eval('[data-testid=checks] li[data-code]', (els) => els.map((e) => e.textContent));
      for (const k of Object.keys(values).filter((k) => typeof values[k] !== 'string')) {
        assert.ok(checks.some((c) => c.includes(`__metadata__.${k}`) && c.includes('not a string')), `${k} in ${JSON.stringify(checks)}`);
      }
      await screenshot(page, 'st-metadata-not-strings');
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });
});
