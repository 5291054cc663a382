// Benchmark: the scan of every weight (issue #22) compiled to wasm32, in a Web Worker of headless
// Chromium (scripts/bench.sh scan): scan() of weightpeek.js on local Files, from the page cache
// (one warm-up scan of each file first). Times two spans in the page: the whole call, and the
// data phase, from the worker's first progress event (the header is opened by then) to the
// result. Prints a Markdown table: seconds and MB/s of tensor bytes per file, medians of RUNS.
// Reports; passes or fails nothing.
// Usage: node bench/scan_wasm.mjs RUNS FILE...   (dist/ must be built)
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, startAppServer } from '../tests/e2e/helpers.mjs';

const [runs, ...files] = process.argv.slice(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await startAppServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 60_000 });
  console.log(`| file (Chromium ${browser.version()}, default Workers; lanes = Workers × 2) | tensor data | whole call | data phase |`);
  console.log('|---|---|---|---|');
  for (const file of files) {
    const input = await page.evaluateHandle(() => {
      const el = document.createElement('input');
      el.type = 'file';
      document.body.append(el);
      return el;
    });
    await input.setInputFiles(file);
    const times = [];
    let bytes = 0;
    let threads = 0;
    for (let r = 0; r <= Number(runs); r++) {
      const t = await input.evaluate(async (el) => {
        const { scan } = await import('./weightpeek.js');
        const t0 = performance.now();
        let first = null;
        const doc = await scan(el.files[0], { onProgress: () => { first ??= performance.now(); } });
        const t1 = performance.now();
        return { whole: (t1 - t0) / 1e3, data: (t1 - first) / 1e3, bytes: doc.bytes_read, threads: doc.threads };
      });
      bytes = t.bytes;
      threads = t.threads;
      if (r > 0) times.push(t); // the first run warms the cache and the module
    }
    await input.evaluate((el) => el.remove());
    const whole = median(times.map((t) => t.whole));
    const data = median(times.map((t) => t.data));
    const mb = (s) => `${(bytes / s / 1e6).toFixed(0)} MB/s`;
    console.log(`| ${path.basename(file)} (${threads} lanes) | ${(bytes / 1e6).toFixed(0)} MB | ${whole.toFixed(3)} s, ${mb(whole)} | ${data.toFixed(3)} s, ${mb(data)} |`);
  }
} finally {
  await browser.close();
  await server.close();
}
