// Benchmark: weightpeek's dequantisers compiled to wasm32, in headless Chromium (scripts/bench.sh).
//
// Usage: node bench/dequant_wasm.mjs [--elements N] [--ms M]   (dist/ must be built)
// For every ggml type the web build can decode, makes ~N elements of pseudo-random blocks (every
// byte's bit 6 cleared so no f16/f32 scale is Inf/NaN, as examples/bench_dequant.rs does) inside
// the page and calls the exported `bench_dequant(type, bytes, ms)` (src/bin/weightpeek-web.rs),
// which decodes them repeatedly for at least M ms. Prints one JSON line per type:
// {"tool", "type", "elements", "g_elements_per_s"}. Type sizes come from
// target/reference/ggml_types.json (gguf-py's table) plus ggml's Q8_1 / Q2_0 sizes.
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, startAppServer, referenceDir } from '../tests/e2e/helpers.mjs';

const args = process.argv.slice(2);
let elements = 1 << 22;
let ms = 300;
for (let i = 0; i < args.length; i += 2) {
  if (args[i] === '--elements') elements = Number(args[i + 1]);
  else if (args[i] === '--ms') ms = Number(args[i + 1]);
}
const table = JSON.parse(fs.readFileSync(path.join(referenceDir, 'ggml_types.json'), 'utf8')).quant_types;
const sizes = new Map(table.map((t) => [t.name, [t.block_size, t.type_size]]));
// gguf-py 0.19 lists Q8_1 as 40 bytes and lacks Q2_0; ggml-common.h: 2 f16 + 32 i8, f16 + 16 u8.
sizes.set('Q8_1', [32, 36]);
sizes.set('Q2_0', [64, 18]);

const server = await startAppServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_dequant, null, { timeout: 30_000 });
  const tool = `weightpeek wasm (Chromium ${browser.version()})`;
  for (const [name, [bs, ts]] of sizes) {
    const r = await page.evaluate(({ name, bs, ts, elements, ms }) => {
      const blocks = Math.max(1, Math.floor(elements / bs));
      const bytes = new Uint8Array(blocks * ts);
      let x = 0x9e3779b9 ^ name.length;
      for (let i = 0; i < bytes.length; i++) {
        x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
        bytes[i] = (x >>> 24) & 0xbf;
      }
      try {
        return { elements: blocks * bs, rate: window.wasmBindings.bench_dequant(name, bytes, ms) };
      } catch (e) {
        return { error: String(e) };
      }
    }, { name, bs, ts, elements, ms });
    if (r.error) continue; // a type the decoder does not define (removed ids)
    console.log(JSON.stringify({ tool, type: name, elements: r.elements, g_elements_per_s: +(r.rate / 1e9).toFixed(4) }));
  }
} finally {
  await browser.close();
  await server.close();
}
