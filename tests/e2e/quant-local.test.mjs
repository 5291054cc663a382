// End-to-end: a local quantised safetensors model picked together with its config.json (the
// file input takes several files; so does a drop) shows the logical parameters and effective
// bits per weight that tests/reference/quant_safetensors.py computed from its construction;
// picked alone, the page says the figures rest on assumptions. Only the model's header and the
// small config are read.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, startAppServer, openApp, resetCounters, readCounters, waitForSettled, requireFile, repoRoot } from './helpers.mjs';

const dir = path.join(repoRoot, 'target', 'quant-fixtures');

describe('local quantised safetensors with their config.json', { timeout: 5 * 60_000 }, () => {
  let browser; let server; let want;
  before(async () => {
    requireFile(path.join(dir, 'expected.json'), 'run tests/reference/quant_safetensors.py; scripts/test.sh does');
    want = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')).cases.find((c) => c.case === 'mlx-4bit-mixed');
    browser = await launchBrowser();
    server = await startAppServer();
  });
  after(async () => { await browser?.close(); await server?.close(); });

  const shown = (page, id) => page.getAttribute(`[data-testid=${id}]`, 'data-value');

  it('model + config.json picked together: the construction\'s parameters and bpw', async () => {
    const page = await openApp(browser, server);
    await resetCounters(page);
    const model = path.join(dir, 'mlx-4bit-mixed', 'model.safetensors');
    const config = path.join(dir, 'mlx-4bit-mixed', 'config.json');
    // The config first: the page finds the model among the files by its name.
    await page.setInputFiles('[data-testid=file-input]', [config, model]);
    assert.equal(await waitForSettled(page), 'ready');
    assert.equal(Number(await shown(page, 'parameter-count')), want.logical_parameters);
    assert.ok(Math.abs(Number(await shown(page, 'bits-per-weight')) - want.bits_per_weight) < 1e-9);
    assert.ok((await shown(page, 'quant-layout')).startsWith(want.layout));
    assert.equal(await page.getAttribute('body', 'data-file'), 'model.safetensors');
    // Read: the model's header (one slice) and the whole config, nothing more.
    const c = await readCounters(page);
    const header = 8 + Number(fs.readFileSync(model).readBigUInt64LE(0));
    assert.ok(c.slicedBytes <= Math.max(header, 256 * 1024), `sliced ${c.slicedBytes} for a ${header}-byte header`);
    assert.ok(c.readBytes <= c.slicedBytes + fs.statSync(config).size, `read ${c.readBytes}`);
    assert.deepEqual(page.__wpErrors, []);

    // The model alone: other figures, and the card says the bits were assumed.
    await page.setInputFiles('[data-testid=file-input]', [model]);
    assert.equal(await waitForSettled(page), 'ready');
    assert.notEqual(Number(await shown(page, 'parameter-count')), want.logical_parameters);
    const checks = await page.textContent('[data-testid=checks]');
    assert.match(checks, /config/i, 'the checks say a config would change the figures');
    await page.context().close();
  });
});
