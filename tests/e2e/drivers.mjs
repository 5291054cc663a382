// The browsers of the cross-engine suite (issue #20, item 1), each behind the small page
// interface the journeys of engines.mjs are written against:
//
//   open(url)                   a fresh page at url, returns a Page:
//   page.pick(selector, files)  put a file (or several: an array) from disk into the
//                               <input type=file> at selector
//   page.run(fn, arg)           run fn(arg) in the page (fn may return a promise), its result
//   page.click(x, y)            a real pointer click at viewport coordinates (CSS pixels)
//   page.keys(names)            real key presses to the focused element, in order; names are
//                               KeyboardEvent.key values: Tab, Enter, Escape, ArrowLeft,
//                               ArrowRight, Home, End
//   page.shot(name)             a screenshot target/e2e-screenshots/<engine>-<name>.png
//   page.errors()               uncaught page errors seen (engines that report them; else [])
//   page.close()
//
// firefox(): Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi (no browser
// download). webkit(): WebKitGTK's MiniBrowser, started by Debian's WebKitWebDriver under
// xvfb-run (MiniBrowser has no headless mode), driven with selenium-webdriver; one MiniBrowser
// session serves every page (a new document each), every driver call has a deadline, and a
// session that cannot be made is tried again with a fresh driver. chromium(): Debian's
// chromium through playwright-core (bench/engine_speed.mjs times the same journeys in it).
// Each returns {name, open, close}.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { screenshotDir, requireFile, launchBrowser } from './helpers.mjs';

export const FIREFOX = process.env.WEIGHTPEEK_FIREFOX || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEIGHTPEEK_WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.WEIGHTPEEK_MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const shotPath = (engine, name) => {
  fs.mkdirSync(screenshotDir, { recursive: true });
  return path.join(screenshotDir, `${engine}-${name}.png`);
};
const list = (files) => [].concat(files);

/** Firefox (puppeteer-core over WebDriver BiDi). */
export async function firefox() {
  requireFile(FIREFOX, 'install firefox-esr (scripts/install.sh does)');
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi' });
  async function open(url) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e.message ?? e)));
    await page.goto(url);
    return {
      pick: async (selector, files) => (await page.$(selector)).uploadFile(...list(files)),
      run: (fn, arg) => page.evaluate(fn, arg),
      click: (x, y) => page.mouse.click(x, y),
      keys: async (names) => { for (const k of names) await page.keyboard.press(k); },
      shot: async (name) => {
        // From the top: Firefox draws the sticky top bar where the page was scrolled to otherwise.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: shotPath('firefox', name), fullPage: true });
      },
      errors: async () => errors,
      close: () => page.close(),
    };
  }
  return { name: 'firefox', open, close: () => browser.close() };
}

/** Chromium (playwright-core), for the benchmark of the same journeys. */
export async function chromium() {
  const browser = await launchBrowser();
  async function open(url) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e.message ?? e)));
    await page.goto(url);
    return {
      pick: (selector, files) => page.setInputFiles(selector, list(files)),
      run: (fn, arg) => page.evaluate(fn, arg),
      click: (x, y) => page.mouse.click(x, y),
      keys: async (names) => { for (const k of names) await page.keyboard.press(k); },
      shot: (name) => page.screenshot({ path: shotPath('chromium', name), fullPage: true }),
      errors: async () => errors,
      close: () => context.close(),
    };
  }
  return { name: 'chromium', open, close: () => browser.close() };
}

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

/** WebKit (WebKitGTK MiniBrowser through WebKitWebDriver under xvfb-run, selenium-webdriver). */
export async function webkit() {
  requireFile(WEBKIT_DRIVER, 'install webkit2gtk-driver and xvfb (scripts/install.sh does)');
  requireFile(MINIBROWSER, 'install webkit2gtk-driver (scripts/install.sh does)');
  const { Builder, By, Key, Origin } = await import('selenium-webdriver');
  let driverProc = null;
  let port;
  let driver = null;

  /** Starts WebKitWebDriver under xvfb-run, in a process group of its own (driver, Xvfb and
   * browsers end together). */
  async function startDriver() {
    port = await freePort();
    driverProc = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x900x24', WEBKIT_DRIVER, `--port=${port}`, '--host=127.0.0.1'],
      { stdio: 'ignore', detached: true });
    await listening(port, 30_000);
  }

  function stopDriver() {
    if (driverProc?.pid) {
      try { process.kill(-driverProc.pid, 'SIGTERM'); } catch { /* already gone */ }
    }
    driverProc = null;
  }

  /** The one MiniBrowser session, made on first use; tried three times, each with a fresh
   * driver after a failure. */
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

  const KEYS = {
    Tab: Key.TAB, Enter: Key.ENTER, Escape: Key.ESCAPE, ArrowLeft: Key.ARROW_LEFT, ArrowRight: Key.ARROW_RIGHT,
    ArrowUp: Key.ARROW_UP, ArrowDown: Key.ARROW_DOWN, Home: Key.HOME, End: Key.END, ' ': Key.SPACE,
  };

  /** A page: the session, navigated to `url` (a new document, a new wasm instance). */
  async function open(url) {
    const d = await session();
    const call = (p, what) => deadline(p, CALL_MS, what);
    await call(d.get(url), `load ${url}`);
    return {
      pick: async (selector, files) => call(d.findElement(By.css(selector)).then((el) => el.sendKeys(list(files).join('\n'))),
        `pick ${list(files).map((f) => path.basename(f)).join(', ')}`),
      run: (fn, arg) => call(d.executeScript(`return (${fn})(arguments[0]);`, arg ?? null), 'script'),
      click: (x, y) => call(d.actions({ async: true }).move({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT }).click().perform(), 'click'),
      keys: async (names) => {
        for (const k of names) {
          if (!(k in KEYS)) throw new Error(`WebKit: no key ${k}`);
          await call(d.actions({ async: true }).sendKeys(KEYS[k]).perform(), `key ${k}`);
        }
      },
      shot: async (name) => {
        // The viewport: WebDriver has no full-page screenshot.
        fs.writeFileSync(shotPath('webkit', name), Buffer.from(await call(d.takeScreenshot(), 'screenshot'), 'base64'));
      },
      // WebDriver classic reports no page errors; the journeys' results are checked instead.
      errors: async () => [],
      // The session stays for the next page; an empty document drops this one's instance.
      close: async () => call(d.get('about:blank'), 'load about:blank'),
    };
  }

  async function close() {
    if (driver) await deadline(driver.quit(), 20_000, 'quit').catch(() => {});
    driver = null;
    stopDriver();
  }
  return { name: 'webkit', open, close };
}
