// End-to-end: the "Edit header" card in the built app, on the real Gemma 3 270M Q4_K_M file.
// The chat template is written in the textarea (the file has none: it is added), general.name is
// changed, general.license removed, a token's type set and a key added; "Review changes" shows
// the changes, the diff and the checks of the result; "Save edited file" downloads
// new Blob([header, file.slice(data_offset)]). The saved file is checked with gguf-py by
// tests/reference/edit_check.py (new values, every other key and tensor equal, the data
// section's sha256 equal to the original's), and the page's JS heap during the save is measured
// with CDP (Performance.getMetrics JSHeapUsedSize and Runtime.getHeapUsage): it must grow by
// less than twice the header size. No byte of the data section is read (Blob read counters).
//
// UI contract: [data-testid=edit-card] (data-header-bytes, data-data-offset, data-file-size
// after a save), [data-testid=edit-open], [data-testid=edit-template] (textarea),
// input[data-key=KEY], input[data-remove=KEY], input[data-element-index=KEY] /
// input[data-element-value=KEY] / [data-testid=edit-element-set][data-key=KEY],
// [data-testid=edit-add-key|edit-add-type|edit-add-value|edit-add], [data-testid=edit-review],
// [data-testid=edit-save], [data-testid=edit-review-out] (data-changes, data-keys-added,
// data-keys-removed, data-keys-changed), [data-testid=edit-changes] tr[data-kind][data-name],
// [data-testid=edit-checks]; body[data-edit] = open | reviewed | saved | error.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  showTab,
  readCounters,
  resetCounters,
  screenshot,
  requireFile,
  repoRoot,
  files,
  screenshotDir,
} from './helpers.mjs';

const python = path.join(repoRoot, '.venv', 'bin', 'python');
const checker = path.join(repoRoot, 'tests', 'reference', 'edit_check.py');
const outDir = path.join(repoRoot, 'target', 'e2e-edit');

const TEMPLATE = [
  "{{ bos_token }}{% for message in messages %}",
  "{% set role = 'model' if message['role'] == 'assistant' else message['role'] %}",
  "<start_of_turn>{{ role }}",
  "{{ message['content'] | trim }}<end_of_turn>",
  "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model",
  "{% endif %}",
].join('\n');

/** JS heap in use (bytes): CDP's two views of it. */
async function heap(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value;
  const usage = await cdp.send('Runtime.getHeapUsage');
  return { used, usage: usage.usedSize };
}

describe('the header editor in the page', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    server = await startAppServer();
    browser = await launchBrowser();
    fs.mkdirSync(outDir, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('edits the real Gemma file\'s chat template and saves a file gguf-py reads, without reading its data', { timeout: 8 * 60_000 }, async () => {
    requireFile(files.gemma, 'fetch it with python3 ../shared/scripts/fetch-real-models.py');
    requireFile(python, 'scripts/install.sh makes the .venv');
    const page = await openApp(browser, server, { width: 1280, height: 1000 });
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      await showTab(page, 'edit');
      await page.click('[data-testid=edit-open]');
      await page.waitForFunction(() => document.body.dataset.edit === 'open');

      await page.fill('[data-testid=edit-template]', TEMPLATE);
      // The gutter numbers the template's lines as the tokenizer card does.
      const lines = await page.$eval('[data-testid=edit-template]', (t) => t.previousElementSibling.textContent);
      assert.equal(lines, TEMPLATE.split('\n').map((_, i) => String(i + 1)).join('\n'));
      await page.fill('input[data-key="general.name"]', 'Gemma 3 270m (template added)');
      await page.check('input[data-remove="general.license"]');
      await page.fill('input[data-element-index="tokenizer.ggml.token_type"]', '106');
      // The current value shows when the index is typed; then it is replaced.
      const current = await page.inputValue('input[data-element-value="tokenizer.ggml.token_type"]');
      assert.match(current, /^-?\d+$/, `element 106's current value: ${current}`);
      await page.fill('input[data-element-value="tokenizer.ggml.token_type"]', '4');
      await page.click('[data-testid=edit-element-set][data-key="tokenizer.ggml.token_type"]');
      await page.fill('[data-testid=edit-add-key]', 'tokenizer.ggml.eot_token_id');
      await page.selectOption('[data-testid=edit-add-type]', 'UINT32');
      await page.fill('[data-testid=edit-add-value]', '106');
      await page.click('[data-testid=edit-add]');

      await page.click('[data-testid=edit-review]');
      await page.waitForFunction(() => ['reviewed', 'error'].includes(document.body.dataset.edit));
      const status = await page.textContent('[data-testid=edit-status]');
      assert.equal(await page.evaluate(() => document.body.dataset.edit), 'reviewed', status);
      const review = await page.$eval('[data-testid=edit-review-out]', (el) => ({ ...el.dataset }));
      assert.deepEqual(
        { changes: review.changes, added: review.keysAdded, removed: review.keysRemoved, changed: review.keysChanged },
        // template and eot id added; general.license removed; general.name and the token types changed
        { changes: '5', added: '2', removed: '1', changed: '2' },
      );
      const rows = await page.$$eval('[data-testid=edit-changes] tbody tr', (trs) => trs.map((tr) => `${tr.dataset.kind} ${tr.querySelector('.col-name').textContent}`));
      assert.deepEqual(rows, [
        'removed general.license',
        'changed general.name',
        'added tokenizer.chat_template',
        'changed tokenizer.ggml.token_type[106]',
        'added tokenizer.ggml.eot_token_id',
      ]);
      assert.ok(await page.isVisible('[data-testid=edit-checks]'), 'the checks of the result are shown');
      await page.$eval('[data-testid=edit-card]', (el) => el.scrollIntoView());
      await screenshot(page, 'edit-review');
      // The card alone, to look at.
      fs.mkdirSync(screenshotDir, { recursive: true });
      await (await page.$('[data-testid=edit-card]')).screenshot({ path: path.join(screenshotDir, 'edit-card.png') });

      // Save, measuring the JS heap around it.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await cdp.send('HeapProfiler.enable');
      await cdp.send('HeapProfiler.collectGarbage');
      const base = await heap(cdp);
      const wasmBefore = await page.evaluate(() => window.__wpWasmMemory?.() ?? null);
      await resetCounters(page);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.click('[data-testid=edit-save]'),
      ]);
      await page.waitForFunction(() => ['saved', 'error'].includes(document.body.dataset.edit));
      const during = await heap(cdp);
      const counters = await readCounters(page);
      const wasmAfter = await page.evaluate(() => window.__wpWasmMemory?.() ?? null);
      const card = await page.$eval('[data-testid=edit-card]', (el) => ({ ...el.dataset }));
      const header = Number(card.headerBytes);
      assert.equal(await page.evaluate(() => document.body.dataset.edit), 'saved', await page.textContent('[data-testid=edit-status]'));
      assert.equal(download.suggestedFilename(), 'gemma-3-270m-q4_k_m.edited.gguf');
      const saved = path.join(outDir, download.suggestedFilename());
      await download.saveAs(saved);
      const size = fs.statSync(saved).size;
      assert.equal(size, Number(card.fileSize), 'the download is header + data section');
      const growth = Math.max(during.used - base.used, during.usage - base.usage);
      console.log(`edit save: header ${header} bytes, file ${size} bytes; JS heap ${base.used} -> ${during.used} (getHeapUsage ${base.usage} -> ${during.usage}), growth ${growth} bytes = ${(growth / header).toFixed(3)} x header; wasm memory ${wasmBefore} -> ${wasmAfter}; Blob bytes read ${counters.readBytes}`);
      assert.ok(growth < 2 * header, `the JS heap grew by ${growth} bytes during the save, limit 2 x header = ${2 * header}`);
      assert.equal(counters.readBytes, 0, 'saving read bytes of the file (it must only slice it)');
      assert.deepEqual(page.__wpErrors, []);

      const expect = path.join(outDir, 'expect.json');
      fs.writeFileSync(expect, JSON.stringify({
        set: [
          { key: 'general.name', type: 'STRING', value: 'Gemma 3 270m (template added)' },
          { key: 'tokenizer.chat_template', type: 'STRING', value: TEMPLATE },
          { key: 'tokenizer.ggml.eot_token_id', type: 'UINT32', value: '106' },
        ],
        elements: [{ key: 'tokenizer.ggml.token_type', index: 106, value: '4' }],
        delete: ['general.license'],
      }));
      const report = JSON.parse(execFileSync(python, [checker, files.gemma, saved, expect], { encoding: 'utf8', maxBuffer: 16 << 20 }));
      console.log(`edit save: gguf-py: ${report.keys} keys, ${report.tensors} tensors, data section ${report.data_bytes} bytes sha256 ${report.data_sha256}`);
      assert.ok(report.ok, JSON.stringify(report.problems));
      fs.rmSync(saved);
    } finally {
      await page.context().close();
    }
  });

  it('refuses an edit that cannot be made, saying why, and saves nothing', { timeout: 120_000 }, async () => {
    requireFile(files.gemma);
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      await showTab(page, 'edit');
      await page.click('[data-testid=edit-open]');
      await page.fill('input[data-key="gemma3.block_count"]', '-1');
      let downloads = 0;
      page.on('download', () => { downloads += 1; });
      await page.click('[data-testid=edit-save]');
      await page.waitForFunction(() => document.body.dataset.edit === 'error');
      const status = await page.textContent('[data-testid=edit-status]');
      assert.match(status, /gemma3\.block_count: "-1" is not a UINT32/);
      assert.equal(downloads, 0);
      await screenshot(page, 'edit-error');
    } finally {
      await page.context().close();
    }
  });
});
