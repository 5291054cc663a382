// End-to-end: "Compare with another file…" in the built app. A model is opened, a second file is
// compared with it (file input, or a URL), and the Compare card's numbers are checked against
// (1) what tests/reference/compare_fixtures.py computed in Python from the two files (gguf-py),
// and (2) what the native CLI prints for `weightpeek diff A B --json`. No expected number is
// typed here. Comparing reads only the second file's header (Blob.slice counters).
//
// Pairs (target/compare-fixtures, written by compare_fixtures.py; scripts/test.sh runs it):
//   gemma:  the real Gemma 3 270M Q4_K_M vs gemma-modified.gguf, a copy of its header with a key
//           renamed away, one added, general.name changed, one tensor retyped Q4_K -> Q8_0, one
//           removed and one added (253 MB sparse file: its data are zeros)
//   small:  small-a.gguf vs small-b.gguf (served over HTTP, compared through the URL box)
//
// UI contract: [data-testid=compare-input] (file input), [data-testid=compare-url] +
// [data-testid=compare-url-form], body[data-compare] = loading | ready | error,
// [data-testid=compare-card] with data-in-both, data-only-a, data-only-b, data-changed,
// data-keys-added, data-keys-removed, data-keys-changed, data-bpw-a, data-bpw-b,
// data-b-bytes-read; [data-testid=compare-roles] tr[data-role][data-a][data-b];
// [data-testid=compare-keys|compare-tensors] tr[data-kind][data-name];
// [data-testid=compare-json] (download), [data-testid=compare-close].

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  cliBinary,
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  readCounters,
  resetCounters,
  screenshot,
  attr,
  requireFile,
  repoRoot,
  files,
} from './helpers.mjs';

const MiB = 1024 * 1024;
const fixtures = path.join(repoRoot, 'target', 'compare-fixtures');
const HINT = 'run tests/reference/compare_fixtures.py --out target/compare-fixtures; scripts/test.sh does';

function expected(name) {
  return JSON.parse(fs.readFileSync(requireFile(path.join(fixtures, `${name}.json`), HINT), 'utf8'));
}

/**
 * `weightpeek diff A B --json` from the native binary ($WEIGHTPEEK_BIN, the target dir's, or cargo run).
 * Its exit status is diff(1)'s: 0 no differences, 1 differences (the JSON is printed), 2 trouble.
 */
function cliDiff(a, b) {
  const bin = cliBinary();
  const opts = { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * MiB };
  const run = () => bin
    ? execFileSync(bin, ['diff', a, b, '--json'], opts)
    : execFileSync('cargo', ['run', '--quiet', '--bin', 'weightpeek', '--', 'diff', a, b, '--json'], opts);
  const lists = ['keys_added', 'keys_removed', 'keys_changed', 'tensors_added', 'tensors_removed', 'tensors_changed'];
  const differs = (text) => lists.some((k) => JSON.parse(text)[k].length > 0);
  try {
    const text = run();
    assert.ok(!differs(text), 'weightpeek diff exited 0 but lists differences');
    return text;
  } catch (e) {
    if (e.status !== 1 || typeof e.stdout !== 'string') throw e;
    assert.ok(differs(e.stdout), 'weightpeek diff exited 1 with nothing listed');
    return e.stdout;
  }
}

const close = (x, y) => (x === null || y === null ? x === y : Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(y)));
const numOrNull = (s) => (s === null || s === '' ? null : Number(s));

/** Everything the card shows as data. */
async function readCard(page) {
  return page.evaluate(() => {
    const card = document.querySelector('[data-testid=compare-card]');
    if (!card) return null;
    const d = card.dataset;
    const rows = (id) => [...card.querySelectorAll(`[data-testid=${id}] tbody tr`)].map((tr) => ({
      kind: tr.dataset.kind,
      name: tr.dataset.name,
      a: tr.querySelector('.col-a')?.textContent,
      b: tr.querySelector('.col-b')?.textContent,
    }));
    return {
      counts: {
        inBoth: Number(d.inBoth), onlyA: Number(d.onlyA), onlyB: Number(d.onlyB), changed: Number(d.changed),
        keysAdded: Number(d.keysAdded), keysRemoved: Number(d.keysRemoved), keysChanged: Number(d.keysChanged),
      },
      bpw: [d.bpwA, d.bpwB],
      bRead: Number(d.bBytesRead),
      summary: card.querySelector('[data-testid=compare-summary]')?.textContent,
      roles: [...card.querySelectorAll('[data-testid=compare-roles] tbody tr')].map((tr) => ({ role: tr.dataset.role, a: tr.dataset.a, b: tr.dataset.b })),
      keys: rows('compare-keys'),
      tensors: rows('compare-tensors'),
      html: card.innerHTML,
    };
  });
}

/** The card against the Python expectation and the CLI's JSON (which must agree with each other too). */
function assertCard(card, py, cli, label) {
  assert.ok(card, `${label}: no compare card`);
  // Counts: Python.
  assert.deepEqual(card.counts, {
    inBoth: py.tensors_in_both,
    onlyA: py.tensors_removed.length,
    onlyB: py.tensors_added.length,
    changed: py.tensors_changed.length,
    keysAdded: py.keys_added.length,
    keysRemoved: py.keys_removed.length,
    keysChanged: py.keys_changed.length,
  }, `${label}: counts vs Python`);
  // Whole-file bits per weight.
  for (const i of [0, 1]) {
    assert.ok(close(numOrNull(card.bpw[i]), py.bpw[i]), `${label}: bpw[${i}] ${card.bpw[i]} vs Python ${py.bpw[i]}`);
    assert.equal(numOrNull(card.bpw[i]), cli.bpw[i], `${label}: bpw[${i}] vs CLI`);
  }
  // Per role: same roles in the same order as Python and the CLI; values within 1e-12 of
  // Python's and exactly the CLI's.
  assert.deepEqual(card.roles.map((r) => r.role), py.bpw_by_role.map((r) => r.role), `${label}: roles vs Python`);
  assert.deepEqual(card.roles.map((r) => r.role), cli.bpw_by_role.map((r) => r.role), `${label}: roles vs CLI`);
  card.roles.forEach((r, i) => {
    for (const side of ['a', 'b']) {
      const v = numOrNull(r[side]);
      assert.ok(close(v, py.bpw_by_role[i][side]), `${label}: ${r.role}.${side} ${v} vs Python ${py.bpw_by_role[i][side]}`);
      assert.equal(v, cli.bpw_by_role[i][side], `${label}: ${r.role}.${side} vs CLI`);
    }
  });
  // Metadata rows.
  const keys = (kind) => card.keys.filter((k) => k.kind === kind).map((k) => k.name);
  assert.deepEqual(keys('added'), py.keys_added, `${label}: keys only in B vs Python`);
  assert.deepEqual(keys('removed'), py.keys_removed, `${label}: keys only in A vs Python`);
  assert.deepEqual(keys('changed'), py.keys_changed, `${label}: changed keys vs Python`);
  assert.deepEqual(keys('added'), cli.keys_added, `${label}: keys only in B vs CLI`);
  assert.deepEqual(keys('removed'), cli.keys_removed, `${label}: keys only in A vs CLI`);
  assert.deepEqual(keys('changed'), cli.keys_changed.map((k) => k.key), `${label}: changed keys vs CLI`);
  card.keys.filter((k) => k.kind === 'changed').forEach((k, i) => {
    assert.deepEqual([k.a, k.b], [cli.keys_changed[i].a, cli.keys_changed[i].b], `${label}: ${k.name} values vs CLI`);
  });
  // Tensor rows.
  const tensors = (kind) => card.tensors.filter((t) => t.kind === kind);
  assert.deepEqual(tensors('added').map((t) => t.name), py.tensors_added, `${label}: tensors only in B vs Python`);
  assert.deepEqual(tensors('removed').map((t) => t.name), py.tensors_removed, `${label}: tensors only in A vs Python`);
  assert.deepEqual(tensors('added').map((t) => t.name), cli.tensors_added, `${label}: tensors only in B vs CLI`);
  assert.deepEqual(tensors('removed').map((t) => t.name), cli.tensors_removed, `${label}: tensors only in A vs CLI`);
  const shape = (s) => `[${s.join(', ')}]`;
  const changed = tensors('changed').map((t) => ({ name: t.name, a: t.a, b: t.b }));
  const want = (list) => list.map((t) => ({ name: t.name, a: `${t.dtype_a} ${shape(t.shape_a)}`, b: `${t.dtype_b} ${shape(t.shape_b)}` }));
  assert.deepEqual(changed, want(py.tensors_changed), `${label}: changed tensors vs Python`);
  assert.deepEqual(changed, want(cli.tensors_changed), `${label}: changed tensors vs CLI`);
}

describe('compare two files in the page', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    requireFile(path.join(fixtures, 'small.json'), HINT);
    server = await startAppServer({ mounts: { '/cmp/': fixtures } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('compares the real Gemma with a modified copy: the numbers of Python and the CLI, the header of B only', { timeout: 240_000 }, async () => {
    requireFile(files.gemma, 'fetch it with python3 ../shared/scripts/fetch-real-models.py');
    const py = expected('gemma');
    const modified = requireFile(path.join(fixtures, 'gemma-modified.gguf'), HINT);
    const cliText = cliDiff(files.gemma, modified);
    const cli = JSON.parse(cliText);
    const page = await openApp(browser, server);
    const requests = [];
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      assert.ok(await page.isVisible('[data-testid=compare-open]'), 'the compare controls show once a model is shown');
      await resetCounters(page);
      page.on('request', (r) => requests.push(r.url()));
      await page.setInputFiles('[data-testid=compare-input]', modified);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.compare), null, { timeout: 60_000 });
      const state = await page.evaluate(() => document.body.dataset.compare);
      const status = await page.textContent('[data-testid=compare-status]');
      assert.equal(state, 'ready', `compare state (status: ${status}); page errors: ${page.__wpErrors.join(' | ')}`);
      assert.deepEqual(requests, [], 'comparing with a local file made network requests');

      // Header only: the bytes sliced from B stay under its header + 1 MiB (the file is 253 MB).
      const counters = await readCounters(page);
      const limit = py.header_b + MiB;
      console.log(`compare gemma: B is ${py.size_b} bytes, header ${py.header_b}; sliced ${counters.slicedBytes} bytes in ${counters.sliceCalls} slices, read ${counters.readBytes}`);
      assert.ok(counters.sliceCalls > 0, 'B was read through Blob.slice');
      assert.ok(counters.slicedBytes >= py.header_b, `sliced ${counters.slicedBytes} < header ${py.header_b}?`);
      assert.ok(counters.slicedBytes < limit, `sliced ${counters.slicedBytes} bytes of B, limit header + 1 MiB = ${limit}`);
      assert.ok(counters.readBytes < limit, `read ${counters.readBytes} bytes of B, limit ${limit}`);
      // No state change of the page itself: the model A stays shown.
      assert.deepEqual(counters.stateLog, [], 'comparing did not reopen the page');

      const card = await readCard(page);
      assertCard(card, py, cli, 'gemma');
      assert.equal(card.bRead, counters.slicedBytes, 'the card says how many bytes of B it read');
      assert.match(card.summary, /^Q4_K_M vs gemma-modified\.gguf|^gemma-3-270m-q4_k_m\.gguf vs gemma-modified\.gguf|^Q4_K_M vs Q4_K_M/, card.summary);
      assert.match(card.summary, new RegExp(`${py.tensors_in_both} tensors in both, ${py.tensors_removed.length} only in A, ${py.tensors_added.length} only in B, ${py.tensors_changed.length} changed type or shape`));
      assert.match(card.summary, new RegExp(`bpw ${py.bpw[0].toFixed(3)} → ${py.bpw[1].toFixed(3)}$`));

      // Download JSON: byte for byte what `weightpeek diff A B --json` prints.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=compare-json]')]);
      const file = await download.path();
      assert.equal(fs.readFileSync(file, 'utf8'), cliText, 'Download JSON = weightpeek diff --json');
      assert.match(download.suggestedFilename(), /^gemma-3-270m-q4_k_m\.gguf-vs-gemma-modified\.gguf\.weightpeek-diff\.json$/);

      for (const [w, scheme] of [[1280, 'light'], [1280, 'dark'], [390, 'light'], [390, 'dark']]) {
        await page.setViewportSize({ width: w, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await page.locator('[data-testid=compare-card]').scrollIntoViewIfNeeded();
        fs.mkdirSync(path.join(repoRoot, 'target', 'e2e-screenshots'), { recursive: true });
        await page.locator('[data-testid=compare-card]').screenshot({ path: path.join(repoRoot, 'target', 'e2e-screenshots', `compare-card-${w}-${scheme}.png`) });
        await page.screenshot({ path: path.join(repoRoot, 'target', 'e2e-screenshots', `compare-top-${w}-${scheme}.png`) });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${w} px ${scheme}: the page scrolls sideways by ${overflow} px`);
      }

      // Close removes the card; the model stays.
      await page.click('[data-testid=compare-close]');
      assert.equal(await page.$('[data-testid=compare-card]'), null, 'the card is gone after Close');
      assert.ok(await page.$('[data-testid=tensor-count]'), 'the model is still shown');
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('compares a dropped file while "drop to compare" is ticked; long lists are capped with "Show all"', { timeout: 180_000 }, async () => {
    requireFile(files.gemma, 'fetch it with python3 ../shared/scripts/fetch-real-models.py');
    const small = path.join(fixtures, 'small-a.gguf');
    const cli = JSON.parse(cliDiff(files.gemma, small));
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      await page.check('[data-testid=compare-drop]');
      // While dragging, the page-wide hint says the drop compares.
      const hint = await page.evaluate(() => {
        document.body.classList.add('dragging');
        const c = getComputedStyle(document.body, '::after').content;
        document.body.classList.remove('dragging');
        return c;
      });
      assert.equal(hint, '"Drop to compare with the model shown"');
      await dropFile(page, small);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.compare), null, { timeout: 60_000 });
      assert.equal(await page.evaluate(() => document.body.dataset.compare), 'ready');
      // The page still shows Gemma: the drop compared, it did not open.
      assert.equal(await page.evaluate(() => document.body.dataset.file), path.basename(files.gemma));
      const card = await readCard(page);
      // Different file types: the summary names them.
      assert.match(card.summary, /^Q4_K_M vs Q4_0: /, card.summary);
      const onlyA = cli.tensors_removed.length;
      assert.equal(card.counts.onlyA, onlyA, 'tensors only in A vs CLI');
      const total = cli.tensors_removed.length + cli.tensors_added.length + cli.tensors_changed.length;
      const shown = () => page.$$eval('[data-testid=compare-tensors] tbody tr', (t) => t.length);
      assert.equal(await attr(page, '[data-testid=compare-tensors]', 'data-total'), String(total));
      assert.ok(total > 40 && (await shown()) < total, `capped: ${await shown()} of ${total} rows drawn`);
      await page.click('[data-testid=compare-card] .compare-more');
      assert.equal(await shown(), total, 'Show all draws every row');
      const all = await readCard(page);
      assert.deepEqual(all.tensors.filter((t) => t.kind === 'removed').map((t) => t.name), cli.tensors_removed, 'all rows = CLI');
      await page.screenshot({ path: path.join(repoRoot, 'target', 'e2e-screenshots', 'compare-drop-show-all.png'), fullPage: false });
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('compares with a URL (the small pair over HTTP Range) and shows file text as text', { timeout: 120_000 }, async () => {
    const py = expected('small');
    const a = path.join(fixtures, 'small-a.gguf');
    const b = path.join(fixtures, 'small-b.gguf');
    const cliText = cliDiff(a, b);
    const cli = JSON.parse(cliText);
    const page = await openApp(browser, server, { width: 390, height: 844 });
    const bytes = [];
    page.on('response', async (r) => {
      if (r.url().includes('/cmp/')) bytes.push(Number((await r.allHeaders())['content-length'] ?? 0));
    });
    try {
      await dropFile(page, a);
      assert.equal(await waitForSettled(page), 'ready');
      await page.fill('[data-testid=compare-url]', `${server.url}cmp/small-b.gguf`);
      await page.press('[data-testid=compare-url]', 'Enter');
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.compare), null, { timeout: 60_000 });
      const status = await page.textContent('[data-testid=compare-status]');
      assert.equal(await page.evaluate(() => document.body.dataset.compare), 'ready', `compare state (status: ${status})`);
      const card = await readCard(page);
      assertCard(card, py, cli, 'small');
      // Only B's header came over the wire (B is 8 MB).
      const got = bytes.reduce((x, y) => x + y, 0);
      console.log(`compare small over HTTP: B is ${py.size_b} bytes, header ${py.header_b}; ${bytes.length} responses, ${got} bytes; card says ${card.bRead}`);
      assert.ok(got > 0 && got < py.header_b + MiB, `received ${got} bytes of B, limit header + 1 MiB`);
      assert.ok(card.bRead < py.header_b + MiB, `the card read ${card.bRead} bytes`);
      // general.name of B holds "<b>not html</b>": shown as text, never parsed.
      const name = card.keys.find((k) => k.name === 'general.name');
      assert.match(name.b, /<b>not html<\/b>/);
      assert.equal(await page.$('[data-testid=compare-card] b'), null, 'no <b> element from file text');
      await screenshot(page, 'compare-small-390');
      // A file that is not a model: a message, the card stays.
      await page.setInputFiles('[data-testid=compare-input]', path.join(fixtures, 'small.json'));
      await page.waitForFunction(() => document.body.dataset.compare === 'error');
      assert.match(await page.textContent('[data-testid=compare-status]'), /small\.json/);
      assert.ok(await page.$('[data-testid=compare-card]'), 'the previous card stays');
      // A URL that names nothing comparable: a message, no card change.
      await page.fill('[data-testid=compare-url]', 'not a url at all');
      await page.press('[data-testid=compare-url]', 'Enter');
      await page.waitForFunction(() => document.body.dataset.compare === 'error');
      assert.ok(await page.$('[data-testid=compare-card]'), 'the previous card stays');
      // Opening another model removes the card.
      await dropFile(page, b);
      assert.equal(await waitForSettled(page), 'ready');
      assert.equal(await page.$('[data-testid=compare-card]'), null, 'a new model drops the old comparison');
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });
});
