// Accessibility (issue #20, item 5): axe-core (npm, devDependencies) finds no serious or
// critical violation on the page and on the <weightpeek-view> element, in the states the
// tests reach, in light and in dark (prefers-color-scheme emulated): the idle page; the real
// Gemma file opened (summary, tensor table, every tab when the page has tabs); a preview open;
// the Checks card; an error; and every tab of the element. Headless Chromium (playwright-core).
//
// Injecting axe: the built page's Content-Security-Policy (scripts/csp_hook.py: script-src
// 'self' and the loader's hash, no 'unsafe-inline') blocks an inline <script> such as
// page.addScriptTag({content}) adds (checked below, so a change of policy is noticed); axe's
// source is evaluated through the DevTools protocol instead (page.evaluate), which the policy
// does not govern. No bypassCSP: the page is audited under its own policy.
//
// Also the element by keyboard alone (engines.mjs elementKeyboardJourney, the same journey
// Firefox and WebKit run): Tab to the tab bar, arrows switch tabs, Enter on a tensor row opens
// the preview, Escape closes it and gives the focus back to the row.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import {
  launchBrowser, startAppServer, openApp, dropFile, waitForSettled, requireFile, files, dataDir, screenshot,
} from './helpers.mjs';
import { writeElementPage, elementKeyboardJourney, showTab } from './engines.mjs';
import { chromium } from './drivers.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const BAD = ['serious', 'critical'];

/** axe's violations of `impact` serious or critical on the page (shadow roots included):
 * [{id, impact, help, nodes: [{target, summary}]}]. */
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // Colours judged once settled: the drop zone's background eases over 0.15 s when the colour
    // scheme changes, and a contrast check mid-way sees the old background.
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {})));
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary, html: n.html.slice(0, 160) })),
    }));
  });
  return result.filter((v) => BAD.includes(v.impact));
}

/** Fails with every violation listed (rule, impact, the first nodes and why). */
function none(violations, where) {
  const text = violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} node(s)): ${v.help}\n${v.nodes.slice(0, 4)
    .map((n) => `    ${JSON.stringify(n.target)} ${n.html}\n      ${n.summary?.replace(/\n/g, ' ')}`).join('\n')}`).join('\n  ');
  assert.equal(violations.length, 0, `${where}: ${violations.length} serious/critical axe violation(s):\n  ${text}`);
}

/** Tabs the page shows one panel at a time by (none on a page that shows every card). */
const pageTabs = (page) => page.$$eval('[role=tablist] [role=tab][data-tab]', (els) => els.map((e) => e.dataset.tab));

describe('axe-core: no serious or critical violation, light and dark', { timeout: 15 * 60_000 }, () => {
  let browser; let server; let tmp;
  const counts = [];

  before(async () => {
    requireFile(files.gemma);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-a11y-'));
    writeElementPage(tmp);
    // Not a model: a GGUF magic and then nothing that parses.
    fs.writeFileSync(path.join(tmp, 'not-a-model.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4, 0xff), Buffer.from('no header here')]));
    server = await startAppServer({ mounts: { '/data/': dataDir, '/t/': tmp } });
    browser = await launchBrowser();
  });

  after(async () => {
    console.log(`# axe: ${counts.join('; ')}`);
    await browser?.close();
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an inline script is blocked by the page\'s CSP (so axe is evaluated, not injected)', async () => {
    const page = await openApp(browser, server);
    try {
      await page.addScriptTag({ content: 'window.__wpInline = 1;' }).catch(() => {});
      assert.equal(await page.evaluate(() => window.__wpInline ?? null), null, 'the CSP let an inline script run');
      await page.evaluate(AXE);
      assert.equal(await page.evaluate(() => typeof window.axe?.run), 'function', 'axe evaluated through the protocol');
    } finally {
      await page.context().close();
    }
  });

  for (const scheme of ['light', 'dark']) {
    it(`the page (${scheme}): idle, Gemma with its table and tabs, a preview, the checks, an error`, { timeout: 300_000 }, async () => {
      const page = await openApp(browser, server);
      try {
        await page.emulateMedia({ colorScheme: scheme });
        const found = [];
        const check = async (where) => {
          const v = await audit(page);
          counts.push(`${scheme} ${where}: ${v.length}`);
          if (v.length) await screenshot(page, `a11y-${scheme}-${where.replace(/\W+/g, '-')}`);
          found.push(...v.map((x) => ({ ...x, help: `[${where}] ${x.help}` })));
        };
        await check('idle');
        await dropFile(page, files.gemma);
        assert.equal(await waitForSettled(page), 'ready');
        await check('Gemma opened');
        for (const tab of await pageTabs(page)) {
          await showTab({ run: (fn, arg) => page.evaluate(fn, arg) }, tab);
          await check(`Gemma, tab ${tab}`);
        }
        // The checks card.
        await showTab({ run: (fn, arg) => page.evaluate(fn, arg) }, 'checks');
        assert.ok(await page.locator('[data-testid=checks]').count() > 0);
        await page.locator('[data-testid=checks]').first().scrollIntoViewIfNeeded();
        await check('checks card');
        // A preview opened from the table.
        await showTab({ run: (fn, arg) => page.evaluate(fn, arg) }, 'tensors');
        await page.fill('.tensors input.filter', 'blk.0.attn_q.weight');
        await page.click('[data-testid=tensor-table] tbody tr[data-file-index]');
        await showTab({ run: (fn, arg) => page.evaluate(fn, arg) }, 'preview');
        await page.waitForSelector('[data-testid=preview][data-state=ready]', { timeout: 60_000 });
        await check('preview open');
        if (scheme === 'dark') await screenshot(page, 'a11y-dark-preview');
        // An error.
        await dropFile(page, path.join(tmp, 'not-a-model.gguf'));
        assert.equal(await waitForSettled(page), 'error');
        await check('error');
        none(found, `page, ${scheme}`);
      } finally {
        await page.context().close();
      }
    });

    it(`the element (${scheme}): every tab`, { timeout: 300_000 }, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      try {
        await page.goto(new URL('t/element.html', server.url).href);
        await page.waitForFunction(() => document.querySelector('#v')?.dataset.state === 'ready', null, { timeout: 90_000 });
        await page.evaluate((s) => document.querySelector('#v').setAttribute('theme', s === 'dark' ? 'dark' : 'auto'), scheme);
        const tabs = await page.locator('#v [role=tab]').evaluateAll((els) => els.map((e) => e.dataset.tab));
        assert.ok(tabs.length >= 6);
        const found = [];
        for (const tab of [...tabs, 'preview-open']) {
          if (tab === 'preview-open') {
            // (The Preview tab shown: a preview in a hidden tab reads nothing until it is.)
            await page.evaluate(() => { const v = document.querySelector('#v'); v.setAttribute('tab', 'preview'); v.setAttribute('tensor', 'blk.0.attn_q.weight'); });
            await page.locator('#v [data-testid=preview][data-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
          } else {
            await page.evaluate((t) => document.querySelector('#v').setAttribute('tab', t), tab);
          }
          const v = await audit(page);
          counts.push(`${scheme} element ${tab}: ${v.length}`);
          if (v.length) await screenshot(page, `a11y-${scheme}-element-${tab}`);
          found.push(...v.map((x) => ({ ...x, help: `[tab ${tab}] ${x.help}` })));
        }
        none(found, `element, ${scheme}`);
      } finally {
        await context.close();
      }
    });
  }

  it('the element by keyboard alone: Tab to the tabs, arrows, Enter on a row opens the preview, Escape back', { timeout: 180_000 }, async () => {
    const driver = await chromium();
    try {
      console.log(`# keys: ${(await elementKeyboardJourney(driver.open, server.url)).join(' ')}`);
    } finally {
      await driver.close();
    }
  });
});
