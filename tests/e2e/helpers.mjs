// Shared helpers for weightpeek's end-to-end tests (node --test tests/e2e/).
//
// The browser is Debian's chromium driven by playwright-core (no browser download needed).
// Files are handed to the page the way a person would: a real `drop` DragEvent on the drop zone
// whose DataTransfer holds a File. The File comes from a hidden <input type=file> filled with
// page.setInputFiles(path); with a local browser playwright passes the *path*, so a 253 MB model
// is never copied through the DevTools protocol.
//
// An init script wraps Blob.prototype.slice (and the Blob/FileReader read methods) so a test can
// prove how many bytes of the dropped file the page looked at.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');

function gitTop() {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return repoRoot;
  }
}

/** Folder with the shared read-only data (vocab/, corrupt/): $WEIGHTPEEK_SHARED or <repo>/../shared. */
export const sharedDir = path.resolve(process.env.WEIGHTPEEK_SHARED || path.join(gitTop(), '..', 'shared'));
/** Folder with the large real models fetched by fetch-real-models.py. */
export const dataDir = path.resolve(process.env.WEIGHTPEEK_DATA || path.join(os.homedir(), '.cache', 'weightpeek-data'));
/** Folder with the reference JSON files written by tests/reference/reference.py. */
export const referenceDir = path.resolve(repoRoot, process.env.WEIGHTPEEK_REFERENCE_DIR || path.join('target', 'reference'));
/** The built web app (trunk build --release). */
export const distDir = path.resolve(repoRoot, process.env.WEIGHTPEEK_DIST || 'dist');
export const screenshotDir = path.join(repoRoot, 'target', 'e2e-screenshots');

export const files = {
  gemma: path.join(dataDir, 'gemma-3-270m-q4_k_m.gguf'),
  minilm: path.join(dataDir, 'all-MiniLM-L6-v2', 'model.safetensors'),
  corrupt: path.join(sharedDir, 'data', 'corrupt', 'ggml-vocab-bert-bge.mangled.gguf'),
};

export const CHROMIUM = process.env.WEIGHTPEEK_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * The native CLI the tests compare with: $WEIGHTPEEK_BIN, else the newest of the target dir's
 * debug and release builds (`cargo test --all-targets` builds the debug one), else undefined.
 */
export function cliBinary() {
  if (process.env.WEIGHTPEEK_BIN && fs.existsSync(process.env.WEIGHTPEEK_BIN)) return process.env.WEIGHTPEEK_BIN;
  const targetDir = process.env.CARGO_TARGET_DIR || path.join(repoRoot, 'target');
  return ['debug', 'release']
    .map((profile) => path.join(targetDir, profile, 'weightpeek'))
    .filter((p) => fs.existsSync(p))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

/** Fail with a readable message when a file the test needs is missing. */
export function requireFile(file, hint) {
  if (!fs.existsSync(file)) throw new Error(`missing ${file}${hint ? ` (${hint})` : ''}`);
  return file;
}

/** The reference facts for one model, e.g. loadReference('gemma-3-270m-q4_k_m'). */
export function loadReference(key) {
  const file = path.join(referenceDir, `${key}.json`);
  requireFile(file, 'run tests/reference/reference.py first; scripts/test.sh does');
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export async function launchBrowser() {
  requireFile(CHROMIUM, 'apt-get install chromium; scripts/install.sh does');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Serve dist/ (and, under /data/, the model cache) on 127.0.0.1 with Range support. */
/** Closes whatever of a test's browser, servers and hubs was started (in order), then removes
 * its temporary folders. */
export async function closeAll(closables, dirs = []) {
  for (const c of closables) await c?.close();
  for (const d of dirs) if (d) fs.rmSync(d, { recursive: true, force: true });
}

export async function startAppServer({ root = distDir, mounts = {} } = {}) {
  requireFile(path.join(root, 'index.html'), 'build the app first: trunk build --release');
  return startServer({ root, mounts, log: process.env.WEIGHTPEEK_E2E_LOG ? (l) => console.log(`[server] ${l}`) : null });
}

// Runs in the page before any of its scripts. Counts bytes handed out by Blob.slice and bytes
// actually read from any Blob. Numbers are reset by the test before each drop.
function pageInstrumentation() {
  window.__wpSlicedBytes = 0;
  window.__wpSliceCalls = 0;
  window.__wpReadBytes = 0;
  window.__wpStateLog = [];
  const slice = Blob.prototype.slice;
  Blob.prototype.slice = function (...args) {
    const part = slice.apply(this, args);
    window.__wpSlicedBytes += part.size;
    window.__wpSliceCalls += 1;
    return part;
  };
  for (const name of ['arrayBuffer', 'text', 'bytes', 'stream']) {
    const orig = Blob.prototype[name];
    if (typeof orig !== 'function') continue;
    Blob.prototype[name] = function (...args) {
      window.__wpReadBytes += this.size;
      return orig.apply(this, args);
    };
  }
  for (const name of ['readAsArrayBuffer', 'readAsBinaryString', 'readAsDataURL', 'readAsText']) {
    const orig = FileReader.prototype[name];
    if (typeof orig !== 'function') continue;
    FileReader.prototype[name] = function (blob, ...rest) {
      window.__wpReadBytes += blob?.size ?? 0;
      return orig.call(this, blob, ...rest);
    };
  }
  // The full module's memory size, for memory bounds (www/weightpeek.js dispatches this event
  // with the instance's exports once the page's app runs).
  addEventListener('weightpeek-started', (e) => {
    const exports = e.detail?.wasm;
    window.__wpWasmMemory = () => exports?.memory?.buffer?.byteLength ?? null;
  });
  // Record every write of body[data-state] so a test can wait for the state *after* its action.
  const watch = () => {
    new MutationObserver((records) => {
      for (const r of records) window.__wpStateLog.push(document.body.dataset.state ?? null);
    }).observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
  };
  if (document.body) watch();
  else document.addEventListener('DOMContentLoaded', watch);
}

/**
 * Open the app in a new page. Resolves once the drop zone is there and body[data-state] says the
 * app is ready for input ('idle'; 'ready'/'error' also accepted).
 * The page's console errors and uncaught exceptions are collected in page.__wpErrors.
 */
export async function openApp(browser, server, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.__wpErrors = [];
  page.on('pageerror', (err) => page.__wpErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // the browser's own favicon request is not the app's error
    if (msg.type() === 'error' && !/\/favicon\.ico$/.test(msg.location()?.url ?? '')) {
      page.__wpErrors.push(`console.error: ${msg.text()}`);
    }
  });
  await page.addInitScript(pageInstrumentation);
  await page.goto(server.url);
  try {
    await page.waitForSelector('[data-testid=drop-zone]', { state: 'attached', timeout: 30_000 });
  } catch {
    throw new Error(`no [data-testid=drop-zone] on ${server.url} after 30 s; page errors: ${page.__wpErrors.join(' | ') || 'none'}`);
  }
  try {
    await page.waitForFunction(() => ['idle', 'ready', 'error'].includes(document.body.dataset.state), null, { timeout: 30_000 });
  } catch (err) {
    const state = await page.evaluate(() => document.body.dataset.state ?? '(unset)');
    throw new Error(`the app never set <body data-state="idle"> (state: ${state}); page errors: ${page.__wpErrors.join(' | ') || 'none'}`);
  }
  return page;
}

/** Reset the byte counters and the state log; call before an action whose reads are measured. */
export async function resetCounters(page) {
  await page.evaluate(() => {
    window.__wpSlicedBytes = 0;
    window.__wpSliceCalls = 0;
    window.__wpReadBytes = 0;
    window.__wpStateLog = [];
  });
}

/**
 * Drop a file from disk on [data-testid=drop-zone] as a real DragEvent (dragenter, dragover, drop)
 * carrying a DataTransfer with that File. Counters are reset first.
 */
export async function dropFile(page, file) {
  await dropFiles(page, [file]);
}

/**
 * Drop several files from disk together (one DataTransfer holding every File, in the order
 * given), as when a person selects them in a file manager and drags them onto the page.
 * Counters are reset first.
 */
export async function dropFiles(page, list) {
  for (const f of list) requireFile(f);
  await resetCounters(page);
  const input = await page.evaluateHandle(() => {
    const el = document.createElement('input');
    el.type = 'file';
    el.multiple = true;
    el.hidden = true;
    el.setAttribute('data-wp-test-input', '');
    document.body.appendChild(el);
    return el;
  });
  await input.setInputFiles(list);
  await input.evaluate((el) => {
    const zone = document.querySelector('[data-testid=drop-zone]');
    if (!zone) throw new Error('no [data-testid=drop-zone] on the page');
    const dt = new DataTransfer();
    for (const f of el.files) dt.items.add(f);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt }));
    }
    el.remove();
  });
  await input.dispose();
}

/**
 * Wait until the app has settled after an action: body[data-state] was written after the last
 * resetCounters() and is now 'ready' or 'error', and the Checks card holds the doctor's findings
 * (they are added in a task after the first view: no [data-doctor=pending] card). Returns the
 * final state.
 */
export async function waitForSettled(page, { timeout = 60_000 } = {}) {
  try {
    await page.waitForFunction(
      () => window.__wpStateLog.length > 0 && ['ready', 'error'].includes(document.body.dataset.state)
        && !document.querySelector('[data-doctor=pending]'),
      null,
      { timeout, polling: 50 },
    );
  } catch (err) {
    const info = await page.evaluate(() => ({ state: document.body.dataset.state ?? '(unset)', log: window.__wpStateLog }));
    throw new Error(`app did not reach state ready/error within ${timeout} ms (state: ${info.state}, transitions: ${JSON.stringify(info.log)}); page errors: ${page.__wpErrors.join(' | ') || 'none'}`);
  }
  return page.evaluate(() => document.body.dataset.state);
}

/** Bytes counted by the instrumentation since the last reset. */
export async function readCounters(page) {
  return page.evaluate(() => ({
    slicedBytes: window.__wpSlicedBytes,
    sliceCalls: window.__wpSliceCalls,
    readBytes: window.__wpReadBytes,
    stateLog: [...window.__wpStateLog],
  }));
}

/** An attribute of the first element matching selector (null when the element or attribute is missing). */
export async function attr(page, selector, name) {
  const el = await page.$(selector);
  if (!el) return null;
  return el.getAttribute(name);
}

/** {visible, text} of [data-testid=error]; a missing element counts as hidden and empty. */
export async function errorBox(page) {
  const el = await page.$('[data-testid=error]');
  if (!el) return { visible: false, text: '' };
  return { visible: await el.isVisible(), text: ((await el.textContent()) ?? '').trim() };
}

/** {dtype: count} from [data-testid=dtype-histogram] [data-dtype] elements (duplicates are reported). */
export async function dtypeHistogram(page) {
  return page.$$eval('[data-testid=dtype-histogram] [data-dtype]', (els) =>
    els.map((el) => ({ dtype: el.getAttribute('data-dtype'), count: el.getAttribute('data-count') })),
  );
}

export async function screenshot(page, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The kind of a dtype's values as the reference scripts name it (tests/reference/textvals.py). */
export function kindOf(dtype) {
  if (dtype === 'BOOL') return 'boolean';
  if (/^C\d+$/.test(dtype)) return 'complex';
  return /^[IU]/.test(dtype) ? 'integer' : 'float';
}

/**
 * Whether a value the page shows (`raw`: a data-value attribute) is the reference's `want`
 * (text from tests/reference/textvals.py), exactly: integers as BigInt (JavaScript numbers
 * stop at 2^53), booleans as 0/1, complex values as "re,im", floats with Object.is (so -0 and
 * NaN count).
 */
export function sameValue(kind, raw, want) {
  if (kind === 'integer') return BigInt(raw) === BigInt(want);
  if (kind === 'boolean') return raw === (want === 'true' ? '1' : '0');
  if (kind === 'complex' && Array.isArray(want)) {
    const [re, im] = raw.split(',');
    return Object.is(Number(re), Number(want[0])) && Object.is(Number(im), Number(want[1]));
  }
  return Object.is(Number(raw), Number(want));
}

/**
 * Shows the page's tab `name` (`summary`, `metadata`, `tensors`, `histogram`, `preview`,
 * `checks`, `tokenizer`, `memory`, `fit`, `edit`) as a person would, by clicking it, and waits
 * until its panel is shown. False (nothing done) when the page has no such tab.
 */
export async function showTab(page, name) {
  const tab = page.locator(`#report [role=tab][data-tab="${name}"]`);
  if (await tab.count() === 0) return false;
  await tab.click();
  await page.waitForSelector(`#report [role=tabpanel][data-tab="${name}"]:not([hidden])`, { state: 'attached', timeout: 10_000 });
  return true;
}

/** Shows the tensor named `name` in the tensor table (Tensors tab, filter box); its row's selector. */
export async function tensorRow(page, name) {
  await showTab(page, 'tensors');
  await page.fill('.tensors input.filter', name);
  const handle = await page.waitForFunction(
    (name) => [...document.querySelectorAll('tr[data-file-index]')].find((tr) => tr.querySelector('td.col-name')?.textContent === name)?.dataset.fileIndex,
    name,
    { timeout: 10_000 },
  );
  return `tr[data-file-index="${await handle.jsonValue()}"]`;
}

/** Every path at which `a` and `b` differ (numbers compared as numbers). */
export function differences(a, b, at = '$', out = []) {
  if (out.length > 20) return out;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${at}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`);
  } else if (Array.isArray(a)) {
    if (a.length !== b.length) out.push(`${at}: ${a.length} vs ${b.length} items`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) differences(a[i], b[i], `${at}[${i}]`, out);
  } else if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a) || !(k in b)) out.push(`${at}.${k}: only in ${k in a ? 'the first' : 'the second'}`);
      else differences(a[k], b[k], `${at}.${k}`, out);
    }
  } else if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) {
    out.push(`${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  return out;
}
