// Benchmark: the npm package @huggingface/gguf reading local files, for scripts/bench.sh.
//
// Usage: node bench/hf_gguf.mjs [--runs N] FILE...   prints one JSON line per file:
// {"tool": "@huggingface/gguf <version>", "file", "runs", "median_ms", "min_ms", "tensors"}.
// Times `gguf(path, {allowLocalFile: true})`, which reads the header from the file and parses it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gguf } from "@huggingface/gguf";

// The package's "exports" hide package.json: read it beside the resolved entry point.
const entry = fileURLToPath(import.meta.resolve("@huggingface/gguf"));
const pkgPath = entry.slice(0, entry.lastIndexOf("/node_modules/@huggingface/gguf/") + 32) + "package.json";
const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
const args = process.argv.slice(2);
let runs = 5;
if (args[0] === "--runs") { runs = Number(args[1]); args.splice(0, 2); }
for (const file of args) {
  const times = [];
  let tensors = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await gguf(file, { allowLocalFile: true });
    tensors = r.tensorInfos.length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ tool: `@huggingface/gguf ${pkg.version}`, file, runs,
    median_ms: times[Math.floor(runs / 2)], min_ms: times[0], tensors }));
}
