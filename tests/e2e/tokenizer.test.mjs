// End-to-end: the tokenizer card (token list, merges list), the memory card, the CSV / Markdown
// downloads, type-name tooltips and keyboard navigation of the virtualised tables (issue #6), on
// the real Gemma 3 GGUF and the phi-3 / deepseek-llm vocab files, against the reference facts
// (target/reference/<key>.json, ggml_types.json). No expected value is typed here.
//
// UI contract:
//   [data-testid=tokenizer]                    the tokenizer card (GGUF with tokenizer keys)
//   [data-testid=special-tokens] tr[data-role][data-id]   one row per special token: role, id, text
//   [data-testid=token-search]                 search box: text, `#id` or a number
//   [data-testid=token-list]                   virtualised table; rows tr[data-id], text in td.col-text
//   [data-testid=merge-search], [data-testid=merge-list]   the same for tokenizer.ggml.merges:
//                                              rows tr[data-rank], td.col-left/.col-right/.col-result
//   virtualised tables (tensors, tokens, merges): rows tr[aria-rowindex] (header row 1), the
//   table's aria-rowcount; ArrowUp/ArrowDown/Home/End move the focus between rows
//   type names: title "Q4_K: 256 weights per block, 144 bytes per block, 4.5 bits per weight"
//   (tensor table td.col-type, histogram <g data-dtype> <title>, type table td[data-testid=type-name],
//   layer map td.cell)
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
  showTab,
  screenshotDir,
  loadReference,
  requireFile,
  files,
  sharedDir,
} from './helpers.mjs';

const FETCH_HINT = 'fetch it with python3 ../shared/scripts/fetch-real-models.py; scripts/install.sh does';
const phi3 = path.join(sharedDir, 'data', 'vocab', 'ggml-vocab-phi-3.gguf');
// The vocab file with the most merges (99,757).
const deepseek = path.join(sharedDir, 'data', 'vocab', 'ggml-vocab-deepseek-llm.gguf');
// A byte-level BPE vocabulary (spaces stored as Ġ).
const deepseekCoder = path.join(sharedDir, 'data', 'vocab', 'ggml-vocab-deepseek-coder.gguf');

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

/** KV bytes llama.cpp allocates for `ctx` tokens of the Gemma 3 file: per layer cells × (row(heads × k) + row(heads × v)), row(n) = ceil(n / values) × bytes. */
function kvBytes(ref, ctx, [bytes, values]) {
  // llama.cpp for gemma3 (models/gemma3.cpp, llama-kv-cache-iswa.cpp, llama-context.cpp): the
  // context rounded up to 256 cells; every sixth layer (il % 6 == 5) full attention, the others a
  // sliding window cached at pad256(min(cells, sliding_window + n_ubatch 512)) cells.
  const arch = meta(ref, 'general.architecture').value;
  assert.equal(arch, 'gemma3', 'kvBytes follows the gemma3 pattern');
  const n = (k) => BigInt(meta(ref, `${arch}.${k}`).value);
  const pad = (x) => ((x + 255n) / 256n) * 256n;
  const min = (a, b) => (a < b ? a : b);
  const layers = n('block_count');
  const cells = pad(BigInt(ctx));
  const swaCells = pad(min(cells, n('attention.sliding_window') + 512n));
  const row = (v) => ((v + BigInt(values) - 1n) / BigInt(values)) * BigInt(bytes);
  const perCell = row(n('attention.head_count_kv') * n('attention.key_length')) + row(n('attention.head_count_kv') * n('attention.value_length'));
  let total = 0n;
  for (let il = 0n; il < layers; il++) total += (il % 6n === 5n ? cells : swaCells) * perCell;
  return total;
}

/** Types `q` in a list's search box (`token` or `merge`) and waits until the list has run that search (data-search-ms). */
async function search(page, q, list = 'token') {
  const table = `[data-testid=${list}-list]`;
  await page.$eval(table, (t) => t.removeAttribute('data-search-ms'));
  await page.fill(`[data-testid=${list}-search]`, q);
  await page.waitForFunction((sel) => document.querySelector(sel).hasAttribute('data-search-ms'), table, { timeout: 10_000 });
  return Number(await page.getAttribute(table, 'data-search-ms'));
}

/** [rank, left, right, result] of the merge rows drawn. */
async function visibleMerges(page) {
  return page.$$eval('[data-testid=merge-list] tbody tr[data-rank]', (rows) =>
    rows.map((r) => [Number(r.dataset.rank), ...['.col-left', '.col-right', '.col-result'].map((c) => r.querySelector(c).textContent)]));
}

/** The tooltip of a type name, from gguf-py's block size and bytes per block. */
function typeTooltip(t) {
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  return `${t.name}: ${n(t.block_size, 'weight', 'weights')} per block, ${n(t.type_size, 'byte', 'bytes')} per block, ${(t.type_size * 8) / t.block_size} bits per weight`;
}

/**
 * aria-rowindex (and data-id / data-rank) of the focused element, whether it lies whole inside
 * its scroller, and whether it lies whole inside the window (the page scrolled to it).
 */
async function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const box = el?.closest('.table-scroll');
    const head = box?.querySelector('thead')?.getBoundingClientRect();
    const r = el?.getBoundingClientRect();
    const b = box?.getBoundingClientRect();
    return {
      rowindex: el?.getAttribute('aria-rowindex') ?? null,
      id: el?.dataset?.id ?? el?.dataset?.rank ?? null,
      tabindex: el?.getAttribute('tabindex') ?? null,
      shown: !!(r && b && head && r.top >= head.bottom - 1 && r.bottom <= b.bottom + 1),
      inWindow: !!(r && r.top >= -1 && r.bottom <= window.innerHeight + 1),
      pageY: window.scrollY,
    };
  });
}

/** Presses `key` `times` times, then reads the focus. */
async function press(page, key, times = 1) {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  return focused(page);
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

        await showTab(page, 'tokenizer');
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
        // A SentencePiece vocabulary: no tokenizer.ggml.merges in the reference, no merges list.
        assert.ok(!ref.metadata.some((m) => m.key === 'tokenizer.ggml.merges'));
        assert.equal(await page.$('[data-testid=merge-list]'), null, 'no merges list without merges');

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
        await showTab(page, 'memory');
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
        assert.ok(/KV sliding window\d+ × [\d,]+ cells: /.test(memText), 'the sliding-window split shown');
        assert.ok(/KV upper bound.*every layer at full context/.test(memText), 'the upper bound shown');
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
        await showTab(page, 'tokenizer');
        await shot(card, `tokenizer-card-dark${suffix}`);
        await page.emulateMedia({ colorScheme: 'light' });

        await showTab(page, 'summary');
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
      await showTab(page, 'tokenizer');
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
      await showTab(page, 'memory');
      const mem = page.locator('[data-testid=memory]');
      assert.equal(await mem.getAttribute('data-total-bytes'), await mem.getAttribute('data-kv-bytes'));
      await shot(mem, 'memory-phi3-vocab');
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('Gemma 3 GGUF: type-name tooltips, keyboard navigation of the tensor table and the 262,144-row token list', { timeout: 240_000 }, async () => {
    requireFile(files.gemma, FETCH_HINT);
    const ref = loadReference('gemma-3-270m-q4_k_m');
    const types = new Map(loadReference('ggml_types').quant_types.map((t) => [t.name, t]));
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));

      // Tooltips: the tensor table's type cells, the chart's bars, the type table, the layer map.
      await showTab(page, 'tensors');
      const cells = await page.$$eval('[data-testid=tensor-table] td.col-type', (tds) => tds.map((td) => [td.textContent, td.title]));
      assert.ok(cells.length > 5, 'type cells drawn');
      for (const [name, title] of cells) {
        assert.ok(types.has(name), `${name} in gguf-py's table`);
        assert.equal(title, typeTooltip(types.get(name)), `tooltip of ${name}`);
      }
      const q4k = typeTooltip(types.get('Q4_K'));
      assert.ok(ref.dtypes.some((d) => d.dtype === 'Q4_K'), 'Gemma has Q4_K tensors');
      console.log(`# Q4_K tooltip: ${q4k}`);
      await showTab(page, 'histogram');
      const bars = await page.$$eval('[data-testid=dtype-histogram] g[data-dtype]', (gs) => gs.map((g) => [g.dataset.dtype, g.querySelector('title').textContent]));
      assert.equal(bars.length, ref.dtypes.length);
      for (const [name, title] of bars) assert.equal(title.split('\n').at(-1), typeTooltip(types.get(name)), `bar ${name}`);
      const rows = await page.$$eval('td[data-testid=type-name]', (tds) => tds.map((td) => [td.querySelector('.mono').textContent, td.title]));
      assert.equal(rows.length, ref.dtypes.length);
      for (const [name, title] of rows) assert.equal(title.split('\n')[0], typeTooltip(types.get(name)), `type table ${name}`);
      const layerCells = await page.$$eval('[data-testid=layer-map] td.cell[data-filter]', (tds) => tds.map((td) => [td.textContent, td.title]));
      assert.ok(layerCells.some(([n]) => n === 'Q4_K'), 'a Q4_K cell in the layer map');
      for (const [name, title] of layerCells) assert.equal(title.split('\n').at(-1), typeTooltip(types.get(name)), `layer map ${name}`);

      // The tensor table: focus the first row, ArrowDown ×3, End, Home, then Enter previews.
      await showTab(page, 'tensors');
      const tensors = '[data-testid=tensor-table]';
      assert.equal(await page.getAttribute(tensors, 'aria-rowcount'), String(ref.tensor_count + 1));
      await page.focus(`${tensors} tbody tr[aria-rowindex="2"]`);
      assert.equal((await focused(page)).tabindex, '0', 'the focused row is the tab stop');
      let f = await press(page, 'ArrowDown', 3);
      assert.equal(f.rowindex, '5', 'ArrowDown ×3 from the first row');
      assert.equal(f.tabindex, '0');
      assert.ok(f.shown, 'the focused row is in view');
      await shot(page.locator('.tensor-scroll'), 'tensor-row-focus');
      // The page at its top, the table reaching below the window: End scrolls the page too,
      // so that the last row is seen (it was left below the window's bottom).
      await page.evaluate(() => window.scrollTo(0, 0));
      const below = await page.$eval('.tensor-scroll', (el) => el.getBoundingClientRect().bottom > window.innerHeight);
      assert.ok(below, 'the table reaches below the window (the case the page must scroll for)');
      f = await press(page, 'End');
      assert.equal(f.rowindex, String(ref.tensor_count + 1), 'End: the last row');
      assert.ok(f.shown, 'the last row is in view');
      assert.ok(f.inWindow, `the last row is in the window (page scrolled to ${f.pageY} px)`);
      f = await press(page, 'ArrowUp');
      assert.equal(f.rowindex, String(ref.tensor_count), 'ArrowUp from the last row');
      f = await press(page, 'Home');
      assert.equal(f.rowindex, '2', 'Home: the first row');
      assert.ok(f.shown);
      await page.evaluate(() => window.scrollTo(0, 0));
      f = await press(page, 'PageDown');
      assert.ok(Number(f.rowindex) > 10 && f.shown, `PageDown moves a screenful (${f.rowindex})`);
      assert.ok(f.inWindow, 'PageDown: the row is in the window');
      f = await press(page, 'ArrowDown');
      const name = await page.evaluate(() => document.activeElement.querySelector('td.col-name').textContent);
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelector('[data-testid=preview]')?.dataset.tensor === n, name, { timeout: 60_000 });

      await showTab(page, 'tokenizer');
      // The token list (262,144 rows): the same keys; End scrolls to the last token.
      const count = Number(meta(ref, 'tokenizer.ggml.tokens').count);
      const list = '[data-testid=token-list]';
      assert.equal(await page.getAttribute(list, 'aria-rowcount'), String(count + 1));
      await page.locator('.token-scroll').scrollIntoViewIfNeeded();
      await page.focus(`${list} tbody tr[aria-rowindex="2"]`);
      f = await press(page, 'ArrowDown', 3);
      assert.deepEqual([f.rowindex, f.id], ['5', '3'], 'ArrowDown ×3: token 3');
      const t0 = Date.now();
      f = await press(page, 'End');
      const endMs = Date.now() - t0;
      assert.deepEqual([f.rowindex, f.id], [String(count + 1), String(count - 1)], 'End: the last token');
      assert.ok(f.shown, 'the last token is in view');
      const drawn = await page.$$eval(`${list} tbody tr[data-id]`, (r) => r.length);
      assert.ok(drawn < 80, `still only a screenful drawn (${drawn})`);
      await shot(page.locator('.token-scroll'), 'token-row-focus-end');
      f = await press(page, 'ArrowUp', 2);
      assert.deepEqual([f.rowindex, f.id], [String(count - 1), String(count - 3)]);
      f = await press(page, 'Home');
      assert.deepEqual([f.rowindex, f.id], ['2', '0'], 'Home: token 0');
      assert.ok(f.shown);
      console.log(`# End on the ${count}-row token list: ${endMs} ms (key press to focus, through playwright)`);
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  for (const width of [1280, 390]) {
    it(`deepseek-llm vocab at ${width} px: the merges list (count, rows, end, search, keys)`, { timeout: 120_000 }, async () => {
      requireFile(deepseek, 'the shared data folder; set WEIGHTPEEK_SHARED');
      const ref = loadReference('ggml-vocab-deepseek-llm');
      const merges = meta(ref, 'tokenizer.ggml.merges');
      const count = Number(merges.count);
      const suffix = width === 390 ? '-390' : '';
      const page = await openApp(browser, server, { width });
      try {
        await dropFile(page, deepseek);
        assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));
        await showTab(page, 'tokenizer');
        const card = page.locator('[data-testid=tokenizer]');
        const list = '[data-testid=merge-list]';
        assert.equal(await page.getAttribute(list, 'data-rows'), String(count), 'every merge listed');
        assert.equal(await page.getAttribute(list, 'aria-rowcount'), String(count + 1));
        assert.ok((await card.textContent()).includes(`${count.toLocaleString('en-US')} merges`), 'merges count shown');
        const first = await visibleMerges(page);
        assert.ok(first.length > 5 && first.length < 80, `only a screenful is drawn (${first.length} rows)`);
        assert.deepEqual(first.slice(0, merges.head.length).map(([, l, r]) => `${l} ${r}`), merges.head, 'first rows are the reference head');
        assert.deepEqual(first.slice(0, merges.head.length).map(([rank]) => rank), merges.head.map((_, i) => i), 'ranks from 0');
        for (const [, l, r, res] of first) assert.equal(res, l + r, 'result = left + right');
        await shot(card.locator('.merge-scroll'), `merges-list${suffix}`);

        // Scrolled to the end: the reference's last merge.
        await page.locator('.merge-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
        await page.waitForFunction((n) => document.querySelector(`[data-testid=merge-list] tr[data-rank="${n - 1}"]`), count, { timeout: 10_000 });
        const end = await visibleMerges(page);
        assert.equal(`${end.at(-1)[1]} ${end.at(-1)[2]}`, merges.last, 'the last row is the reference last merge');

        // Search by the token it makes, by the line as stored, and by #rank.
        const made = merges.last.replace(' ', '');
        const ms = await search(page, made, 'merge');
        const found = await visibleMerges(page);
        assert.ok(found.some(([rank]) => rank === count - 1), 'search by the result finds the last merge');
        assert.ok(found.every(([, l, r]) => `${l} ${r}`.includes(made) || (l + r).includes(made)), 'every match contains the text');
        console.log(`# merges search over ${count} merges: ${ms} ms (${found.length} matches)`);
        await search(page, merges.last, 'merge');
        assert.ok((await visibleMerges(page)).some(([rank]) => rank === count - 1), 'search by the line as stored');
        await search(page, `#${count - 1}`, 'merge');
        assert.deepEqual((await visibleMerges(page)).map(([rank]) => rank), [count - 1], 'search by #rank');
        await search(page, merges.head[1].replace(' ', ''), 'merge');
        const some = await visibleMerges(page);
        assert.ok(some.length > 1 && some[0][0] === 1, 'a common pair: rank 1 first, ranks ascending');
        await shot(card.locator('.merge-scroll'), `merges-search${suffix}`);
        await search(page, '', 'merge');
        assert.equal(await page.getAttribute(list, 'data-rows'), String(count));

        // Keys in the merges list, End to the last merge.
        await page.focus(`${list} tbody tr[aria-rowindex="2"]`);
        let f = await press(page, 'ArrowDown', 3);
        assert.deepEqual([f.rowindex, f.id], ['5', '3']);
        f = await press(page, 'End');
        assert.deepEqual([f.rowindex, f.id], [String(count + 1), String(count - 1)], 'End: the last merge');
        assert.ok(f.shown);
        await page.emulateMedia({ colorScheme: 'dark' });
        await shot(card, `merges-card-dark${suffix}`);
        await page.emulateMedia({ colorScheme: 'light' });
        await shot(card, `merges-card${suffix}`);
        assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
      } finally {
        await page.context().close();
      }
    });
  }

  it('deepseek-coder vocab: a space in the search is Ġ, case is ignored; specials with separators; named scrollers', { timeout: 120_000 }, async () => {
    requireFile(deepseekCoder, 'the shared data folder; set WEIGHTPEEK_SHARED');
    const page = await openApp(browser, server);
    try {
      await dropFile(page, deepseekCoder);
      assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));
      await showTab(page, 'tokenizer');
      const ids = async () => (await visibleIds(page)).map(([id]) => id);
      await search(page, 'Ġthe');
      const marker = await ids();
      const rowsOf = () => page.getAttribute('[data-testid=token-list]', 'data-rows');
      const markerRows = await rowsOf();
      // gguf-py's id(s) of the token "Ġthe" (tests/reference/reference.py, token_ids).
      const want = loadReference('ggml-vocab-deepseek-coder').token_ids['Ġthe'];
      assert.ok(want.length > 0 && want.every((id) => marker.includes(id)), `Ġthe finds ${want} (${marker})`);
      const ms = await search(page, ' the');
      assert.deepEqual(await ids(), marker, '" the" finds what "Ġthe" finds');
      assert.equal(await rowsOf(), markerRows, 'as many matches');
      console.log(`# " the" over deepseek-coder's vocabulary: ${ms} ms (${markerRows} matches)`);
      await shot(page.locator('.token-scroll'), 'token-search-space');
      await search(page, 'hello');
      const lower = await ids();
      assert.ok(lower.length > 0, 'hello found');
      const lowerRows = await rowsOf();
      await search(page, 'HELLO');
      assert.deepEqual(await ids(), lower, '"HELLO" finds what "hello" finds');
      assert.equal(await rowsOf(), lowerRows, 'as many matches');
      for (const [, text] of await visibleIds(page)) assert.ok(text.toLowerCase().includes('hello'), text);

      // Special-token ids with thousands separators, as in the token list.
      const specials = await page.$$eval('[data-testid=special-tokens] tr[data-role]', (rows) => rows.map((r) => [Number(r.dataset.id), r.querySelector('td.num').textContent]));
      assert.ok(specials.some(([id]) => id >= 1000), `a special id ≥ 1,000 (${specials})`);
      for (const [id, shown] of specials) assert.equal(shown, id.toLocaleString('en-US'), `special id ${id}`);

      // Every focusable scroller of a virtualised table has a name.
      assert.equal(await page.getAttribute('.token-scroll', 'aria-label'), 'token list');
      assert.equal(await page.getAttribute('.merge-scroll', 'aria-label'), 'merges list');
      assert.equal(await page.getAttribute('.tensor-scroll', 'aria-label'), 'tensor table');
      assert.equal(await page.getAttribute('[data-testid=compare-input]', 'aria-label'), 'Choose a file to compare with');
      assert.deepEqual(page.__wpErrors, [], 'no console errors or uncaught exceptions');
    } finally {
      await page.context().close();
    }
  });

  it('Gemma 3 GGUF: a Tensor types row by keyboard (Tab, Enter, Space) filters the tensor table', { timeout: 120_000 }, async () => {
    requireFile(files.gemma, FETCH_HINT);
    const ref = loadReference('gemma-3-270m-q4_k_m');
    const types = new Map(loadReference('ggml_types').quant_types.map((t) => [t.name, t]));
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready', page.__wpErrors.join(' | '));
      await showTab(page, 'histogram');
      const rows = page.locator('.type-table tr[data-pick]');
      const picks = await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.pick));
      assert.deepEqual([...picks].sort(), ref.dtypes.map((d) => d.dtype).sort(), 'one row per type');
      // Tab from the chart's last toggle button reaches the first row, then the second.
      const lastToggle = page.locator('.toggle[aria-label=measure] button').last();
      await lastToggle.focus();
      await page.keyboard.press('Tab');
      const first = await page.evaluate(() => document.activeElement?.dataset?.pick ?? null);
      assert.equal(first, picks[0], 'Tab reaches the first type row');
      await page.keyboard.press('Tab');
      const info = await page.evaluate(() => {
        const el = document.activeElement;
        return { pick: el?.dataset?.pick ?? null, label: el?.getAttribute('aria-label') ?? '', outline: getComputedStyle(el).outlineStyle };
      });
      const picked = picks[1];
      assert.equal(info.pick, picked, 'Tab again: the second row');
      assert.ok(info.label.startsWith(typeTooltip(types.get(picked))), `aria-label holds the tooltip: ${info.label}`);
      assert.ok(info.label.includes('Enter lists its tensors'), info.label);
      assert.notEqual(info.outline, 'none', 'a visible focus outline');
      await shot(page.locator('.type-wrap'), 'type-row-focus');
      await page.keyboard.press('Enter');
      const filter = 'input[aria-label="filter tensors by name or type"]';
      const want = `type:${picked}`;
      await page.waitForFunction(([sel, v]) => document.querySelector(sel)?.value === v, [filter, want], { timeout: 5_000 });
      assert.equal(await page.inputValue(filter), want, 'Enter: the tensor table is filtered by that type');
      const typesShown = () => page.$$eval('[data-testid=tensor-table] td.col-type', (tds) => tds.map((td) => td.textContent));
      await page.waitForFunction((t) => {
        const tds = [...document.querySelectorAll('[data-testid=tensor-table] td.col-type')];
        return tds.length > 0 && tds.every((td) => td.textContent === t);
      }, picked, { timeout: 5_000 });
      console.log(`# Enter on the ${picked} row: filter ${want}, ${(await typesShown()).length} rows drawn`);
      await shot(page.locator('.tensor-scroll'), 'type-row-enter-filter');
      // Space on the first row: the same action.
      await showTab(page, 'histogram');
      await rows.first().focus();
      await page.keyboard.press(' ');
      await page.waitForFunction(([sel, v]) => document.querySelector(sel)?.value === v, [filter, `type:${first}`], { timeout: 5_000 });
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
      assert.equal(await showTab(page, 'tokenizer'), false, 'no Tokenizer tab');
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
