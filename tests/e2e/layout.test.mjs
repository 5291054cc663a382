// End-to-end: the page with a real model (Gemma 3 GGUF, MiniLM safetensors) at a phone's width
// (390 px) and a large monitor's (2560 px), light and dark (the system's colour scheme): no
// sideways scrolling of the page, cards within the window, dark colours in dark mode, a visible
// focus ring on keyboard focus; a full-page screenshot of each (target/e2e-screenshots/page-*).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launchBrowser, startAppServer, dropFile, waitForSettled, files, screenshotDir, showTab } from './helpers.mjs';
import { openApp } from './helpers.mjs';

describe('page layout at 390 and 2560 px, light and dark', { timeout: 10 * 60_000 }, () => {
  let browser; let server;
  before(async () => { browser = await launchBrowser(); server = await startAppServer(); });
  after(async () => { await browser?.close(); await server?.close(); });

  for (const [label, file] of [['gemma', files.gemma], ['minilm', files.minilm]]) {
    for (const width of [390, 2560]) {
      for (const scheme of ['light', 'dark']) {
        it(`${label} at ${width} px, ${scheme}`, async () => {
          const page = await openApp(browser, server, { width, height: 1000 });
          await page.emulateMedia({ colorScheme: scheme });
          await dropFile(page, file);
          assert.equal(await waitForSettled(page), 'ready');
          // Every tab's panel fits the window (one shown at a time).
          const tabs = await page.locator('#report [role=tab]').evaluateAll((els) => els.map((e) => e.dataset.tab));
          assert.ok(tabs.length >= 6, `${tabs.length} tabs`);
          let cards = 0;
          for (const tab of tabs) {
            await showTab(page, tab);
            const m = await page.evaluate(() => {
              const doc = document.documentElement;
              const cards = [...document.querySelectorAll('.card, .tab-hint')].filter((c) => c.offsetParent !== null);
              const wide = cards.filter((c) => c.getBoundingClientRect().right > doc.clientWidth + 0.5).map((c) => c.className);
              return { overflow: doc.scrollWidth - doc.clientWidth, wide, bg: getComputedStyle(document.body).backgroundColor, cards: cards.length };
            });
            assert.ok(m.overflow <= 0, `${tab}: the page scrolls sideways by ${m.overflow} px`);
            assert.deepEqual(m.wide, [], `${tab}: cards wider than the window`);
            assert.ok(m.cards >= 1, `${tab}: no card (or, in Preview, hint) shown`);
            assert.equal(m.bg, scheme === 'dark' ? 'rgb(15, 17, 21)' : 'rgb(246, 247, 249)');
            cards += m.cards;
          }
          assert.ok(cards >= 8, `${cards} cards in all tabs`);
          await showTab(page, 'summary');
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: path.join(screenshotDir, `page-${label}-${width}-${scheme}.png`), fullPage: true });
          await showTab(page, 'tensors');
          // Keyboard focus on a tensor row is visible (an outline or a ring).
          await page.locator('[data-testid=tensor-table] tbody tr[data-file-index]').first().focus();
          await page.keyboard.press('ArrowDown');
          const ring = await page.evaluate(() => {
            const el = document.activeElement;
            const s = getComputedStyle(el);
            return { tag: el.tagName, outline: s.outlineStyle, width: s.outlineWidth, shadow: s.boxShadow };
          });
          assert.equal(ring.tag, 'TR');
          assert.ok(ring.outline !== 'none' || ring.shadow !== 'none', `no visible focus: ${JSON.stringify(ring)}`);
          // The layer map's roles are keyboard stops: Enter lists that role's tensors.
          const role = page.locator('[data-testid=layer-map] th.role[data-filter]').first();
          if (await role.count()) {
            await showTab(page, 'histogram');
            const want = await role.getAttribute('data-filter');
            await role.focus();
            await page.keyboard.press('Enter');
            assert.equal(await page.inputValue('[data-testid=tensor-table-filter], .tensors input[type=search]'), want);
            await page.locator('[data-testid=tensor-table] tbody tr[data-file-index]').first().focus();
          }
          // Enter opens the preview; its heatmap and value table fit the window too.
          await page.keyboard.press('Enter');
          await page.locator('[data-testid=preview][data-state=ready]').waitFor({ timeout: 30_000 });
          const after = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(after <= 0, `with a preview open the page scrolls sideways by ${after} px`);
          // The memory card's context box reads 1.5k as 1,536 tokens and marks nonsense invalid.
          const ctx = page.locator('[data-testid=memory-context]');
          if (await ctx.count()) {
            await showTab(page, 'memory');
            await ctx.fill('1.5k');
            await ctx.press('Enter');
            await page.waitForFunction(() => document.querySelector('[data-testid=memory]')?.dataset.context === '1536', null, { timeout: 5_000 });
            await ctx.fill('4096.5');
            await ctx.press('Enter');
            await page.waitForFunction(() => document.querySelector('[data-testid=memory-context]').getAttribute('aria-invalid') === 'true', null, { timeout: 5_000 });
          }
          await showTab(page, 'preview');
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: path.join(screenshotDir, `page-${label}-${width}-${scheme}-preview.png`), fullPage: true });
          assert.deepEqual(page.__wpErrors, []);
          await page.context().close();
        });
      }
    }
  }
});
