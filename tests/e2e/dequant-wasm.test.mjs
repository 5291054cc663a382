// The dequantisers compiled to wasm32, in headless chromium, bit for bit against the reference
// vectors of tests/reference/dequant_vectors.py (target/reference/dequant/: gguf-py
// quants.dequantize, numpy, ml_dtypes, ggml definitions) — the same vectors tests/dequant.rs
// checks natively, since float behaviour in the browser's wasm engine is what users get.
//
// Calls the web build's exported hook `dequant_check(kind, type, bigEndian, bytes)`
// (src/bin/weightpeek-web.rs), which runs the very `dequant` code the preview uses, and compares
// the returned Float32Array's bit patterns (as Uint32) with CASE.f32, inside the page.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, startAppServer, openApp, referenceDir, requireFile } from './helpers.mjs';

const dequantDir = path.join(referenceDir, 'dequant');

describe('dequantisation in wasm (chromium)', { timeout: 5 * 60_000 }, () => {
  let browser;
  let server;
  let page;

  before(async () => {
    requireFile(path.join(dequantDir, 'index.json'), 'run tests/reference/dequant_vectors.py; scripts/test.sh does');
    server = await startAppServer({ mounts: { '/dequant/': dequantDir } });
    browser = await launchBrowser();
    page = await openApp(browser, server);
    await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.dequant_check, null, { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('every reference case decodes to the same bit patterns as the reference', async () => {
    const index = JSON.parse(fs.readFileSync(path.join(dequantDir, 'index.json'), 'utf8'));
    const cases = index.cases.map((c) => ({ name: c.name, kind: c.kind, type: c.type, be: c.big_endian, input: c.input, expected: c.expected }));
    const result = await page.evaluate(async (cases) => {
      const failures = [];
      let values = 0;
      for (const c of cases) {
        const input = new Uint8Array(await (await fetch(`/dequant/${c.input}`)).arrayBuffer());
        const want = new Uint32Array(await (await fetch(`/dequant/${c.expected}`)).arrayBuffer());
        let got;
        try {
          got = window.wasmBindings.dequant_check(c.kind, c.type, c.be, input);
        } catch (e) {
          failures.push(`${c.name}: threw ${e}`);
          continue;
        }
        const bits = new Uint32Array(got.buffer, got.byteOffset, got.length);
        if (bits.length !== want.length) {
          failures.push(`${c.name}: ${bits.length} values, reference has ${want.length}`);
          continue;
        }
        let bad = 0;
        let first = -1;
        for (let i = 0; i < want.length; i++) {
          if (bits[i] !== want[i]) {
            bad++;
            if (first < 0) first = i;
          }
        }
        if (bad) failures.push(`${c.name}: ${bad} of ${want.length} differ, first [${first}] got 0x${bits[first].toString(16)} want 0x${want[first].toString(16)}`);
        values += want.length;
      }
      return { failures, values };
    }, cases);
    assert.deepEqual(result.failures, [], `wasm decode differs from the reference:\n${result.failures.join('\n')}`);
    assert.ok(result.values > 10_000, `compared ${result.values} values`);
    // Every active ggml type and every safetensors dtype except F6 appear in the vectors.
    const types = new Set(index.cases.map((c) => `${c.kind}:${c.type}`));
    for (const t of ['ggml:Q4_K', 'ggml:IQ2_XXS', 'ggml:Q8_0', 'ggml:NVFP4', 'safetensors:F8_E4M3', 'safetensors:F4']) {
      assert.ok(types.has(t), `reference has ${t}`);
    }
    console.log(`wasm: ${cases.length} cases, ${result.values} values equal bit for bit`);
  });
});
