// The npm package (issue #21 items 1 and 4), as a docs author uses it: scripts/npm_pack.mjs
// builds the tarball from dist/, which is installed with `npm install <tarball>` into a fresh
// temporary project (no registry needed: the package has no dependencies) and used
//   1. self-hosted: its files copied into a folder of a static site served under a subpath
//      (/project/site/), loaded by a page two folders deeper with a relative path;
//   2. through an import map (`import { inspect } from "weightpeek"` in an inline module);
//   3. bundled by Vite (`import "weightpeek"` in the project's main.js, `vite build --base ./`),
//      the build served under the subpath, where scan() also runs its Worker (which the bundler
//      must build with its imports) and gives the CLI's `weightpeek scan --json` per tensor;
//   4. in an MkDocs (Material) site: the package's files in docs/weightpeek/, loaded by
//      `extra_javascript` with `type: module`, the element in a Markdown page with theme="site",
//      the built site served under the subpath; the view is light with the site's default
//      scheme and dark with its slate scheme (colours read from www/style.css);
// pages 1-3 running under the Content-Security-Policy the package's README states, against the
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
  cliBinary,
  launchBrowser, loadReference, requireFile, files, repoRoot, distDir, screenshot,
} from './helpers.mjs';
import { startServer } from './server.mjs';
import { startMockHub } from './mock-hub.mjs';

const CLI = cliBinary();
const SAMPLE = path.join(repoRoot, 'www', 'sample.gguf');

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
    const samples = fs.mkdtempSync(path.join(tmp, 'sample-'));
    fs.copyFileSync(SAMPLE, path.join(samples, 'sample.gguf'));
    hub = await startMockHub({ repos: { [GGUF_REPO]: { dir: models }, 'weightpeek/sample': { dir: samples } } });
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

  async function open(pagePath, { init } = {}) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    if (init) await context.addInitScript(init);
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
    for (const stem of ['weightpeek-web_bg', 'weightpeek-web', 'weightpeek-lite_bg', 'weightpeek-lite', 'style', 'scan-worker']) {
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

  it('a module that cannot load says why inside the element: a CSP without connect-src \'self\' or \'wasm-unsafe-eval\', a missing wasm, an HTML page in its place, no SIMD', async () => {
    // The stated policy less 'self' in connect-src: the wasm's own download is blocked.
    const blockedPolicy = policy(hub).replace("connect-src 'self' ", 'connect-src ');
    /** Writes dir/index.html: one element, the entry at `entry`, under `csp`. */
    const page = (dir, csp, entry) => {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>weightpeek</title>
<script type="module" src="${entry}"></script></head>
<body><weightpeek-view id="v" src="${modelUrl}"></weightpeek-view></body></html>`);
    };
    page(path.join(site, 'guide', 'no-self'), blockedPolicy, '../../weightpeek/weightpeek.js');
    // A copy of the package without its .wasm (a deploy that left it out).
    const broken = path.join(site, 'broken');
    fs.cpSync(path.join(project, 'node_modules', 'weightpeek'), path.join(broken, 'weightpeek'), { recursive: true });
    // (The lean module's: what the element loads first.)
    const wasmName = fs.readdirSync(path.join(broken, 'weightpeek')).find((n) => n.startsWith('weightpeek-lite_bg.') && n.endsWith('.wasm'));
    fs.rmSync(path.join(broken, 'weightpeek', wasmName));
    page(broken, policy(hub), './weightpeek/weightpeek.js');
    // A policy without 'wasm-unsafe-eval': the module may be fetched but not compiled.
    page(path.join(site, 'guide', 'no-wasm-eval'), policy(hub).replace(" 'wasm-unsafe-eval'", ''), '../../weightpeek/weightpeek.js');
    // The wasm's address answered by an HTML page (a server's index page in a missing file's
    // place): here a folder of that name holding an index.html.
    const html = path.join(site, 'html-wasm');
    fs.cpSync(path.join(project, 'node_modules', 'weightpeek'), path.join(html, 'weightpeek'), { recursive: true });
    fs.rmSync(path.join(html, 'weightpeek', wasmName));
    fs.mkdirSync(path.join(html, 'weightpeek', wasmName));
    fs.writeFileSync(path.join(html, 'weightpeek', wasmName, 'index.html'), '<!doctype html><title>Home</title><p>Welcome</p>');
    page(html, policy(hub), './weightpeek/weightpeek.js');
    // A browser without WebAssembly SIMD (none is at hand: Chromium, Firefox and WebKit all have
    // it), simulated as such a browser behaves: the SIMD probe does not validate and a module
    // using SIMD does not compile.
    page(path.join(site, 'no-simd'), policy(hub), '../weightpeek/weightpeek.js');
    const noSimd = () => {
      const { validate, instantiate } = WebAssembly;
      const simd = (bytes) => bytes.length === 31 || bytes.byteLength === 31;
      const refuse = () => Promise.reject(new WebAssembly.CompileError('WebAssembly.instantiate(): invalid opcode 0xfd'));
      WebAssembly.validate = (b) => (simd(b) ? false : validate(b));
      WebAssembly.instantiate = (b, ...rest) => (b instanceof WebAssembly.Module ? instantiate(b, ...rest) : refuse());
      WebAssembly.instantiateStreaming = () => refuse();
    };
    const said = {};
    for (const [name, at, want, init] of [
      ['no-self', 'guide/no-self/', /Content-Security-Policy \(connect-src\) does not allow fetching .*weightpeek-lite_bg\.[0-9a-f]{10}\.wasm: add 'self'/],
      ['missing', 'broken/', /weightpeek-lite_bg\.[0-9a-f]{10}\.wasm answered 404/],
      ['no-wasm-eval', 'guide/no-wasm-eval/', /Content-Security-Policy does not allow compiling WebAssembly: add 'wasm-unsafe-eval' to script-src/],
      ['html-type', 'html-wasm/', /weightpeek-lite_bg\.[0-9a-f]{10}\.wasm is served as text\/html, not application\/wasm \(an HTML page/],
      ['no-simd', 'no-simd/', /this browser cannot run WebAssembly SIMD, which weightpeek needs \(Chrome or Edge 91\+, Firefox 89\+, Safari 16\.4\+\)/, noSimd],
    ]) {
      const { page } = await open(at, { init });
      await page.waitForFunction(() => document.querySelector('#v')?.dataset.state === 'error', null, { timeout: 30_000 });
      const text = await page.locator('#v [data-testid=load-error]').textContent();
      assert.match(text, want, name);
      assert.equal(await page.locator('#v [data-testid=load-error]').getAttribute('role'), 'alert');
      said[name] = text;
      await screenshot(page, `npm-load-error-${name}`);
      await page.context().close();
    }
    console.log(`# load errors: ${JSON.stringify(said)}`);
    violations.length = 0; // this test's own policy violations are wanted
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

  it('bundled by Vite: import "weightpeek", built with a relative base, scan() in a bundled Worker', async () => {
    requireFile(CLI ?? '', 'cargo build --bin weightpeek');
    const sampleUrl = `${hub.endpoint}/weightpeek/sample/resolve/main/sample.gguf`;
    fs.writeFileSync(path.join(project, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy(hub)}">
<title>Vite</title>
<script type="module" src="./main.js"></script></head>
<body><p id="out">…</p><weightpeek-view id="v" src="${modelUrl}" tab="types" height="380"></weightpeek-view></body></html>`);
    fs.writeFileSync(path.join(project, 'main.js'), `import "weightpeek";
import { scan } from "weightpeek";
scan(${JSON.stringify(sampleUrl)}).then((r) => {
  window.__scan = r;
  document.querySelector("#out").textContent = "scanned " + r.tensors.length + " tensors";
}, (e) => { window.__scanError = String(e); });
`);
    const vite = path.join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
    execFileSync('node', [vite, 'build', '--base', './', '--outDir', path.join(site, 'app'), '--emptyOutDir', '--logLevel', 'warn'], { cwd: project, stdio: 'pipe' });
    const built = fs.readdirSync(path.join(site, 'app', 'assets'));
    assert.ok(built.some((n) => n.endsWith('.wasm')), built.join(', '));

    const { page, errors } = await open('app/');
    const f = await facts(page, '#v');
    assert.equal(f.tensors, String(gemmaRef.tensor_count));
    assert.equal(BigInt(f.params), BigInt(gemmaRef.parameter_count));
    await page.waitForFunction(() => window.__scan || window.__scanError, null, { timeout: 90_000 });
    assert.equal(await page.evaluate(() => window.__scanError ?? null), null);
    const got = await page.evaluate(() => window.__scan);
    const want = JSON.parse(execFileSync(CLI, ['scan', SAMPLE, '--json'], { encoding: 'utf8' }));
    const pick = (t) => [t.name, t.type, t.count, t.nan, t.inf, t.zeros, t.min, t.max];
    assert.deepEqual(got.tensors.map(pick), want.tensors.map(pick));
    assert.deepEqual(got.findings.map((x) => x.id ?? x.code), want.findings.map((x) => x.id ?? x.code));
    assert.deepEqual(errors, []);
    assert.deepEqual(violations, []);
    await screenshot(page, 'npm-vite-build');
    await page.context().close();
  });

  it('in an MkDocs Material site under a subpath, following the site\'s light and dark scheme', async () => {
    const mkdocs = path.join(repoRoot, '.venv', 'bin', 'mkdocs');
    requireFile(mkdocs, 'scripts/install.sh installs mkdocs-material into .venv');
    const docsProject = path.join(tmp, 'mkdocs');
    fs.mkdirSync(path.join(docsProject, 'docs'), { recursive: true });
    fs.cpSync(path.join(project, 'node_modules', 'weightpeek'), path.join(docsProject, 'docs', 'weightpeek'), { recursive: true });
    fs.writeFileSync(path.join(docsProject, 'mkdocs.yml'), `site_name: Models
site_url: http://127.0.0.1/project/site/docs/
theme:
  name: material
  font: false
  palette:
    - scheme: default
    - scheme: slate
extra_javascript:
  - path: weightpeek/weightpeek.js
    type: module
`);
    fs.writeFileSync(path.join(docsProject, 'docs', 'index.md'), `# Our model

Gemma 3 270M, quantised to Q4_K_M:

<weightpeek-view id="v" src="${modelUrl}" theme="site" height="360"></weightpeek-view>

It has a tokenizer and a chat template.
`);
    execFileSync(mkdocs, ['build', '--quiet', '--site-dir', path.join(site, 'docs')], { cwd: docsProject, stdio: 'pipe' });
    const { page, errors } = await open('docs/');
    const f = await facts(page, '#v');
    assert.equal(f.tensors, String(gemmaRef.tensor_count));
    // The view's background: the light or the dark value of --bg in our stylesheet.
    const css = fs.readFileSync(path.join(repoRoot, 'www', 'style.css'), 'utf8');
    const [, light, dark] = /--bg: light-dark\((#[0-9a-f]{6}), (#[0-9a-f]{6})\)/.exec(css);
    const rgb = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    const bg = () => page.evaluate(() => getComputedStyle(document.querySelector('#v').shadowRoot.querySelector('.wp')).backgroundColor);
    assert.equal(await bg(), rgb(light));
    await screenshot(page, 'npm-mkdocs-light');
    await page.evaluate(() => document.body.setAttribute('data-md-color-scheme', 'slate'));
    await page.waitForFunction((want) => getComputedStyle(document.querySelector('#v').shadowRoot.querySelector('.wp')).backgroundColor === want, rgb(dark), { timeout: 5000 })
      .catch(() => {});
    assert.equal(await bg(), rgb(dark));
    await screenshot(page, 'npm-mkdocs-dark');
    assert.deepEqual(errors.filter((e) => !/favicon/.test(e)), []);
    await page.context().close();
  });
});
