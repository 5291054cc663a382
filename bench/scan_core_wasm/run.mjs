// Runs the wasm32 build of bench/scan_core_wasm in node (V8): MB/s of file bytes per type,
// medians of RUNS. Usage: node run.mjs WASM [RUNS]   (run.sh builds WASM and calls this)
import fs from 'node:fs';
const names = ['F16', 'BF16', 'F32', 'Q8_0', 'Q4_0', 'Q5_0', 'Q4_K', 'Q5_K', 'Q6_K'];
const [file, runs] = [process.argv[2], Number(process.argv[3] || 5)];
// The scan's code calls no import but env.now; wasm-bindgen's (the library's web layer, linked
// in but unused here) are stubs that throw.
const stub = new Proxy({}, { get: () => () => { throw new Error('unexpected import call'); } });
const imports = new Proxy({}, { get: (_, mod) => (mod === 'env' ? { now: () => performance.now() } : stub) });
const { instance } = await WebAssembly.instantiate(fs.readFileSync(file), imports);
const x = instance.exports;
if (x.types() !== names.length) throw new Error('TYPES and names differ');
console.log(`| type (node ${process.version}, wasm32 + SIMD128) | MB/s |`);
console.log('|---|---:|');
for (let k = 0; k < names.length; k++) {
  const s = x.bench(k, 8, runs);
  console.log(`| ${names[k]} | ${(x.bytes_of(k, 8) / s / 1e6).toFixed(0)} |`);
}
