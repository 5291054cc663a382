// Benchmark: weightpeek's parser compiled to wasm, in headless Chromium, on header bytes that are
// already in memory (the page's work after Blob.slice has delivered them), for scripts/bench.sh.
//
// Usage: node bench/wasm.mjs [--stages] [--runs N] FILE...   (FILEs are header prefixes; dist/ built)
// With --stages: one JSON line per file, {"tool", "file", "runs", "stages": [{stage, median_ms,
// min_ms}, …]}, from the exported `bench_stages(bytes, runs)`, the same stage timer as the native
// examples/bench_stages.rs (src/view/stages.rs), for the speed ledger (bench/ledger.py).
// Prints one JSON line per file: {"tool": "weightpeek wasm (Chromium <version>)", "file", "runs",
// "median_ms", "min_ms", "tensors"}. Calls the exported `bench_header(bytes, runs)` of the app's
// wasm module (src/web/bench.rs), which parses and summarises the bytes `runs` times.
import path from 'node:path';
import { launchBrowser, startAppServer } from '../tests/e2e/helpers.mjs';

const args = process.argv.slice(2);
let runs = 30;
let stages = false;
if (args[0] === '--stages') { stages = true; runs = 10; args.shift(); }
if (args[0] === '--runs') { runs = Number(args[1]); args.splice(0, 2); }
const mounts = {};
args.forEach((f, i) => { mounts[`/bench${i}/`] = path.dirname(path.resolve(f)); });
const server = await startAppServer({ mounts });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_header, null, { timeout: 30_000 });
  const tool = `weightpeek wasm (Chromium ${browser.version()})`;
  for (const [i, f] of args.entries()) {
    const url = `/bench${i}/${path.basename(f)}`;
    const r = await page.evaluate(async ({ url, runs, stages }) => {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      if (stages) return { stages: window.wasmBindings.bench_stages(bytes, runs) };
      return window.wasmBindings.bench_header(bytes, runs);
    }, { url, runs, stages });
    console.log(JSON.stringify({ tool, file: f, runs, ...r }));
  }
} finally {
  await browser.close();
  await server.close();
}
