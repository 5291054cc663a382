// Per-engine speed (issue #20, item 1): the time from navigation to the summary, in Chromium,
// Firefox and WebKit, for the real Gemma 3 270M file picked from disk and for the same file
// from the mock Hub (a `?url=` link; resolve/ answers 302 to a second origin), `--runs` times
// each (default 5), one engine after the other; medians and each engine's ratio to the
// fastest. The journey is engines.mjs speedJourney, through drivers.mjs (the suite's drivers).
//
// Usage: node bench/engine_speed.mjs [--runs N] [--engines chromium,firefox,webkit]
//        (after trunk build --release; WebKit needs xvfb-run and WebKitWebDriver)
// Writes bench/engine_speed.json and prints a Markdown table for the README's Speed section.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startAppServer, files, repoRoot } from '../tests/e2e/helpers.mjs';
import { startMockHub } from '../tests/e2e/mock-hub.mjs';
import { speedJourney } from '../tests/e2e/engines.mjs';
import * as drivers from '../tests/e2e/drivers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('--runs', 5));
const engines = opt('--engines', 'chromium,firefox,webkit').split(',');
const REPO = 'weightpeek/gemma-3-270m-GGUF';

function version(engine) {
  const bin = { chromium: process.env.WEIGHTPEEK_CHROMIUM || '/usr/bin/chromium', firefox: drivers.FIREFOX, webkit: drivers.MINIBROWSER }[engine];
  try {
    if (engine === 'webkit') return `WebKitGTK ${execFileSync('dpkg-query', ['-W', '-f=${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).split('-')[0]}`;
    return execFileSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().replace(/^Mozilla /, '');
  } catch {
    return engine;
  }
}

const hubDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-speed-hub-'));
fs.symlinkSync(files.gemma, path.join(hubDir, path.basename(files.gemma)));
const server = await startAppServer();
const hub = await startMockHub({ repos: { [REPO]: { dir: hubDir } } });
const results = {};
try {
  for (const engine of engines) {
    const driver = await drivers[engine]();
    try {
      const r = await speedJourney(driver.open, server.url, hub, { repo: REPO, file: path.basename(files.gemma), runs });
      results[engine] = { version: version(engine), ...r };
      console.error(`${engine}: local ${r.local.map((x) => x.toFixed(0)).join(', ')} ms (median ${r.localMedian.toFixed(0)}); Hub URL ${r.remote.map((x) => x.toFixed(0)).join(', ')} ms (median ${r.remoteMedian.toFixed(0)})`);
    } finally {
      await driver.close();
    }
  }
} finally {
  await server.close();
  await hub.close();
  fs.rmSync(hubDir, { recursive: true, force: true });
}

const fastest = (k) => Math.min(...Object.values(results).map((r) => r[k]));
const date = new Date().toISOString().slice(0, 10);
let commit = '';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
fs.writeFileSync(path.join(repoRoot, 'bench', 'engine_speed.json'), `${JSON.stringify({ date, commit, runs, cores: os.cpus().length, results }, null, 2)}\n`);
console.log(`Navigation to the summary, ${date}, commit ${commit}, ${os.cpus().length} cores, median of ${runs} (ms):\n`);
console.log('| engine | Gemma 3 picked (ms) | × fastest | Gemma 3 from the mock Hub (ms) | × fastest |');
console.log('|---|---:|---:|---:|---:|');
for (const [engine, r] of Object.entries(results)) {
  console.log(`| ${r.version} | ${r.localMedian.toFixed(0)} | ${(r.localMedian / fastest('localMedian')).toFixed(2)} | ${r.remoteMedian.toFixed(0)} | ${(r.remoteMedian / fastest('remoteMedian')).toFixed(2)} |`);
}
