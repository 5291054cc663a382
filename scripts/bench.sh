#!/usr/bin/env bash
# Header parse benchmark (issue #2 §7; remote reads for issue #3 at the end): weightpeek natively and as wasm in headless Chromium,
# next to the PyPI `gguf` package's GGUFReader and the npm `@huggingface/gguf`, on the Gemma 3
# 270M header (6.5 MB) and the largest vocab file, in one run. Reports; passes or fails nothing.
# Usage: bash scripts/bench.sh      (after scripts/test.sh has installed everything and built dist/)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"
out=target/bench
mkdir -p "$out"
GEMMA="$WEIGHTPEEK_DATA/gemma-3-270m-q4_k_m.gguf"
VOCAB=$(ls -S "$WEIGHTPEEK_SHARED"/data/vocab/*.gguf | head -n 1)
FILES=("$GEMMA" "$VOCAB")
[ -f dist/index.html ] || trunk build --release >/dev/null

cargo run --quiet --release --example bench_header -- "${FILES[@]}" > "$out/native.jsonl"
# The wasm run gets exactly the header bytes (in memory in the page, as after Blob.slice).
HDRS=()
while read -r line; do
  f=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["file"])' "$line")
  n=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["header_bytes"])' "$line")
  h="$out/$(basename "$f").header"
  head -c "$n" "$f" > "$h"
  HDRS+=("$h")
done < "$out/native.jsonl"
node bench/wasm.mjs "${HDRS[@]}" > "$out/wasm.jsonl"
node bench/hf_gguf.mjs "${FILES[@]}" > "$out/hf_gguf.jsonl"
"$WP_VENV/bin/python" bench/gguf_py.py "${FILES[@]}" > "$out/gguf_py.jsonl"

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = {}
for name in ("native", "wasm", "hf_gguf", "gguf_py"):
    for line in open(os.path.join(out, f"{name}.jsonl")):
        r = json.loads(line)
        key = os.path.basename(r["file"]).removesuffix(".header")
        rows.setdefault(key, {})[name] = r
print("| file | header | weightpeek native | weightpeek wasm (Chromium) | @huggingface/gguf (node) | gguf-py GGUFReader | native vs hf / gguf-py | wasm vs hf / gguf-py |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for key, r in rows.items():
    n, w, h, g = (r[k]["median_ms"] for k in ("native", "wasm", "hf_gguf", "gguf_py"))
    mb = r["native"]["header_bytes"] / 1e6
    print(f"| {key} | {mb:.2f} MB | {n:.2f} ms ({mb / n * 1e3:.0f} MB/s) | {w:.2f} ms | {h:.0f} ms | {g:.0f} ms "
          f"| {h / n:.0f}× / {g / n:.0f}× | {h / w:.0f}× / {g / w:.0f}× |")
PY

# Remote header reads (issue #3): weightpeek vs @huggingface/gguf over the mock Hub with 50 ms
# latency per request, on Gemma 3, a generated GGUF with a ~30 MB header and 163 safetensors shards.
"$WP_VENV/bin/python" tests/reference/remote_fixtures.py --out target/remote-fixtures --bench
node bench/remote.mjs target/remote-fixtures

# --- Dequantisation throughput (issue #4) --------------------------------------------------------
# Elements per second per ggml type: natively (examples/bench_dequant.rs), as wasm in headless
# Chromium (bench/dequant_wasm.mjs -> the web build's bench_dequant hook), and gguf-py's numpy
# quants.dequantize (bench/dequant_gguf_py.py), in the same run, on the same kind of input
# (pseudo-random blocks, bit 6 of every byte cleared so no scale is Inf/NaN).
N=$((1 << 22))
cargo run --quiet --release --example bench_dequant -- "$N" 0.3 > "$out/dequant_native.txt"
node bench/dequant_wasm.mjs --elements "$N" --ms 300 > "$out/dequant_wasm.jsonl"
"$WP_VENV/bin/python" bench/dequant_gguf_py.py --elements "$N" --seconds 0.3 > "$out/dequant_gguf_py.jsonl"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
native = {}
for line in open(os.path.join(out, "dequant_native.txt")).read().splitlines()[1:]:
    parts = line.split()
    if parts and parts[0] != "st":
        native[parts[0]] = float(parts[-1])
wasm = {json.loads(l)["type"]: json.loads(l)["g_elements_per_s"] for l in open(os.path.join(out, "dequant_wasm.jsonl"))}
py = {json.loads(l)["type"]: json.loads(l)["g_elements_per_s"] for l in open(os.path.join(out, "dequant_gguf_py.jsonl"))}
print()
print("| type | native G el/s | wasm (Chromium) G el/s | gguf-py numpy G el/s | native / gguf-py | wasm / gguf-py |")
print("|---|---:|---:|---:|---:|---:|")
for t, n in native.items():
    w, g = wasm.get(t), py.get(t)
    ratio = lambda a: f"{a / g:.0f}×" if (a and g) else "–"
    print(f"| {t} | {n:.3f} | {w if w is not None else '–'} | {g if g is not None else '–'} | {ratio(n)} | {ratio(w)} |")
PY
