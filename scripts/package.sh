#!/usr/bin/env bash
# Build every artifact weightpeek ships, named with the crate's version, into target/package/:
#   weightpeek-<v>.crate                      cargo package (verified: it compiles on its own)
#   weightpeek-<v>-py3-none-<platform>.whl    the CLI as a Python wheel (maturin, bindings = "bin")
#   weightpeek-site-<v>.zip                   the static web app (trunk build --release -> dist/)
#   weightpeek-<v>.tgz                        the npm package (npm pack of scripts/npm_pack.mjs's stage)
# How to publish each: README, "Install and publish".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"

bash scripts/install.sh   # tools, browsers, and the venv with maturin
VERSION=$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)
OUT="$WP_ROOT/target/package"
mkdir -p "$OUT"
echo "package: weightpeek $VERSION -> target/package/"

# The crate: cargo package writes target/package/weightpeek-<v>.crate itself.
cargo package --allow-dirty --quiet
echo "  weightpeek-$VERSION.crate"

# The wheel: an optimised build of the command (the [profile.release] of Cargo.toml).
rm -f "$OUT"/weightpeek-"$VERSION"-*.whl
"$WP_VENV/bin/maturin" build --release --quiet -o "$OUT"
ls "$OUT"/weightpeek-"$VERSION"-*.whl | sed 's|.*/|  |'

# The static site: what `trunk build --release` puts in dist/, zipped.
trunk build --release
rm -f "$OUT/weightpeek-site-$VERSION.zip"
(cd dist && zip -qr -X "$OUT/weightpeek-site-$VERSION.zip" .)
echo "  weightpeek-site-$VERSION.zip"

# The npm package (the element, the JS API, the wasm and the stylesheet; content-hashed names
# but for the entry): scripts/npm_pack.mjs stages it in target/npm/weightpeek/ and runs npm pack.
node scripts/npm_pack.mjs --out "$OUT" >/dev/null
echo "  weightpeek-$VERSION.tgz"
