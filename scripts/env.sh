# Sourced by the other scripts: paths and environment shared by install, test and serve.
# shellcheck shell=bash

WP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export WP_ROOT

# cargo-installed tools (trunk, wasm-bindgen) and the npm tools (wasm-opt from `binaryen`)
# come first, so Trunk (offline) finds exactly these.
export PATH="$WP_ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

_wp_top=$(git -C "$WP_ROOT" rev-parse --show-toplevel 2>/dev/null || echo "$WP_ROOT")
# The shared, read-only data folder (data/vocab, data/corrupt, scripts/fetch-real-models.py).
export WEIGHTPEEK_SHARED="${WEIGHTPEEK_SHARED:-$(cd "$_wp_top/.." && pwd)/shared}"
# Where fetch-real-models.py keeps the large real models.
export WEIGHTPEEK_DATA="${WEIGHTPEEK_DATA:-$HOME/.cache/weightpeek-data}"
unset _wp_top

# Python venv for the reference scripts (gitignored).
WP_VENV="$WP_ROOT/.venv"
export WP_VENV

TRUNK_VERSION=0.21.14

wp_log() { printf '%s\n' "$*"; }
wp_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The wasm-bindgen version pinned in Cargo.lock (empty when there is no lock file or no such package).
wp_wasm_bindgen_version() {
  [ -f "$WP_ROOT/Cargo.lock" ] || return 0
  awk '
    /^\[\[package\]\]/ { name = "" }
    /^name = "wasm-bindgen"$/ { name = "wasm-bindgen"; next }
    name == "wasm-bindgen" && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' "$WP_ROOT/Cargo.lock"
}
