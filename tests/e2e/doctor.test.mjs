// End-to-end: the doctor's findings and the quantisation recipe in the page (issue #14).
// - Every file tests/reference/doctor_fixtures.py crafts (target/doctor-fixtures) dropped on the
//   page lists in the Checks card exactly the finding codes expected.json names for it.
// - The real Gemma file's Recipe card shows the rows and the llama-quantize command the CLI's
//   `--recipe --json` gives (the same engine), and its provenance keys.
// No expected value is written here.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import {
  cliBinary,
  launchBrowser, startAppServer, openApp, dropFile, waitForSettled, showTab, screenshot, requireFile, files, repoRoot,
} from './helpers.mjs';

const fixtures = path.join(repoRoot, 'target', 'doctor-fixtures');
const CLI = cliBinary();

function cliRecipe(file) {
  return new Promise((resolve, reject) => {
    execFile(CLI, [file, '--recipe', '--json'], { maxBuffer: 1 << 28 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout));
    });
  });
}

async function codes(page) {
  return page.$$eval('[data-testid=checks] li[data-code]', (els) => els.map((e) => e.dataset.code).sort());
}

describe('doctor and recipe in the page', { timeout: 10 * 60_000 }, () => {
  let browser, server;
  before(async () => {
    requireFile(path.join(fixtures, 'expected.json'), 'python tests/reference/doctor_fixtures.py --out target/doctor-fixtures (scripts/test.sh does)');
    browser = await launchBrowser();
    server = await startAppServer();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists each crafted file\'s finding in the Checks card', async () => {
    const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8'));
    for (const c of expected.doctor) {
      const page = await openApp(browser, server);
      try {
        await dropFile(page, path.join(fixtures, c.file));
        assert.equal(await waitForSettled(page), 'ready', c.case);
        assert.deepEqual(await codes(page), [...c.codes].sort(), `${c.case}: ${c.what}`);
        if (c.case === 'template-obfuscated') await screenshot(page, 'doctor-template-obfuscated');
      } finally {
        await page.context().close();
      }
    }
  });

  it('shows the Gemma recipe as the CLI prints it', async () => {
    requireFile(files.gemma, 'fetch it with python3 ../shared/scripts/fetch-real-models.py');
    requireFile(CLI ?? path.join(repoRoot, 'target', 'debug', 'weightpeek'), 'cargo build --bin weightpeek');
    const want = await cliRecipe(files.gemma);
    const page = await openApp(browser, server);
    try {
      await dropFile(page, files.gemma);
      assert.equal(await waitForSettled(page), 'ready');
      await showTab(page, 'histogram');
      const card = page.locator('[data-testid=recipe]');
      await card.scrollIntoViewIfNeeded();
      const patterns = await page.$$eval('[data-testid=recipe] tr[data-pattern]', (trs) => trs.map((t) => t.dataset.pattern));
      assert.deepEqual(patterns, want.rows.map((r) => r.pattern));
      const command = await page.locator('[data-testid=recipe-command]').textContent();
      for (const a of want.arguments) assert.ok(command.includes(a), `command lacks ${a}`);
      assert.ok(command.trimEnd().endsWith(`IN.gguf OUT.gguf ${want.base_type}`), command);
      const keys = await page.$$eval('[data-testid=provenance] dt', (dts) => dts.map((d) => d.textContent));
      assert.deepEqual(keys, want.provenance.map((p) => p.key));
      fs.mkdirSync(path.join(repoRoot, 'target', 'e2e-screenshots'), { recursive: true });
      await card.screenshot({ path: path.join(repoRoot, 'target', 'e2e-screenshots', 'recipe-gemma.png') });
    } finally {
      await page.context().close();
    }
  });
});
