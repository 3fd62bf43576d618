#!/usr/bin/env bash
# The main job on a small case, finishing in a minute or two on 2 cores.
# For now: the sectors of nine with their canonical state counts, and the
# start position. When `morris solve` lands this becomes a small solve and
# a query; the README names this script, so only this file changes.
# Respects CARGO_TARGET_DIR and CARGO_BUILD_JOBS like any cargo command.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
morris() { cargo run --release --quiet -- "$@"; }

morris sectors --variant nine
echo
morris show start --variant nine
