// Parity (issue #10): the same input gives the same answer through every front end. A table of
// inputs — every real file in ../shared/data (the vocab files and the damaged one), the real
// Gemma and MiniLM models, a split GGUF set and a safetensors shard set with its index, and the
// same models over the mock Hub — is opened through the CLI (`weightpeek … --json`), through
// `inspect()` in Chromium, and through the page's "Download JSON"; the three JSON documents
// are compared field by field.
//
// Differences by nature, and how they are handled (each asserted, not ignored):
// - inspect() returns a JavaScript object: integers above 2^53 cannot be exact JavaScript
//   numbers. The comparison takes inspect()'s object through JSON.stringify and compares every
//   integer field that is below 2^53 exactly; no field of these inputs is larger (asserted).
// - A damaged header: the CLI prints what was read (exit 1), the page downloads the same, and
//   inspect() rejects with that document as `error.partial` — which is what is compared.
// - Names: the CLI is run in the files' folder with their bare names (as a browser knows a
//   picked File), and with the Hub paths for URLs, so part names and messages are the same.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import {
  launchBrowser, startAppServer, openApp, dropFiles, waitForSettled, errorBox, requireFile,
  repoRoot, sharedDir, dataDir, files, differences,
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const fixtures = path.join(repoRoot, 'target', 'remote-fixtures');
const CLI = [path.join(repoRoot, 'target', 'debug', 'weightpeek'), path.join(repoRoot, 'target', 'release', 'weightpeek')]
  .find((p) => fs.existsSync(p));

/** Runs the CLI with `args` in `cwd`; its stdout parsed, and its exit status. */
function cli(args, { cwd = repoRoot, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    execFile(CLI, [...args, '--json'], { cwd, env: { ...process.env, HF_TOKEN: '', ...env }, maxBuffer: 1 << 30 },
      (err, stdout, stderr) => {
        const code = err ? err.code : 0;
        if (typeof code !== 'number') return reject(err);
        try {
          resolve({ code, json: JSON.parse(stdout), stderr });
        } catch (e) {
          reject(new Error(`${args.join(' ')}: exit ${code}, not JSON (${e.message}): ${stderr}`));
        }
      });
  });
}

/** Integers in `v` at or above 2^53 (where a JavaScript number stops being exact). */
function hugeIntegers(v, at = '$', out = []) {
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) >= 2 ** 53) out.push(at);
  else if (Array.isArray(v)) v.forEach((x, i) => hugeIntegers(x, `${at}[${i}]`, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) hugeIntegers(x, `${at}.${k}`, out);
  return out;
}

describe('the same JSON from the CLI, inspect() and the page', { timeout: 20 * 60_000 }, () => {
  let browser; let server; let hub; let blankDir; let linkDirs = [];
  const local = [];
  const remote = [];

  before(async () => {
    requireFile(CLI ?? path.join(repoRoot, 'target', 'debug', 'weightpeek'), 'cargo build --bin weightpeek');
    const vocab = path.join(sharedDir, 'data', 'vocab');
    for (const dir of [vocab, path.join(vocab, 'history')]) {
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.gguf')).sort()) local.push({ label: f, dir, names: [f] });
    }
    local.push({ label: 'corrupt', dir: path.dirname(files.corrupt), names: [path.basename(files.corrupt)] });
    local.push({ label: 'gemma', dir: path.dirname(requireFile(files.gemma)), names: [path.basename(files.gemma)] });
    local.push({ label: 'minilm', dir: path.dirname(requireFile(files.minilm)), names: [path.basename(files.minilm)] });
    const split = JSON.parse(fs.readFileSync(requireFile(path.join(fixtures, 'split-gguf.json')), 'utf8'));
    local.push({ label: 'split set', dir: path.join(fixtures, 'split-gguf'), names: split.parts });
    const sharded = JSON.parse(fs.readFileSync(requireFile(path.join(fixtures, 'sharded-safetensors.json')), 'utf8'));
    local.push({ label: 'shard set', dir: path.join(fixtures, 'sharded-safetensors'), names: ['model.safetensors.index.json', ...sharded.parts] });
    // PyTorch checkpoints (issue #12): zip, legacy, TorchScript, and a malicious pickle.
    const torch = path.join(repoRoot, 'target', 'torch-fixtures');
    requireFile(path.join(torch, 'expected.json'), 'run tests/reference/torch_fixtures.py');
    for (const f of ['state-dict.pt', 'legacy.pth', 'zip64.pt', 'malicious-os-system.pt']) local.push({ label: f, dir: torch, names: [f] });
    const numpy = path.join(repoRoot, 'target', 'numpy-fixtures');
    requireFile(path.join(numpy, 'expected.json'), 'run tests/reference/numpy_fixtures.py');
    for (const f of ['f32.npy', 'fortran.npy', 'weights.npz', 'compressed.npz']) local.push({ label: f, dir: numpy, names: [f] });
    const silero = path.join(dataDir, 'silero-vad');
    requireFile(path.join(silero, 'silero_vad.jit'), 'run ../shared/scripts/fetch-real-models.py');
    local.push({ label: 'silero_vad.jit', dir: silero, names: ['silero_vad.jit'] });
    // ONNX: a real export whose weights are Constant nodes (some in If subgraphs), and one
    // with an initializer of every dtype.
    for (const f of ['silero_vad.onnx', 'silero_vad_op18_ifless.onnx']) local.push({ label: f, dir: silero, names: [f] });
    const onnx = path.join(repoRoot, 'target', 'onnx-fixtures');
    requireFile(path.join(onnx, 'expected.json'), 'run tests/reference/onnx_fixtures.py');
    local.push({ label: 'dtypes.onnx', dir: onnx, names: ['dtypes.onnx'] });

    // The mock Hub serves the same files (Gemma and MiniLM alone in their repositories).
    const only = (file) => {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-parity-'));
      fs.symlinkSync(file, path.join(d, path.basename(file)));
      linkDirs.push(d);
      return d;
    };
    hub = await startMockHub({
      repos: {
        'p/gemma': { dir: only(files.gemma) },
        'p/minilm': { dir: only(files.minilm) },
        'p/split': { dir: path.join(fixtures, 'split-gguf') },
        'p/sharded': { dir: path.join(fixtures, 'sharded-safetensors') },
        'p/torch': { dir: path.join(repoRoot, 'target', 'torch-fixtures') },
      },
    });
    const url = (repo, p) => `${hub.endpoint}/${repo}/resolve/main/${p}`;
    remote.push({ label: 'gemma by URL', url: url('p/gemma', path.basename(files.gemma)) });
    remote.push({ label: 'minilm by URL', url: url('p/minilm', path.basename(files.minilm)) });
    remote.push({ label: 'split set by URL of part 1', url: url('p/split', split.parts[0]) });
    remote.push({ label: 'shard set by URL of its index', url: url('p/sharded', 'model.safetensors.index.json') });
    remote.push({ label: 'PyTorch zip by URL', url: url('p/torch', 'state-dict.pt') });
    remote.push({ label: 'PyTorch legacy by URL', url: url('p/torch', 'legacy.pth') });

    blankDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-parity-page-'));
    fs.writeFileSync(path.join(blankDir, 'blank.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>');
    server = await startAppServer({ mounts: { '/t/': blankDir } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await hub?.close();
    for (const d of [blankDir, ...linkDirs]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  /** inspect() of local files (picked, so the browser holds File objects) or of a URL. */
  async function inspected(source) {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${server.url.replace(/\/?$/, '/')}t/blank.html`);
      if (source.paths) {
        const input = await page.evaluateHandle(() => {
          const el = document.createElement('input');
          el.type = 'file';
          el.multiple = true;
          el.id = 'files';
          document.body.append(el);
          return el;
        });
        await input.setInputFiles(source.paths);
      }
      return await page.evaluate(async ({ url, endpoint }) => {
        const wp = await import('/weightpeek.js');
        const src = url ?? [...document.querySelector('#files').files];
        try {
          return { json: JSON.stringify(await wp.inspect(src, { endpoint })), rejected: false };
        } catch (e) {
          return { json: e.partial ? JSON.stringify(e.partial) : null, rejected: true, message: e.message };
        }
      }, { url: source.url ?? null, endpoint: hub.endpoint });
    } finally {
      await context.close();
    }
  }

  /** The page's "Download JSON" after the files are dropped, or the URL pasted. */
  async function downloaded(source) {
    const page = await openApp(browser, server);
    try {
      if (source.paths) {
        await dropFiles(page, source.paths);
      } else {
        await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
        await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
        await page.fill('[data-testid=url-input]', source.url);
        await page.click('[data-testid=url-open]');
      }
      const state = await waitForSettled(page, { timeout: 120_000 });
      assert.ok(['ready', 'error'].includes(state), `${source.label}: ${state}`);
      const button = await page.$('[data-testid=export-json]');
      assert.ok(button, `${source.label}: a Download JSON button (${(await errorBox(page)).text})`);
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      return fs.readFileSync(await download.path(), 'utf8');
    } finally {
      await page.context().close();
    }
  }

  async function compare(source, cliRun) {
    const { code, json: fromCli } = cliRun;
    const page = JSON.parse(await downloaded(source));
    const api = await inspected(source);
    assert.ok(api.json, `${source.label}: inspect() gave a document (${api.message})`);
    const fromApi = JSON.parse(api.json);
    // A damaged header: exit 1 and a rejected inspect() carrying what was read.
    assert.equal(code !== 0, Boolean(fromCli.error), `${source.label}: exit ${code} and error ${fromCli.error}`);
    assert.equal(api.rejected, Boolean(fromCli.error), `${source.label}: inspect() rejects exactly when the header is damaged`);
    assert.deepEqual(hugeIntegers(fromCli), [], `${source.label}: integers beyond 2^53 would not be exact in inspect()`);
    const d1 = differences(fromCli, page);
    assert.deepEqual(d1, [], `${source.label}: CLI --json vs the page's Download JSON`);
    const d2 = differences(fromCli, fromApi);
    assert.deepEqual(d2, [], `${source.label}: CLI --json vs inspect()`);
    return fromCli;
  }

  it('local files: every real file, the two models, a split set and a shard set', async () => {
    const seen = [];
    for (const s of local) {
      const source = { label: s.label, paths: s.names.map((n) => path.join(s.dir, n)) };
      const run = await cli(s.names, { cwd: s.dir });
      const doc = await compare(source, run);
      seen.push(`${s.label}: ${doc.tensor_count} tensors, ${doc.metadata_count} keys`);
    }
    assert.equal(seen.length, local.length);
    console.log(`parity, local: ${seen.join('; ')}`);
  });

  it('the same models over the mock Hub', async () => {
    for (const s of remote) {
      const run = await cli([s.url], { env: { HF_ENDPOINT: hub.endpoint } });
      const doc = await compare({ label: s.label, url: s.url }, run);
      assert.ok(doc.tensor_count > 0, s.label);
    }
  });
});
