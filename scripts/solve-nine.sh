#!/usr/bin/env bash
# The whole of Nine Men's Morris in one command: the solve, the forward
# check of every table, and the value of the start position (Gasser, 1996:
# a draw).
#
#   scripts/solve-nine.sh [--moving] [DB_DIR] [THREADS]
#
# --moving solves the moving phase only (28 pairs, 8.9 G states) and gets
# the start value by the placement search over it; without it the
# placement phase is solved too and the start value read from its table.
# The per-sector figures go to data/nine/moving.tsv (and placement.tsv),
# as `morris stats --tsv` prints them.
#
# Resumable: run it again after an interruption and it carries on from the
# last finished sector (a pair cut short starts over). What it costs on a
# 2-core, 24 GiB machine is in docs/long-runs.md.
set -euo pipefail
cd "$(dirname "$0")/.."

phase=all
if [[ ${1:-} == --moving ]]; then
    phase=moving
    shift
fi
db=${1:-data/db}
threads=${2:-$(nproc)}

cargo build --release --quiet
morris=target/release/morris
echo "database: $db, threads: $threads, phase: $phase, disk free: $(df -h --output=avail "$(dirname "$db")" | tail -1)"

timed() {
    local what=$1
    shift
    local start=$SECONDS
    "$@"
    echo "$what: $((SECONDS - start)) s"
}

timed solve "$morris" --variant nine --db "$db" solve --phase "$phase" --threads "$threads"

# Every stored value recomputed from its successors; with the placement
# phase solved it ends with the start position's value against the
# published one.
timed verify "$morris" --variant nine --db "$db" verify --threads "$threads"

mkdir -p data/nine
"$morris" --variant nine --db "$db" stats --tsv > /tmp/nine-stats.$$.tsv
awk -F'\t' 'NR == 1 || split($1, a, "-") == 2' /tmp/nine-stats.$$.tsv > data/nine/moving.tsv
if [[ $phase == all ]]; then
    awk -F'\t' 'NR == 1 || split($1, a, "-") == 4' /tmp/nine-stats.$$.tsv > data/nine/placement.tsv
fi
rm -f /tmp/nine-stats.$$.tsv
echo "per-sector figures: data/nine/moving.tsv$([[ $phase == all ]] && echo ", data/nine/placement.tsv")"

# The start position: from its table, or by the search over the moving phase.
timed query "$morris" --variant nine --db "$db" query start

# With the whole game solved, the same question by the placement search
# over the moving-phase tables alone (a directory of links to them): the
# value and every first placement must agree with the tables in kind.
if [[ $phase == all ]]; then
    moving_only=$(mktemp -d "${TMPDIR:-/tmp}/nine-moving-only.XXXXXX")
    trap 'rm -rf "$moving_only"' EXIT
    for table in "$db"/nine-?-?.mtb; do
        ln -s "$(realpath "$table")" "$moving_only/"
    done
    kinds() { sed -n 's/.*"move": "\([^"]*\)", "value": "\([a-z]*\)".*/\1 \2/p; s/^  "value": "\([a-z]*\)".*/start \1/p'; }
    "$morris" --variant nine --db "$db" query start --json | kinds > "$moving_only/tables.txt"
    timed "query by search" "$morris" --variant nine --db "$moving_only" query start --json | kinds > "$moving_only/search.txt"
    if diff "$moving_only/tables.txt" "$moving_only/search.txt"; then
        echo "the tables and the search agree on the start and its $(($(wc -l < "$moving_only/tables.txt") - 1)) first placements"
    else
        echo "the tables and the search disagree (above)" >&2
        exit 1
    fi
fi
