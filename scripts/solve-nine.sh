#!/usr/bin/env bash
# The whole of Nine Men's Morris in one command: the moving phase, the
# placement phase, the forward check of every table, and the value of the
# start position (Gasser, 1996: a draw).
#
#   scripts/solve-nine.sh [DB_DIR] [THREADS]
#
# Resumable: run it again after an interruption and it carries on from the
# last finished sector (a pair cut short starts over). What it costs on a
# 2-core, 24 GiB machine is in README.md ("The full solve").
set -euo pipefail
cd "$(dirname "$0")/.."

db=${1:-data/db}
threads=${2:-$(nproc)}

cargo build --release --quiet
morris=target/release/morris
echo "database: $db, threads: $threads, disk free: $(df -h --output=avail "$(dirname "$db")" | tail -1)"

# Placement and moving phase: every sector of nine, each once.
"$morris" --variant nine --db "$db" solve --phase all --threads "$threads"

# Every stored value recomputed from its successors; ends with the start
# position's value against the published one.
"$morris" --variant nine --db "$db" verify --threads "$threads"

"$morris" --variant nine --db "$db" stats
"$morris" --variant nine --db "$db" query start
