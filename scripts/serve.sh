#!/usr/bin/env bash
# Build the web app and serve it on http://127.0.0.1:8080/ (rebuilds when sources change).
#   WEIGHTPEEK_PORT=9000 bash scripts/serve.sh   to use another port
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"

PORT="${WEIGHTPEEK_PORT:-8080}"
bash scripts/install.sh --build-only
cargo fetch --quiet   # Trunk.toml says offline = true, so crates must be in the local cache first
echo "weightpeek: building, then serving at http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
# No live-reload script: the page's Content-Security-Policy (scripts/csp_hook.py) allows no inline
# script (the page's scripts are files).
# WEIGHTPEEK_NO_SW: the offline cache (www/sw.js) caches nothing here, so every reload shows the
# latest build (scripts/sw_hook.py).
export WEIGHTPEEK_NO_SW=1
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port "$PORT"
