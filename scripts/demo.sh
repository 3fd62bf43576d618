#!/usr/bin/env bash
# The main job on a small case, from a fresh checkout: a minute or two on
# 2 cores after the build.
#   1. Six Men's Morris, the whole game: moving phase, placement phase,
#      the forward check of every table, and the start position (a draw,
#      as published).
#   2. Nine Men's Morris up to 8 stones: solve, statistics, a query.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
morris() { target/release/morris "$@"; }

morris solve --variant six --db data/db
echo
morris verify --variant six --db data/db
echo
morris query start --variant six --db data/db
echo
morris solve --variant nine --max-stones 8 --db data/db
echo
morris stats --variant nine --db data/db
echo
morris query "WWW..B../....B.B./........ w 0 0" --variant nine --db data/db
