#!/usr/bin/env bash
# Long libFuzzer runs of the readers of PyTorch, NumPy and ONNX files (issue #24) and of the
# older targets, as `cargo fuzz` runs them (nightly features through RUSTC_BOOTSTRAP=1):
#
#   bash scripts/fuzz.sh                 every new target, 1,000,000 executions each
#   bash scripts/fuzz.sh zip pickle      those targets
#   RUNS=20000 bash scripts/fuzz.sh      a shorter run
#
# Seeds: the generated and real files tests/fuzz_smoke.rs takes (it writes them per target to
# target/fuzz-seeds/), so run scripts/test.sh once first. Built without a sanitizer (`-s none`):
# the crate is safe Rust, and AddressSanitizer's shadow memory would count against the RSS
# limit (a pickle run peaks at 244 MB under it). Limits: -timeout=1 (an input slower than 1 s
# is a failure), -malloc_limit_mb=256 (so is any allocation over 256 MiB), -rss_limit_mb=512
# for the whole process (libFuzzer keeps its corpus in memory: 189 MB for torch_zip after
# 200,000 runs; each file's own peak is measured by tests/pickle_hostile.rs), inputs up to 4 MiB. A crash, a
# timeout or an out-of-memory input is copied to tests/data/fuzz/<target>/, where
# tests/fuzz_smoke.rs runs it in every test run. Prints one line per target: executions, seconds,
# corpus size, and the outcome. Needs cargo-fuzz (cargo install cargo-fuzz --locked).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$WP_ROOT"

RUNS=${RUNS:-1000000}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(zip pickle torch_zip torch_legacy numpy onnx)
command -v cargo-fuzz >/dev/null || wp_die "cargo-fuzz not found: cargo install cargo-fuzz --locked"

SEEDS="$WP_ROOT/target/fuzz-seeds"
rm -rf "$SEEDS"
WEIGHTPEEK_FUZZ_SEEDS="$SEEDS" cargo test --quiet --test fuzz_smoke >/dev/null
export RUSTC_BOOTSTRAP=1
(cd fuzz && cargo fuzz build -O -s none)

LOGS="$WP_ROOT/target/fuzz-logs"
mkdir -p "$LOGS"
status=0
printf '%-14s %12s %9s %8s %8s  %s\n' target executions seconds corpus 'rss MB' outcome
for t in "${TARGETS[@]}"; do
  corpus="$WP_ROOT/target/fuzz-corpus/$t"
  artifacts="$WP_ROOT/target/fuzz-artifacts/$t/"
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [ -d "$SEEDS/$t" ] && seeds=("$SEEDS/$t")
  log="$LOGS/$t.log"
  set +e
  (cd fuzz && cargo fuzz run -O -s none "$t" "$corpus" "${seeds[@]}" -- \
      -runs="$RUNS" -timeout=1 -rss_limit_mb=512 -malloc_limit_mb=256 -max_len=4194304 -print_final_stats=1 \
      -artifact_prefix="$artifacts") >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -aoE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  secs=$(grep -aoE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE 'in [0-9]+' | grep -oE '[0-9]+' || echo '?')
  files=$(find "$corpus" -type f | wc -l)
  outcome="ok"
  if [ "$rc" -ne 0 ]; then
    status=1
    outcome="FAILED (exit $rc; $log)"
    mkdir -p "tests/data/fuzz/$t"
    find "$artifacts" -type f -exec cp -n {} "tests/data/fuzz/$t/" \;
  fi
  rss=$(grep -aoE '^stat::peak_rss_mb: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  printf '%-14s %12s %9s %8s %8s  %s\n' "$t" "$execs" "$secs" "$files" "$rss" "$outcome"
done
exit $status
