#!/usr/bin/env bash
# The whole of Nine Men's Morris in one command: the solve, the forward
# check of every table, and the value of the start position (Gasser, 1996:
# a draw).
#
#   scripts/solve-nine.sh [--moving] [--max-stones N] [--fly-at N|never] [DB_DIR] [THREADS]
#
# --moving solves the moving phase only (28 pairs, 8.9 G states) and gets
# the start value by the placement search over it; without it the
# placement phase is solved too and the start value read from its table.
# The per-sector figures go to data/nine/moving.tsv (and placement.tsv),
# as `morris stats --tsv` prints them. --max-stones N stops at N stones
# (board and hand, both sides), a quick run of the same steps that writes
# nothing under data/. --fly-at never (or a number) solves nine under that
# flying rule instead; its figures go to data/nine-fly-never/ (and so on).
#
# It ends with one summary line per phase (solve and verify, moving and
# placement): states, wall time, states per second, edges per second,
# peak RSS, bytes on disk and bits per state. Wall time and peak RSS are
# the whole process's (/usr/bin/time); states and edges are the ones this
# run solved or checked, so a resumed run counts only what it did.
#
# Resumable: run it again after an interruption and it carries on from the
# last finished sector (a pair goes on from its last checkpoint). What it
# costs on a 2-core, 24 GiB machine is in docs/long-runs.md.
set -euo pipefail
cd "$(dirname "$0")/.."

phase=all
stones=()
rules=()
data=data/nine
while [[ ${1:-} == --* ]]; do
    case $1 in
        --moving) phase=moving; shift ;;
        --max-stones) stones=(--max-stones "${2:?--max-stones needs a number}"); shift 2 ;;
        --fly-at) rules=(--fly-at "${2:?--fly-at needs a number or never}"); data=data/nine-fly-$2; shift 2 ;;
        *) echo "usage: scripts/solve-nine.sh [--moving] [--max-stones N] [--fly-at N|never] [DB_DIR] [THREADS]" >&2; exit 2 ;;
    esac
done
db=${1:-data/db}
threads=${2:-$(nproc)}

cargo build --release --quiet
morris=target/release/morris
nine() { "$morris" --variant nine "${rules[@]}" --db "$db" "$@"; }
echo "database: $db, threads: $threads, phase: $phase${stones:+, up to ${stones[1]} stones}${rules:+, ${rules[*]}}, disk free: $(df -h --output=avail "$(dirname "$db")" | tail -1)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

work=$(mktemp -d "${TMPDIR:-/tmp}/solve-nine.XXXXXX")
trap 'rm -rf "$work"' EXIT
summary=$work/summary

# Runs `morris ARGS` on the database as step NAME, its output shown and
# kept in $work/NAME.out; its wall time and peak RSS (KiB) go to
# $work/NAME.time.
step() {
    local name=$1
    shift
    local start=$SECONDS
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -f '%e %M' -o "$work/$name.time" "$morris" --variant nine "${rules[@]}" --db "$db" "$@" | tee "$work/$name.out"
    else
        nine "$@" | tee "$work/$name.out"
        echo "$((SECONDS - start)) -" > "$work/$name.time"
    fi
}

# The bytes of a phase's tables and its canonical states (from `stats`).
disk_bytes() { find -L "$db" -maxdepth 1 -name "$1" -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
phase_states() { nine stats --tsv | awk -F'\t' -v n="$1" 'NR > 1 && split($1, a, "-") == n { s += $2 } END { print s + 0 }'; }

# One summary line: NAME STATES EDGES_PER_S TIMEFILE PATTERN FIELDS [PEAK_KIB]
summarise() {
    local name=$1 states=$2 edges=$3 timefile=$4 pattern=$5 fields=$6
    local bytes total
    bytes=$(disk_bytes "$pattern")
    total=$(phase_states "$fields")
    read -r wall rss < "$timefile"
    # A solve's peak is the largest of its pairs' and sectors' (above).
    if [[ -n ${7:-} && $rss != - && ${7} -gt $rss ]]; then rss=$7; fi
    awk -v name="$name" -v states="$states" -v edges="$edges" -v wall="$wall" -v rss="$rss" \
        -v bytes="$bytes" -v total="$total" '
        function size(b) { return b >= 2^30 ? sprintf("%.1f GiB", b / 2^30) : sprintf("%.1f MiB", b / 2^20) }
        BEGIN {
        rate = wall > 0 ? sprintf("%.2f M/s", states / wall / 1e6) : "-";
        mem = rss == "-" ? "-" : size(rss * 1024);
        bits = total > 0 ? sprintf("%.2f", bytes * 8 / total) : "-";
        printf "%-17s %14.0f %9.0f s %12s %12s %10s %10s %10s\n",
            name, states, wall, rate, edges, mem, size(bytes), bits }' >> "$summary"
}

# The solver's total line ("N pairs|sectors  STATES  TIME  RATE  EDGES ..."):
# the states and the edges per second it solved (0 and - when it had
# nothing to do).
# (Printed with %.0f: awk's own print turns 8904593601 into 8.90459e+09,
# and %d stops at 2^31 in some awks.)
solved_states() { awk '$2 ~ /^(pairs?|sectors?)$/ && $3 ~ /^[0-9]+$/ { s = $3 } END { printf "%.0f\n", s + 0 }' "$1"; }
solved_edges() { awk '$2 ~ /^(pairs?|sectors?)$/ && $3 ~ /^[0-9]+$/ { e = $8 " " $9 } END { print (e == "" ? "-" : e) }' "$1"; }
# The solver's own peak RSS, in KiB, from that line ("4.1 GiB"): it resets
# the process's high-water mark at each pair and sector, so /usr/bin/time
# sees only the last one's.
solved_rss() { awk '$2 ~ /^(pairs?|sectors?)$/ && $3 ~ /^[0-9]+$/ { r = $11; u = $12 } END { m = u == "GiB" ? 2^20 : u == "MiB" ? 2^10 : u == "KiB" ? 1 : 0; printf "%.0f\n", r * m }' "$1"; }
# Verify's last line: "N sectors, S states checked in T s: ..."
checked_states() { sed -n 's/.* \([0-9]*\) states checked in .*/\1/p' "$1" | tail -1; }

step solve-moving solve --phase moving --threads "$threads" "${stones[@]}"
summarise "solve moving" "$(solved_states "$work/solve-moving.out")" \
    "$(solved_edges "$work/solve-moving.out")" "$work/solve-moving.time" 'nine-?-?.mtb' 2 \
    "$(solved_rss "$work/solve-moving.out")"
if [[ $phase == all ]]; then
    step solve-placement solve --threads "$threads" "${stones[@]}"
    summarise "solve placement" "$(solved_states "$work/solve-placement.out")" \
        "$(solved_edges "$work/solve-placement.out")" "$work/solve-placement.time" 'nine-*-*-*-*.mtb' 4 \
        "$(solved_rss "$work/solve-placement.out")"
fi

# Every stored value recomputed from its successors, a phase at a time;
# with the placement phase solved the check ends with the start
# position's value against the published one.
step verify-moving verify --phase moving --threads "$threads" "${stones[@]}"
summarise "verify moving" "$(checked_states "$work/verify-moving.out")" - \
    "$work/verify-moving.time" 'nine-?-?.mtb' 2
if [[ $phase == all ]]; then
    step verify-placement verify --phase placement --threads "$threads" "${stones[@]}"
    summarise "verify placement" "$(checked_states "$work/verify-placement.out")" - \
        "$work/verify-placement.time" 'nine-*-*-*-*.mtb' 4
fi

if [[ ${#stones[@]} -eq 0 ]]; then
    mkdir -p "$data"
    nine stats --tsv > "$work/stats.tsv"
    awk -F'\t' 'NR == 1 || split($1, a, "-") == 2' "$work/stats.tsv" > "$data/moving.tsv"
    if [[ $phase == all ]]; then
        awk -F'\t' 'NR == 1 || split($1, a, "-") == 4' "$work/stats.tsv" > "$data/placement.tsv"
    fi
    echo "per-sector figures: $data/moving.tsv$([[ $phase == all ]] && echo ", $data/placement.tsv")"
fi

# The start position: from its table, or by the search over the moving
# phase. Part of a game only when the tables go that far.
if [[ ${#stones[@]} -eq 0 ]]; then
    step query query start
    echo "query start: $(cut -d' ' -f1 "$work/query.time") s, peak RSS $(awk '{ printf "%.1f GiB", $2 / 1048576 }' "$work/query.time")" >> "$work/after"
fi

# With the whole game solved, the same question by the placement search
# over the moving-phase tables alone (a directory of links to them): the
# value and every first placement must agree with the tables in kind.
if [[ $phase == all && ${#stones[@]} -eq 0 ]]; then
    moving_only=$work/moving-only
    mkdir "$moving_only"
    for table in "$db"/nine-?-?.mtb; do
        ln -s "$(realpath "$table")" "$moving_only/"
    done
    kinds() { sed -n 's/.*"move": "\([^"]*\)", "value": "\([a-z]*\)".*/\1 \2/p; s/^  "value": "\([a-z]*\)".*/start \1/p'; }
    nine query start --json | kinds > "$work/tables.txt"
    "$morris" --variant nine "${rules[@]}" --db "$moving_only" query start --json | kinds > "$work/search.txt"
    if diff "$work/tables.txt" "$work/search.txt"; then
        echo "the tables and the search agree on the start and its $(($(wc -l < "$work/tables.txt") - 1)) first placements"
    else
        echo "the tables and the search disagree (above)" >&2
        exit 1
    fi
fi

echo
echo "== summary: nine${rules:+ ${rules[*]}}$([[ ${#stones[@]} -gt 0 ]] && echo " up to ${stones[1]} stones"), $threads thread$([[ $threads == 1 ]] || echo s)"
printf "%-17s %14s %11s %12s %12s %10s %10s %10s\n" phase states wall states/s edges/s "peak RSS" disk bits/state
cat "$summary"
awk '$1 == "solve" { w += $4 } $1 == "verify" { v += $4 } END { printf "whole game: solved in %.0f s (%.1f min), verified in %.0f s (%.1f min)\n", w, w / 60, v, v / 60 }' "$summary"
[[ -e $work/after ]] && cat "$work/after"
exit 0
