// End-to-end: the tokenizer card, the memory card and the CSV / Markdown downloads (issue #6),
// on the real Gemma 3 GGUF and the phi-3 vocab file, against the reference facts
// (target/reference/<key>.json). No expected value is typed here.
//
// UI contract:
//   [data-testid=tokenizer]                    the tokenizer card (GGUF with tokenizer keys)
//   [data-testid=special-tokens] tr[data-role][data-id]   one row per special token: role, id, text
//   [data-testid=token-search]                 search box: text, `#id` or a number
//   [data-testid=token-list]                   virtualised table; rows tr[data-id], text in td.col-text
//   [data-testid=chat-template] .tl > .ln, .tx numbered lines of the template (data-lines)
//   [data-testid=chat-template-copy]           copies the template; says "copied"
//   [data-testid=memory][data-kv-bytes][data-total-bytes]  the estimate's raw numbers
//   [data-testid=memory-context], [data-testid=memory-kv]  context box and KV type select
//   [data-testid=export-json|export-csv|export-markdown]   download buttons

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launchBrowser,
  startAppServer,
  openApp,
  dropFile,
  waitForSettled,
  screenshotDir,
  loadReference,
  requireFile,
  files,
  sharedDir,
} from './helpers.mjs';

const FETCH_HINT = 'fetch it with python3 ../shared/scripts/fetch-real-models.py; scripts/install.sh does';
const phi3 = path.join(sharedDir, 'data', 'vocab', 'ggml-vocab-phi-3.gguf');

function meta(ref, key) {
  const e = ref.metadata.find((m) => m.key === key);
  if (!e) throw new Error(`reference has no ${key}`);
  return e;
}

async function shot(locator, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  // The sticky top bar would be stitched over a card taller than the viewport.
  const page = locator.page();
  await page.evaluate(() => { document.querySelector('.topbar').style.position = 'static'; });
  await locator.scrollIntoViewIfNeeded();
  await locator.screenshot({ path: path.join(screenshotDir, `${name}.png`) });
  await page.evaluate(() => { document.querySelector('.topbar').style.position = ''; });
}

/** KV bytes for `ctx` tokens: per layer ceil(ctx × heads × (k + v) / values) × bytes. */
function kvBytes(ref, ctx, [bytes, values]) {
  const arch = meta(ref, 'general.architecture').value;
  const n = (k) => BigInt(meta(ref, `${arch}.${k}`).value);
  const layers = n('block_count');
  const perLayer = BigInt(ctx) * n('attention.head_count_kv') * (n('attention.key_length') + n('attention.value_length'));
  const blocks = (perLayer + BigInt(values) - 1n) / BigInt(values);
  return layers * blocks * BigInt(bytes);
}

/** Types `q` in the search box and waits until the list has run that search (data-search-ms). */
async function search(page, q) {
  await page.$eval('[data-testid=token-list]', (t) => t.removeAttribute('data-search-ms'));
  await page.fill('[data-testid=token-search]', q);
  await page.waitForFunction(() => document.querySelector('[data-testid=token-list]').hasAttribute('data-search-ms'), null, { timeout: 10_000 });
  return Number(await page.getAttribute('[data-testid=token-list]', 'data-search-ms'));
}

async function visibleIds(page) {
  return page.$$eval('[data-testid=token-list] tbody tr[data-id]', (rows) => rows.map((r) => [Number(r.dataset.id), r.querySelector('.col-text').textContent]));
}

describe('tokenizer, memory and export cards', { timeout: 10 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const width of [1280, 390]) {
    it(`Gemma 3 GGUF at ${width} px: tokenizer facts, token list, memory estimate, downloads`, { timeout: 240_000 }, async () => {
      requireFile(files.gemma, FETCH_HINT);
      const ref = loadReference('gemma-3-270m-q4_k_m');
      const page = await openApp(browser, server, { width });
      const suffix = width === 390 ? '-390' : '';
      try {
        await dropFile(page, files.gemma);
        assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));

        // Tokenizer facts.
        const card = page.locator('[data-testid=tokenizer]');
        const tokens = meta(ref, 'tokenizer.ggml.tokens');
        const cardText = await card.textContent();
        assert.ok(cardText.includes(`${Number(tokens.count).toLocaleString('en-US')} tokens`), 'vocabulary size shown');
        assert.ok(cardText.includes(meta(ref, 'tokenizer.ggml.model').value), 'tokenizer model shown');
        const specials = await page.$$eval('[data-testid=special-tokens] tr[data-role]', (rows) =>
          rows.map((r) => ({ role: r.dataset.role, id: Number(r.dataset.id), text: r.querySelector('.tok-text').textContent })));
        const roleKeys = { bos: 'bos_token_id', eos: 'eos_token_id', unk: 'unknown_token_id', pad: 'padding_token_id', eot: 'eot_token_id', sep: 'seperator_token_id', mask: 'mask_token_id', cls: 'cls_token_id', eom: 'eom_token_id' };
        const expectedRoles = Object.entries(roleKeys).filter(([, k]) => ref.metadata.some((m) => m.key === `tokenizer.ggml.${k}`));
        assert.equal(specials.length, expectedRoles.length, 'one row per special token id key');
        for (const [role, k] of expectedRoles) {
          const row = specials.find((s) => s.role === role);
          assert.ok(row, `special token ${role} shown`);
          const id = Number(meta(ref, `tokenizer.ggml.${k}`).value);
          assert.equal(row.id, id, `${role} id`);
          assert.ok(id < tokens.head.length, `${role} id ${id} within the reference head`);
          assert.equal(row.text, tokens.head[id], `${role} text`);
        }
        for (const f of ['add_bos_token', 'add_eos_token']) {
          assert.ok(cardText.includes(f), `${f} flag shown`);
        }

        // The token list: count, first rows, search by id and by text, scroll to the end.
        const count = Number(tokens.count);
        assert.equal(await page.getAttribute('[data-testid=token-list]', 'data-rows'), String(count));
        const first = await visibleIds(page);
        assert.ok(first.length > 5 && first.length < 80, `only a screenful is drawn (${first.length} rows)`);
        assert.deepEqual(first.slice(0, 5).map(([, t]) => t), tokens.head, 'first rows are the reference head');
        await shot(card, `tokenizer-card${suffix}`);

        const scroller = page.locator('.token-scroll');
        const redraw = await scroller.evaluate(async (el) => {
          el.scrollTop = el.scrollHeight;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return Number(el.querySelector('table').dataset.drawMs);
        });
        await page.waitForFunction((n) => document.querySelector(`[data-testid=token-list] tr[data-id="${n - 1}"]`), count, { timeout: 10_000 });
        const end = await visibleIds(page);
        assert.deepEqual(end.at(-1), [count - 1, tokens.last], 'scrolled to the end: the reference last token');
        const indexMs = Number(await page.getAttribute('[data-testid=token-list]', 'data-index-ms'));
        console.log(`# token index for ${count} tokens: ${indexMs} ms; redraw after scroll: ${redraw} ms`);
        await shot(card, `tokenizer-card-end${suffix}`);

        const bos = Number(meta(ref, 'tokenizer.ggml.bos_token_id').value);
        await search(page, `#${bos}`);
        assert.deepEqual(await visibleIds(page), [[bos, tokens.head[bos]]], 'search by #id shows that token');
        await search(page, String(count - 1));
        assert.deepEqual(await visibleIds(page), [[count - 1, tokens.last]], 'search by a number shows that token');
        const searchMs = await search(page, tokens.last);
        const found = await visibleIds(page);
        assert.ok(found.some(([id, t]) => id === count - 1 && t === tokens.last), 'search by text finds the last token');
        assert.ok(found.every(([, t]) => t.includes(tokens.last)), 'every match contains the text');
        assert.equal(await page.getAttribute('[data-testid=token-list]', 'data-rows'), String(found.length));
        console.log(`# text search over ${count} tokens: ${searchMs} ms (${found.length} matches)`);
        await shot(card, `tokenizer-search${suffix}`);

        // Memory: f16 at the model's own context, then q8_0, then another context.
        const mem = page.locator('[data-testid=memory]');
        const arch = meta(ref, 'general.architecture').value;
        const ctx = Number(meta(ref, `${arch}.context_length`).value);
        assert.equal(await page.inputValue('[data-testid=memory-context]'), String(ctx), 'context defaults to the model\'s own');
        const f16 = kvBytes(ref, ctx, [2, 1]);
        assert.equal(BigInt(await mem.getAttribute('data-kv-bytes')), f16, 'f16 KV bytes');
        const weights = BigInt(ref.tensor_bytes);
        assert.equal(BigInt(await mem.getAttribute('data-total-bytes')), f16 + weights, 'total = weights + KV');
        const memText = await mem.textContent();
        assert.ok(memText.includes(`${f16.toLocaleString('en-US')} bytes`), 'exact KV bytes shown');
        assert.ok(/KV = /.test(memText), 'formula shown');
        assert.ok(/sliding window/.test(memText), 'the sliding-window note shown');
        await shot(mem, `memory-card${suffix}`);
        await page.selectOption('[data-testid=memory-kv]', 'q8_0');
        const q8 = kvBytes(ref, ctx, [34, 32]);
        await page.waitForFunction((v) => document.querySelector('[data-testid=memory]').dataset.kvBytes === v, String(q8), { timeout: 5_000 });
        await page.fill('[data-testid=memory-context]', '4096');
        const q8small = kvBytes(ref, 4096, [34, 32]);
        await page.waitForFunction((v) => document.querySelector('[data-testid=memory]').dataset.kvBytes === v, String(q8small), { timeout: 5_000 });
        await page.fill('[data-testid=memory-context]', '0');
        await page.waitForFunction(() => document.querySelector('[data-testid=memory]').textContent.includes('clamped to 1 token ('), null, { timeout: 5_000 });
        await shot(mem, `memory-card-q8${suffix}`);
        await page.emulateMedia({ colorScheme: 'dark' });
        await shot(mem, `memory-card-dark${suffix}`);
        await shot(card, `tokenizer-card-dark${suffix}`);
        await page.emulateMedia({ colorScheme: 'light' });

        // Downloads.
        for (const [id, ext, check] of [
          ['export-json', 'json', (t) => assert.equal(JSON.parse(t).tensor_count, ref.tensor_count)],
          ['export-csv', 'csv', (t) => assert.equal(t.trimEnd().split('\r\n').length, ref.tensor_count + 1)],
          ['export-markdown', 'md', (t) => assert.ok(t.startsWith('# gemma-3-270m-q4_k_m.gguf'))],
        ]) {
          const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${id}]`)]);
          assert.equal(download.suggestedFilename(), `gemma-3-270m-q4_k_m.gguf.weightpeek.${ext}`);
          check(fs.readFileSync(await download.path(), 'utf8'));
        }
        await shot(page.locator('.summary .card-head'), `export-buttons${suffix}`);
        assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
      } finally {
        await page.context().close();
      }
    });
  }

  it('phi-3 vocab: the chat template verbatim with line numbers, copied', { timeout: 120_000 }, async () => {
    requireFile(phi3, 'the shared data folder; set WEIGHTPEEK_SHARED');
    const ref = loadReference('ggml-vocab-phi-3');
    const template = meta(ref, 'tokenizer.chat_template').value;
    const page = await openApp(browser, server);
    try {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await dropFile(page, phi3);
      assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));
      const view = page.locator('[data-testid=chat-template]');
      const lines = await view.locator('.tl').evaluateAll((rows) => rows.map((r) => [r.querySelector('.ln').textContent, r.querySelector('.tx').textContent]));
      const expected = template.split('\n');
      assert.equal(lines.length, expected.length, 'line count');
      assert.equal(await view.getAttribute('data-lines'), String(expected.length));
      assert.deepEqual(lines.map(([n]) => n), expected.map((_, i) => String(i + 1)), 'line numbers');
      assert.equal(lines.map(([, t]) => t).join('\n'), template, 'the whole template text');
      await page.click('[data-testid=chat-template-copy]');
      await page.waitForFunction(() => document.querySelector('.copy-status')?.textContent === 'copied', null, { timeout: 5_000 });
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), template, 'clipboard holds the template');
      await shot(page.locator('[data-testid=tokenizer]'), 'tokenizer-phi3');
      // A vocab-only file still carries the phi3 attention keys: a KV estimate with 0 weight bytes.
      const mem = page.locator('[data-testid=memory]');
      assert.equal(await mem.getAttribute('data-total-bytes'), await mem.getAttribute('data-kv-bytes'));
      await shot(mem, 'memory-phi3-vocab');
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('safetensors: the three downloads, no tokenizer or memory card', { timeout: 120_000 }, async () => {
    requireFile(files.minilm, FETCH_HINT);
    const ref = loadReference('all-MiniLM-L6-v2');
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.minilm);
      assert.equal(await waitForSettled(page), 'ready');
      assert.equal(await page.$('[data-testid=tokenizer]'), null);
      assert.equal(await page.$('[data-testid=memory]'), null);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
      assert.equal(download.suggestedFilename(), 'model.safetensors.weightpeek.csv');
      const csv = fs.readFileSync(await download.path(), 'utf8');
      assert.equal(csv.trimEnd().split('\r\n').length, ref.tensor_count + 1);
      assert.ok(await page.$('[data-testid=export-markdown]'));
    } finally {
      await page.context().close();
    }
  });
});
