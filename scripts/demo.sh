#!/usr/bin/env bash
# The main job on a small case, a minute or two on 2 cores (build aside):
# solve nine's moving phase up to 8 stones (pairs {3,3}, {4,3}, {4,4},
# {5,3}) into the default database data/db, print its statistics, check
# every table with the independent forward check, show a position and
# query another. Run it again and the solve has nothing left to do. The
# README names this script.
# Respects CARGO_TARGET_DIR and CARGO_BUILD_JOBS like any cargo command.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
morris() { cargo run --release --quiet -- "$@"; }

morris solve --variant nine --max-stones 8 --db data/db
echo
morris stats --variant nine --db data/db
echo
morris verify --variant nine --db data/db
echo
# White to move in sector 3-3 can close the mill a7-d7-g7 by flying d6-g7.
morris show "WW....../.W....../BBB..... w 0 0" --variant nine
echo
# White to move wins in 11 plies; the query lists every move best first
# and a perfect-play line.
morris query "WWW..B../....B.B./........ w 0 0" --variant nine --db data/db
