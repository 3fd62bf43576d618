#!/usr/bin/env bash
# Prints figures to compare across versions: the index throughput (one
# thread) on nine's largest sectors, then the query figures (see the end).
# Arguments go to the index benchmark, e.g.
# `scripts/bench.sh --samples 1000000 --rounds 5`.
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

# Queries: probe latency (cold and warm), a full query (value, every move,
# a perfect-play line), and `morris query` from process start to answer, on
# nine's moving phase up to 9 stones solved into a temporary directory
# (about 20 s). Options for the benchmark go in PROBE_ARGS, e.g.
# PROBE_ARGS="--max-stones 10 --samples 20000" or "--db DIR" to reuse a
# solved database.
echo
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --example bench_probe --bin morris
# shellcheck disable=SC2086 # PROBE_ARGS is a list of words
"$target/release/examples/bench_probe" --morris "$target/release/morris" ${PROBE_ARGS:-}
