// One parser per user input (issue #19 item 3, `src/view/spec/`): the same bad tensor window or
// device text gives the same error from the CLI (`weightpeek FILE --tensor T --rows …`,
// `weightpeek fit --gpu …`), the JavaScript API (`preview()`, `fit()`) and the page's preview
// boxes. Each front end names the input its own way (`--rows`, `window.rows`, `rows`); what
// follows the name is the same words, checked here against the CLI's stderr.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFile } from 'node:child_process';
import {
  cliBinary, dataDir, files, launchBrowser, startAppServer, openApp, dropFile, waitForSettled, showTab, tensorRow, requireFile, repoRoot,
} from './helpers.mjs';

const SAMPLE = path.join(repoRoot, 'www', 'sample.gguf');
const TENSOR = 'token_embd.weight';

/** The CLI's stderr for `args` (it exits 2 for a bad input). */
function cliError(args) {
  const cli = requireFile(cliBinary() ?? 'target/debug/weightpeek', 'cargo build --bin weightpeek');
  return new Promise((resolve, reject) => {
    execFile(cli, args, { env: { ...process.env, HF_TOKEN: '' } }, (err, _stdout, stderr) => {
      if (!err) return reject(new Error(`weightpeek ${args.join(' ')} succeeded; a bad input was expected`));
      assert.equal(err.code, 2, `weightpeek ${args.join(' ')}: exit status`);
      resolve(stderr.trim());
    });
  });
}

/** The words after `name: ` in `message` (the error's text without the input's name). */
function wordsAfter(message, name) {
  const at = message.indexOf(`${name}: `);
  assert.ok(at >= 0, `"${name}: " in ${JSON.stringify(message)}`);
  return message.slice(at + name.length + 2);
}

const WINDOWS = [
  { rows: '9..5' },
  { rows: 'x..3' },
  { cols: '4..4' },
  { cols: '18446744073709551615' },
  { cols: '..0' },
];

const DEVICES = [
  { flag: ['--gpu', 'lots'], devices: { gpus: ['lots'] }, cli: '--gpu', api: 'devices.gpus[0]' },
  { flag: ['--gpu', '24GiB', '--gpu', '12 XB'], devices: { gpus: ['24GiB', '12 XB'] }, cli: '--gpu', api: 'devices.gpus[1]' },
  { flag: ['--ram', 'plenty'], devices: { ram: 'plenty' }, cli: '--ram', api: 'devices.ram' },
  { flag: ['--kv', 'q5'], options: { kv: 'q5' }, cli: '--kv', api: 'options.kv' },
  { flag: ['--margin', '1.5XB'], options: { margin: '1.5XB' }, cli: '--margin', api: 'options.margin' },
];

describe('the same bad input gives the same error in every front end', () => {
  let browser;
  let server;
  let page;

  before(async () => {
    requireFile(SAMPLE);
    browser = await launchBrowser();
    server = await startAppServer({ mounts: { '/s/': path.dirname(SAMPLE), '/data/': dataDir } });
    page = await openApp(browser, server);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const api = (fn, args) => page.evaluate(async ([f, a]) => {
    const mod = await import('/weightpeek.js');
    try {
      await mod[f](...a);
      return { ok: true };
    } catch (e) {
      return { error: String(e.message ?? e) };
    }
  }, [fn, args]);

  it('tensor windows: the CLI, preview() and the page\'s boxes', async () => {
    const url = '/s/sample.gguf';
    await dropFile(page, SAMPLE);
    await waitForSettled(page);
    await showTab(page, 'tensors');
    await page.click(await tensorRow(page, TENSOR));
    await page.locator('[data-testid=preview-rows]').waitFor({ state: 'visible', timeout: 30_000 });
    for (const w of WINDOWS) {
      const args = [SAMPLE, '--tensor', TENSOR];
      if (w.rows !== undefined) args.push('--rows', w.rows);
      if (w.cols !== undefined) args.push('--cols', w.cols);
      const cli = await cliError(args);
      const axis = w.rows !== undefined ? 'rows' : 'cols';
      const want = wordsAfter(cli, `--${axis}`);
      const got = await api('preview', [url, TENSOR, w]);
      assert.ok(got.error, `preview(${JSON.stringify(w)}) must fail`);
      assert.equal(wordsAfter(got.error, `window.${axis}`), want, `preview() vs the CLI for ${JSON.stringify(w)}`);
      await page.fill('[data-testid=preview-rows]', w.rows ?? '');
      await page.fill('[data-testid=preview-cols]', w.cols ?? '');
      await page.click('[data-testid=preview-apply]');
      const err = page.locator('[data-testid=preview-error]');
      await err.waitFor({ state: 'visible', timeout: 10_000 });
      const shown = (await err.textContent()).trim();
      assert.equal(wordsAfter(shown, axis === 'rows' ? 'rows' : 'columns'), want, `the page's boxes vs the CLI for ${JSON.stringify(w)}`);
      console.log(`# window ${JSON.stringify(w)}: ${want}`);
    }
  });

  it('fit devices and options: the CLI and fit()', async () => {
    for (const c of DEVICES) {
      const cli = await cliError(['fit', SAMPLE, ...c.flag]);
      const want = wordsAfter(cli, c.cli);
      const got = await api('fit', ['/s/sample.gguf', c.devices, c.options]);
      assert.ok(got.error, `fit(${JSON.stringify(c.devices ?? c.options)}) must fail`);
      assert.equal(wordsAfter(got.error, c.api), want, `fit() vs the CLI for ${c.flag.join(' ')}`);
      console.log(`# ${c.flag.join(' ')}: ${want}`);
    }
  });
  it('JavaScript values the specs do not read are ignored; a wrong kind of value in one they read is its error', async () => {
    requireFile(files.gemma, 'scripts/install.sh fetches it');
    const got = await page.evaluate(async (gemma) => {
      const { preview, fit } = await import('/weightpeek.js');
      const url = '/s/sample.gguf';
      const attempt = async (f) => { try { return { ok: await f() }; } catch (e) { return { error: String(e.message ?? e) }; } };
      const typed = await attempt(() => preview(url, 'token_embd.weight', { rows: '0..4', cols: new Float64Array([0, 2]) }));
      // (A wrong type for a top-level option, such as a Symbol for `context`, is weightpeek.js's
      // TypeError before the engine sees it.)
      const symbol = await attempt(() => fit(url, { gpus: ['8GiB', Symbol('x')] }));
      const bigint = await attempt(() => fit(url, { ram: 17179869184n }));
      const method = await attempt(() => fit(gemma, { gpus: [{ bytes: 8e9, note() { return 1; } }] }));
      const plainGpu = await attempt(() => fit(gemma, { gpus: [{ bytes: 8e9 }] }));
      return { typed, symbol, bigint, method: JSON.stringify(method.ok ?? method), plain: JSON.stringify(plainGpu.ok ?? plainGpu) };
    }, `/data/${path.basename(files.gemma)}`);
    assert.match(got.typed.error ?? '', /window\.cols: must be/, 'a typed array for cols');
    assert.match(got.symbol.error ?? '', /devices\.gpus\[1\]: must be/, 'a Symbol for a GPU');
    assert.match(got.bigint.error ?? '', /devices\.ram: /, 'a BigInt for ram');
    assert.ok(JSON.parse(got.plain).fits, `a plan for Gemma: ${got.plain.slice(0, 200)}`);
    assert.equal(got.method, got.plain, 'a method beside bytes is ignored');
    console.log(`# ${got.typed.error} | ${got.symbol.error} | ${got.bigint.error}`);
  });
});
