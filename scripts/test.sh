#!/usr/bin/env bash
# Run every test of weightpeek (this is the README's test command and what CI runs):
#   1. scripts/install.sh: tools, browser, python venv, real models (quiet when all present)
#   2. reference facts from the python reference scripts -> target/reference/*.json for the
#      shared vocab files, the real Gemma GGUF and MiniLM safetensors, www/sample.gguf, and the
#      ggml type table, the dequantisation vectors in target/reference/dequant/, and the
#      tensor-preview statistics in target/reference/preview.json
#      (skipped when newer than their inputs and tests/reference/); the generated remote sets
#      (target/remote-fixtures) and quantised safetensors files (target/quant-fixtures)
#   3. cargo fmt --check, clippy -D warnings (native and wasm32), rustdoc's links, then the native Rust tests:
#      cargo test --all-targets, checked against the reference facts
#   4. the release web app: trunk build --release -> dist/
#   5. end-to-end tests: node --test tests/e2e/ (headless Chromium; Firefox and WebKit run the
#      cross-engine journeys of tests/e2e/engines.mjs)
# Exits non-zero on the first failure. The last line is "summary: N passed, N failed".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"

START=$SECONDS
LOGS="$WP_ROOT/target/test-logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log
STEP="install"

# Sum the pass/fail counts of cargo test and node --test from this run's logs.
count() {
  set +e +o pipefail   # grep finding nothing is not an error here
  local passed=0 failed=0 p f
  if [ -f "$LOGS/cargo-test.log" ]; then
    p=$(grep -aoE '^test result: [A-Za-z]+\. [0-9]+ passed; [0-9]+ failed' "$LOGS/cargo-test.log" | awk '{s += $4} END {print s + 0}')
    f=$(grep -aoE '^test result: [A-Za-z]+\. [0-9]+ passed; [0-9]+ failed' "$LOGS/cargo-test.log" | awk '{s += $6} END {print s + 0}')
    passed=$((passed + p)); failed=$((failed + f))
  fi
  if [ -f "$LOGS/e2e.log" ]; then
    p=$(grep -aoE '^(ℹ|#) pass [0-9]+' "$LOGS/e2e.log" | awk '{s += $3} END {print s + 0}')
    f=$(grep -aoE '^(ℹ|#) fail [0-9]+' "$LOGS/e2e.log" | awk '{s += $3} END {print s + 0}')
    passed=$((passed + p)); failed=$((failed + f))
  fi
  echo "$passed $failed"
}

finish() {
  local rc=$?
  set +e
  local passed failed
  read -r passed failed < <(count)
  echo
  if [ "$rc" -eq 0 ]; then
    echo "test.sh: all steps passed in $((SECONDS - START))s (logs in target/test-logs/, screenshots in target/e2e-screenshots/)"
  else
    [ "$failed" -gt 0 ] || failed=1
    echo "test.sh: FAILED in step '$STEP' (exit $rc) after $((SECONDS - START))s; logs in target/test-logs/"
  fi
  echo "summary: $passed passed, $failed failed"
}
trap finish EXIT

step() {
  STEP=$1
  echo
  echo "==> $1  [$((SECONDS - START))s]"
}

step "install"
bash scripts/install.sh

# --- 2. reference facts ----------------------------------------------------------------------
step "reference facts (tests/reference/reference.py)"
REF_SCRIPT=tests/reference/reference.py
REF_OUT="$WP_ROOT/target/reference"
GEMMA="$WEIGHTPEEK_DATA/gemma-3-270m-q4_k_m.gguf"
MINILM="$WEIGHTPEEK_DATA/all-MiniLM-L6-v2/model.safetensors"
[ -f "$REF_SCRIPT" ] || wp_die "missing $REF_SCRIPT"
[ -d "$WEIGHTPEEK_SHARED/data/vocab" ] || wp_die "missing $WEIGHTPEEK_SHARED/data/vocab (set WEIGHTPEEK_SHARED)"
mapfile -t VOCAB < <(find "$WEIGHTPEEK_SHARED/data/vocab" -type f -name '*.gguf' | sort)
INPUTS=("${VOCAB[@]}" "$GEMMA" "$MINILM" www/sample.gguf)
STAMP="$REF_OUT/.complete"
if [ -f "$STAMP" ] && [ -z "$(find "${INPUTS[@]}" tests/reference -newer "$STAMP" -print -quit)" ]; then
  echo "reference facts are up to date (${#INPUTS[@]} files)"
else
  rm -f "$STAMP"
  mkdir -p "$REF_OUT"
  "$WP_VENV/bin/python" "$REF_SCRIPT" --out "$REF_OUT" "${INPUTS[@]}"
  "$WP_VENV/bin/python" tests/reference/ggml_types.py >"$REF_OUT/ggml_types.json.tmp"
  mv "$REF_OUT/ggml_types.json.tmp" "$REF_OUT/ggml_types.json"
  "$WP_VENV/bin/python" tests/reference/dequant_vectors.py --out "$REF_OUT/dequant" --minilm "$MINILM" --gemma "$GEMMA"
  "$WP_VENV/bin/python" tests/reference/preview_reference.py --out "$REF_OUT/preview.json" --minilm "$MINILM" --gemma "$GEMMA"
  touch "$STAMP"
  echo "reference facts written for ${#INPUTS[@]} files to target/reference/"
fi

# Generated sets for the remote tests (split GGUF, sharded safetensors; skipped when present).
"$WP_VENV/bin/python" tests/reference/remote_fixtures.py --out "$WP_ROOT/target/remote-fixtures"

# Pairs for the page's Compare card (a small pair, and a modified copy of the real Gemma's
# header) with their differences computed in Python (skipped when newer than the script).
"$WP_VENV/bin/python" tests/reference/compare_fixtures.py --out "$WP_ROOT/target/compare-fixtures"

# Quantised safetensors, one small file per layout (GPTQ, AWQ, bitsandbytes, FP8, MXFP4, MLX,
# compressed-tensors) with the logical parameters and bits per weight of their construction in
# expected.json (rebuilt when the script is newer).
QUANT_OUT="$WP_ROOT/target/quant-fixtures"
if [ ! -f "$QUANT_OUT/expected.json" ] || [ tests/reference/quant_safetensors.py -nt "$QUANT_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/quant_safetensors.py --out "$QUANT_OUT"
else
  echo "quantised safetensors fixtures are up to date"
fi

# Scan references (issue #22): a GGUF of every ggml type gguf-py writes, one of NaN/Inf values
# and block scales, an all-zero tensor and an outlier, the first cut short; per-tensor counts and
# float64 statistics from numpy over gguf-py's values, for those and the real Gemma and MiniLM
# (about a minute; rebuilt when the script or dequant_vectors.py is newer).
SCAN_OUT="$WP_ROOT/target/scan-fixtures"
if [ ! -f "$SCAN_OUT/expected.json" ] || [ tests/reference/scan_reference.py -nt "$SCAN_OUT/expected.json" ] \
  || [ tests/reference/dequant_vectors.py -nt "$SCAN_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" -W ignore::RuntimeWarning tests/reference/scan_reference.py --out "$SCAN_OUT" --gemma "$GEMMA" --minilm "$MINILM"
else
  echo "scan fixtures are up to date"
fi

# Every safetensors dtype and every plain GGUF type (both byte orders), with the exact values
# numpy and ml_dtypes give for each preview (rebuilt when the script is newer).
EXACT_OUT="$WP_ROOT/target/exact-fixtures"
if [ ! -f "$EXACT_OUT/expected.json" ] || [ tests/reference/exact_values.py -nt "$EXACT_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/exact_values.py --out "$EXACT_OUT"
else
  echo "exact-value fixtures are up to date"
fi

# Pickles of every kind (plain values at protocols 0-5, PyTorch-like checkpoints written without
# torch, malicious ones) with the tree Python's unpickler builds from them with inert stand-ins,
# the imports pickletools finds and picklescan's and fickling's verdicts (rebuilt when the
# script is newer).
PICKLE_OUT="$WP_ROOT/target/pickle-fixtures"
if [ ! -f "$PICKLE_OUT/expected.json" ] || [ tests/reference/pickle_cases.py -nt "$PICKLE_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/pickle_cases.py --out "$PICKLE_OUT"
else
  echo "pickle fixtures are up to date"
fi

# Hostile pickles, zips and tars (deflate bombs, ZIP64 lies, millions of nodes, a million
# nesting levels, tar checkpoints) for tests/pickle_hostile.rs (rebuilt when the script is newer).
HOSTILE_OUT="$WP_ROOT/target/pickle-hostile"
if [ ! -f "$HOSTILE_OUT/expected.json" ] || [ tests/reference/pickle_hostile.py -nt "$HOSTILE_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/pickle_hostile.py --out "$HOSTILE_OUT"
else
  echo "hostile pickle files are up to date"
fi

# PyTorch checkpoints written without torch (zip, ZIP64, legacy, malicious pickles, a 500 MB
# one for the remote tests) and what a reference reader finds in them and in the real lpips and
# silero-vad files (rebuilt when the script is newer).
TORCH_OUT="$WP_ROOT/target/torch-fixtures"
if [ ! -f "$TORCH_OUT/expected.json" ] || [ tests/reference/torch_fixtures.py -nt "$TORCH_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/torch_fixtures.py --out "$TORCH_OUT" --big
else
  echo "PyTorch fixtures are up to date"
fi

# ONNX models written with the onnx package (every data type, the data fields, external data,
# sparse initializers, subgraphs, many and large initializers) and what the onnx package and
# numpy read in them and in the real silero-vad exports, with the weights they share with the
# TorchScript and safetensors files (rebuilt when the script, or what it imports, is newer).
ONNX_OUT="$WP_ROOT/target/onnx-fixtures"
if [ ! -f "$ONNX_OUT/expected.json" ] || [ tests/reference/onnx_fixtures.py -nt "$ONNX_OUT/expected.json" ] \
   || [ tests/reference/torch_fixtures.py -nt "$ONNX_OUT/expected.json" ] \
   || [ tests/reference/textvals.py -nt "$ONNX_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/onnx_fixtures.py --out "$ONNX_OUT"
else
  echo "ONNX fixtures are up to date"
fi

# NumPy .npy and .npz files written with numpy (every header form; object arrays, benign and
# calling dangerous sinks, with picklescan's and fickling's verdicts), and what numpy reads back
# (rebuilt when the script, or the pickle cases' helpers it imports, is newer).
NUMPY_OUT="$WP_ROOT/target/numpy-fixtures"
if [ ! -f "$NUMPY_OUT/expected.json" ] || [ tests/reference/numpy_fixtures.py -nt "$NUMPY_OUT/expected.json" ] \
   || [ tests/reference/pickle_cases.py -nt "$NUMPY_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/numpy_fixtures.py --out "$NUMPY_OUT"
else
  echo "NumPy fixtures are up to date"
fi

# Small GGUF models for the fit planner (dense, MoE with a shared expert, MLA; a repository of
# twelve quantisations) and their per-layer bytes from gguf-py (rebuilt when the script is newer).
FIT_OUT="$WP_ROOT/target/fit-fixtures"
if [ ! -f "$FIT_OUT/expected.json" ] || [ tests/reference/fit_fixtures.py -nt "$FIT_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/fit_fixtures.py --out "$FIT_OUT" --shared "$WEIGHTPEEK_SHARED" --gemma "$GEMMA"
else
  echo "fit fixtures are up to date"
fi

# One small GGUF per doctor finding and mixed-type GGUF files for the quantisation recipe,
# written with gguf-py's GGUFWriter (rebuilt when the script is newer).
DOCTOR_OUT="$WP_ROOT/target/doctor-fixtures"
if [ ! -f "$DOCTOR_OUT/expected.json" ] || [ tests/reference/doctor_fixtures.py -nt "$DOCTOR_OUT/expected.json" ]; then
  "$WP_VENV/bin/python" tests/reference/doctor_fixtures.py --out "$DOCTOR_OUT"
else
  echo "doctor fixtures are up to date"
fi

# --- 3. formatting, lints, native tests -------------------------------------------------------
step "cargo fmt --check, clippy -D warnings (native, wasm32, the lean wasm32), doc links"
cargo fmt --check 2>&1 | tee "$LOGS/fmt.log"
cargo clippy --all-targets -- -D warnings 2>&1 | tee "$LOGS/clippy.log"
cargo clippy --target wasm32-unknown-unknown --features web --lib --bins -- -D warnings 2>&1 | tee "$LOGS/clippy-wasm.log"
# The lean web module's code (no `full` feature: scripts/build_lite.sh).
cargo clippy --target wasm32-unknown-unknown --no-default-features --features web --lib --bins -- -D warnings 2>&1 | tee "$LOGS/clippy-wasm-lite.log"
# Every intra-doc link of the library's docs names a real, public item, in the native build and
# in the web build (whose docs cover src/web and the wasm32 sources; a native-only item is named
# there as code, not linked).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib 2>&1 | tee "$LOGS/doc.log"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --target wasm32-unknown-unknown --features web 2>&1 | tee "$LOGS/doc-wasm.log"

step "native tests (cargo test --all-targets)"
WEIGHTPEEK_REFERENCE_DIR="$REF_OUT" WEIGHTPEEK_REQUIRE_REFERENCE=1 \
  cargo test --all-targets --no-fail-fast 2>&1 | tee "$LOGS/cargo-test.log"

# --- 4. web build ------------------------------------------------------------------------------
step "web build (trunk build --release)"
cargo fetch --quiet   # Trunk runs cargo --offline (Trunk.toml), so the wasm-only crates must be fetched first
trunk build --release 2>&1 | tee "$LOGS/trunk-build.log"
[ -f dist/index.html ] || wp_die "trunk build did not write dist/index.html"

# --- 5. end-to-end tests -----------------------------------------------------------------------
step "end-to-end tests in Chromium, Firefox and WebKit (node --test tests/e2e/)"
rm -rf target/e2e-screenshots
WEIGHTPEEK_REFERENCE_DIR="$REF_OUT" \
  node --test --test-reporter=spec tests/e2e/ 2>&1 | tee "$LOGS/e2e.log"
