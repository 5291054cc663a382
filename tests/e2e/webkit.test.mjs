// WebKit (issue #20, item 1): WebKitGTK's MiniBrowser, started by Debian's WebKitWebDriver under
// xvfb-run (a virtual display: MiniBrowser has no headless mode), driven with selenium-webdriver,
// through the journeys of engines.mjs — six files picked in the page give the CLI's tensor count
// and inspect() the CLI's --json; a preview opened from the table draws its heatmap and
// preview() gives the CLI's values. Screenshots: target/e2e-screenshots/webkit-*.png (the
// viewport: WebDriver has no full-page screenshot). One MiniBrowser session serves every page
// (a new document each); every driver call has a deadline, and a session that cannot be made
// is tried again with a fresh driver.

import { describe, it, before, after } from 'node:test';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Builder, By } from 'selenium-webdriver';
import { startAppServer, screenshotDir, requireFile } from './helpers.mjs';
import { requireInputs, pickedFilesJourney, previewJourney, scanJourney } from './engines.mjs';

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

/** `promise`, or a rejection naming `what` once `ms` have passed without an answer. */
function deadline(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`WebKit: ${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// Deadlines of one driver call: a hung WebKitWebDriver or MiniBrowser (CI once spent the
// suite's 15 minutes in one call, silently) fails the call that hung, with its name.
const SESSION_MS = 60_000;
const CALL_MS = 150_000;

describe('WebKit: the same answers as the CLI', { timeout: 15 * 60_000 }, () => {
  let server;
  let driverProc;
  let port;
  let driver = null;

  /** Starts WebKitWebDriver under xvfb-run, in a process group of its own (driver, Xvfb and
   * browsers end together). */
  async function startDriver() {
    port = await freePort();
    driverProc = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x900x24', DRIVER, `--port=${port}`, '--host=127.0.0.1'],
      { stdio: 'ignore', detached: true });
    await listening(port, 30_000);
  }

  function stopDriver() {
    if (driverProc?.pid) {
      try { process.kill(-driverProc.pid, 'SIGTERM'); } catch { /* already gone */ }
    }
    driverProc = null;
  }

  /** The one MiniBrowser session of the suite, made on first use. Making a session is tried
   * three times, each with a fresh driver after a failure. */
  async function session() {
    if (driver) return driver;
    let last;
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        if (!driverProc) await startDriver();
        const build = new Builder()
          .usingServer(`http://127.0.0.1:${port}`)
          .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } })
          .build();
        const d = await deadline(build, SESSION_MS, `new session (attempt ${attempt})`);
        await deadline(d.manage().setTimeouts({ script: CALL_MS - 10_000, pageLoad: 60_000, implicit: 0 }), CALL_MS, 'setTimeouts');
        await deadline(d.manage().window().setRect({ width: 1280, height: 900 }), CALL_MS, 'setRect').catch(() => {});
        driver = d;
        return d;
      } catch (e) {
        last = e;
        console.log(`# webkit: ${e.message}; starting the driver again`);
        stopDriver();
      }
    }
    throw last;
  }

  before(async () => {
    requireFile(DRIVER, 'install webkit2gtk-driver and xvfb (scripts/install.sh does)');
    requireFile(MINIBROWSER, 'install webkit2gtk-driver (scripts/install.sh does)');
    requireInputs();
    server = await startAppServer();
  });

  after(async () => {
    if (driver) await deadline(driver.quit(), 20_000, 'quit').catch(() => {});
    stopDriver();
    await server?.close();
  });

  /** A page of the engines.mjs interface: the suite's session, navigated to `url` (a new
   * document, a new wasm instance). */
  async function open(url) {
    const d = await session();
    const call = (p, what) => deadline(p, CALL_MS, what);
    await call(d.get(url), `load ${url}`);
    return {
      pick: async (selector, file) => call(d.findElement(By.css(selector)).then((el) => el.sendKeys(file)), `pick ${path.basename(file)}`),
      run: (fn, arg) => call(d.executeScript(`return (${fn})(arguments[0]);`, arg ?? null), 'script'),
      shot: async (name) => {
        fs.mkdirSync(screenshotDir, { recursive: true });
        fs.writeFileSync(path.join(screenshotDir, `webkit-${name}.png`), Buffer.from(await call(d.takeScreenshot(), 'screenshot'), 'base64'));
      },
      // WebDriver classic reports no page errors; the journeys' results are checked instead.
      errors: async () => [],
      // The session stays for the next page; an empty document drops this one's instance.
      close: async () => call(d.get('about:blank'), 'load about:blank'),
    };
  }

  it('picked files show the CLI\'s tensor count, and inspect() gives the CLI\'s JSON', async () => {
    console.log(`webkit: ${(await pickedFilesJourney(open, server.url)).join('; ')}`);
  });

  it('a preview opened from the table draws its heatmap; preview() gives the CLI\'s values', async () => {
    await previewJourney(open, server.url);
  });

  it('the scan of every weight runs in a Worker: the page lists the CLI scan\'s findings; scan() gives its numbers', async () => {
    console.log(`webkit: ${await scanJourney(open, server.url)}`);
  });
});
