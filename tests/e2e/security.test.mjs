// End-to-end: file-derived text is shown as text, never run as HTML or script.
//
// Builds a GGUF (per ggml/docs/gguf.md) and a safetensors file whose metadata keys and values,
// tensor names and chat template carry HTML, <script>, <img onerror> and javascript: payloads;
// drops each on the page, opens the long-string view and a tensor preview, and checks in real
// Chromium that no payload ran (the globals they would set stay unset), that no element from a
// payload entered the DOM, and that the payload text is shown literally.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { u32, u64, str, ggufHead, STRING, ARRAY } from './gguf-bytes.mjs';
import { launchBrowser, startAppServer, openApp, dropFile, waitForSettled, screenshot, showTab } from './helpers.mjs';

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  '<a href="javascript:window.__pwned=3" id="wp-evil-link">click</a>',
  '"><svg onload="window.__pwned=4">',
];
const ALL = PAYLOADS.join(' ');


/** A GGUF v3 file: payloads in keys, values, a string array, the chat template and tensor names. */
function hostileGguf() {
  const kvs = [
    [str('general.architecture'), u32(STRING), str('llama')],
    [str('general.name'), u32(STRING), str(ALL)],
    [str(PAYLOADS[0]), u32(STRING), str(PAYLOADS[1])],
    [str('tokenizer.chat_template'), u32(STRING), str(`{% for m in messages %}${ALL}\n{{ m.content }}{% endfor %}`.repeat(40))],
    [str('tokenizer.ggml.tokens'), u32(ARRAY), u32(STRING), u64(PAYLOADS.length), ...PAYLOADS.map(str)],
  ].map((parts) => Buffer.concat(parts));
  const names = [`blk.0.${PAYLOADS[0]}.weight`, PAYLOADS[3]];
  const infos = names.map((n, i) => Buffer.concat([str(n), u32(1), u64(8), u32(0), u64(i * 32)]));
  const head = Buffer.concat([ggufHead(names.length, kvs.length), ...kvs, ...infos]);
  const pad = (32 - (head.length % 32)) % 32;
  const data = Buffer.alloc(64);
  for (let i = 0; i < 16; i++) data.writeFloatLE(i - 7.5, i * 4);
  return Buffer.concat([head, Buffer.alloc(pad), data]);
}

/** A safetensors file with payloads in __metadata__ and a tensor name. */
function hostileSafetensors() {
  const header = JSON.stringify({
    __metadata__: { format: ALL, [PAYLOADS[1]]: PAYLOADS[2] },
    [PAYLOADS[0]]: { dtype: 'F32', shape: [4], data_offsets: [0, 16] },
  });
  return Buffer.concat([u64(Buffer.byteLength(header)), Buffer.from(header), Buffer.alloc(16)]);
}

describe('file-derived text is never HTML', { timeout: 5 * 60_000 }, () => {
  let browser;
  let server;
  let dir;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-security-'));
    fs.writeFileSync(path.join(dir, 'xss.gguf'), hostileGguf());
    fs.writeFileSync(path.join(dir, 'xss.safetensors'), hostileSafetensors());
    server = await startAppServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the page has a Content-Security-Policy: no eval, no inline script, wasm allowed', { timeout: 60_000 }, async () => {
    const page = await openApp(browser, server);
    try {
      const policy = await page.evaluate(
        () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null,
      );
      assert.ok(policy, 'no CSP meta element');
      // The page's scripts are files (early.js, page.js loads both modules): no hash is needed.
      assert.match(policy, /script-src 'self' 'wasm-unsafe-eval';/);
      assert.doesNotMatch(policy, /script-src[^;]*'unsafe-(inline|eval)'/);
      assert.match(policy, /style-src 'self';/, 'styles: the stylesheet only (computed styles go through the CSSOM)');
      // (eval from the test harness is not subject to the page's policy, so the policy text above
      // is what proves "no eval"; inline handlers and injected scripts are checked for real.)
      const handler = await page.evaluate(async () => {
        const b = document.createElement('button');
        b.setAttribute('onclick', 'window.__handlerRan = 1');
        document.body.appendChild(b);
        b.click();
        b.remove();
        return window.__handlerRan ?? null;
      });
      assert.equal(handler, null, 'an inline event handler ran');
      const injected = await page.evaluate(async () => {
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = 1';
        document.body.appendChild(s);
        await new Promise((r) => setTimeout(r, 50));
        return window.__inlineRan ?? null;
      });
      assert.equal(injected, null, 'an injected inline script ran');
      // The page's own working (the sample opened end to end) violates nothing.
      await page.evaluate(() => {
        window.__cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective));
      });
      await page.click('[data-testid=open-sample]');
      assert.equal(await waitForSettled(page), 'ready');
      // A preview too: its type chip, heatmap canvas size, scale bar and histogram axis are
      // computed styles.
      await showTab(page, 'tensors');
      await page.click('[data-testid=tensor-table] tbody tr[data-file-index]');
      await page.locator('[data-testid=preview][data-state=ready]').waitFor({ timeout: 30_000 });
      const styled = await page.evaluate(() => getComputedStyle(document.querySelector('[data-testid=tensor-table] .chip')).backgroundColor);
      assert.notEqual(styled, 'rgba(0, 0, 0, 0)', 'type chips keep their colour under the policy');
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    } finally {
      await page.context().close();
    }
  });

  for (const name of ['xss.gguf', 'xss.safetensors']) {
    it(`shows the payloads of ${name} as text and runs none of them`, { timeout: 120_000 }, async () => {
      const page = await openApp(browser, server);
      try {
        await dropFile(page, path.join(dir, name));
        const state = await waitForSettled(page);
        assert.equal(state, 'ready', `state; page errors: ${page.__wpErrors.join(' | ')}`);
        // Expand every "show whole string / more items" control, and open the first tensor's
        // preview, so every place that draws file text has drawn it.
        await showTab(page, 'metadata');
        for (const b of await page.$$('[data-testid=metadata-table] button')) await b.click().catch(() => {});
        await showTab(page, 'tensors');
        const row = await page.$('[data-testid=tensor-table] tbody tr[data-file-index]');
        assert.ok(row, 'the tensor table has rows');
        await row.click();
        await page.waitForSelector('[data-testid=preview][data-state=ready]', { timeout: 30_000 });
        await screenshot(page, `security-${name.replace('.', '-')}`);

        const pwned = await page.evaluate(() => window.__pwned);
        assert.equal(pwned, undefined, 'a payload ran');
        const injected = await page.evaluate(() => ({
          img: document.querySelectorAll('img[src="x"]').length,
          script: [...document.scripts].filter((s) => s.textContent.includes('__pwned')).length,
          link: document.querySelectorAll('#wp-evil-link, a[href^="javascript:"]').length,
          svg: document.querySelectorAll('svg[onload]').length,
        }));
        assert.deepEqual(injected, { img: 0, script: 0, link: 0, svg: 0 }, 'payload elements entered the DOM');
        // The text shown, in every tab (one panel is shown at a time).
        let text = '';
        for (const tab of ['summary', 'metadata', 'tensors', 'preview']) {
          await showTab(page, tab);
          text += await page.evaluate(() => document.body.innerText);
        }
        for (const p of PAYLOADS.slice(0, 2)) {
          assert.ok(text.includes(p), `payload not shown literally: ${p}`);
        }
        assert.deepEqual(page.__wpErrors, [], 'no console errors');
      } finally {
        await page.context().close();
      }
    });
  }
});
