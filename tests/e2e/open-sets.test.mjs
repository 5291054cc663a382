// End-to-end: local files given together open as one model (issue #10), in headless chromium.
// The generated sets of tests/reference/remote_fixtures.py (target/remote-fixtures: a GGUF split
// into 3 parts with gguf-py, a safetensors model in 3 shards with its index) are dropped on the
// page the way a person drags several files at once: all parts of the split GGUF (in any order),
// one part alone, the index alone, a set with files that do not belong, the index with its
// shards, and the numbered shards without their index. Every expected number comes from the
// fixtures' reference JSON (written from gguf-py / safetensors), never typed in. The element's
// view.open(files) and inspect(files) take the same lists (a FileList or an array of Files).
// Screenshots of each case go to target/e2e-screenshots/sets-*.png.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, dropFiles, waitForSettled, readCounters, attr, errorBox,
  dtypeHistogram, screenshot, requireFile, repoRoot, distDir, screenshotDir, showTab
} from './helpers.mjs';

const fixtures = path.join(repoRoot, 'target', 'remote-fixtures');
const KiB = 1024;

function fixtureRef(name) {
  const f = path.join(fixtures, `${name}.json`);
  requireFile(f, 'run tests/reference/remote_fixtures.py; scripts/test.sh does');
  return JSON.parse(fs.readFileSync(f, 'utf8'));
}

/** Elements of a tensor of this shape (BigInt: the product of its dimensions). */
const elements = (shape) => shape.reduce((a, d) => a * BigInt(d), 1n);

/** What the reference says of the tensors of `ref` in the given 1-based parts. */
function expectedOf(ref, parts) {
  const ts = ref.tensors.filter((t) => parts.includes(t.part));
  const dtypes = {};
  for (const t of ts) dtypes[t.dtype] = (dtypes[t.dtype] ?? 0) + 1;
  return {
    tensors: ts.length,
    params: ts.reduce((a, t) => a + elements(t.shape), 0n),
    dtypes: Object.fromEntries(Object.entries(dtypes).map(([k, v]) => [k, String(v)])),
  };
}

/** The whole model of `ref`. */
function wholeOf(ref) {
  return {
    tensors: ref.tensor_count,
    params: BigInt(ref.parameter_count),
    dtypes: Object.fromEntries(ref.dtypes.map((d) => [String(d.dtype), String(d.tensors)])),
  };
}

async function shown(page) {
  return {
    tensors: Number(await attr(page, '[data-testid=tensor-count]', 'data-value')),
    params: BigInt(await attr(page, '[data-testid=parameter-count]', 'data-value')),
    dtypes: Object.fromEntries((await dtypeHistogram(page)).map((d) => [d.dtype, d.count])),
  };
}

/** The set fact: its value hook, its text and its detail line. */
async function setFact(page) {
  const el = await page.$('[data-testid=set]');
  if (!el) return null;
  return el.evaluate((e) => ({
    value: e.dataset.value,
    text: e.textContent,
    detail: e.closest('.fact')?.querySelector('.fact-detail')?.textContent ?? '',
  }));
}

async function findings(page) {
  return page.$$eval('[data-testid=checks] li[data-code]', (els) => els.map((e) => ({ code: e.dataset.code, text: e.textContent })));
}

/** The part column of the tensor table equals the reference's file of each tensor. */
async function checkPartColumn(page, ref) {
  const rows = await page.$$eval('[data-testid=tensor-table] tbody tr[aria-rowindex]', (trs) => trs.map((tr) => ({
    name: tr.querySelector('td.col-name')?.textContent, part: tr.querySelector('td.col-part')?.textContent,
  })));
  assert.ok(rows.length > 0, 'tensor rows shown');
  for (const r of rows) {
    const t = ref.tensors.find((x) => x.name === r.name);
    assert.ok(t, `${r.name} is in the reference`);
    assert.equal(r.part, ref.parts[t.part - 1], `${r.name}: part column`);
  }
}

/** Bytes the page may read of local files: the first read of each (256 KiB or the file). */
function firstReads(files) {
  return files.reduce((a, f) => a + Math.min(fs.statSync(f).size, 256 * KiB), 0);
}

describe('local sets: several files dropped together open as one model', { timeout: 10 * 60_000 }, () => {
  let browser; let server; let split; let sharded; let splitFiles; let shardFiles; let indexFile; let blankDir;

  before(async () => {
    split = fixtureRef('split-gguf');
    sharded = fixtureRef('sharded-safetensors');
    splitFiles = split.parts.map((p) => requireFile(path.join(fixtures, 'split-gguf', p)));
    shardFiles = sharded.parts.map((p) => requireFile(path.join(fixtures, 'sharded-safetensors', p)));
    indexFile = requireFile(path.join(fixtures, 'sharded-safetensors', 'model.safetensors.index.json'));
    // A page without the app, for the element and the API (the module starts no page app there).
    blankDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-sets-'));
    fs.writeFileSync(path.join(blankDir, 'blank.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body><main id="host"></main></body></html>');
    server = await startAppServer({ mounts: { '/t/': blankDir } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (blankDir) fs.rmSync(blankDir, { recursive: true, force: true });
  });

  it('all 3 parts of a split GGUF, in any order: one model with the reference counts', async () => {
    const page = await openApp(browser, server);
    try {
      // Dropped out of order: the parts are put in their numbered order.
      const given = [splitFiles[2], splitFiles[0], splitFiles[1]];
      await dropFiles(page, given);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.deepEqual(await shown(page), wholeOf(split));
      const fact = await setFact(page);
      assert.equal(fact.value, 'complete');
      assert.equal(fact.text, `${split.parts.length} parts`);
      await checkPartColumn(page, split);
      assert.equal((await findings(page)).filter((f) => f.code.startsWith('set-')).length, 0, 'no set findings');
      const c = await readCounters(page);
      assert.ok(c.slicedBytes <= firstReads(given), `sliced ${c.slicedBytes} bytes of ${given.length} files`);
      assert.ok(c.readBytes <= c.slicedBytes, `read ${c.readBytes} bytes, all through slices`);
      await screenshot(page, 'sets-split-gguf');
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('one part alone: the set fact says which part, the figures are that file\'s, the missing parts are named', async () => {
    const page = await openApp(browser, server);
    try {
      await dropFiles(page, [splitFiles[1]]);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.deepEqual(await shown(page), expectedOf(split, [2]));
      const fact = await setFact(page);
      assert.equal(fact.value, 'partial');
      assert.equal(fact.text, `part 2 of ${split.parts.length}`);
      const here = expectedOf(split, [2]).tensors;
      assert.ok(fact.detail.includes(`${here} of the model's ${split.tensor_count} tensors are in this file`), fact.detail);
      assert.ok(fact.detail.includes(`missing: ${split.parts[0]}, ${split.parts[2]}`), fact.detail);
      // The totals are labelled as this file's.
      const label = await page.$eval('[data-testid=tensor-count]', (e) => e.closest('.fact').querySelector('dt').textContent);
      assert.equal(label, 'tensors in this file');
      assert.ok((await findings(page)).some((f) => f.code === 'set-incomplete'), 'a set-incomplete finding');
      assert.equal(await page.getAttribute('body', 'data-file'), split.parts[1]);
      await screenshot(page, 'sets-part-alone');
      await showTab(page, 'summary');
      await page.locator('[data-testid=summary]').screenshot({ path: path.join(screenshotDir, 'sets-part-alone-summary.png') });
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('the index alone: an error that lists the shards to add', async () => {
    const page = await openApp(browser, server);
    try {
      await dropFiles(page, [indexFile]);
      assert.equal(await waitForSettled(page), 'error');
      const err = await errorBox(page);
      assert.ok(err.visible, 'the error box is shown');
      assert.match(err.text, /model\.safetensors\.index\.json is an index/);
      assert.match(err.text, new RegExp(`names ${sharded.parts.length} shard files`));
      for (const p of sharded.parts) assert.ok(err.text.includes(p), `the error names ${p}: ${err.text}`);
      assert.equal(await page.$('[data-testid=tensor-count]'), null, 'no model is shown');
      // The index is read whole (it is small); nothing else.
      const c = await readCounters(page);
      assert.equal(c.readBytes, fs.statSync(indexFile).size);
      await screenshot(page, 'sets-index-alone');
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('a set with files that do not belong: they are reported, not merged', async () => {
    const page = await openApp(browser, server);
    try {
      const sample = requireFile(path.join(distDir, 'sample.gguf'));
      await dropFiles(page, [...splitFiles, shardFiles[0], sample]);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.deepEqual(await shown(page), wholeOf(split), 'the counts are the set\'s alone');
      const fact = await setFact(page);
      assert.equal(fact.value, 'complete');
      assert.ok(fact.detail.startsWith('not merged: '), fact.detail);
      assert.ok(fact.detail.includes(`${sharded.parts[0]} (part 1 of ${sharded.parts.length} of another model`), fact.detail);
      assert.ok(fact.detail.includes('sample.gguf (not a part of the set)'), fact.detail);
      const strays = (await findings(page)).filter((f) => f.code === 'set-stray');
      assert.equal(strays.length, 2, JSON.stringify(strays));
      // The strays were never read: only the set's parts were sliced.
      const c = await readCounters(page);
      assert.ok(c.slicedBytes <= firstReads(splitFiles), `sliced ${c.slicedBytes} bytes`);
      await screenshot(page, 'sets-stray');
      await showTab(page, 'summary');
      await page.locator('[data-testid=summary]').screenshot({ path: path.join(screenshotDir, 'sets-stray-summary.png') });
      await showTab(page, 'checks');
      await page.locator('[data-testid=checks]').screenshot({ path: path.join(screenshotDir, 'sets-stray-checks.png') });
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('an index with its shards, and the numbered shards without it: the whole model', async () => {
    const page = await openApp(browser, server);
    try {
      await dropFiles(page, [...shardFiles, indexFile]);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.deepEqual(await shown(page), wholeOf(sharded));
      let fact = await setFact(page);
      assert.equal(fact.value, 'complete');
      assert.equal(fact.text, `${sharded.parts.length} shards`);
      await checkPartColumn(page, sharded);
      assert.equal(await page.getAttribute('body', 'data-file'), 'model.safetensors.index.json');
      const c = await readCounters(page);
      assert.ok(c.slicedBytes <= firstReads(shardFiles), `sliced ${c.slicedBytes} bytes`);
      assert.ok(c.readBytes <= c.slicedBytes + fs.statSync(indexFile).size, `read ${c.readBytes} bytes`);
      await screenshot(page, 'sets-index-shards');

      // Without the index: the numbered shards are one set by their names.
      await dropFiles(page, [shardFiles[1], shardFiles[2], shardFiles[0]]);
      assert.equal(await waitForSettled(page), 'ready', (await errorBox(page)).text);
      assert.deepEqual(await shown(page), wholeOf(sharded));
      fact = await setFact(page);
      assert.equal(fact.value, 'complete');
      await checkPartColumn(page, sharded);
      await screenshot(page, 'sets-shards-no-index');
      assert.deepEqual(page.__wpErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('the element\'s open(files) and inspect(files) take a FileList or an array of Files', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error' && !/favicon\.ico/.test(m.location()?.url ?? '')) errors.push(`console.error: ${m.text()}`); });
    try {
      await page.goto(`${server.url.replace(/\/?$/, '/')}t/blank.html`);
      const input = await page.evaluateHandle(() => {
        const el = document.createElement('input');
        el.type = 'file';
        el.multiple = true;
        el.id = 'files';
        document.body.append(el);
        return el;
      });
      const pick = (files) => input.setInputFiles(files);
      const inspect = (how) => page.evaluate(async (how) => {
        const wp = await import('/weightpeek.js');
        const list = document.querySelector('#files').files;
        try {
          const m = await wp.inspect(how === 'array' ? [...list] : list);
          return { tensor_count: m.tensor_count, parameter_count: m.parameter_count, set: m.set ?? null };
        } catch (e) {
          return { error: `${e.name}: ${e.message}` };
        }
      }, how);

      // The split set as a FileList and as an array (parts out of order).
      await pick([splitFiles[1], splitFiles[2], splitFiles[0]]);
      for (const how of ['list', 'array']) {
        const m = await inspect(how);
        assert.equal(m.tensor_count, split.tensor_count, `${how}: ${JSON.stringify(m)}`);
        assert.equal(BigInt(m.parameter_count), BigInt(split.parameter_count), how);
        assert.deepEqual(m.set.files_read, split.parts, `${how}: set.files_read`);
        assert.deepEqual(m.set.missing, [], how);
      }
      // One part: that file's counts, and the set says what is missing.
      await pick([splitFiles[0]]);
      const one = await inspect('array');
      const want = expectedOf(split, [1]);
      assert.equal(one.tensor_count, want.tensors, JSON.stringify(one));
      assert.equal(BigInt(one.parameter_count), want.params);
      assert.deepEqual(one.set.missing, split.parts.slice(1));
      // The index with its shards; the index alone rejects naming its shards.
      await pick([indexFile, ...shardFiles]);
      const ix = await inspect('list');
      assert.equal(ix.tensor_count, sharded.tensor_count, JSON.stringify(ix));
      assert.equal(BigInt(ix.parameter_count), BigInt(sharded.parameter_count));
      await pick([indexFile]);
      const alone = await inspect('list');
      assert.match(alone.error ?? '', /^Error: .*is an index/, JSON.stringify(alone));
      for (const p of sharded.parts) assert.ok(alone.error.includes(p), alone.error);
      // Not files: a TypeError before anything is read.
      const wrong = await page.evaluate(async () => {
        const wp = await import('/weightpeek.js');
        const out = [];
        for (const s of [[], [1, 2], [new Blob(['x']), 'u'], 5, null]) {
          try { await wp.inspect(s); out.push('resolved'); } catch (e) { out.push(e.name); }
        }
        return out;
      });
      assert.deepEqual(wrong, Array(5).fill('TypeError'));

      // The element: open(FileList) shows the set, tabbed.
      await pick(splitFiles);
      await page.evaluate(async () => {
        await import('/weightpeek.js');
        const v = document.createElement('weightpeek-view');
        v.id = 'view';
        v.setAttribute('height', '600');
        document.querySelector('#host').append(v);
        await v.open(document.querySelector('#files').files);
      });
      await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#view')?.dataset.state), null, { timeout: 30_000 });
      const view = page.locator('#view');
      assert.equal(await view.getAttribute('data-state'), 'ready', await view.locator('[data-testid=error]').textContent().catch(() => ''));
      assert.equal(Number(await view.locator('[data-testid=tensor-count]').getAttribute('data-value')), split.tensor_count);
      assert.equal(BigInt(await view.locator('[data-testid=parameter-count]').getAttribute('data-value')), BigInt(split.parameter_count));
      assert.equal(await view.locator('[data-testid=set]').getAttribute('data-value'), 'complete');
      fs.mkdirSync(screenshotDir, { recursive: true });
      await view.screenshot({ path: path.join(screenshotDir, 'sets-element-open-list.png') });
      // An array with one part: the element says it is part 3 of 3.
      await page.evaluate(async () => {
        const v = document.querySelector('#view');
        await v.open([document.querySelector('#files').files[2]]);
      });
      await page.waitForFunction(() => document.querySelector('#view').shadowRoot.querySelector('[data-testid=set]')?.dataset.value === 'partial', null, { timeout: 30_000 });
      assert.equal(await view.getAttribute('data-state'), 'ready');
      assert.equal(await view.locator('[data-testid=set]').textContent(), `part 3 of ${split.parts.length}`);
      assert.equal(Number(await view.locator('[data-testid=tensor-count]').getAttribute('data-value')), expectedOf(split, [3]).tensors);
      await view.screenshot({ path: path.join(screenshotDir, 'sets-element-part.png') });
      const typeError = await page.evaluate(async () => {
        try { await document.querySelector('#view').open(['not a file']); return 'accepted'; } catch (e) { return e.name; }
      });
      assert.equal(typeError, 'TypeError');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
