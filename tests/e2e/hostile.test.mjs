// End-to-end: every hostile file in tests/data/hostile/ plus a few made here (counts and lengths
// far past the file, arrays nested 1,000,000 deep, a real file cut short) dropped one after the
// other on ONE page: each ends in 'ready' or 'error' with a message, nothing throws, the wasm
// memory stays bounded, and the real Gemma file still opens correctly at the end.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { u32, u64, ggufHead } from './gguf-bytes.mjs';
import { launchBrowser, startAppServer, openApp, dropFile, waitForSettled, attr, errorBox, loadReference, files, repoRoot } from './helpers.mjs';

const MiB = 1024 * 1024;
/** Files in tests/data/hostile/ that are valid and once were wrongly refused. */
const VALID = new Set([
  'st-real-hdr15392-looks-html.safetensors',
  'st-real-hdr31520-looks-json.safetensors',
  'st-hdr60-unpadded.safetensors',
]);

const head = ggufHead;

/** Files made here (the list of the hostile-input issue that tests/data/hostile/ lacks). */
function made() {
  const nested = [head(0, 1), u64(1), Buffer.from('n'), u32(9)];
  for (let i = 1; i < 1_000_000; i++) nested.push(u32(9), u64(1));
  nested.push(u32(4), u64(1), u32(7));
  return {
    'tensor-count-2p40.gguf': head(2 ** 40, 0),
    'kv-count-1e6.gguf': head(0, 1_000_000),
    'string-2p50.gguf': Buffer.concat([head(0, 1), u64(1), Buffer.from('k'), u32(8), u64(2 ** 50), Buffer.alloc(19)]),
    'array-2p28-u32-in-113.gguf': Buffer.concat([head(0, 1), u64(1), Buffer.from('a'), u32(9), u32(4), u64(2 ** 28), Buffer.alloc(64)]),
    'nested-1000000.gguf': Buffer.concat(nested),
    'empty.gguf': Buffer.alloc(0),
    'page.safetensors': Buffer.from('<!DOCTYPE html><html><body>Not found</body></html>'),
    'lfs.gguf': Buffer.from('version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 253113024\n'),
    'st-header-past-file.safetensors': Buffer.concat([u64(2 ** 40), Buffer.from('{}')]),
  };
}

describe('hostile files, one after the other on one page', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;
  let dir;
  const list = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-hostile-'));
    for (const [name, bytes] of Object.entries(made())) {
      fs.writeFileSync(path.join(dir, name), bytes);
      list.push(path.join(dir, name));
    }
    // The first 3 MB of the real Gemma file: cut inside its tensor directory... or vocabulary.
    const cut = Buffer.alloc(3 * MiB);
    const fd = fs.openSync(files.gemma, 'r');
    fs.readSync(fd, cut, 0, cut.length, 0);
    fs.closeSync(fd);
    fs.writeFileSync(path.join(dir, 'gemma-cut-3MB.gguf'), cut);
    list.push(path.join(dir, 'gemma-cut-3MB.gguf'));
    const hostileDir = path.join(repoRoot, 'tests', 'data', 'hostile');
    for (const f of fs.readdirSync(hostileDir).sort()) {
      if (/\.(gguf|safetensors)$/.test(f)) list.push(path.join(hostileDir, f));
    }
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('survives every one, says something for each, keeps memory bounded, then opens Gemma', { timeout: 8 * 60_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      const memory = () => page.evaluate(() => window.__wpWasmMemory?.() ?? null);
      const seen = [];
      for (const file of list) {
        await dropFile(page, file);
        const state = await waitForSettled(page);
        const err = await errorBox(page);
        const checks = await page.$$eval('[data-testid=checks] li[data-severity]', (els) => els.map((e) => e.dataset.severity));
        // Each hostile file either fails with a message, or opens with at least one finding;
        // the odd-but-valid ones (safetensors whose length bytes look like text) open clean.
        if (VALID.has(path.basename(file))) {
          assert.equal(state, 'ready', `${file}`);
          assert.deepEqual(checks, [], `${file}: findings`);
          continue;
        }
        const said = (state === 'error' && err.text.length > 0) || checks.length > 0;
        seen.push(`${path.basename(file)}: ${state}${err.text ? ` (${err.text.slice(0, 80)})` : ''} findings=${checks.length}`);
        assert.ok(['ready', 'error'].includes(state), `${file}: state ${state}`);
        assert.ok(said, `${path.basename(file)} opened without any message or finding`);
        assert.deepEqual(page.__wpErrors, [], `${path.basename(file)}: page errors`);
      }
      const mem = await memory();
      console.log(seen.join('\n'));
      console.log(`wasm memory after ${list.length} hostile files: ${mem === null ? 'unknown' : (mem / MiB).toFixed(1) + ' MiB'}`);
      assert.ok(mem !== null, 'wasm memory could not be read (TrunkApplicationStarted not seen)');
      // The largest header among these files is the Gemma cut (3 MB): 64 MiB + that.
      assert.ok(mem < 64 * MiB + 3 * MiB, `wasm memory ${mem} bytes after the hostile files`);

      const gemma = loadReference('gemma-3-270m-q4_k_m');
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      assert.equal(await attr(page, '[data-testid=tensor-count]', 'data-value'), String(gemma.tensor_count));
      const after = await memory();
      console.log(`wasm memory after Gemma too: ${(after / MiB).toFixed(1)} MiB (its header is ${(gemma.data_offset / MiB).toFixed(1)} MiB)`);
      assert.ok(after < 64 * MiB + gemma.data_offset, `wasm memory ${after} bytes after Gemma`);
    } finally {
      await page.context().close();
    }
  });
});
