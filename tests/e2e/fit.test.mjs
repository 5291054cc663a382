// End-to-end: "Will it run here?" (issue #13) in headless chromium. The real Gemma 3 GGUF is
// dropped on the page with device settings given in the address, typed into the Fit card's
// form, and set as <weightpeek-view tab="fit"> attributes; in every case the card's -ngl,
// per-device bytes, verdict and command line must equal what the native CLI prints for the
// same settings (`weightpeek fit FILE --gpu … --json`), and the JavaScript API's fit() must
// return the CLI's plan object itself. The settings round-trip through the address and
// localStorage, and recomputing reads nothing of the file again. A Hub repo of eleven GGUF
// files (one model at eleven tensor types, tests/reference/fit_repo_fixtures.py) opened from the
// mock Hub gets a "Will it fit?" table equal to `weightpeek fit REPO --json`, reading only
// the files' headers (the mock Hub's log), with a screenshot.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import {
  cliBinary,
  launchBrowser, startAppServer, openApp, dropFile, waitForSettled, showTab, readCounters, resetCounters,
  screenshot, requireFile, files, dataDir, repoRoot, screenshotDir,
} from './helpers.mjs';
import { startMockHub } from './mock-hub.mjs';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const GEMMA = path.basename(files.gemma);
const repoFixtures = path.join(repoRoot, 'target', 'fit-repo-fixtures');
const REPO = 'weightpeek/tinyllama-fit-GGUF';

/** The native CLI ($WEIGHTPEEK_BIN, the target dir's debug or release build, else cargo run). */
function cliCommand() {
  const bin = cliBinary();
  return bin ? [bin, []] : ['cargo', ['run', '--quiet', '--manifest-path', path.join(repoRoot, 'Cargo.toml'), '--bin', 'weightpeek', '--']];
}

/** `weightpeek fit INPUT ARGS --json` (exit 0, 1 and 3 are verdicts, not failures). */
async function cliFit(input, args, { cwd = dataDir, env = {} } = {}) {
  const [cmd, pre] = cliCommand();
  try {
    const { stdout } = await run(cmd, [...pre, 'fit', input, ...args, '--json'], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * MiB });
    return JSON.parse(stdout);
  } catch (e) {
    if ([1, 3].includes(e.code) && e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

/** The app server's address of `rel` (its url ends with a slash). */
const at = (server, rel) => new URL(rel, server.url).href;

/** CLI arguments of query pairs (`gpu=0` stays `--gpu 0`). */
function argsOf(query) {
  return [...new URLSearchParams(query)].flatMap(([k, v]) => [`--${k}`, v]);
}

/** What the Fit card under `root` (a page, or a locator of the element) shows. */
async function shownPlan(root) {
  const card = root.locator('[data-testid=fit][data-state=ready]').first();
  await card.waitFor({ state: 'attached', timeout: 30_000 });
  const get = (n) => card.getAttribute(n);
  return {
    fits: await get('data-fits'),
    gpu_layers: Number(await get('data-gpu-layers')),
    context: Number(await get('data-context')),
    max_context_gpu: (await get('data-max-context-gpu')) ? Number(await get('data-max-context-gpu')) : null,
    devices: await card.locator('[data-testid=fit-device]').evaluateAll((els) => els.map((e) => ({
      name: e.dataset.name, bytes: Number(e.dataset.bytes), budget: Number(e.dataset.budget), over: e.dataset.over === 'true',
      permille: Number(e.dataset.permille),
    }))),
    command: (await card.locator('[data-testid=fit-command]').textContent()).trim(),
    verdict: (await card.locator('[data-testid=fit-verdict]').textContent()).trim(),
  };
}

/** The card equals the CLI's plan. */
function samePlan(shown, cli, label) {
  assert.equal(shown.fits, cli.fits, `${label}: verdict`);
  assert.equal(shown.gpu_layers, cli.gpu_layers, `${label}: -ngl`);
  assert.equal(shown.context, cli.context, `${label}: context`);
  assert.equal(shown.max_context_gpu, cli.max_context_gpu, `${label}: largest context on the GPUs`);
  assert.deepEqual(shown.devices.map((d) => [d.name, d.bytes, d.budget]), cli.devices.map((d) => [d.name, d.bytes, d.budget_bytes]), `${label}: per-device bytes`);
  for (const d of shown.devices) {
    assert.equal(d.permille, Math.min(1000, d.budget ? Math.floor(d.bytes * 1000 / d.budget) : (d.bytes ? 1000 : 0)), `${label}: ${d.name} bar`);
    assert.equal(d.over, d.bytes > d.budget, `${label}: ${d.name} over`);
  }
  assert.equal(shown.command, cli.command, `${label}: command line`);
}

// The settings tried: a big GPU, a small one (part offloaded at a long context), none, two.
const CASES = [
  { label: 'one 24 GiB GPU', query: 'gpu=24GiB&ram=64GiB', fits: 'gpu' },
  { label: 'a 1 GiB GPU at 131,072 tokens', query: 'gpu=1GiB&margin=0&ctx=131072', fits: 'offload' },
  { label: 'no GPU', query: 'gpu=0&ram=16GiB', fits: 'offload' },
  { label: 'two 720 MiB GPUs', query: 'gpu=720MiB&gpu=720MiB&margin=0', fits: 'gpu' },
];

describe('will it run here: the Fit card, element, API and repo table', { timeout: 20 * 60_000 }, () => {
  let browser; let server; let tmp;

  before(async () => {
    requireFile(files.gemma);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-fit-'));
    fs.writeFileSync(path.join(tmp, 'fit.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fit element</title>
<script type="module" src="/weightpeek.js"></script></head>
<body><weightpeek-view id="v" src="/data/${GEMMA}" tab="fit" gpu="720MiB, 720MiB" margin="0" height="1400"></weightpeek-view></body></html>`);
    server = await startAppServer({ mounts: { '/data/': dataDir, '/t/': tmp } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('shows the CLI\'s plan for settings given in the address, and keeps them there', { timeout: 300_000 }, async () => {
    for (const c of CASES) {
      const cli = await cliFit(GEMMA, argsOf(c.query));
      assert.equal(cli.fits, c.fits, `${c.label}: the CLI's verdict is the one this case is about`);
      const page = await openApp(browser, { url: at(server, `?${c.query}`) });
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      await showTab(page, 'fit');
      const shown = await shownPlan(page);
      samePlan(shown, cli, c.label);
      // The address still holds the settings (a local file drops url= and tensor= only).
      const q = new URL(page.url()).searchParams;
      for (const [k, v] of new URLSearchParams(c.query)) assert.ok(q.getAll(k).includes(v), `${c.label}: ${k}=${v} kept in ${page.url()}`);
      assert.deepEqual(page.__wpErrors, [], `${c.label}: page errors`);
      if (c.label === 'two 720 MiB GPUs') {
        assert.deepEqual(cli.tensor_split, [18, 1], 'the two-GPU case splits the layers');
        assert.match(shown.command, / -ts 18,1$/);
        fs.mkdirSync(screenshotDir, { recursive: true });
        await page.locator('[data-testid=fit]').screenshot({ path: path.join(screenshotDir, 'fit-card-two-gpus.png') });
      }
      await page.context().close();
    }
  });

  it('plans again as the form changes, without reading the file, and remembers the settings', { timeout: 300_000 }, async () => {
    const page = await openApp(browser, server);
    await dropFile(page, files.gemma);
    assert.equal(await waitForSettled(page), 'ready');
    await showTab(page, 'fit');
    // The defaults: one 8 GiB GPU, 16 GiB RAM, 1 GiB margin, the model's own context, f16.
    samePlan(await shownPlan(page), await cliFit(GEMMA, []), 'defaults');
    assert.equal(await page.inputValue('[data-testid=fit-gpu-size]'), '8GiB');
    assert.equal(await page.inputValue('[data-testid=fit-ram]'), '16GiB');

    await resetCounters(page);
    const card = page.locator('[data-testid=fit]');
    const before = await card.getAttribute('data-gpu-layers');
    // Two GPUs (the second from a preset), a margin, a context and a quantised KV cache.
    await page.fill('[data-testid=fit-gpu-size]', '1GiB');
    await page.click('[data-testid=fit-gpu-add]');
    await page.locator('[data-testid=fit-gpu-preset]').nth(1).selectOption('rtx3060');
    assert.equal(await page.locator('[data-testid=fit-gpu-size]').nth(1).inputValue(), 'rtx3060', 'the preset fills the box');
    await page.fill('[data-testid=fit-margin]', '256MiB');
    await page.fill('[data-testid=fit-ctx]', '16384');
    await page.selectOption('[data-testid=fit-kv]', 'q8_0');
    await page.waitForFunction(() => {
      const q = new URL(location.href).searchParams;
      return q.get('kv') === 'q8_0' && q.get('ctx') === '16384' && q.get('margin') === '256MiB';
    }, null, { timeout: 10_000 });
    const query = 'gpu=1GiB&gpu=rtx3060&ram=16GiB&ctx=16384&kv=q8_0&margin=256MiB';
    const want = await cliFit(GEMMA, argsOf(query));
    await page.waitForFunction((n) => document.querySelector('[data-testid=fit]').dataset.context === n, String(want.context));
    const shown = await shownPlan(page);
    samePlan(shown, want, 'typed into the form');
    assert.equal(shown.devices[1].name, 'GPU 1: RTX 3060 (12 GiB)');
    assert.match(shown.command, /-ctk q8_0 -ctv q8_0/);
    assert.ok(before !== null);
    // The copy button puts the command line on the clipboard.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.click('[data-testid=fit-copy]');
    await page.waitForFunction(() => document.querySelector('[data-testid=fit-copy-status]')?.textContent === 'copied', null, { timeout: 5_000 });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want.command, 'clipboard holds the command line');
    const counters = await readCounters(page);
    assert.equal(counters.slicedBytes, 0, 'recomputing read nothing of the file');
    assert.equal(counters.readBytes, 0, 'recomputing read nothing of the file');
    const url = new URL(page.url());
    assert.deepEqual(url.searchParams.getAll('gpu'), ['1GiB', 'rtx3060'], 'one gpu= per GPU, in order');
    assert.equal(url.searchParams.get('ram'), '16GiB');
    assert.equal((await page.textContent('[data-testid=fit-cli]')).trim(),
      `the same plan in a terminal: weightpeek fit ${GEMMA} --gpu 1GiB --gpu rtx3060 --ram 16GiB --ctx 16384 --kv q8_0 --margin 256MiB`);

    // A bad size is said, marked, and plans nothing; removing a GPU plans again.
    await page.fill('[data-testid=fit-ram]', 'lots');
    await page.waitForSelector('[data-testid=fit][data-state=input-error]');
    assert.match(await page.textContent('[data-testid=fit-input-error]'), /RAM: "lots" is not a memory size/);
    assert.equal(await page.getAttribute('[data-testid=fit-ram]', 'aria-invalid'), 'true');
    await page.fill('[data-testid=fit-ram]', '16GiB');
    await page.locator('[data-testid=fit-gpu-remove]').nth(1).click();
    samePlan(await shownPlan(page), await cliFit(GEMMA, argsOf('gpu=1GiB&ram=16GiB&ctx=16384&kv=q8_0&margin=256MiB')), 'after removing GPU 1');

    // A new visit without settings in the address shows the remembered ones (localStorage).
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.state === 'idle');
    await dropFile(page, files.gemma);
    assert.equal(await waitForSettled(page), 'ready');
    await showTab(page, 'fit');
    samePlan(await shownPlan(page), await cliFit(GEMMA, argsOf('gpu=1GiB&ram=16GiB&ctx=16384&kv=q8_0&margin=256MiB')), 'remembered');
    assert.equal(await page.inputValue('[data-testid=fit-ctx]'), '16384');
    assert.equal(await page.inputValue('[data-testid=fit-kv]'), 'q8_0');
    // A shared link wins over what this browser remembers.
    await page.goto(at(server, `?${CASES[3].query}`));
    await page.waitForFunction(() => document.body.dataset.state === 'idle');
    await dropFile(page, files.gemma);
    assert.equal(await waitForSettled(page), 'ready');
    await showTab(page, 'fit');
    samePlan(await shownPlan(page), await cliFit(GEMMA, argsOf(CASES[3].query)), 'shared link');
    assert.deepEqual(page.__wpErrors, [], 'page errors');
    await page.context().close();
  });

  it('the element with tab="fit" and its gpu/ram/ctx/kv attributes, and the API\'s fit()', { timeout: 300_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1500 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/favicon\.ico$/.test(m.location()?.url ?? '')) errors.push(`${m.text()} (${m.location()?.url})`);
    });
    await page.goto(at(server, 't/fit.html'));
    await page.waitForFunction(() => document.querySelector('#v')?.dataset.state === 'ready', null, { timeout: 60_000 });
    const v = page.locator('#v');
    assert.equal(await v.locator('[role=tab][aria-selected=true]').getAttribute('data-tab'), 'fit');
    samePlan(await shownPlan(v), await cliFit(GEMMA, argsOf(CASES[3].query)), 'element, two GPUs');
    await screenshot(page, 'fit-element');

    // Changing the attributes plans again with nothing read.
    const reads = () => page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/data/')).length);
    const n = await reads();
    await page.evaluate(() => {
      const el = document.querySelector('#v');
      el.setAttribute('gpu', '1GiB');
      el.setAttribute('ctx', '131072');
    });
    await v.locator('[data-testid=fit][data-context="131072"]').waitFor({ state: 'attached' });
    samePlan(await shownPlan(v), await cliFit(GEMMA, argsOf(CASES[1].query)), 'element, 1 GiB GPU');
    await page.evaluate(() => {
      const el = document.querySelector('#v');
      el.setAttribute('gpu', '0');
      el.removeAttribute('ctx');
      el.removeAttribute('margin');
      el.setAttribute('kv', 'q4_0');
    });
    await v.locator('[data-testid=fit][data-gpu-layers="0"]').waitFor({ state: 'attached' });
    samePlan(await shownPlan(v), await cliFit(GEMMA, ['--gpu', '0', '--kv', 'q4_0']), 'element, no GPU, q4_0');
    assert.equal(await reads(), n, 'attribute changes read nothing');
    assert.equal(new URL(page.url()).search, '', 'the element leaves the host page\'s address alone');

    // The API returns the CLI's plan object itself, for three device sets.
    const api = (src, devices, options) => page.evaluate(async ([s, d, o]) => {
      const { fit } = await import('/weightpeek.js');
      try { return await fit(s, d, o); } catch (e) { return { error: String(e.message ?? e) }; }
    }, [src, devices, options]);
    const url = `/data/${GEMMA}`;
    assert.deepEqual(await api(url, { gpus: [{ size: '1GiB' }], ram: '16GiB' }, { margin: 0, context: 131072 }), await cliFit(GEMMA, argsOf(CASES[1].query)));
    assert.deepEqual(await api(url, { gpus: [{ bytes: 720 * MiB }, '720MiB'], ram: 16 * 1024 * MiB }, { margin: '0' }), await cliFit(GEMMA, argsOf(CASES[3].query)));
    const named = await api(url, { gpus: [{ name: 'my card', size: 'rtx4090' }], ram: '64GiB' }, { kv: 'q8_0' });
    const cli = await cliFit(GEMMA, ['--gpu', 'rtx4090', '--ram', '64GiB', '--kv', 'q8_0']);
    assert.equal(named.devices[0].name, 'my card');
    named.devices[0].name = cli.devices[0].name;
    assert.deepEqual(named, cli);
    assert.deepEqual(await api(url, undefined, undefined), await cliFit(GEMMA, []), 'default devices');
    assert.match((await api(url, { gpus: [{}] })).error, /devices\.gpus\[0\]: needs one of bytes or size/);
    assert.match((await api(url, {}, { kv: 'q5' })).error, /options\.kv: "q5" is not f16, q8_0 or q4_0/);
    assert.match((await api(url, { ram: -1 })).error, /devices\.ram: -1 is not a whole number of bytes/);
    assert.deepEqual(errors, [], 'page errors');
    await context.close();
  });

  it('a Hub repo of eleven GGUF files: the "Will it fit?" table from their headers alone', { timeout: 400_000 }, async () => {
    const script = path.join(repoRoot, 'tests', 'reference', 'fit_repo_fixtures.py');
    const expectedFile = path.join(repoFixtures, 'expected.json');
    if (!fs.existsSync(expectedFile) || fs.statSync(script).mtimeMs > fs.statSync(expectedFile).mtimeMs) {
      execFileSync(path.join(repoRoot, '.venv', 'bin', 'python'), [script, '--out', repoFixtures], { stdio: 'inherit' });
    }
    const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
    assert.ok(Object.keys(expected.files).length >= 10, 'at least ten quantisation files');
    const hub = await startMockHub({ repos: { [REPO]: { dir: path.join(repoFixtures, 'repo') } } });
    try {
      // Devices that split the repo: the small types fit fully, the middle ones with offload.
      const query = 'gpu=768MiB&margin=0&ram=1GiB&ctx=4096';
      const cli = await cliFit(REPO, argsOf(query), { env: { HF_ENDPOINT: hub.endpoint, HF_TOKEN: '' } });
      hub.clearLog();
      const page = await openApp(browser, { url: at(server, `?${query}`) });
      await page.evaluate(() => { document.querySelector('details.hub-settings').open = true; });
      await page.fill('[data-testid=hub-endpoint]', hub.endpoint);
      await page.fill('[data-testid=url-input]', REPO);
      await page.click('[data-testid=url-open]');
      const table = page.locator('[data-testid=repo-fit]');
      await page.waitForSelector('[data-testid=repo-fit][data-state=ready]', { timeout: 120_000 });
      const rows = await table.locator('[data-testid=repo-fit-row]').evaluateAll((els) => els.map((e) => ({
        label: e.dataset.label, size: Number(e.dataset.size), fits: e.dataset.fits, pick: e.dataset.pick === 'true',
        gpu_layers: e.dataset.gpuLayers === undefined ? null : Number(e.dataset.gpuLayers),
        max_context_gpu: e.dataset.maxContextGpu === undefined ? null : Number(e.dataset.maxContextGpu),
        command: e.querySelector('.fit-row-command code')?.textContent ?? null,
        verdict: e.children[2].textContent,
      })));
      assert.equal(rows.length, Object.keys(expected.files).length, 'one row per GGUF file');
      assert.deepEqual(rows, cli.models.map((m) => ({
        label: m.label, size: m.size, fits: m.fits, pick: m.pick, gpu_layers: m.gpu_layers,
        max_context_gpu: m.max_context_gpu, command: m.command, verdict: m.verdict,
      })), 'the table is the CLI\'s, row for row');
      const verdicts = new Set(rows.map((r) => r.fits));
      assert.ok(verdicts.has('gpu') && verdicts.has('offload') && verdicts.has('no'), `mixed verdicts: ${[...verdicts]}`);
      assert.equal(rows.filter((r) => r.pick).length, 1);
      // Only headers were read: per file, bytes ≪ its size.
      await hub.idle(10_000);
      for (const [name, f] of Object.entries(expected.files)) {
        const got = hub.log.filter((l) => l.server === 'cdn' && l.path.endsWith(`/${name}`)).reduce((a, l) => a + l.bytes, 0);
        assert.ok(got >= f.data_offset, `${name}: its header (${f.data_offset} bytes) was read (${got})`);
        assert.ok(got <= 1 * MiB && got * 100 < f.size, `${name}: ${got} bytes read of ${f.size}`);
      }
      // At most four headers were read at once.
      assert.ok(hub.concurrency.cdn <= 4, `${hub.concurrency.cdn} requests at once`);
      // The table plans again when the devices change, reading nothing more.
      const big = await cliFit(REPO, argsOf('gpu=24GiB&margin=0&ram=64GiB&ctx=4096'), { env: { HF_ENDPOINT: hub.endpoint, HF_TOKEN: '' } });
      await hub.idle(10_000);
      hub.clearLog();
      await page.locator('[data-testid=repo-fit] [data-testid=fit-gpu-size]').fill('24GiB');
      await page.locator('[data-testid=repo-fit] [data-testid=fit-ram]').fill('64GiB');
      const bigPick = big.models.find((m) => m.pick).label;
      await page.waitForSelector(`[data-testid=repo-fit-row][data-pick=true][data-label="${bigPick}"]`, { timeout: 10_000 });
      assert.deepEqual(hub.log, [], 'no new reads');
      await page.locator('[data-testid=repo-fit] [data-testid=fit-gpu-size]').fill('768MiB');
      await page.locator('[data-testid=repo-fit] [data-testid=fit-ram]').fill('1GiB');
      await page.waitForSelector(`[data-testid=repo-fit-row][data-pick=true][data-label="${cli.models.find((m) => m.pick).label}"]`, { timeout: 10_000 });
      await table.scrollIntoViewIfNeeded();
      await screenshot(page, 'fit-repo-table');
      assert.deepEqual(page.__wpErrors, [], 'page errors');
      await page.context().close();
    } finally {
      await hub.close();
    }
  });
});
