#!/usr/bin/env bash
# The scan's per-core speed in wasm32 (SIMD128, as the web build) under node: builds this
# package into target/scan-core-wasm and runs run.mjs. Usage: bash bench/scan_core_wasm/run.sh [RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="$root/target/scan-core-wasm"
RUSTFLAGS="-C target-feature=+simd128" cargo build --quiet --release --target wasm32-unknown-unknown \
  --manifest-path "$here/Cargo.toml"
node "$here/run.mjs" "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/scan_core_wasm.wasm" "${1:-5}"
