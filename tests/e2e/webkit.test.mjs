// WebKit (issue #20, item 1): WebKitGTK's MiniBrowser, started by Debian's WebKitWebDriver under
// xvfb-run (a virtual display: MiniBrowser has no headless mode), driven with selenium-webdriver,
// through the journeys of engines.mjs — six files picked in the page give the CLI's tensor count
// and inspect() the CLI's --json; a preview opened from the table draws its heatmap and
// preview() gives the CLI's values. Screenshots: target/e2e-screenshots/webkit-*.png (the
// viewport: WebDriver has no full-page screenshot).

import { describe, it, before, after } from 'node:test';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Builder, By } from 'selenium-webdriver';
import { startAppServer, screenshotDir, requireFile } from './helpers.mjs';
import { requireInputs, pickedFilesJourney, previewJourney } from './engines.mjs';

const DRIVER = process.env.WEIGHTPEEK_WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
const MINIBROWSER = process.env.WEIGHTPEEK_MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Resolves once something listens on 127.0.0.1:port (the driver), or fails after `ms`. */
async function listening(port, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((r) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); r(true); });
      c.on('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not listen on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WebKit: the same answers as the CLI', { timeout: 15 * 60_000 }, () => {
  let server;
  let driverProc;
  let port;
  const sessions = [];

  before(async () => {
    requireFile(DRIVER, 'install webkit2gtk-driver and xvfb (scripts/install.sh does)');
    requireFile(MINIBROWSER, 'install webkit2gtk-driver (scripts/install.sh does)');
    requireInputs();
    server = await startAppServer();
    port = await freePort();
    // Its own process group, so that the driver, Xvfb and the browsers end together.
    driverProc = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x900x24', DRIVER, `--port=${port}`, '--host=127.0.0.1'],
      { stdio: 'ignore', detached: true });
    await listening(port, 30_000);
  });

  after(async () => {
    for (const d of sessions) await d.quit().catch(() => {});
    if (driverProc?.pid) {
      try { process.kill(-driverProc.pid, 'SIGTERM'); } catch { /* already gone */ }
    }
    await server?.close();
  });

  /** A page of the engines.mjs interface: a WebDriver session of its own. */
  async function open(url) {
    const d = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } })
      .build();
    sessions.push(d);
    await d.manage().window().setRect({ width: 1280, height: 900 }).catch(() => {});
    await d.get(url);
    return {
      pick: async (selector, file) => (await d.findElement(By.css(selector))).sendKeys(file),
      run: (fn, arg) => d.executeScript(`return (${fn})(arguments[0]);`, arg ?? null),
      shot: async (name) => {
        fs.mkdirSync(screenshotDir, { recursive: true });
        fs.writeFileSync(path.join(screenshotDir, `webkit-${name}.png`), Buffer.from(await d.takeScreenshot(), 'base64'));
      },
      // WebDriver classic reports no page errors; the journeys' results are checked instead.
      errors: async () => [],
      close: async () => {
        sessions.splice(sessions.indexOf(d), 1);
        await d.quit();
      },
    };
  }

  it('picked files show the CLI\'s tensor count, and inspect() gives the CLI\'s JSON', async () => {
    console.log(`webkit: ${(await pickedFilesJourney(open, server.url)).join('; ')}`);
  });

  it('a preview opened from the table draws its heatmap; preview() gives the CLI\'s values', async () => {
    await previewJourney(open, server.url);
  });
});
