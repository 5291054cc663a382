// End-to-end: the JavaScript API's preview() gives the reference libraries' exact values for
// EVERY tensor of the NumPy, ONNX and PyTorch reference fixtures (tests/reference/
// numpy_fixtures.py: numpy; onnx_fixtures.py: the onnx package; torch_fixtures.py: its
// reference pickle reader; target/{numpy,onnx,torch}-fixtures/expected.json), in Chromium:
// the first values of the default window and the last row (its first values) of each tensor,
// and of each plain field of a NumPy structured array (window.field: numpy's arr['x']).
// No expected value is written here.
//
// Each file is fetched from the test server into the page and given to preview() as a File.
// Values are compared exactly (helpers.mjs sameValue): integers as BigInt from
// first_values[].text (every digit), booleans from first_values[].value, floats and complex
// numbers from the returned typed array (the stored type's value, bit for bit; -0 and NaN count).
//
// Which tensors: those the reference marks previewable (values in the file, in place) and
// gives values for; a previewable tensor with a zero dimension must preview as 0 values.
// Skipped, and counted apart: big.pt (500 MB); tensors the reference gives no values for
// (PyTorch: non-contiguous views; ONNX: dtypes weightpeek lists but does not preview, such
// as INT4/UINT4/INT2/F6, and an F4 row of odd length); ONNX external-data tensors (the
// reference marks them not previewable in place; torch-files.test.mjs previews them with their
// side file). The test asserts it compared every tensor it selected, so it cannot check nothing.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  launchBrowser, startAppServer, openApp, requireFile, repoRoot, kindOf, sameValue,
} from './helpers.mjs';

const SKIP_FILES = new Set(['big.pt']);

/** previewable as each script writes it: numpy and onnx say so; torch gives values or not. */
const previewable = (t) => t.previewable === undefined || t.previewable === true;

/** The tensor's rows as the reference scripts reshape it: all dimensions but the last. */
function rowsOf(shape) {
  if (shape.length <= 1) return { rows: 1, cols: shape.length ? Number(shape[0]) : 1 };
  return { rows: shape.slice(0, -1).reduce((a, b) => a * Number(b), 1), cols: Number(shape.at(-1)) };
}

/**
 * In the page: fetch `url` into a File, then for each job call preview(file, name, window) and
 * return the values as the text sameValue() takes (a data-value attribute's form).
 */
function previewAll([url, name, jobs]) {
  return (async () => {
    const api = await import('./weightpeek.js');
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const file = new File([await res.arrayBuffer()], name);
    const float = (x) => (Object.is(x, -0) ? '-0' : String(x));
    const out = [];
    for (const job of jobs) {
      let p;
      try {
        p = await api.preview(file, job.tensor, job.window);
      } catch (err) {
        out.push({ error: String(err?.message ?? err) });
        continue;
      }
      const raw = p.first_values.map((v, k) => {
        if (p.values_are === 'integer') return v.text;
        if (p.values_are === 'boolean') return v.value ? '1' : '0';
        if (p.values_are === 'complex') return `${float(p.values[2 * k])},${float(p.values[2 * k + 1])}`;
        return float(p.values[k]);
      });
      out.push({ raw, index: p.first_values.map((v) => v.index), count: p.stats.count, dtype: p.dtype, valuesAre: p.values_are });
    }
    return out;
  })();
}

const FORMATS = [
  ['numpy', 'numpy-fixtures'],
  ['onnx', 'onnx-fixtures'],
  ['torch', 'torch-fixtures'],
];

describe('every tensor of the NumPy, ONNX and PyTorch fixtures through preview()', { timeout: 20 * 60_000 }, () => {
  let browser; let server; let page;
  const mounts = {};
  const refs = {};
  before(async () => {
    for (const [key, folder] of FORMATS) {
      const base = path.join(repoRoot, 'target', folder);
      requireFile(path.join(base, 'expected.json'), `run the ${key} reference script; scripts/test.sh does`);
      refs[key] = { base, doc: JSON.parse(fs.readFileSync(path.join(base, 'expected.json'), 'utf8')) };
    }
    // Each file's folder is served under its own prefix (the real models live outside target/).
    for (const { base, doc } of Object.values(refs)) {
      for (const [name, f] of Object.entries(doc.files)) {
        const local = path.join(base, name);
        const file = fs.existsSync(local) ? local : f.path ?? local;
        f.local = file;
        const dir = path.dirname(file);
        if (!Object.values(mounts).includes(dir)) mounts[`/fx${Object.keys(mounts).length}/`] = dir;
        f.url = `/${Object.entries(mounts).find(([, d]) => d === dir)[0].slice(1)}${encodeURIComponent(path.basename(file))}`;
      }
    }
    browser = await launchBrowser();
    server = await startAppServer({ mounts });
    page = await openApp(browser, server);
  });
  after(async () => { await browser?.close(); await server?.close(); });

  for (const [key] of FORMATS) {
    it(`${key}: first values and last row of every previewable tensor are the reference's`, async () => {
      const { doc } = refs[key];
      let selected = 0; let compared = 0; let empty = 0; const skipped = [];
      const mismatches = [];
      for (const [name, f] of Object.entries(doc.files)) {
        if (SKIP_FILES.has(name)) { skipped.push(`${name} (whole file)`); continue; }
        const jobs = []; const wants = [];
        for (const t of f.tensors) {
          // A NumPy structured array's fields: each previews as numpy's arr['x'].
          for (const fv of t.field_values ?? []) {
            if (!fv.previewable || !fv.first) continue;
            selected += 1;
            const { rows, cols } = rowsOf(fv.shape);
            const ft = { ...fv, name: `${t.name}['${fv.field}']` };
            jobs.push({ tensor: t.name, window: { field: fv.field } });
            wants.push({ t: ft, id: selected, part: 'first', want: fv.first });
            jobs.push({ tensor: t.name, window: { field: fv.field, rows: [rows - 1, rows], cols: [0, Math.min(cols, fv.last_row.length)] } });
            wants.push({ t: ft, id: selected, part: `last row (${rows - 1})`, want: fv.last_row });
          }
          if (!previewable(t)) continue;
          const elements = (t.shape ?? []).reduce((a, b) => a * Number(b), 1);
          if (elements === 0) {
            selected += 1;
            jobs.push({ tensor: t.name });
            wants.push({ t, id: selected, empty: true });
            continue;
          }
          if (!t.first) { skipped.push(`${name} ${t.name} (${t.dtype}: no reference values)`); continue; }
          selected += 1;
          const { rows, cols } = rowsOf(t.shape);
          jobs.push({ tensor: t.name });
          wants.push({ t, id: selected, part: 'first', want: t.first });
          jobs.push({ tensor: t.name, window: { rows: [rows - 1, rows], cols: [0, Math.min(cols, t.last_row.length)] } });
          wants.push({ t, id: selected, part: `last row (${rows - 1})`, want: t.last_row });
        }
        if (!jobs.length) continue;
        requireFile(f.local);
        const started = Date.now();
        const got = await page.evaluate(previewAll, [f.url, name, jobs]);
        const ms = Date.now() - started;
        if (ms > 5000) console.log(`${name}: ${jobs.length} previews in ${ms} ms`);
        assert.equal(got.length, jobs.length, `${name}: one answer per preview`);
        const matched = new Map();
        got.forEach((g, i) => {
          const { t, part, want } = wants[i];
          const label = `${name} ${t.name} ${part ?? ''}`.trim();
          if (g.error) { mismatches.push(`${label}: preview() failed: ${g.error}`); return; }
          if (wants[i].empty) {
            if (g.count !== 0 || g.raw.length !== 0) mismatches.push(`${label}: ${g.count} values, ${g.raw.length} shown; the reference has a zero dimension`);
            else { empty += 1; compared += 1; }
            return;
          }
          const kind = kindOf(t.dtype);
          let ok = g.raw.length === want.length;
          if (!ok) mismatches.push(`${label}: ${g.raw.length} values, reference ${want.length}`);
          g.raw.slice(0, want.length).forEach((raw, k) => {
            if (!sameValue(kind, raw, want[k])) { ok = false; mismatches.push(`${label}: value ${k} (index ${g.index[k]}): ours ${raw}, reference ${want[k]}`); }
          });
          if (ok) matched.set(wants[i].id, (matched.get(wants[i].id) ?? 0) + 1);
        });
        // A tensor counts as compared when both its windows matched.
        for (const n of matched.values()) if (n === 2) compared += 1;
      }
      console.log(`${key}: ${compared} of ${selected} tensors compared (${empty} empty); skipped ${skipped.length}: ${skipped.join('; ') || 'none'}`);
      assert.deepEqual(mismatches.slice(0, 50), [], `${mismatches.length} mismatches`);
      assert.ok(selected > 0, `${key}: no tensor selected`);
      assert.equal(compared, selected, `${key}: every selected tensor compared`);
      assert.deepEqual(page.__wpErrors, []);
    });
  }
});
