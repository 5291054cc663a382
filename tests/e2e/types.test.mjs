// The TypeScript declarations (www/weightpeek.d.ts) compile with the README's examples
// (tests/types/usage.ts) under `tsc --strict`.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './helpers.mjs';

it('weightpeek.d.ts types the documented API and element (tsc --strict)', () => {
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  let out = '';
  try {
    out = execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'es2022',
      '--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--allowJs', 'false', path.join(repoRoot, 'tests', 'types', 'usage.ts')],
    { encoding: 'utf8', cwd: repoRoot });
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
  }
  assert.equal(out.trim(), '');
});
