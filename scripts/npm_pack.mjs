// Builds the npm package `weightpeek` from the web build (dist/ of `trunk build --release`) and
// packs it with `npm pack`:
//
//   node scripts/npm_pack.mjs [--dist DIR] [--out DIR]     (defaults: dist, target/package)
//
// The package (staged in target/npm/weightpeek/) holds the entry module weightpeek.js (the
// element and the API), weightpeek.d.ts, the wasm-bindgen glue, the wasm, the stylesheet and the
// scan Worker. Every file but the entry, its types and the texts is named with a hash of its
// content (`weightpeek-web_bg.<hash>.wasm`), so a site can cache them forever; the entry module
// finds them relative to its own URL (`new URL(…, import.meta.url)`), so the package works from
// node_modules through a bundler, from a CDN path and from any subpath of a site.
// The version is the crate's (Cargo.toml); npm/package.json must say the same.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return path.resolve(root, i > 0 ? process.argv[i + 1] : fallback);
};
const dist = arg('--dist', 'dist');
const out = arg('--out', path.join('target', 'package'));
const stage = path.join(root, 'target', 'npm', 'weightpeek');

const version = /^version = "([^"]+)"/m.exec(fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))[1];
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'npm', 'package.json'), 'utf8'));
if (manifest.version !== version) {
  throw new Error(`npm/package.json says version ${manifest.version}, Cargo.toml ${version}: make them equal`);
}

const read = (name) => {
  const file = path.join(dist, name);
  if (!fs.existsSync(file)) throw new Error(`missing ${file}: build the web app first (trunk build --release)`);
  return fs.readFileSync(file);
};
const hashed = (name, bytes) => {
  const h = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${h}${name.slice(dot)}`;
};
/** `text` with every `from` replaced by `to`; fails unless it occurs exactly `count` times. */
const swap = (text, from, to, count, where) => {
  const n = text.split(from).length - 1;
  if (n !== count) throw new Error(`${where}: expected ${count} × ${from}, found ${n} (did the web build change?)`);
  return text.split(from).join(to);
};

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
const files = {};
const put = (name, bytes) => {
  fs.writeFileSync(path.join(stage, name), bytes);
  files[name] = bytes.length;
};

// Leaves first: each file's name is a hash of its final content (with its references renamed).
const wasm = hashed('weightpeek-web_bg.wasm', read('weightpeek-web_bg.wasm'));
put(wasm, read('weightpeek-web_bg.wasm'));
const glueText = swap(read('weightpeek-web.js').toString('utf8'), "'weightpeek-web_bg.wasm'", `'${wasm}'`, 1, 'weightpeek-web.js');
const glue = hashed('weightpeek-web.js', Buffer.from(glueText));
put(glue, Buffer.from(glueText));
// The lean module (scripts/build_lite.sh), loaded first.
const liteWasm = hashed('weightpeek-lite_bg.wasm', read('weightpeek-lite_bg.wasm'));
put(liteWasm, read('weightpeek-lite_bg.wasm'));
const liteText = swap(read('weightpeek-lite.js').toString('utf8'), "'weightpeek-lite_bg.wasm'", `'${liteWasm}'`, 1, 'weightpeek-lite.js');
const lite = hashed('weightpeek-lite.js', Buffer.from(liteText));
put(lite, Buffer.from(liteText));
const css = hashed('style.css', read('style.css'));
put(css, read('style.css'));
let workerText = read('scan-worker.js').toString('utf8');
workerText = swap(workerText, '"./weightpeek-web.js"', `"./${glue}"`, 1, 'scan-worker.js');
workerText = swap(workerText, '"./weightpeek-web_bg.wasm"', `"./${wasm}"`, 1, 'scan-worker.js');
const worker = hashed('scan-worker.js', Buffer.from(workerText));
put(worker, Buffer.from(workerText));

let entry = read('weightpeek.js').toString('utf8');
entry = swap(entry, '"./weightpeek-web.js"', `"./${glue}"`, 1, 'weightpeek.js');
entry = swap(entry, '"./weightpeek-web_bg.wasm"', `"./${wasm}"`, 1, 'weightpeek.js');
entry = swap(entry, '"./weightpeek-lite.js"', `"./${lite}"`, 1, 'weightpeek.js');
entry = swap(entry, '"./weightpeek-lite_bg.wasm"', `"./${liteWasm}"`, 1, 'weightpeek.js');
entry = swap(entry, '"./scan-worker.js"', `"./${worker}"`, 1, 'weightpeek.js');
entry = swap(entry, '"./style.css"', `"./${css}"`, 1, 'weightpeek.js');
put('weightpeek.js', Buffer.from(entry));
put('weightpeek.d.ts', read('weightpeek.d.ts'));
for (const f of ['README.md']) put(f, fs.readFileSync(path.join(root, 'npm', f)));
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) put(f, fs.readFileSync(path.join(root, f)));

const pkg = { ...manifest, files: Object.keys(files).sort() };
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

fs.mkdirSync(out, { recursive: true });
const tgz = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }).trim().split('\n').pop();
const tarball = path.join(out, tgz);
console.log(JSON.stringify({ tarball, version, files }, null, 2));
