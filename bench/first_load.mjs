// Benchmark: a page's first load (issue #21 item 2), in headless Chromium against the mock Hub
// and a local server: the time from navigation to an element's first summary of Gemma 3 270M,
// and the bytes the page fetched for it (the app's files, gzip -9 of each; HTML aside), with
// the lean module first (www/weightpeek.js as built) and, in the same run, as before the split:
// the same entry importing the full module in its place (one module for everything). Then the
// full module's first use: the time from showing the Fit tab to its form. Then the page
// (index.html?url=<Gemma>): navigation to the first summary (the lean view of www/page.js) and
// to the page's app ready (the full module's view), next to the page as before the split (its
// start-up importing the full module at once). Medians of RUNS.
//
// Usage: node bench/first_load.mjs [RUNS]   (dist/ built) — prints a Markdown table and one
// JSON line. Reports; never fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { launchBrowser, startAppServer, files, distDir, closeAll } from '../tests/e2e/helpers.mjs';
import { startMockHub } from '../tests/e2e/mock-hub.mjs';

const runs = Number(process.argv[2] ?? 5);
const REPO = 'unsloth/gemma-3-270m-it-GGUF';
const FILE = 'gemma-3-270m-it-Q4_K_M.gguf';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-bench-first-'));
const models = path.join(tmp, 'models');
fs.mkdirSync(models);
fs.symlinkSync(files.gemma, path.join(models, FILE));
// "Before": the entry with the full module where the lean one is imported.
const before = path.join(tmp, 'before');
fs.mkdirSync(before);
const entry = fs.readFileSync(path.join(distDir, 'weightpeek.js'), 'utf8')
  .replace('from "./weightpeek-lite.js"', 'from "./weightpeek-web.js"')
  .replace('new URL("./weightpeek-lite_bg.wasm"', 'new URL("./weightpeek-web_bg.wasm"');
fs.writeFileSync(path.join(before, 'weightpeek.js'), entry);
for (const f of ['weightpeek-web.js', 'weightpeek-web_bg.wasm', 'style.css', 'scan-worker.js']) {
  fs.symlinkSync(path.join(distDir, f), path.join(before, f));
}
const ST_REPO = 'sentence-transformers/all-MiniLM-L6-v2';
const hub = await startMockHub({ repos: { [REPO]: { dir: models }, [ST_REPO]: { dir: path.dirname(files.minilm) } } });
const server = await startAppServer({ mounts: { '/before/': before } });
const page = (dir) => `<!doctype html><meta charset="utf-8"><title>one view</title>
<script type="module" src="${dir}weightpeek.js"></script>
<weightpeek-view id="v" src="${hub.endpoint}/${REPO}/resolve/main/${FILE}"></weightpeek-view>`;
fs.writeFileSync(path.join(tmp, 'after.html'), page('/'));
fs.writeFileSync(path.join(before, 'index.html'), page('/before/'));
const pages = { after: '/bench-after.html', before: '/before/' };
fs.symlinkSync(path.join(tmp, 'after.html'), path.join(distDir, 'bench-after.html'));
const browser = await launchBrowser();
const gz = (p) => zlib.gzipSync(fs.readFileSync(p), { level: 9 }).length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {};
try {
  for (const [name, at] of Object.entries(pages)) {
    const times = []; const upgrades = []; let bytes = 0; let raw = 0;
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const p = await context.newPage();
      const own = new Set();
      const origin = server.url.replace(/\/$/, '');
      p.on('request', (r) => { if (r.url().startsWith(origin)) own.add(new URL(r.url()).pathname); });
      const t = Date.now();
      await p.goto(`${origin}${at}`);
      await p.waitForFunction(() => document.querySelector('#v')?.dataset.state === 'ready', null, { timeout: 120_000, polling: 20 });
      times.push(Date.now() - t);
      const got = [...own].filter((u) => !u.endsWith('/') && !u.endsWith('.html'))
        .map((u) => (u.startsWith('/before/') ? path.join(before, u.slice(8)) : path.join(distDir, u.slice(1))));
      bytes = got.reduce((a, f) => a + gz(f), 0);
      raw = got.reduce((a, f) => a + fs.statSync(f).size, 0);
      const t2 = Date.now();
      await p.evaluate(() => document.querySelector('#v').setAttribute('tab', 'fit'));
      await p.locator('#v [data-testid=fit-form]').waitFor({ state: 'attached', timeout: 60_000 });
      upgrades.push(Date.now() - t2);
      await context.close();
    }
    result[name] = { first_summary_ms: median(times), first_load_gzip_bytes: bytes, first_load_raw_bytes: raw, fit_tab_ms: median(upgrades), runs };
  }
  // The page: lean start (as built) and as before the split (the full module at once).
  const beforePage = path.join(tmp, 'before-page');
  fs.mkdirSync(beforePage);
  for (const f of fs.readdirSync(distDir)) {
    if (!['index.html', 'page.js', 'sw.js', 'bench-after.html'].includes(f)) fs.symlinkSync(path.join(distDir, f), path.join(beforePage, f));
  }
  fs.writeFileSync(path.join(beforePage, 'page.js'), 'import init from "./weightpeek-web.js";\nawait init({ module_or_path: new URL("./weightpeek-web_bg.wasm", import.meta.url) });\n');
  fs.writeFileSync(path.join(beforePage, 'index.html'), fs.readFileSync(path.join(distDir, 'index.html'), 'utf8'));
  const pageServer = await startAppServer({ mounts: { '/before-page/': beforePage } });
  try {
    const gemma = `${hub.endpoint}/${REPO}/resolve/main/${FILE}`;
    const minilm = `${hub.endpoint}/${ST_REPO}/resolve/main/model.safetensors`;
    const variants = {
      page_before: ['/before-page/', gemma, null], page_after: ['/', gemma, null],
      // Over a 20 Mbit/s link with 20 ms latency (Chromium's network emulation), on a model
      // whose header is small (MiniLM: the modules are most of the bytes).
      page_before_20mbit: ['/before-page/', minilm, 20e6], page_after_20mbit: ['/', minilm, 20e6],
    };
    for (const [name, [at, model, bits]] of Object.entries(variants)) {
      const firsts = []; const readies = []; let bytes = 0; let raw = 0;
      for (let i = 0; i < runs; i++) {
        const context = await browser.newContext();
        const p = await context.newPage();
        if (bits) {
          const cdp = await context.newCDPSession(p);
          await cdp.send('Network.enable');
          await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: bits / 8, uploadThroughput: bits / 8 });
        }
        const origin = pageServer.url.replace(/\/$/, '');
        const fetched = [];
        p.on('request', (r) => { if (r.url().startsWith(origin)) fetched.push(new URL(r.url()).pathname); });
        const t = Date.now();
        await p.goto(`${origin}${at}?url=${encodeURIComponent(model)}`);
        // The first summary: the lean view's, or (before) the app's.
        await p.waitForFunction(() => document.querySelector('[data-testid=lean-view]')?.dataset.state === 'ready' || document.body.dataset.state === 'ready', null, { timeout: 120_000, polling: 20 });
        firsts.push(Date.now() - t);
        const got = [...new Set(fetched)].filter((u) => !u.endsWith('/') && !u.endsWith('.html'))
          .map((u) => path.join(u.startsWith('/before-page/') ? beforePage : distDir, u.replace(/^\/(before-page\/)?/, '')))
          .filter((f) => !(name.startsWith('page_after') && /weightpeek-web/.test(f)));
        bytes = got.reduce((a, f) => a + gz(f), 0);
        raw = got.reduce((a, f) => a + fs.statSync(f).size, 0);
        await p.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 120_000, polling: 20 });
        readies.push(Date.now() - t);
        await context.close();
      }
      result[name] = { first_summary_ms: median(firsts), first_load_gzip_bytes: bytes, first_load_raw_bytes: raw, app_ready_ms: median(readies), runs };
    }
  } finally {
    await pageServer.close();
  }
  const kb = (r) => `${(r.first_load_gzip_bytes / 1024).toFixed(0)} KB | ${(r.first_load_raw_bytes / 1024).toFixed(0)} KB`;
  const row = (n, r) => `| ${n} | ${kb(r)} | ${r.first_summary_ms} ms | ${r.fit_tab_ms} ms |`;
  console.log('| build | first load (gzip) | (raw) | navigation to the summary | Fit tab shown |');
  console.log('|---|---|---|---|---|');
  console.log(row('one module (before the split)', result.before));
  console.log(row('lean first, full on first use', result.after));
  const pageRow = (n, r) => `| ${n} | ${kb(r)} | ${r.first_summary_ms} ms | ${r.app_ready_ms} ms |`;
  console.log('\n| the page (`?url=`) | first load (gzip) | (raw) | navigation to the first summary | the page\'s app ready |');
  console.log('|---|---|---|---|---|');
  console.log(pageRow('Gemma, local: full module at once (before)', result.page_before));
  console.log(pageRow('Gemma, local: lean start, the app after', result.page_after));
  console.log(pageRow('MiniLM, 20 Mbit/s: full module at once (before)', result.page_before_20mbit));
  console.log(pageRow('MiniLM, 20 Mbit/s: lean start, the app after', result.page_after_20mbit));
  console.log(JSON.stringify(result));
} finally {
  fs.rmSync(path.join(distDir, 'bench-after.html'), { force: true });
  await closeAll([browser, server, hub], [tmp]);
}
