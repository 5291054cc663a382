// The npm package (issue #21 items 1 and 4), as a docs author uses it: scripts/npm_pack.mjs
// builds the tarball from dist/, which is installed with `npm install <tarball>` into a fresh
// temporary project (no registry needed: the package has no dependencies) and used
//   1. self-hosted: its files copied into a folder of a static site served under a subpath
//      (/project/site/), loaded by a page two folders deeper with a relative path;
//   2. through an import map (`import { inspect } from "weightpeek"` in an inline module);
// each page running under the Content-Security-Policy the package's README states, against the
// mock Hub, in Chromium; the element's facts are gguf-py's (target/reference/), with a
// screenshot of each in target/e2e-screenshots/npm-*.png.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  launchBrowser, loadReference, requireFile, files, repoRoot, distDir, screenshot,
} from './helpers.mjs';
import { startServer } from './server.mjs';
import { startMockHub } from './mock-hub.mjs';

const GGUF_REPO = 'unsloth/gemma-3-270m-it-GGUF';
const GGUF_FILE = 'gemma-3-270m-it-Q4_K_M.gguf';
const version = /^version = "([^"]+)"/m.exec(fs.readFileSync(path.join(repoRoot, 'Cargo.toml'), 'utf8'))[1];

/** The policy of npm/README.md, with the mock Hub's two origins as the model hosts. */
function policy(hub, extraScript = []) {
  return [
    "default-src 'none'",
    ["script-src 'self' 'wasm-unsafe-eval'", ...extraScript].join(' '),
    "style-src 'self'",
    "worker-src 'self'",
    `connect-src 'self' ${hub.endpoint} ${hub.cdnOrigin}`,
  ].join('; ');
}

const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;

describe('the npm package, installed and used as a docs author would', { timeout: 10 * 60_000 }, () => {
  let tmp; let project; let site; let tarball; let browser; let server; let hub; let gemmaRef; let modelUrl;
  const violations = [];

  before(async () => {
    requireFile(path.join(distDir, 'weightpeek.js'), 'build the app: trunk build --release');
    requireFile(files.gemma);
    gemmaRef = loadReference('gemma-3-270m-q4_k_m');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-npm-'));
    const packed = JSON.parse(execFileSync('node', [path.join(repoRoot, 'scripts', 'npm_pack.mjs'), '--out', path.join(tmp, 'packs')], { encoding: 'utf8' }));
    tarball = packed.tarball;
    project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'docs-site', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], { cwd: project, stdio: 'pipe' });

    // The site: a copy of the package's files in site/weightpeek/, a page in site/guide/models/.
    site = path.join(tmp, 'site');
    fs.cpSync(path.join(project, 'node_modules', 'weightpeek'), path.join(site, 'weightpeek'), { recursive: true });
    fs.cpSync(path.join(project, 'node_modules'), path.join(site, 'node_modules'), { recursive: true });
    const models = fs.mkdtempSync(path.join(tmp, 'models-'));
    fs.symlinkSync(files.gemma, path.join(models, GGUF_FILE));
    hub = await startMockHub({ repos: { [GGUF_REPO]: { dir: models } } });
    modelUrl = `${hub.endpoint}/${GGUF_REPO}/resolve/main/${GGUF_FILE}`;
    server = await startServer({ root: path.join(tmp, 'empty-root'), mounts: { '/project/site/': site } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await hub?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function open(pagePath) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
    const fetched = [];
    page.on('request', (r) => fetched.push(r.url()));
    await page.goto(`${server.url.replace(/\/$/, '')}/project/site/${pagePath}`);
    return { page, errors, fetched };
  }

  async function facts(page, sel) {
    await page.waitForFunction((s) => ['ready', 'error'].includes(document.querySelector(s)?.dataset.state), sel, { timeout: 90_000, polling: 50 });
    const v = page.locator(sel);
    assert.equal(await page.evaluate((s) => document.querySelector(s).dataset.state, sel), 'ready',
      await v.locator('[data-testid=error]').first().textContent().catch(() => ''));
    return {
      tensors: await v.locator('[data-testid=tensor-count]').getAttribute('data-value'),
      params: await v.locator('[data-testid=parameter-count]').getAttribute('data-value'),
    };
  }

  it('the tarball holds the entry, its types, and content-hashed assets, at the crate version', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', 'weightpeek', 'package.json'), 'utf8'));
    assert.equal(pkg.version, version);
    assert.equal(path.basename(tarball), `weightpeek-${version}.tgz`);
    assert.deepEqual(pkg.exports['.'], { types: './weightpeek.d.ts', default: './weightpeek.js' });
    const names = fs.readdirSync(path.join(project, 'node_modules', 'weightpeek')).sort();
    assert.deepEqual(names.filter((n) => !/\.[0-9a-f]{10}\.(js|wasm|css)$/.test(n)),
      ['LICENSE-APACHE', 'LICENSE-MIT', 'README.md', 'package.json', 'weightpeek.d.ts', 'weightpeek.js']);
    for (const stem of ['weightpeek-web_bg', 'weightpeek-web', 'style', 'scan-worker']) {
      assert.equal(names.filter((n) => n.startsWith(`${stem}.`) && /\.[0-9a-f]{10}\./.test(n)).length, 1, stem);
    }
    // Each hashed name is the hash of that file's bytes.
    for (const n of names.filter((x) => /\.[0-9a-f]{10}\./.test(x))) {
      const h = crypto.createHash('sha256').update(fs.readFileSync(path.join(project, 'node_modules', 'weightpeek', n))).digest('hex').slice(0, 10);
      assert.ok(n.includes(`.${h}.`), `${n} is named by its content`);
    }
  });

  it('self-hosted under a subpath, loaded with a relative path, under the stated CSP', async () => {
    const dir = path.join(site, 'guide', 'models');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy(hub)}">
<title>Models</title>
<script type="module" src="../../weightpeek/weightpeek.js"></script></head>
<body><h1>Our model</h1><p>Gemma 3 270M, Q4_K_M:</p>
<weightpeek-view id="v" src="${modelUrl}" height="420"></weightpeek-view></body></html>`);
    const { page, errors, fetched } = await open('guide/models/');
    const f = await facts(page, '#v');
    assert.equal(f.tensors, String(gemmaRef.tensor_count));
    assert.equal(BigInt(f.params), BigInt(gemmaRef.parameter_count));
    // Every asset came from the package's folder under the subpath.
    const own = fetched.filter((u) => u.startsWith(server.url.replace(/\/$/, '')));
    const assets = own.filter((u) => !u.endsWith('/guide/models/')).map((u) => new URL(u).pathname);
    assert.ok(assets.length >= 4, assets.join(', '));
    assert.ok(assets.every((p) => p.startsWith('/project/site/weightpeek/')), assets.join(', '));
    assert.deepEqual(errors, []);
    assert.deepEqual(violations, []);
    await screenshot(page, 'npm-self-hosted-subpath');
    await page.context().close();
  });

  it('through an import map: import { inspect } from "weightpeek"', async () => {
    const importMap = JSON.stringify({ imports: { weightpeek: './node_modules/weightpeek/weightpeek.js' } });
    const module = `import { inspect } from "weightpeek";
const m = await inspect(${JSON.stringify(modelUrl)});
document.querySelector("#out").textContent = m.tensor_count + " tensors, " + m.parameter_count + " parameters";
document.body.dataset.done = "1";`;
    fs.writeFileSync(path.join(site, 'importmap.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy(hub, [sha256(importMap), sha256(module)])}">
<title>Import map</title>
<script type="importmap">${importMap}</script>
<script type="module">${module}</script></head>
<body><p id="out">…</p><weightpeek-view id="v" src="${modelUrl}" tab="tensors" height="380"></weightpeek-view></body></html>`);
    const { page, errors } = await open('importmap.html');
    await page.waitForFunction(() => document.body.dataset.done === '1', null, { timeout: 90_000 });
    assert.equal(await page.textContent('#out'), `${gemmaRef.tensor_count} tensors, ${gemmaRef.parameter_count} parameters`);
    const f = await facts(page, '#v');
    assert.equal(f.tensors, String(gemmaRef.tensor_count));
    assert.deepEqual(errors, []);
    assert.deepEqual(violations, []);
    await screenshot(page, 'npm-import-map');
    await page.context().close();
  });
});
