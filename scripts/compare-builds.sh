#!/usr/bin/env bash
# Do two builds of morris compute the same? For a change that should not
# change any result (a refactoring, a faster loop).
#
#   scripts/compare-builds.sh OLD_BIN NEW_BIN
#
# Solves, with each binary into a fresh temporary directory, the whole of
# six and nine up to 9 stones (moving and placement phase), then checks:
#   - every table file byte for byte (cmp), and that both made the same files;
#   - `stats --tsv` of six and of nine;
#   - `query --json` of six's start and of positions of nine in the solved
#     sectors (moving phase with 3 and 4 stones a side, and placement);
#   - what `solve` printed on stdout, with times, rates and peak memory
#     masked (they differ from run to run) and the directory's name too.
# Prints `ok: ...` and exits 0, or the first difference and exits 1.
#
# OLD_ARGS and NEW_ARGS add global options to every command of one side:
# `NEW_ARGS="--fly-at never" scripts/compare-builds.sh B B` compares a build
# with itself under other rules, which must fail. THREADS (default 2) goes
# to both solves; the directories go under $TMPDIR (or /tmp) and are removed
# at the end. About a minute per binary on 2 cores.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: scripts/compare-builds.sh OLD_BIN NEW_BIN" >&2
    exit 2
fi
old_bin=$(realpath "$1")
new_bin=$(realpath "$2")
for bin in "$old_bin" "$new_bin"; do
    [ -x "$bin" ] || { echo "compare-builds: $bin is not an executable" >&2; exit 2; }
done
threads=${THREADS:-2}
read -r -a old_args <<< "${OLD_ARGS:-}"
read -r -a new_args <<< "${NEW_ARGS:-}"

work=$(mktemp -d "${TMPDIR:-/tmp}/morris-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Positions of nine that the solve below covers: moving phase with 3 and 4
# stones a side, and placement positions with stones in hand.
nine_positions=(
    "WWW..B../....B.B./........ w 0 0"
    "WW.B..B./.W..B.W./..B..... w 0 0"
    "WW.B..B./.W..B.W./..B..... b 0 0"
    "W..B..B./.W..B.W./..B..... w 0 0"
    "WW.B..B./.W....../..B..... b 0 0"
    "WW.B..../.W..B.../........ w 1 1"
    "WW.B..../.W..B.../........ b 1 2"
)

# run SIDE: solve, stats and queries with one binary into $work/SIDE.
run() {
    local side=$1 bin=$2
    shift 2
    local args=("$@") out="$work/$side"
    mkdir -p "$out/db"
    "$bin" "${args[@]}" --variant six --db "$out/db" solve --threads "$threads" > "$out/solve-six.txt"
    "$bin" "${args[@]}" --variant nine --db "$out/db" solve --max-stones 9 --threads "$threads" \
        > "$out/solve-nine.txt"
    "$bin" "${args[@]}" --variant six --db "$out/db" stats --tsv > "$out/stats-six.tsv"
    "$bin" "${args[@]}" --variant nine --db "$out/db" stats --tsv > "$out/stats-nine.tsv"
    "$bin" "${args[@]}" --variant six --db "$out/db" query start --json > "$out/query-six-start.json"
    local i=0
    for position in "${nine_positions[@]}"; do
        i=$((i + 1))
        "$bin" "${args[@]}" --variant nine --db "$out/db" query "$position" --json \
            > "$out/query-nine-$i.json" 2> "$out/query-nine-$i.stderr"
    done
}

# mask FILE: solve's stdout without what differs between runs: the
# directory, times, rates and peak memory (the size before the table size).
mask() {
    sed -E \
        -e "s#$work/(old|new)/db#DB#g" \
        -e 's/[0-9]+(\.[0-9]+)? s\b/T s/g' \
        -e 's#[0-9]+(\.[0-9]+)? ?[kMG]?/s#R/s#g' \
        -e 's/[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB)( +[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB))/MEM\3/g' \
        -e 's/ +/ /g' "$1"
}

fail() {
    echo "compare-builds: $*" >&2
    exit 1
}

# differ WHAT A B: fail with the first differing lines of two text files.
differ() {
    if ! cmp -s "$2" "$3"; then
        echo "compare-builds: $1 differ; the first difference (old <, new >):" >&2
        diff "$2" "$3" | head -n 8 >&2 || true
        exit 1
    fi
}

echo "old: $old_bin ${old_args[*]}"
run old "$old_bin" "${old_args[@]}"
echo "new: $new_bin ${new_args[*]}"
run new "$new_bin" "${new_args[@]}"

(cd "$work/old/db" && ls) > "$work/old-files.txt"
(cd "$work/new/db" && ls) > "$work/new-files.txt"
differ "the files in the databases" "$work/old-files.txt" "$work/new-files.txt"
tables=0
while read -r file; do
    cmp -s "$work/old/db/$file" "$work/new/db/$file" \
        || fail "table $file differs: $(cmp "$work/old/db/$file" "$work/new/db/$file" 2>&1 || true)"
    tables=$((tables + 1))
done < <(grep '\.mtb$' "$work/old-files.txt")
[ "$tables" -gt 0 ] || fail "no tables were written"

for f in stats-six.tsv stats-nine.tsv; do
    differ "$f" "$work/old/$f" "$work/new/$f"
done
queries=0
for f in "$work"/old/query-*.json; do
    name=$(basename "$f")
    differ "$name" "$f" "$work/new/$name"
    queries=$((queries + 1))
done
for f in solve-six.txt solve-nine.txt; do
    mask "$work/old/$f" > "$work/old/$f.masked"
    mask "$work/new/$f" > "$work/new/$f.masked"
    differ "$f (times, rates and memory masked)" "$work/old/$f.masked" "$work/new/$f.masked"
done

echo "ok: $tables tables byte for byte, stats --tsv of six and nine, $queries queries (--json) and solve's output (times, rates, memory masked) are the same"
