// The journeys of the cross-engine suite (issue #20, item 1), written once against the small
// page interface of drivers.mjs (open(url) -> pick, run, click, keys, shot, errors, close) that
// firefox.test.mjs, webkit.test.mjs and bench/engine_speed.mjs drive.
//
// Each journey is checked against the native CLI (the same engine: `weightpeek FILE --json` in
// the file's folder), never against numbers written here. Journeys that touch a card outside
// the summary call showTab(page, NAME) first, so they keep working when the page shows one tab
// panel at a time.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFile } from 'node:child_process';
import { cliBinary, repoRoot, dataDir, files, differences, requireFile } from './helpers.mjs';
import { u32, u64, str, ggufHead, STRING, ARRAY } from './gguf-bytes.mjs';

const CLI = cliBinary();

/** The files picked: real models of three formats, an .npz, a PyTorch checkpoint, the sample. */
export const INPUTS = [
  files.gemma,
  files.minilm,
  path.join(dataDir, 'silero-vad', 'silero_vad.onnx'),
  path.join(repoRoot, 'target', 'numpy-fixtures', 'weights.npz'),
  path.join(repoRoot, 'target', 'torch-fixtures', 'checkpoint.ckpt'),
  path.join(repoRoot, 'www', 'sample.gguf'),
];

/** Fails early, with what to run, when a file or the CLI is missing. */
export function requireInputs() {
  assert.ok(CLI, 'build the CLI first (cargo build)');
  for (const f of INPUTS) requireFile(f, 'run scripts/test.sh (it writes the fixtures and fetches the real models)');
}

/** `weightpeek ARGS --json` in `cwd`: its stdout (any exit status: 1 and 3 are verdicts). */
export function cliText(args, cwd) {
  return new Promise((resolve, reject) => {
    execFile(CLI, [...args, '--json'], { cwd, maxBuffer: 1 << 30, env: { ...process.env, HF_TOKEN: '' } }, (err, stdout) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve(stdout);
    });
  });
}

/** `weightpeek ARGS --json` in `cwd`: the parsed document. */
export async function cli(args, cwd) {
  const stdout = await cliText(args, cwd);
  try {
    return JSON.parse(stdout);
  } catch (e) {
    throw new Error(`${args.join(' ')}: ${e.message}`);
  }
}

/**
 * Shows the page's tab `name` (`[role=tab][data-tab=NAME]`, a click) when the page has such a
 * tab; does nothing on a page that shows every card at once. Call it before touching a card
 * that is not in the summary.
 */
export async function showTab(page, name) {
  await page.run((n) => {
    const tab = document.querySelector(`[role=tab][data-tab="${n}"]`);
    if (tab && tab.getAttribute('aria-selected') !== 'true') tab.click();
  }, name);
  await until(page, (n) => {
    const tab = document.querySelector(`[role=tab][data-tab="${n}"]`);
    return !tab || tab.getAttribute('aria-selected') === 'true';
  }, name, 5_000, `the ${name} tab`);
}

/**
 * A real pointer click on the element `fn(arg)` returns in the page (scrolled into view
 * first; `fn` may reach into a shadow root). Fails when there is no such element.
 */
export async function clickOn(page, fn, arg) {
  // One function of both (made here, so the page's CSP, which forbids eval, has no say).
  // eslint-disable-next-line no-new-func
  const center = new Function('a', `const el = (${fn})(a);
    if (!el) return null;
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];`);
  const at = await page.run(center, arg);
  assert.ok(at, `nothing to click: ${fn}`);
  await page.click(at[0], at[1]);
}

/** Polls `fn(arg)` in the page until it is truthy; fails after `ms` with `what`. */
async function until(page, fn, arg, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await page.run(fn, arg)) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the app and waits until it is ready for input. */
async function app(open, url) {
  const page = await open(url);
  await until(page, () => document.body.dataset.state === 'idle', null, 60_000, 'body[data-state=idle]');
  return page;
}

/** Waits until the page has opened what it was given (and the doctor's findings are in). */
async function settled(page) {
  await until(page, () => ['ready', 'error'].includes(document.body.dataset.state) && !document.querySelector('[data-doctor=pending]'),
    null, 120_000, 'body[data-state] ready or error');
  return page.run(() => document.body.dataset.state);
}

/** Puts `file` into an <input type=file id=wp-test-files> of its own (for the JS API). */
async function pickForApi(page, file) {
  await page.run(() => {
    document.querySelector('#wp-test-files')?.remove();
    const el = document.createElement('input');
    el.type = 'file';
    el.id = 'wp-test-files';
    document.body.append(el);
  });
  await page.pick('#wp-test-files', file);
}

/**
 * Every input picked in the page: the state and tensor count the CLI gives, and inspect() of
 * the same File equal to the CLI's --json. Returns one line per file.
 */
export async function pickedFilesJourney(open, url) {
  const seen = [];
  for (const file of INPUTS) {
    const name = path.basename(file);
    const want = await cli([name], path.dirname(file));
    const page = await app(open, url);
    try {
      const t0 = Date.now();
      await page.pick('[data-testid=file-input]', file);
      const state = await settled(page);
      const ms = Date.now() - t0;
      assert.equal(state, want.error ? 'error' : 'ready', `${name}: state`);
      const count = await page.run(() => document.querySelector('[data-testid=tensor-count]')?.dataset.value ?? null);
      assert.equal(count, String(want.tensor_count), `${name}: tensor count`);
      if (file === files.gemma) await page.shot('gemma');
      await pickForApi(page, file);
      const json = await page.run(() => import('/weightpeek.js')
        .then((wp) => wp.inspect(document.querySelector('#wp-test-files').files[0]))
        .then((doc) => JSON.stringify(doc), (e) => `ERROR ${e.message}`));
      assert.ok(!json.startsWith('ERROR'), `${name}: inspect() failed: ${json}`);
      assert.deepEqual(differences(want, JSON.parse(json)), [], `${name}: CLI --json vs inspect()`);
      assert.deepEqual(await page.errors(), [], `${name}: page errors`);
      seen.push(`${name}: ${count} tensors, ${ms} ms`);
    } finally {
      await page.close();
    }
  }
  assert.equal(seen.length, INPUTS.length);
  return seen;
}

/**
 * A tensor preview opened from the table (click on its row): it draws its heatmap canvas, and
 * preview() of the same tensor gives the CLI's `--tensor NAME --json` first values.
 */
export async function previewJourney(open, url) {
  const tensor = 'blk.0.attn_q.weight';
  const want = await cli([path.basename(files.gemma), '--tensor', tensor], path.dirname(files.gemma));
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', files.gemma);
    assert.equal(await settled(page), 'ready');
    await showTab(page, 'tensors');
    await page.run((n) => {
      const f = document.querySelector('.tensors input.filter');
      f.value = n;
      f.dispatchEvent(new Event('input', { bubbles: true }));
    }, tensor);
    await until(page, (n) => [...document.querySelectorAll('tr[data-file-index]')]
      .some((tr) => tr.querySelector('td.col-name')?.textContent === n), tensor, 10_000, `the row of ${tensor}`);
    await page.run((n) => [...document.querySelectorAll('tr[data-file-index]')]
      .find((tr) => tr.querySelector('td.col-name')?.textContent === n).click(), tensor);
    await showTab(page, 'preview');
    await until(page, (n) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === n && p.dataset.state === 'ready';
    }, tensor, 60_000, `the preview of ${tensor}`);
    const canvas = await page.run(() => {
      const c = document.querySelector('[data-testid=preview-heatmap]');
      return c ? [c.width, c.height] : null;
    });
    assert.ok(canvas && canvas[0] > 0 && canvas[1] > 0, `heatmap canvas ${canvas}`);
    await page.shot('preview');
    await pickForApi(page, files.gemma);
    const got = await page.run((n) => import('/weightpeek.js')
      .then((wp) => wp.preview(document.querySelector('#wp-test-files').files[0], n))
      .then((p) => p.first_values.map((v) => v.text), (e) => `ERROR ${e.message}`), tensor);
    assert.deepEqual(got, want.first_values.map((v) => v.text), 'preview() first values vs the CLI');
    assert.deepEqual(await page.errors(), []);
  } finally {
    await page.close();
  }
}

/**
 * The scan of every weight (issue #22) in a Web Worker: the page's "Scan all weights" on a
 * generated file of NaN/Inf values and block scales lists the findings `weightpeek scan --json`
 * gives, in order, and scan() of Gemma gives (on two Workers: nested ones) the CLI's counts, extremes and (to 1e-12 relative)
 * means and standard deviations for every tensor. Returns a line saying how long each took.
 */
export async function scanJourney(open, url) {
  const bad = requireFile(path.join(repoRoot, 'target', 'scan-fixtures', 'bad.gguf'), 'run tests/reference/scan_reference.py; scripts/test.sh does');
  const wantBad = await cli(['scan', path.basename(bad), '--threads', '2'], path.dirname(bad));
  const wantGemma = await cli(['scan', path.basename(files.gemma), '--threads', '2'], path.dirname(files.gemma));
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', bad);
    await settled(page);
    await showTab(page, 'checks');
    await until(page, () => document.querySelector('[data-testid=scan]')?.dataset.scan === 'idle', null, 30_000, 'the scan card');
    let t0 = Date.now();
    await page.run(() => document.querySelector('[data-testid=scan-start]').click());
    await until(page, () => ['done', 'error'].includes(document.querySelector('[data-testid=scan]')?.dataset.scan), null, 120_000, 'the page scan');
    const badMs = Date.now() - t0;
    const state = await page.run(() => [document.querySelector('[data-testid=scan]').dataset.scan, document.querySelector('[data-testid=scan-status]')?.textContent]);
    assert.equal(state[0], 'done', `page scan: ${state[1]}`);
    const codes = await page.run(() => [...document.querySelectorAll('[data-testid=checks] [data-source=scan] li[data-code]')].map((li) => li.dataset.code));
    assert.deepEqual(codes, wantBad.findings.map((f) => f.code), 'the Checks card lists the CLI scan\'s findings');
    await page.shot('scan');
    await pickForApi(page, files.gemma);
    t0 = Date.now();
    // Started, then watched by short calls: one protocol call awaiting the whole scan once
    // never answered in Firefox (180 s); watched, a stall says where it stopped.
    await page.run(() => {
      const s = { state: 'started', done: 0, tensors: 0 };
      window.__wpScan = s;
      import('/weightpeek.js')
        .then((wp) => wp.scan(document.querySelector('#wp-test-files').files[0], {
          workers: 2, onProgress: (p) => { s.done = p.done; }, onTensor: () => { s.tensors += 1; },
        }))
        .then((doc) => { s.json = JSON.stringify(doc); s.state = 'done'; }, (e) => { s.json = `ERROR ${e.message}`; s.state = 'error'; });
    });
    await until(page, () => window.__wpScan.state !== 'started', null, 170_000, 'scan() of Gemma')
      .catch(async (e) => { throw new Error(`${e.message}: ${await page.run(() => JSON.stringify(window.__wpScan))}`); });
    const json = await page.run(() => window.__wpScan.json);
    const gemmaMs = Date.now() - t0;
    assert.ok(!json.startsWith('ERROR'), `scan(): ${json}`);
    const got = JSON.parse(json);
    assert.equal(got.tensors.length, wantGemma.tensors.length);
    got.tensors.forEach((t, i) => {
      const w = wantGemma.tensors[i];
      for (const k of ['name', 'count', 'nan', 'inf', 'zeros', 'min', 'max', 'blocks', 'scale_nan', 'scale_inf']) {
        assert.equal(t[k], w[k], `${w.name}: ${k}`);
      }
      for (const k of ['mean', 'std']) assert.ok(Math.abs(t[k] - w[k]) <= 1e-12 * Math.abs(w[k]), `${w.name}: ${k} ${t[k]} vs ${w[k]}`);
    });
    assert.deepEqual(got.findings.map((f) => f.code), wantGemma.findings.map((f) => f.code));
    assert.deepEqual(await page.errors(), []);
    return `page scan of bad.gguf ${badMs} ms; scan() of Gemma (${got.bytes_read} bytes) ${gemmaMs} ms`;
  } finally {
    await page.close();
  }
}

/** Bytes of the answers in the mock Hub's log that carried the file (the Hub's resolve/ and
 * the CDN it redirects to), and how they were asked for. */
function hubReads(hub) {
  const data = hub.log.filter((r) => r.server === 'cdn' || r.path.includes('/resolve/'));
  return {
    bytes: data.reduce((n, r) => n + r.bytes, 0),
    cdnGets: hub.log.filter((r) => r.server === 'cdn' && r.method === 'GET').length,
    // GETs that reached the CDN without their Range (WebKit drops it on the cross-origin
    // 302; the page stops that answer and asks the CDN directly).
    rangeDropped: hub.log.filter((r) => r.server === 'cdn' && r.method === 'GET' && !r.range).length,
    redirects: hub.log.filter((r) => r.server === 'hub' && r.status === 302).length,
    requests: hub.log.filter((r) => r.method !== 'OPTIONS').length,
  };
}

/** The mock Hub's address of `file` in `repo` (its resolve/ URL: a 302 to the CDN port). */
export const hubUrl = (hub, repo, file) => `${hub.endpoint}/${repo}/resolve/main/${file}`;

/**
 * A Hub URL pasted into the page's URL box (the mock Hub of mock-hub.mjs: its resolve/
 * answers 302 to a second server, another origin, for the bytes): the summary's tensor count
 * is the CLI's on the same file, and the bytes the servers sent (their log) stay within the
 * bound remote.test.mjs holds Chromium to: the header (the CLI's data_offset) × 1.25 + 264 KiB,
 * in at most 2 ranged CDN requests (and, in WebKit, which drops Range on the redirect, one
 * stopped at once). Returns what was read.
 */
export async function hubJourney(open, url, hub, { repo, file, local }) {
  const want = await cli([path.basename(local)], path.dirname(local));
  const page = await app(open, url);
  try {
    await page.run((ep) => {
      const d = document.querySelector('details.hub-settings');
      if (d) d.open = true;
      const i = document.querySelector('[data-testid=hub-endpoint]');
      i.value = ep;
      i.dispatchEvent(new Event('change', { bubbles: true }));
    }, hub.endpoint);
    const link = hubUrl(hub, repo, file);
    hub.clearLog();
    await clickOn(page, () => document.querySelector('[data-testid=url-input]'));
    await page.run((u) => {
      const i = document.querySelector('[data-testid=url-input]');
      i.value = u;
      i.dispatchEvent(new Event('input', { bubbles: true }));
    }, link);
    await clickOn(page, () => document.querySelector('[data-testid=url-open]'));
    const state = await settled(page);
    const error = await page.run(() => document.querySelector('[data-testid=error]')?.textContent ?? '');
    assert.equal(state, 'ready', `${file} from the mock Hub: ${error}`);
    const count = await page.run(() => document.querySelector('[data-testid=tensor-count]')?.dataset.value ?? null);
    assert.equal(count, String(want.tensor_count), `${file}: tensor count vs the CLI`);
    await hub.idle(10_000);
    const read = hubReads(hub);
    const header = Number(want.data_offset ?? want.header_size);
    assert.ok(header > 0, 'the CLI names the header size');
    assert.ok(read.redirects >= 1 && read.cdnGets >= 1, `the cross-origin 302 was followed: ${JSON.stringify(read)}`);
    assert.ok(read.rangeDropped <= 1, `${read.rangeDropped} CDN requests without Range`);
    assert.ok(read.cdnGets - read.rangeDropped <= 2, `${read.cdnGets} CDN requests (${read.rangeDropped} without Range)`);
    assert.ok(read.bytes <= header * 1.25 + 264 * 1024, `${read.bytes} bytes read for a ${header}-byte header`);
    await page.shot('hub-url');
    assert.deepEqual(await page.errors(), []);
    return { ...read, header, tensors: want.tensor_count };
  } finally {
    await page.close();
  }
}

/** Puts `list` into a hidden <input type=file multiple id=wp-test-drop> and drops its Files
 * on the drop zone: a real `drop` DragEvent (after dragenter and dragover) whose DataTransfer
 * holds them, as helpers.mjs dropFiles does in Chromium. */
async function dropOn(page, list) {
  await page.run(() => {
    document.querySelector('#wp-test-drop')?.remove();
    const el = document.createElement('input');
    el.type = 'file';
    el.multiple = true;
    el.id = 'wp-test-drop';
    // Out of sight but displayed (WebDriver may refuse keys to an element without a box).
    Object.assign(el.style, { position: 'fixed', left: '0', top: '0', width: '1px', height: '1px', opacity: '0' });
    document.body.append(el);
  });
  await page.pick('#wp-test-drop', list);
  const n = await page.run(() => {
    const el = document.querySelector('#wp-test-drop');
    const zone = document.querySelector('[data-testid=drop-zone]');
    const dt = new DataTransfer();
    for (const f of el.files) dt.items.add(f);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt }));
    }
    return dt.files.length;
  });
  assert.equal(n, list.length, 'every file is in the DataTransfer');
}

/** The file sets dropped and picked: a split GGUF set and a sharded safetensors set with its
 * index (tests/reference/remote_fixtures.py). */
export function fileSets() {
  const dir = path.join(repoRoot, 'target', 'remote-fixtures');
  const ref = (n) => JSON.parse(fs.readFileSync(requireFile(path.join(dir, `${n}.json`), 'run scripts/test.sh (tests/reference/remote_fixtures.py)'), 'utf8'));
  return [
    { label: 'split GGUF', dir: path.join(dir, 'split-gguf'), names: ref('split-gguf').parts },
    { label: 'sharded safetensors', dir: path.join(dir, 'sharded-safetensors'), names: ['model.safetensors.index.json', ...ref('sharded-safetensors').parts] },
  ];
}

/**
 * Local sets dropped on the page (a real drop event) and picked in its file input: the set's
 * tensor count is the CLI's given the same files, and inspect() of the dropped Files equals
 * the CLI's --json. Returns one line per set.
 */
export async function dropJourney(open, url) {
  const seen = [];
  for (const set of fileSets()) {
    const want = await cli(set.names, set.dir);
    const paths = set.names.map((n) => path.join(set.dir, n));
    for (const how of ['drop', 'pick']) {
      const page = await app(open, url);
      try {
        if (how === 'drop') await dropOn(page, paths);
        else await page.pick('[data-testid=file-input]', paths);
        assert.equal(await settled(page), 'ready', `${set.label} (${how})`);
        const count = await page.run(() => document.querySelector('[data-testid=tensor-count]')?.dataset.value ?? null);
        assert.equal(count, String(want.tensor_count), `${set.label} (${how}): tensor count vs the CLI`);
        if (how === 'drop') {
          await page.shot(`drop-${set.label.replace(/ /g, '-')}`);
          const json = await page.run(() => import('/weightpeek.js')
            .then((wp) => wp.inspect(document.querySelector('#wp-test-drop').files))
            .then((doc) => JSON.stringify(doc), (e) => `ERROR ${e.message}`));
          assert.ok(!json.startsWith('ERROR'), `${set.label}: inspect() failed: ${json}`);
          assert.deepEqual(differences(want, JSON.parse(json)), [], `${set.label}: CLI --json vs inspect() of the dropped Files`);
        }
        assert.deepEqual(await page.errors(), []);
        seen.push(`${set.label} ${how}: ${count} tensors`);
      } finally {
        await page.close();
      }
    }
  }
  return seen;
}

/** The page of the element journeys, written into `dir` (served at /t/ beside dist, with the
 * models folder at /data/): a <weightpeek-view> of the real Gemma file. */
export function writeElementPage(dir) {
  fs.writeFileSync(path.join(dir, 'element.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>weightpeek-view in every engine</title>
<script type="module" src="/weightpeek.js"></script></head>
<body style="margin: 0; padding: 8px 16px; font: 16px sans-serif">
<h1 style="font-size: 18px; margin: 4px 0 8px">A model in a docs page</h1>
<p><a href="#v">a link before the view</a></p>
<weightpeek-view id="v" src="/data/${path.basename(files.gemma)}" tab="tensors" filter="blk.0.attn" theme="light" height="560"></weightpeek-view>
</body></html>`);
  return 't/element.html';
}

/** Inside the element #v's shadow root. */
const viewState = () => {
  const v = document.querySelector('#v');
  const root = v?.shadowRoot;
  return {
    state: v?.dataset.state ?? null,
    tab: v?.getAttribute('tab') ?? null,
    tabs: root ? [...root.querySelectorAll('[role=tab]')].map((t) => t.dataset.tab) : [],
    selected: root ? [...root.querySelectorAll('[role=tab][aria-selected=true]')].map((t) => t.dataset.tab) : [],
    focused: root?.activeElement?.dataset?.tab ?? null,
    panels: root ? root.querySelectorAll('[role=tabpanel]:not([hidden])').length : 0,
  };
};

/**
 * The <weightpeek-view> element (on a page written beside dist): its tabs, switched by a
 * click and by the arrow keys (Home/End, wrapping), with the `tab` attribute following; the
 * `filter` attribute filtering the table (the CLI's tensor names); the `tensor` attribute
 * opening a preview whose first values are the CLI's; the `theme` attribute's light and dark
 * colours (light-dark() resolved: the same computed colours as in Chromium).
 */
export async function elementJourney(open, baseUrl) {
  const name = path.basename(files.gemma);
  const want = await cli([name], path.dirname(files.gemma));
  const tensor = 'blk.0.attn_q.weight';
  const wantT = await cli([name, '--tensor', tensor], path.dirname(files.gemma));
  const page = await open(new URL('t/element.html', baseUrl).href);
  try {
    await until(page, () => ['ready', 'error'].includes(document.querySelector('#v')?.dataset.state), null, 90_000, 'the element ready');
    let s = await page.run(viewState);
    assert.equal(s.state, 'ready');
    assert.deepEqual(s.tabs, ['summary', 'metadata', 'tensors', 'histogram', 'preview', 'checks', 'tokenizer', 'memory', 'fit']);
    assert.deepEqual(s.selected, ['tensors'], 'tab="tensors"');
    assert.equal(s.panels, 1, 'one panel shown');
    // filter="blk.0.attn": the rows are the CLI's tensors with that in their name.
    const rows = await page.run(() => [...document.querySelector('#v').shadowRoot
      .querySelectorAll('[data-testid=tensor-table] tbody tr[data-file-index] td.col-name')].map((td) => td.textContent));
    assert.deepEqual([...rows].sort(), want.tensors.map((t) => t.name).filter((n) => n.includes('blk.0.attn')).sort(), 'filter attribute');
    await page.shot('element-tensors');

    // A click on the Summary tab: its panel, the CLI's tensor count; the attribute follows.
    await clickOn(page, () => document.querySelector('#v').shadowRoot.querySelector('[role=tab][data-tab=summary]'));
    s = await page.run(viewState);
    assert.deepEqual([s.selected, s.tab], [['summary'], 'summary'], 'clicked tab');
    const count = await page.run(() => document.querySelector('#v').shadowRoot.querySelector('[data-testid=tensor-count]')?.dataset.value);
    assert.equal(count, String(want.tensor_count));

    // Arrow keys, Home and End move the selection and the focus; the attribute follows.
    await page.run(() => document.querySelector('#v').shadowRoot.querySelector('[role=tab][aria-selected=true]').focus());
    const press = async (key, tab) => {
      await page.keys([key]);
      await until(page, (t) => document.querySelector('#v').shadowRoot.querySelector('[role=tab][aria-selected=true]')?.dataset.tab === t,
        tab, 5_000, `${key} to ${tab}`);
      const st = await page.run(viewState);
      assert.deepEqual([st.selected, st.tab, st.focused, st.panels], [[tab], tab, tab, 1], `${key}: selection, attribute, focus`);
    };
    await press('ArrowRight', 'metadata');
    await press('End', 'fit');
    await press('ArrowRight', 'summary');
    await press('ArrowLeft', 'fit');
    await press('Home', 'summary');

    // tensor=: the preview of that tensor, the CLI's first values.
    await page.run((t) => { const v = document.querySelector('#v'); v.removeAttribute('tab'); v.setAttribute('tensor', t); }, tensor);
    await until(page, (t) => {
      const p = document.querySelector('#v').shadowRoot.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === t && ['ready', 'error'].includes(p.dataset.state);
    }, tensor, 60_000, `the element's preview of ${tensor}`);
    const shown = await page.run(() => {
      const root = document.querySelector('#v').shadowRoot;
      const c = root.querySelector('[data-testid=preview-heatmap]');
      return {
        state: root.querySelector('[data-testid=preview]').dataset.state,
        canvas: c ? [c.width, c.height] : null,
        values: [...root.querySelectorAll('[data-testid=preview-values] tbody tr')].map((tr) => tr.lastElementChild.textContent),
        selected: root.querySelector('[role=tab][aria-selected=true]')?.dataset.tab,
      };
    });
    assert.equal(shown.state, 'ready');
    assert.equal(shown.selected, 'preview', 'a tensor without a tab shows the preview');
    assert.ok(shown.canvas && shown.canvas[0] > 0 && shown.canvas[1] > 0, `heatmap ${shown.canvas}`);
    assert.deepEqual(shown.values, wantT.first_values.map((v) => v.text), 'the preview\'s first values vs the CLI');
    await page.shot('element-preview');

    // theme: light-dark() resolves to the light and the dark colours (those Chromium computes).
    const colours = () => page.run(() => {
      const wp = document.querySelector('#v').shadowRoot.querySelector('.wp');
      const cs = getComputedStyle(wp);
      return [cs.backgroundColor, cs.color];
    });
    const light = await colours();
    await page.run(() => document.querySelector('#v').setAttribute('theme', 'dark'));
    const dark = await colours();
    assert.equal(light[0], 'rgb(246, 247, 249)', `light background ${light}`);
    assert.equal(dark[0], 'rgb(15, 17, 21)', `dark background ${dark}`);
    assert.notEqual(light[1], dark[1], 'the text colour changes with the theme');
    await page.run(() => document.querySelector('#v').setAttribute('tab', 'tensors'));
    await page.shot('element-dark');
    assert.deepEqual(await page.errors(), []);
    return { light, dark };
  } finally {
    await page.close();
  }
}

/** What has the focus: `tab:NAME`, `row:NAME`, `button:LABEL` inside #v, else `page:TAG`. */
const focusOf = () => {
  const v = document.querySelector('#v');
  if (document.activeElement !== v) return `page:${document.activeElement?.tagName?.toLowerCase()}`;
  const el = v.shadowRoot.activeElement;
  if (!el) return 'view';
  if (el.getAttribute('role') === 'tab') return `tab:${el.dataset.tab}`;
  if (el.matches('tr[data-file-index]')) return `row:${el.querySelector('td.col-name')?.textContent}`;
  return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent.trim().slice(0, 40)}`;
};

/**
 * The element by keyboard alone: Tab from the top of the page reaches the tab bar, the arrow
 * keys switch tabs, Tab reaches the tensor rows and Enter on one opens its preview; Escape
 * closes the preview and gives the focus back to the row. Returns the keys pressed.
 */
export async function elementKeyboardJourney(open, baseUrl) {
  const page = await open(new URL('t/element.html', baseUrl).href);
  const pressed = [];
  const press = async (key) => { pressed.push(key); await page.keys([key]); };
  /** Tab until `pred(focus)`, at most `max` times. */
  const tabUntil = async (re, max) => {
    for (let i = 0; i < max; i++) {
      const f = await page.run(focusOf);
      if (re.test(f)) return f;
      await press('Tab');
    }
    const f = await page.run(focusOf);
    assert.match(f, re, `focus after ${max} Tabs`);
    return f;
  };
  try {
    await until(page, () => document.querySelector('#v')?.dataset.state === 'ready', null, 90_000, 'the element ready');
    await page.run(() => { const v = document.querySelector('#v'); v.setAttribute('tab', 'summary'); document.activeElement?.blur(); window.scrollTo(0, 0); });
    await tabUntil(/^tab:summary$/, 6);
    await press('ArrowRight');
    await press('ArrowRight');
    assert.equal(await page.run(focusOf), 'tab:tensors');
    assert.deepEqual((await page.run(viewState)).selected, ['tensors']);
    const row = await tabUntil(/^row:/, 20);
    const name = row.slice(4);
    await press('Enter');
    await until(page, (n) => {
      const p = document.querySelector('#v').shadowRoot.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === n && p.dataset.state === 'ready';
    }, name, 60_000, `the preview of ${name} by Enter`);
    assert.deepEqual((await page.run(viewState)).selected, ['preview'], 'Enter on a row shows the preview');
    await page.shot('element-keyboard-preview');
    await press('Escape');
    await until(page, () => !document.querySelector('#v').getAttribute('tensor'), null, 5_000, 'Escape closes the preview');
    assert.equal(await page.run(focusOf), `row:${name}`, 'the focus is back on the row');
    assert.deepEqual((await page.run(viewState)).selected, ['tensors']);
    return pressed;
  } finally {
    await page.close();
  }
}

/**
 * fit() of the JavaScript API (a URL and a picked File) equals `weightpeek fit FILE ... --json`
 * for the same devices and options (README "Will it fit?"). Returns the verdicts.
 */
export async function fitJourney(open, url) {
  const name = path.basename(files.gemma);
  const cases = [
    { devices: { gpus: [{ size: '1GiB' }], ram: '16GiB' }, options: { margin: 0, context: 131072 }, args: ['--gpu', '1GiB', '--ram', '16GiB', '--margin', '0', '--ctx', '131072'] },
    { devices: { gpus: ['720MiB', '720MiB'], ram: '16GiB' }, options: { margin: '0' }, args: ['--gpu', '720MiB', '--gpu', '720MiB', '--ram', '16GiB', '--margin', '0'] },
    { devices: { gpus: [], ram: '16GiB' }, options: { kv: 'q8_0' }, args: ['--gpu', '0', '--ram', '16GiB', '--kv', 'q8_0'] },
    { devices: undefined, options: undefined, args: [] },
  ];
  const page = await app(open, url);
  const verdicts = [];
  try {
    await pickForApi(page, files.gemma);
    for (const c of cases) {
      const want = await cli(['fit', name, ...c.args], path.dirname(files.gemma));
      for (const src of [`/data/${name}`, null]) {
        const got = await page.run(([s, d, o]) => import('/weightpeek.js')
          .then((wp) => wp.fit(s ?? document.querySelector('#wp-test-files').files[0], d ?? undefined, o ?? undefined))
          .then((p) => JSON.stringify(p), (e) => `ERROR ${e.message}`), [src, c.devices ?? null, c.options ?? null]);
        assert.ok(!got.startsWith('ERROR'), `fit(${src ?? 'File'}, ${JSON.stringify(c.devices)}): ${got}`);
        assert.deepEqual(differences(want, JSON.parse(got)), [], `fit(${src ?? 'File'}) vs weightpeek fit ${c.args.join(' ')}`);
      }
      verdicts.push(`${c.args.join(' ') || 'defaults'}: ${want.fits} -ngl ${want.gpu_layers}`);
    }
    assert.deepEqual(await page.errors(), []);
    return verdicts;
  } finally {
    await page.close();
  }
}

/** Integers past 2^53 in a GGUF written here: UINT64 and INT64 metadata at their extremes and
 * an array of UINT64. */
export function writeBigIntegers(dir) {
  const kv = (key, type, payload) => Buffer.concat([str(key), u32(type), payload]);
  const i64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; };
  const UINT64 = 10;
  const INT64 = 11;
  const body = [
    kv('general.architecture', STRING, str('llama')),
    kv('test.u64_max', UINT64, u64(2n ** 64n - 1n)),
    kv('test.u64_2p53_plus_1', UINT64, u64(2n ** 53n + 1n)),
    kv('test.i64_min', INT64, i64(-(2n ** 63n))),
    kv('test.i64_minus_2p53_minus_1', INT64, i64(-(2n ** 53n) - 1n)),
    kv('test.u64_array', ARRAY, Buffer.concat([u32(UINT64), u64(3), u64(2n ** 53n + 1n), u64(2n ** 64n - 2n), u64(7)])),
  ];
  const file = path.join(dir, 'big-integers.gguf');
  fs.writeFileSync(file, Buffer.concat([ggufHead(0, body.length), ...body]));
  return file;
}

/** JSON text parsed with every integer of 16 or more digits kept as its digits (a string). */
function parseExact(text) {
  return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

/**
 * BigInt values: metadata integers past 2^53 (a GGUF written here) come out of inspect() with
 * every digit of the CLI's --json (as BigInt, or as a string of digits; never a rounded
 * number), and the page's Metadata card shows the same digits.
 */
export async function bigIntJourney(open, url, dir) {
  const file = writeBigIntegers(dir);
  const want = parseExact(await cliText([path.basename(file)], dir));
  const keys = want.metadata.filter((m) => m.key.startsWith('test.'));
  assert.equal(keys.length, 5);
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', file);
    assert.equal(await settled(page), 'ready');
    await pickForApi(page, file);
    // Each value as `kind:text` (BigInt cannot cross the driver).
    const got = await page.run(() => import('/weightpeek.js')
      .then((wp) => wp.inspect(document.querySelector('#wp-test-files').files[0]))
      .then((doc) => {
        const show = (v) => (Array.isArray(v) ? v.map(show) : `${typeof v}:${String(v)}`);
        return doc.metadata.filter((m) => m.key.startsWith('test.')).map((m) => ({
          key: m.key, type: m.type, value: m.type === 'ARRAY' ? { count: m.value.count, head: show(m.value.head) } : show(m.value),
        }));
      }, (e) => `ERROR ${e.message}`));
    assert.ok(Array.isArray(got), `inspect(): ${got}`);
    const exact = (shown, digits, what) => {
      const [kind, text] = [shown.slice(0, shown.indexOf(':')), shown.slice(shown.indexOf(':') + 1)];
      assert.ok(kind === 'bigint' || kind === 'string' || (kind === 'number' && Number.isSafeInteger(Number(text))), `${what}: a ${kind} (${text})`);
      assert.equal(BigInt(text), BigInt(digits), `${what}: ${text} vs the CLI's ${digits}`);
    };
    for (const w of keys) {
      const g = got.find((x) => x.key === w.key);
      assert.ok(g, `${w.key} in inspect()`);
      assert.equal(g.type, w.type);
      if (w.type === 'ARRAY') {
        assert.equal(g.value.count, Number(w.value.count));
        w.value.head.forEach((d, i) => exact(g.value.head[i], d, `${w.key}[${i}]`));
      } else {
        exact(g.value, w.value, w.key);
      }
    }
    // The Metadata card shows every digit.
    await showTab(page, 'metadata');
    const cells = await page.run(() => Object.fromEntries([...document.querySelectorAll('[data-testid=metadata-table] tbody tr')]
      .map((tr) => [tr.querySelector('.col-key')?.textContent, tr.querySelector('.col-value')?.textContent ?? ''])));
    for (const w of keys.filter((k) => k.type !== 'ARRAY')) {
      assert.equal((cells[w.key] ?? '').replace(/[^\d-]/g, ''), String(w.value), `the Metadata card's ${w.key}`);
    }
    await page.shot('big-integers');
    assert.deepEqual(await page.errors(), []);
    return keys.map((k) => `${k.key}=${k.type === 'ARRAY' ? k.value.head.join(',') : k.value}`);
  } finally {
    await page.close();
  }
}

/**
 * The header editor's save (the Edit tab on a tabbed page): general.name of the bundled
 * sample changed, "Save edited file" gives a Blob download; the Blob is taken where the page
 * hands it to the browser (URL.createObjectURL, the download anchor's click kept from starting
 * a download: neither driver reports downloads the same way) and checked with gguf-py
 * (tests/reference/edit_check.py: the new value, every other key and tensor equal, the data
 * section's sha256 equal), and the CLI reads the saved file's tensors as the original's.
 */
export async function editJourney(open, url, dir) {
  const sample = path.join(repoRoot, 'www', 'sample.gguf');
  const python = requireFile(path.join(repoRoot, '.venv', 'bin', 'python'), 'scripts/install.sh makes the .venv');
  const NAME = 'sample, renamed in every engine ✓';
  const page = await app(open, url);
  try {
    await page.pick('[data-testid=file-input]', sample);
    assert.equal(await settled(page), 'ready');
    await showTab(page, 'edit');
    await clickOn(page, () => document.querySelector('[data-testid=edit-open]'));
    await until(page, () => document.body.dataset.edit === 'open', null, 30_000, 'the editor open');
    await page.run((v) => {
      const i = document.querySelector('input[data-key="general.name"]');
      i.value = v;
      i.dispatchEvent(new Event('input', { bubbles: true }));
      i.dispatchEvent(new Event('change', { bubbles: true }));
    }, NAME);
    await page.run(() => {
      window.__wpSaved = null;
      const make = URL.createObjectURL;
      URL.createObjectURL = function (blob) { window.__wpSaved = blob; return make.call(URL, blob); };
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function () {
        if (this.hasAttribute('download')) { window.__wpSavedName = this.download; return undefined; }
        return click.call(this);
      };
    });
    await clickOn(page, () => document.querySelector('[data-testid=edit-save]'));
    await until(page, () => ['saved', 'error'].includes(document.body.dataset.edit), null, 30_000, 'the save');
    const status = await page.run(() => document.querySelector('[data-testid=edit-status]')?.textContent);
    assert.equal(await page.run(() => document.body.dataset.edit), 'saved', status);
    await page.shot('edit-saved');
    const saved = await page.run(async () => {
      const b = window.__wpSaved;
      const bytes = new Uint8Array(await b.arrayBuffer());
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { name: window.__wpSavedName, size: b.size, base64: btoa(bin), fileSize: document.querySelector('[data-testid=edit-card]').dataset.fileSize };
    });
    assert.equal(saved.name, 'sample.edited.gguf');
    assert.equal(saved.size, Number(saved.fileSize), 'the Blob is the size the card says');
    const out = path.join(dir, saved.name);
    fs.writeFileSync(out, Buffer.from(saved.base64, 'base64'));
    const expect = path.join(dir, 'edit-expect.json');
    fs.writeFileSync(expect, JSON.stringify({ set: [{ key: 'general.name', type: 'STRING', value: NAME }], elements: [], delete: [] }));
    const report = await new Promise((resolve, reject) => execFile(python, [path.join(repoRoot, 'tests', 'reference', 'edit_check.py'), sample, out, expect],
      { maxBuffer: 16 << 20 }, (err, stdout) => {
        try { resolve(JSON.parse(stdout)); } catch (e) { reject(err ?? e); }
      }));
    assert.ok(report.ok, JSON.stringify(report.problems));
    const [before, after] = [await cli([path.basename(sample)], path.dirname(sample)), await cli([saved.name], dir)];
    assert.equal(after.tensor_count, before.tensor_count);
    assert.equal(after.metadata.find((m) => m.key === 'general.name')?.value, NAME);
    assert.deepEqual(await page.errors(), []);
    return `${saved.size} bytes saved; gguf-py: ${report.keys} keys, ${report.tensors} tensors, data sha256 ${report.data_sha256.slice(0, 12)}…`;
  } finally {
    await page.close();
  }
}

/**
 * Time from navigation to the summary (the tensor count shown), `runs` times each: the local
 * Gemma file (navigation to the idle page, then the pick to the summary: the page's own clock,
 * performance.now(), so the driver's calls between are not counted) and the same file from
 * the mock Hub (`?url=` in the address: navigation to the summary). Polled every 20 ms.
 * Returns the times (ms) and their medians.
 */
export async function speedJourney(open, url, hub, { repo, file, runs = 5 }) {
  const when = async (page, fn, what) => {
    const end = Date.now() + 120_000;
    for (;;) {
      const t = await page.run(fn);
      if (t) return t;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const ready = () => (document.body?.dataset.state === 'idle' ? performance.now() : 0);
  const summary = () => (document.querySelector('[data-testid=tensor-count]')?.dataset.value ? performance.now() : 0);
  const local = [];
  const remote = [];
  // The Hub endpoint, remembered by the page (localStorage) for the ?url= loads.
  const first = await app(open, url);
  await first.run((ep) => localStorage.setItem('weightpeek.hub-endpoint', ep), hub.endpoint);
  await first.close();
  for (let i = 0; i < runs; i++) {
    let page = await open(url);
    try {
      const idle = await when(page, ready, 'the idle page');
      await page.run(() => {
        window.__wpPicked = 0;
        document.querySelector('[data-testid=file-input]').addEventListener('change', () => { window.__wpPicked = performance.now(); }, { capture: true, once: true });
      });
      await page.pick('[data-testid=file-input]', files.gemma);
      const shown = await when(page, summary, 'the summary of the local file');
      const picked = await page.run(() => window.__wpPicked);
      assert.ok(picked > 0 && shown >= picked);
      local.push(idle + (shown - picked));
    } finally {
      await page.close();
    }
    page = await open(`${url}?url=${encodeURIComponent(hubUrl(hub, repo, file))}`);
    try {
      remote.push(await when(page, summary, 'the summary of the Hub URL'));
    } finally {
      await page.close();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { local, remote, localMedian: median(local), remoteMedian: median(remote) };
}

/** What has the focus on the page: `tab:NAME`, `row:NAME`, else `TAG:label`. */
const pageFocus = () => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'body';
  if (el.getAttribute('role') === 'tab') return `tab:${el.dataset.tab}`;
  if (el.matches('tr[data-file-index]')) return `row:${el.querySelector('td.col-name')?.textContent}`;
  return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent.trim().slice(0, 40)}`;
};

/**
 * The page by keyboard alone (null on a page without a tab bar): Gemma picked, Tab from the top
 * reaches the tab bar, the arrow keys reach the Tensors tab, Tab reaches a row, Enter opens its
 * preview (the Preview tab), Escape closes it and the focus is back on the row, in the Tensors
 * tab. Returns the keys pressed.
 */
export async function pageKeyboardJourney(open, url, { maxTabs = 40 } = {}) {
  const page = await app(open, url);
  const pressed = [];
  const press = async (key) => { pressed.push(key); await page.keys([key]); };
  try {
    await page.pick('[data-testid=file-input]', files.gemma);
    assert.equal(await settled(page), 'ready');
    if (!(await page.run(() => !!document.querySelector('[role=tablist] [role=tab][data-tab=tensors]')))) return null;
    await page.run(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
    let f = await page.run(pageFocus);
    for (let i = 0; i < maxTabs && !f.startsWith('tab:'); i++) { await press('Tab'); f = await page.run(pageFocus); }
    assert.match(f, /^tab:/, `a tab has the focus after ${pressed.length} Tabs`);
    for (let i = 0; i < 12 && f !== 'tab:tensors'; i++) { await press('ArrowRight'); f = await page.run(pageFocus); }
    assert.equal(f, 'tab:tensors');
    for (let i = 0; i < 30 && !f.startsWith('row:'); i++) { await press('Tab'); f = await page.run(pageFocus); }
    assert.match(f, /^row:/, 'a tensor row has the focus');
    const name = f.slice(4);
    await press('Enter');
    await until(page, (n) => {
      const p = document.querySelector('[data-testid=preview]');
      return p && p.dataset.tensor === n && p.dataset.state === 'ready';
    }, name, 60_000, `the preview of ${name} by Enter`);
    await press('Escape');
    await until(page, () => document.querySelector('[data-testid=preview]')?.hidden !== false, null, 5_000, 'Escape closes the preview');
    assert.equal(await page.run(pageFocus), `row:${name}`, 'the focus is back on the row');
    return pressed;
  } finally {
    await page.close();
  }
}
