#!/usr/bin/env bash
# Two builds timed side by side: both re-solve the same jobs at the same
# time, one thread each, each pinned to its own core, the cores swapped
# from round to round.
#
#   scripts/twin.sh OLD_BIN NEW_BIN DB JOB...
#
# Each round runs `scripts/bench.sh job DB JOB...` (VARIANT as there,
# default nine) with THREADS=1 for OLD_BIN on one core and for NEW_BIN on
# the other, and prints each pair's line (with its phase timers) and, per
# round, the sums of the jobs' own times and of their levels and their
# ratios OLD/NEW. ROUNDS=N (default 2) rounds. A table that differs from
# DB's is reported as bench.sh reports it; compare values with
# scripts/compare-builds.sh.
#
# Why: on a shared VM the speed of the same build drifts by 10-35 % within
# the hour, more than most changes do, so runs made one after the other
# need many alternations. Two runs made at the same time meet the same
# neighbours, the same clock and the same memory traffic, so their ratio
# holds still where their times do not (docs/benchmarks.md, "Twin runs").
# They do share the memory system and the L3 with each other, so a change
# that saves memory traffic shows somewhat less than it would alone. Needs
# 2 cores or more and `taskset` (util-linux).
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: scripts/twin.sh OLD_BIN NEW_BIN DB JOB..." >&2; exit 2; }
old=$1 new=$2 db=$3
shift 3
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "twin: '$b' is not an executable" >&2; exit 2; }
done
command -v taskset > /dev/null || { echo "twin: needs taskset (util-linux)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "twin: needs 2 cores or more, this machine has $(nproc)" >&2; exit 2; }
rounds=${ROUNDS:-2}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/twin.XXXXXX")
trap 'rm -rf "$out"' EXIT

# The sum of the jobs' own times and of their levels, from bench.sh's lines.
sums() {
    awk '/^(pair|sector) / {
        for (i = 1; i <= NF; i++) if ($i == "s") { total += $(i - 1); break }
        if (match($0, /levels [0-9.]+ s/)) levels += substr($0, RSTART + 7, RLENGTH - 9)
    } END { printf "%.2f %.2f", total, levels }' "$1"
}

for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then c_old=0 c_new=1; else c_old=1 c_new=0; fi
    echo "== round $round $(date -u +%T): $(basename "$old") on cpu $c_old, $(basename "$new") on cpu $c_new"
    THREADS=1 MORRIS=$old taskset -c $c_old "$here/bench.sh" job "$db" "$@" > "$out/old" 2>&1 &
    a=$!
    THREADS=1 MORRIS=$new taskset -c $c_new "$here/bench.sh" job "$db" "$@" > "$out/new" 2>&1 &
    b=$!
    status=0
    wait $a || status=$?
    wait $b || status=$?
    for side in old new; do
        grep -E '^(pair|sector) ' "$out/$side" | sed "s/^/$side /" || true
        grep -E 'differs|DIFF' "$out/$side" | sed "s/^/$side /" || true
    done
    # bench.sh exits non-zero when a table's bytes differ from DB's (as
    # they do where DB was written by a build with other compression
    # settings); the timings still stand. A run that printed no job
    # line failed outright.
    for side in old new; do
        if ! grep -qE '^(pair|sector) ' "$out/$side"; then
            echo "twin: the $side run failed (exit $status); its output ends:" >&2
            tail -n 5 "$out/$side" >&2
            exit 1
        fi
    done
    read -r t_old l_old <<< "$(sums "$out/old")"
    read -r t_new l_new <<< "$(sums "$out/new")"
    awk -v a="$t_old" -v b="$t_new" -v la="$l_old" -v lb="$l_new" 'BEGIN {
        printf "round: jobs %.2f s against %.2f s (old/new %.3f), levels %.2f s against %.2f s (%.3f)\n",
            a, b, (b > 0 ? a / b : 0), la, lb, (lb > 0 ? la / lb : 0) }'
done
