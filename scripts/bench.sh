#!/usr/bin/env bash
# Prints figures to compare across versions: for now the index throughput
# (one thread) on nine's largest sectors. Arguments go to the benchmark,
# e.g. `scripts/bench.sh --samples 1000000 --rounds 5`.
# Respects CARGO_TARGET_DIR and CARGO_BUILD_JOBS like any cargo command.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo "rustc:   $(rustc --version)"
echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown), $(nproc) cores"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) (figures drop when other work shares the cores)"
echo

cargo build --release --quiet --example bench_index
cargo run --release --quiet --example bench_index -- "$@"
