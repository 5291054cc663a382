#!/usr/bin/env bash
# The lean web module (issue #21 item 2): the same crate without its `full` feature, optimised
# for size (Cargo profile `release-lite`), as weightpeek-lite.js + weightpeek-lite_bg.wasm. It
# reads GGUF and safetensors headers and draws the element's first view; www/weightpeek.js
# loads it first and the full module (Trunk's weightpeek-web) on first use.
#
#   bash scripts/build_lite.sh [OUT_DIR]   (default: $TRUNK_STAGING_DIR, else dist/)
#
# Run by Trunk after its own build (Trunk.toml [[hooks]], post_build), so `trunk build` and
# `trunk serve` write both modules. Offline, with the wasm-bindgen and wasm-opt on PATH that
# Trunk uses (scripts/env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${TRUNK_STAGING_DIR:-dist}}"
mkdir -p "$out"
cargo build --offline --quiet --profile release-lite --target wasm32-unknown-unknown \
  --bin weightpeek-web --no-default-features --features web
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name weightpeek-lite \
  target/wasm32-unknown-unknown/release-lite/weightpeek-web.wasm
# The features Rust's wasm32 target and .cargo/config.toml (simd128) compile with.
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd \
  "$out/weightpeek-lite_bg.wasm" -o "$out/weightpeek-lite_bg.wasm"
