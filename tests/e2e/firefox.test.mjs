// Firefox (issue #20, item 1: the first engine beside Chromium): Debian's firefox-esr driven by
// puppeteer-core over WebDriver BiDi (no browser download), through the journeys of
// engines.mjs — six files picked in the page give the CLI's tensor count and inspect() the
// CLI's --json; a preview opened from the table draws its heatmap and preview() gives the CLI's
// values. Screenshots: target/e2e-screenshots/firefox-*.png.

import { describe, it, before, after } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { startAppServer, screenshotDir, requireFile } from './helpers.mjs';
import { requireInputs, pickedFilesJourney, previewJourney, scanJourney } from './engines.mjs';

const FIREFOX = process.env.WEIGHTPEEK_FIREFOX || '/usr/bin/firefox-esr';

describe('Firefox: the same answers as the CLI', { timeout: 15 * 60_000 }, () => {
  let browser;
  let server;

  before(async () => {
    requireFile(FIREFOX, 'install firefox-esr (scripts/install.sh does)');
    requireInputs();
    server = await startAppServer();
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi' });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page of the engines.mjs interface. */
  async function open(url) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e.message ?? e)));
    await page.goto(url);
    return {
      pick: async (selector, file) => (await page.$(selector)).uploadFile(file),
      run: (fn, arg) => page.evaluate(fn, arg),
      shot: async (name) => {
        fs.mkdirSync(screenshotDir, { recursive: true });
        // From the top: Firefox draws the sticky top bar where the page was scrolled to otherwise.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(screenshotDir, `firefox-${name}.png`), fullPage: true });
      },
      errors: async () => errors,
      close: () => page.close(),
    };
  }

  it('picked files show the CLI\'s tensor count, and inspect() gives the CLI\'s JSON', async () => {
    console.log(`firefox: ${(await pickedFilesJourney(open, server.url)).join('; ')}`);
  });

  it('a preview opened from the table draws its heatmap; preview() gives the CLI\'s values', async () => {
    await previewJourney(open, server.url);
  });

  it('the scan of every weight runs in a Worker: the page lists the CLI scan\'s findings; scan() gives its numbers', async () => {
    console.log(`firefox: ${await scanJourney(open, server.url)}`);
  });
});
