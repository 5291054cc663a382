// Benchmark (issue #3 "Speed"; a report, not a test): remote header reads over the mock Hub with
// 50 ms added latency per request, weightpeek (the built page in headless chromium, URL pasted)
// against npm @huggingface/gguf's gguf(url) in node, on the same URLs. Counts come from the mock's
// request log: HTTP requests (hub 302s + CDN GETs; CORS preflights listed apart), body bytes sent,
// and the time until the summary is shown (weightpeek: click to body[data-state=ready]) or gguf()
// resolves. Also a generated 163-shard safetensors set (weightpeek only; target ≤ 2 requests/shard).
//
// Usage: node bench/remote.mjs FIXTURES_DIR   (scripts/bench.sh builds the fixtures and dist/)
// Prints a markdown table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { gguf } from '@huggingface/gguf';
import { launchBrowser, startAppServer, openApp, resetCounters, waitForSettled, files } from '../tests/e2e/helpers.mjs';
import { startMockHub } from '../tests/e2e/mock-hub.mjs';

const fixtures = path.resolve(process.argv[2] ?? 'target/remote-fixtures');
const LATENCY = 50;
const gemmaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-bench-'));
fs.symlinkSync(files.gemma, path.join(gemmaDir, path.basename(files.gemma)));
const hub = await startMockHub({
  repos: {
    'bench/gemma': { dir: gemmaDir },
    'bench/big-vocab': { dir: path.join(fixtures, 'big-vocab') },
    'bench/shards-163': { dir: path.join(fixtures, 'shards-163') },
  },
  latencyMs: LATENCY,
});
const server = await startAppServer();
const browser = await launchBrowser();

function counts() {
  const real = hub.log.filter((r) => r.method !== 'OPTIONS');
  return {
    requests: real.length,
    hub: real.filter((r) => r.server === 'hub').length,
    cdn: real.filter((r) => r.server === 'cdn').length,
    preflights: hub.log.length - real.length,
    bytes: hub.log.reduce((n, r) => n + r.bytes, 0),
  };
}

async function weightpeek(url) {
  const page = await openApp(browser, server);
  try {
    await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
    await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
    await page.fill('[data-testid=url-input]', url);
    await resetCounters(page);
    hub.clearLog();
    const t = performance.now();
    await page.click('[data-testid=url-open]');
    const state = await waitForSettled(page, { timeout: 300_000 });
    const ms = performance.now() - t;
    if (state !== 'ready') throw new Error(`weightpeek: ${url} ended in state ${state}`);
    const tensors = Number(await page.getAttribute('[data-testid=tensor-count]', 'data-value'));
    return { ms, tensors, ...counts() };
  } finally {
    await page.context().close();
  }
}

async function hf(url) {
  hub.clearLog();
  const t = performance.now();
  const r = await gguf(url);
  const ms = performance.now() - t;
  return { ms, tensors: r.tensorInfos.length, ...counts() };
}

// The native CLI (release build) on the same URL: its own Range client (ureq), the same rules.
const CLI = path.resolve('target/release/weightpeek');
async function cli(url) {
  hub.clearLog();
  const t = performance.now();
  const out = await new Promise((resolve, reject) => {
    execFile(CLI, [url, '--json'], { env: { ...process.env, HF_ENDPOINT: hub.endpoint }, maxBuffer: 1 << 30 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout)));
  });
  const ms = performance.now() - t;
  return { ms, tensors: JSON.parse(out).tensor_count, ...counts() };
}

const header = (name) => {
  const ref = JSON.parse(fs.readFileSync(path.join(fixtures, `${name}.json`), 'utf8'));
  return ref.data_offset ?? ref.header_bytes;
};
const gemmaRef = JSON.parse(fs.readFileSync(path.resolve('target/reference/gemma-3-270m-q4_k_m.json'), 'utf8'));
const rows = [];
const KiB = 1024;
for (const [label, url, hdr] of [
  ['Gemma 3 270M Q4_K_M', `${hub.endpoint}/bench/gemma/resolve/main/${path.basename(files.gemma)}`, gemmaRef.data_offset],
  ['generated GGUF, 300k tokens + merges', `${hub.endpoint}/bench/big-vocab/resolve/main/big-vocab.gguf`, header('big-vocab')],
]) {
  const w = await weightpeek(url);
  const c = await cli(url);
  const h = await hf(url);
  rows.push({ label, hdr, tool: 'weightpeek (chromium)', ...w });
  rows.push({ label, hdr, tool: 'weightpeek CLI', ...c });
  rows.push({ label, hdr, tool: '@huggingface/gguf (node)', ...h });
}
const shardRef = JSON.parse(fs.readFileSync(path.join(fixtures, 'shards-163.json'), 'utf8'));
const s = await weightpeek(`${hub.endpoint}/bench/shards-163/resolve/main/model.safetensors.index.json`);
rows.push({ label: `163 safetensors shards (${shardRef.tensor_count} tensors)`, hdr: shardRef.header_bytes, tool: 'weightpeek (chromium)', ...s });
const sc = await cli(`${hub.endpoint}/bench/shards-163/resolve/main/model.safetensors.index.json`);
rows.push({ label: `163 safetensors shards (${shardRef.tensor_count} tensors)`, hdr: shardRef.header_bytes, tool: 'weightpeek CLI', ...sc });

console.log(`Mock Hub on 127.0.0.1 with ${LATENCY} ms added per request; resolve/ answers 302 to a CDN port.`);
console.log('| file | header bytes | tool | requests (hub 302/file + CDN) | bytes received | bytes / (header × 1.25 + 256 KiB) | time to summary |');
console.log('|---|---:|---|---:|---:|---:|---:|');
for (const r of rows) {
  const budget = r.hdr * 1.25 + 256 * KiB * (r.label.startsWith('163') ? 163 : 1);
  console.log(`| ${r.label} | ${r.hdr.toLocaleString('en')} | ${r.tool} | ${r.requests} (${r.hub} + ${r.cdn}) | ${r.bytes.toLocaleString('en')} | ${(r.bytes / budget).toFixed(2)} | ${Math.round(r.ms)} ms |`);
}
await browser.close();
await server.close();
await hub.close();
fs.rmSync(gemmaDir, { recursive: true, force: true });
