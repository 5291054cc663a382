#!/usr/bin/env bash
# Header parse benchmark (issue #2 §7; remote reads for issue #3 at the end): weightpeek natively and as wasm in headless Chromium,
# next to the PyPI `gguf` package's GGUFReader and the npm `@huggingface/gguf`, on the Gemma 3
# 270M header (6.5 MB) and the largest vocab file, in one run. Reports; passes or fails nothing.
# Usage: bash scripts/bench.sh      (after scripts/test.sh has installed everything and built dist/)
#        bash scripts/bench.sh dequant [REPEATS]   only the dequantisation table (issue #4), each
#        tool run REPEATS times (default 3) in turn, medians reported; WEIGHTPEEK_DIST picks the build
#        bash scripts/bench.sh torch   only the PyTorch listing table (issue #12)
#        bash scripts/bench.sh onnx    only the ONNX listing table (issue #12)
#        bash scripts/bench.sh scan [RUNS]  only the scan table (issue #22): weightpeek scan next
#        to cat and gguf-py + numpy on Gemma 3 and a generated 1 GiB GGUF of Q4_K/Q8_0/F16
#        bash scripts/bench.sh size    what the wasm module is made of, and the first load (issue
#        #21): twiggy (cargo install twiggy) over the module built with its names, by origin
#        bash scripts/bench.sh firstload [RUNS]  a page's first load (issue #21): navigation to an
#        element's summary and the gzipped bytes fetched, lean module first vs one module as before
#        the split, and the full module's first use; the page's first summary and app readiness
#        for a linked model, lean start vs the full module at once, locally and over 20 Mbit/s
#        (bench/first_load.mjs; medians of RUNS)
#        bash scripts/bench.sh engines [RUNS]  only the per-engine speed (issue #20): navigation to
#        the summary of Gemma 3 picked and from the mock Hub, in Chromium, Firefox and WebKit
#        (bench/engine_speed.mjs; median of RUNS, default 5), written to bench/engine_speed.json
#        bash scripts/bench.sh ledger      only the speed ledger (below), written to bench/ledger.json
#        bash scripts/bench.sh --compare   only the speed ledger's stages (issue #23), each one's
#        ratio to the figures recorded in bench/ledger.json, stages over 1.5x slower flagged
# The default run also writes the speed ledger: every stage of opening Gemma 3, the largest
# vocab file and MiniLM (src/view/stages.rs), natively and in Chromium, next to gguf-py,
# @huggingface/gguf and safetensors of the same run, into bench/ledger.json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"
out=target/bench
mkdir -p "$out"
DIST="${WEIGHTPEEK_DIST:-dist}"
[ -f "$DIST/index.html" ] || trunk build --release --dist "$DIST" >/dev/null
ONLY="${1:-all}"
REPEATS="${2:-3}"

GEMMA="$WEIGHTPEEK_DATA/gemma-3-270m-q4_k_m.gguf"
VOCAB=$(ls -S "$WEIGHTPEEK_SHARED"/data/vocab/*.gguf | head -n 1)
MINILM="$WEIGHTPEEK_DATA/all-MiniLM-L6-v2/model.safetensors"

# Writes each file's header bytes (the "file" and "header_bytes" of every line of the native
# run's JSON lines $1) to $out/<name>.header and puts those paths in HDRS: the wasm runs get
# exactly the header bytes (in memory in the page, as after Blob.slice).
header_files() {
  HDRS=()
  local line f n h
  while read -r line; do
    f=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["file"])' "$line")
    n=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["header_bytes"])' "$line")
    h="$out/$(basename "$f").header"
    head -c "$n" "$f" > "$h"
    HDRS+=("$h")
  done < "$1"
}

# The speed ledger's stages (issue #23), natively and in Chromium, on each file's header bytes.
ledger_stages() {
  cargo build --quiet --release --example bench_stages
  target/release/examples/bench_stages "$GEMMA" "$VOCAB" "$MINILM" > "$out/stages_native.jsonl"
  header_files "$out/stages_native.jsonl"
  node bench/wasm.mjs --stages "${HDRS[@]}" > "$out/stages_wasm.jsonl"
}

if [ "$ONLY" = --compare ]; then
  # Three runs; each stage's fastest counts, so one busy moment flags nothing.
  runs=()
  for r in 1 2 3; do
    ledger_stages
    mv "$out/stages_native.jsonl" "$out/stages_native.$r.jsonl"
    mv "$out/stages_wasm.jsonl" "$out/stages_wasm.$r.jsonl"
    runs+=("$out/stages_native.$r.jsonl" "$out/stages_wasm.$r.jsonl")
  done
  python3 bench/ledger.py compare bench/ledger.json "${runs[@]}"
  exit 0
fi

# The ledger alone: the stages, the reference tools' header reads of the same files, the page's
# open (time to the view with every finding, longest main-thread task), written to bench/ledger.json.
write_ledger() {
  ledger_stages
  "$WP_VENV/bin/python" bench/gguf_py.py "$GEMMA" "$VOCAB" > "$out/gguf_py.jsonl"
  node bench/hf_gguf.mjs "$GEMMA" "$VOCAB" > "$out/hf_gguf.jsonl"
  "$WP_VENV/bin/python" bench/st_py.py "$MINILM" > "$out/st_py.jsonl"
  node bench/open_tasks.mjs "$GEMMA" "$VOCAB" "$MINILM" > "$out/open_tasks.jsonl"
  python3 bench/ledger.py write bench/ledger.json "$out/stages_native.jsonl" "$out/stages_wasm.jsonl" \
    "$out/gguf_py.jsonl" "$out/hf_gguf.jsonl" "$out/st_py.jsonl" --page "$out/open_tasks.jsonl"
}
if [ "$ONLY" = ledger ]; then
  write_ledger
  exit 0
fi

if [ "$ONLY" = all ]; then
FILES=("$GEMMA" "$VOCAB")
cargo run --quiet --release --example bench_header -- "${FILES[@]}" > "$out/native.jsonl"
header_files "$out/native.jsonl"
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

# The speed ledger: each stage of opening a model, beside the reference tools' header reads.
write_ledger

# Remote header reads (issue #3): weightpeek vs @huggingface/gguf over the mock Hub with 50 ms
# latency per request, on Gemma 3, a generated GGUF with a ~30 MB header and 163 safetensors shards.
"$WP_VENV/bin/python" tests/reference/remote_fixtures.py --out target/remote-fixtures --bench
cargo build --quiet --release --bin weightpeek
node bench/remote.mjs target/remote-fixtures
fi

if [ "$ONLY" = all ] || [ "$ONLY" = dequant ]; then
# --- Dequantisation throughput (issue #4) --------------------------------------------------------
# Elements per second per ggml type: natively (examples/bench_dequant.rs), as wasm in headless
# Chromium (bench/dequant_wasm.mjs -> the web build's bench_dequant hook), and gguf-py's numpy
# quants.dequantize (bench/dequant_gguf_py.py), in the same run, on the same kind of input
# (pseudo-random blocks, bit 6 of every byte cleared so no scale is Inf/NaN).
N=$((1 << 22))
# Each tool runs REPEATS times, taking turns, so a busy moment hits all three alike; medians.
rm -f "$out"/dequant_native.*.txt "$out"/dequant_wasm.*.jsonl "$out"/dequant_gguf_py.*.jsonl
cargo build --quiet --release --example bench_dequant
for r in $(seq 1 "$REPEATS"); do
  cargo run --quiet --release --example bench_dequant -- "$N" 0.3 > "$out/dequant_native.$r.txt"
  node bench/dequant_wasm.mjs --elements "$N" --ms 300 > "$out/dequant_wasm.$r.jsonl"
  "$WP_VENV/bin/python" bench/dequant_gguf_py.py --elements "$N" --seconds 0.3 > "$out/dequant_gguf_py.$r.jsonl"
done
python3 - "$out" "$REPEATS" <<'PY'
import glob, json, os, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
def collect(pattern, parse):
    runs = {}
    for f in sorted(glob.glob(os.path.join(out, pattern))):
        for t, v in parse(f):
            runs.setdefault(t, []).append(v)
    return {t: statistics.median(v) for t, v in runs.items()}
def native_rows(f):
    for line in open(f).read().splitlines()[1:]:
        parts = line.split()
        if parts and parts[0] != "st":
            yield parts[0], float(parts[-1])
def jsonl_rows(f):
    for line in open(f):
        r = json.loads(line)
        yield r["type"], r["g_elements_per_s"]
native = collect("dequant_native.*.txt", native_rows)
wasm = collect("dequant_wasm.*.jsonl", jsonl_rows)
py = collect("dequant_gguf_py.*.jsonl", jsonl_rows)
print()
print(f"Dequantisation, G elements/s, median of {repeats} runs (4 Mi elements per type):")
print("| type | native | wasm (Chromium) | gguf-py | native / gguf-py | wasm / gguf-py |")
print("|---|---:|---:|---:|---:|---:|")
fmt = lambda v: "–" if v is None else (f"{v:.3f}" if v < 1 else f"{v:.2f}")
for t, n in native.items():
    w, g = wasm.get(t), py.get(t)
    if t == "F32":  # gguf-py returns a zero-copy view of the bytes: nothing is decoded to compare with
        ratio = lambda a: "(view)"
    else:
        ratio = lambda a: f"{a / g:.0f}×" if (a and g) else "–"
    print(f"| {t} | {fmt(n)} | {fmt(w)} | {fmt(g) if t != 'F32' else 'view'} | {ratio(n)} | {ratio(w)} |")
PY
fi

# PyTorch listing (issue #12): `weightpeek FILE --json` (a whole process: start, read the
# pickles and the zip directory, print) next to the reference listing in Python (zipfile and an
# inert Unpickler, bench/torch_list.py, also a whole process), on the generated 500 MB
# checkpoint, the real TorchScript archive and a real legacy .pth. Medians of 5 runs of each.
if [ "$ONLY" = torch ] || [ "$ONLY" = all ]; then
"$WP_VENV/bin/python" tests/reference/torch_fixtures.py --out target/torch-fixtures --big >/dev/null
cargo build --quiet --release --bin weightpeek
python3 bench/listing_table.py "$WP_VENV/bin/python" bench/torch_list.py "Python zipfile + inert Unpickler" \
  target/torch-fixtures/big.pt "$WEIGHTPEEK_DATA/silero-vad/silero_vad.jit" "$WEIGHTPEEK_DATA/lpips/v0.1/vgg.pth"
fi

# Scan every weight (issue #22): `weightpeek scan` (all cores, one core) next to `cat FILE >
# /dev/null` and gguf-py + numpy float64 (bench/scan_gguf_py.py), whole processes from the page
# cache, on Gemma 3 and a generated 1 GiB GGUF of Q4_K, Q8_0 and F16 (bench/make_scan_file.py).
if [ "$ONLY" = scan ]; then
"$WP_VENV/bin/python" bench/make_scan_file.py "$out/mixed.gguf" 1 >/dev/null
cargo build --quiet --release --bin weightpeek
python3 bench/scan_table.py target/release/weightpeek "$WP_VENV/bin/python" "${2:-5}" "$GEMMA" "$out/mixed.gguf"
# The same scan in a Web Worker of Chromium (the web build: run `trunk build --release` first),
# on Gemma, the mixed file and 256 MiB of each of its types alone.
for ty in Q4_K Q8_0 F16; do
  "$WP_VENV/bin/python" bench/make_scan_file.py "$out/only-$ty.gguf" 0.25 "$ty" >/dev/null
done
[ -f dist/index.html ] || trunk build --release >/dev/null
node bench/scan_wasm.mjs "${2:-5}" "$GEMMA" "$out/mixed.gguf" "$out/only-Q4_K.gguf" "$out/only-Q8_0.gguf" "$out/only-F16.gguf"
fi

# The first load (issue #21 item 2): navigation to an element's summary and the bytes fetched,
# lean module first vs. one module as before the split, and the full module's first use.
if [ "$ONLY" = firstload ]; then
node bench/first_load.mjs "${2:-5}"
fi

# Per-engine speed (issue #20): navigation to the summary in each engine, one after the other.
if [ "$ONLY" = engines ]; then
node bench/engine_speed.mjs --runs "${2:-5}"
fi

# What the web build is made of (issue #21, "measure first"): the module built with its function
# names by cargo (the code Trunk builds, before wasm-opt), `twiggy top` summed by origin and by
# the part of the app it serves (bench/wasm_size.py), and the first load of dist/ gzipped.
if [ "$ONLY" = size ]; then
command -v twiggy >/dev/null || cargo install --quiet --locked twiggy
cargo build --quiet --release --target wasm32-unknown-unknown --features web --bin weightpeek-web
[ -f dist/index.html ] || trunk build --release >/dev/null
python3 bench/wasm_size.py target/wasm32-unknown-unknown/release/weightpeek-web.wasm dist 25
fi

# ONNX listing (issue #12): `weightpeek FILE --json` next to onnx.load(load_external_data=False)
# and a walk of its initializers and Constant values (bench/onnx_list.py), both whole processes,
# on the real silero-vad exports and the generated 32 MiB model. Medians of 5 runs of each.
if [ "$ONLY" = onnx ] || [ "$ONLY" = all ]; then
"$WP_VENV/bin/python" tests/reference/onnx_fixtures.py --out target/onnx-fixtures >/dev/null
cargo build --quiet --release --bin weightpeek
python3 bench/listing_table.py "$WP_VENV/bin/python" bench/onnx_list.py "onnx.load + walk" \
  "$WEIGHTPEEK_DATA/silero-vad/silero_vad.onnx" "$WEIGHTPEEK_DATA/silero-vad/silero_vad_op18_ifless.onnx" \
  target/onnx-fixtures/large.onnx target/onnx-fixtures/many.onnx
fi
