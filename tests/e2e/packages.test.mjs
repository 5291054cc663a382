// The CLI where people install tools (issue #21 item 5): the Python wheel (maturin, `bindings =
// "bin"`) installed with pip into a fresh venv, `cargo install --path .`, and `cargo package`.
// Each installed command must print the crate's version and read the real Gemma file as gguf-py
// does (tensor count, parameters and tensor bytes from target/reference/, written by
// tests/reference/reference.py); only the command-line tool is installed, not the page's wasm
// entry `weightpeek-web`.
//
// The wheel is built here with the dev profile (it reuses target/debug, which `cargo test` has
// just built: seconds, not the minutes of an optimised build); scripts/package.sh builds the
// release wheel the same way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, files, loadReference, requireFile } from './helpers.mjs';

const cargoToml = fs.readFileSync(path.join(repoRoot, 'Cargo.toml'), 'utf8');
const version = /^version = "([^"]+)"/m.exec(cargoToml)[1];
const venvPython = path.join(repoRoot, '.venv', 'bin', 'python');

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
    ...opts,
  });
}

/** The installed command's version line and its reading of Gemma, against gguf-py's. */
function checkCommand(exe) {
  assert.equal(run(exe, ['--version']).trim(), `weightpeek ${version}`);
  requireFile(files.gemma, 'run scripts/install.sh');
  const ref = loadReference('gemma-3-270m-q4_k_m');
  const got = JSON.parse(run(exe, [files.gemma, '--json']));
  assert.equal(got.format, 'gguf');
  assert.equal(got.tensor_count, ref.tensor_count);
  assert.equal(got.parameter_count, ref.parameter_count);
  assert.equal(got.tensor_bytes, ref.tensor_bytes);
  assert.equal(got.metadata_count, ref.metadata_count);
}

test('the wheel installs the weightpeek command with pip into a fresh venv', { timeout: 600_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-wheel-'));
  try {
    const out = path.join(tmp, 'wheels');
    run(path.join(repoRoot, '.venv', 'bin', 'maturin'), ['build', '--profile', 'dev', '--quiet', '-o', out]);
    const wheels = fs.readdirSync(out).filter((f) => f.endsWith('.whl'));
    assert.equal(wheels.length, 1, `one wheel: ${wheels}`);
    assert.match(wheels[0], new RegExp(`^weightpeek-${version.replace(/\./g, '\\.')}-py3-none-.*\\.whl$`));
    // What is inside: the command, the metadata, nothing else (no page entry, no Python module).
    const listing = run(venvPython, ['-m', 'zipfile', '-l', path.join(out, wheels[0])]);
    const names = listing.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0]).filter(Boolean);
    const scripts = names.filter((n) => n.includes('.data/scripts/'));
    assert.deepEqual(scripts, [`weightpeek-${version}.data/scripts/weightpeek`]);
    assert.ok(names.every((n) => n.startsWith(`weightpeek-${version}.`)), names.join(', '));

    const venv = path.join(tmp, 'venv');
    run('python3', ['-m', 'venv', venv]);
    run(path.join(venv, 'bin', 'pip'), ['install', '--no-index', '--disable-pip-version-check', '--quiet', path.join(out, wheels[0])]);
    const exe = path.join(venv, 'bin', 'weightpeek');
    assert.ok(fs.existsSync(exe), 'pip put weightpeek in the venv');
    assert.ok(!fs.existsSync(path.join(venv, 'bin', 'weightpeek-web')));
    checkCommand(exe);
    const meta = run(path.join(venv, 'bin', 'pip'), ['show', 'weightpeek', '--disable-pip-version-check']);
    assert.match(meta, new RegExp(`^Version: ${version.replace(/\./g, '\\.')}$`, 'm'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('cargo install --path . installs only the command-line tool', { timeout: 600_000 }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wp-install-'));
  try {
    // --debug and the repository's target dir: the build cargo test made is reused.
    run('cargo', ['install', '--path', '.', '--debug', '--locked', '--quiet', '--root', root, '--target-dir', 'target']);
    assert.deepEqual(fs.readdirSync(path.join(root, 'bin')), ['weightpeek']);
    checkCommand(path.join(root, 'bin', 'weightpeek'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('cargo package builds a crate of the code, licences and README that compiles on its own', { timeout: 900_000 }, () => {
  const list = run('cargo', ['package', '--list', '--allow-dirty', '--quiet']).split('\n').filter(Boolean);
  for (const f of ['Cargo.toml', 'Cargo.lock', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE', 'src/lib.rs', 'src/bin/weightpeek.rs']) {
    assert.ok(list.includes(f), `${f} is packaged`);
  }
  // No test fixtures, scripts, web app or benchmarks: only what the crate compiles.
  const stray = list.filter((f) => !/^(src\/.*\.rs|www\/sample\.gguf|Cargo\.toml(\.orig)?|Cargo\.lock|README\.md|LICENSE-(MIT|APACHE)|\.cargo_vcs_info\.json)$/.test(f));
  assert.deepEqual(stray, []);
  // The packaged crate is built on its own (cargo's verify step), as crates.io users get it.
  run('cargo', ['package', '--allow-dirty', '--quiet']);
  const crate = path.join(repoRoot, 'target', 'package', `weightpeek-${version}.crate`);
  const size = fs.statSync(crate).size;
  assert.ok(size > 100_000 && size < 10 << 20, `the .crate is ${size} bytes (crates.io takes up to 10 MiB)`);
});
