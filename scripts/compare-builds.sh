#!/usr/bin/env bash
# Do two builds of morris compute the same? For a change that should not
# change any result (a refactoring, a faster loop).
#
#   scripts/compare-builds.sh OLD_BIN NEW_BIN
#
# Solves, with each binary into fresh temporary directories, each case of
# CASES (default "six nine9": the whole of six, and nine up to 9 stones,
# moving and placement phase; about a minute per binary on 2 cores), then
# checks:
#   - every table file byte for byte (cmp), and that both made the same files;
#   - `stats --tsv` of every case;
#   - `query --json` of six's start and of positions of the 24-point games
#     in the solved sectors (moving phase with 3 and 4 stones a side, and
#     placement; in lasker, a side with stones in hand that may move);
#   - what `solve` printed on stdout, with times, rates and peak memory
#     masked (they differ from run to run) and the directory's name too.
# Prints `ok: ...` and exits 0, or the first difference and exits 1.
#
# The cases: six, nine9, nine12 (nine up to 12 stones: the moving pairs up
# to {6,6} and {7,5}, about 5 minutes per binary), lasker10 (Lasker up to 10
# stones: its cyclic placement pairs, under a minute), morabaraba10
# (Morabaraba up to 10 stones, the 24-point board with diagonals). CASES=all
# is every one of them; CASES=solver the three the solver's speed work is
# held to (nine12 lasker10 morabaraba10).
#
# CELLS=1 compares the tables by their cells rather than by the bytes
# as solved: for a change in how tables are written (zstd level, block
# size). Both sides' databases are first rewritten by NEW_BIN's `compact`
# alike (32 Ki cells a block, zstd level 1; `compact` checks every copy
# against its source cell by cell), so their files are byte for byte the
# same exactly when the cells are; sizes on disk in solve's output are
# masked too.
#
# OLD_ARGS and NEW_ARGS add global options to every command of one side:
# `NEW_ARGS="--fly-at never" scripts/compare-builds.sh B B` compares a build
# with itself under other rules, which must fail. THREADS (default 2) goes
# to both solves; the directories go under $TMPDIR (or /tmp) and are removed
# at the end.
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
cases=${CASES:-six nine9}
case $cases in
    all) cases="six nine9 nine12 lasker10 morabaraba10" ;;
    solver) cases="nine12 lasker10 morabaraba10" ;;
esac
read -r -a cases <<< "$cases"

# variant_of CASE, stones_of CASE: the case's variant and its --max-stones
# (empty: the whole game).
variant_of() { echo "${1%%[0-9]*}"; }
stones_of() { echo "${1#"$(variant_of "$1")"}"; }
for c in "${cases[@]}"; do
    case $(variant_of "$c") in
        six | five | nine | twelve | eleven | lasker | morabaraba) ;;
        *) echo "compare-builds: unknown case '$c' (six, nine9, nine12, lasker10, morabaraba10, ...)" >&2; exit 2 ;;
    esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/morris-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Positions of the 24-point games that the solves above cover: moving
# phase with 3 and 4 stones a side, and placement positions with stones
# in hand (two on the board and one in hand: Lasker's flying with stones
# in hand).
board24_positions=(
    "WWW..B../....B.B./........ w 0 0"
    "WW.B..B./.W..B.W./..B..... w 0 0"
    "WW.B..B./.W..B.W./..B..... b 0 0"
    "W..B..B./.W..B.W./..B..... w 0 0"
    "WW.B..B./.W....../..B..... b 0 0"
    "WW.B..../.W..B.../........ w 1 1"
    "WW.B..../.W..B.../........ b 1 2"
    "WW.B..../B......./B....... w 1 1"
)

# run SIDE BIN ARGS...: solve, stats and queries of every case with one
# binary into $work/SIDE/CASE.
run() {
    local side=$1 bin=$2
    shift 2
    local args=("$@") c
    for c in "${cases[@]}"; do
        local out="$work/$side/$c" variant stones limit=()
        variant=$(variant_of "$c")
        stones=$(stones_of "$c")
        [ -n "$stones" ] && limit=(--max-stones "$stones")
        mkdir -p "$out/db"
        local m=("$bin" "${args[@]}" --variant "$variant" --db "$out/db")
        "${m[@]}" solve "${limit[@]}" --threads "$threads" > "$out/solve.txt"
        "${m[@]}" stats --tsv > "$out/stats.tsv"
        if [ "$variant" = six ] || [ "$variant" = five ]; then
            "${m[@]}" query start --json > "$out/query-start.json"
        else
            local i=0 position
            for position in "${board24_positions[@]}"; do
                i=$((i + 1))
                "${m[@]}" query "$position" --json > "$out/query-$i.json" 2> "$out/query-$i.stderr" || true
            done
        fi
    done
}

# recompress SIDE ARGS...: with CELLS=1, rewrites every case's tables of
# one side (solved with ARGS) with NEW_BIN's `compact`, the same way for
# both sides.
recompress() {
    [ "${CELLS:-0}" = 1 ] || return 0
    local side=$1 c
    shift
    for c in "${cases[@]}"; do
        "$new_bin" "$@" --variant "$(variant_of "$c")" --db "$work/$side/$c/db" \
            compact --block-cells 32768 --level 1 --threads "$threads" > /dev/null
    done
}

# mask FILE: solve's stdout without what differs between runs: the
# directory, times, rates and peak memory (the size before the table size);
# with CELLS=1 every size and bits per state.
mask() {
    local sizes=()
    [ "${CELLS:-0}" = 1 ] \
        && sizes=(-e 's/[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB)/SIZE/g' -e 's/[0-9.]+ bits per state/BITS per state/g')
    sed -E "${sizes[@]}" \
        -e "s#$work/(old|new)/[a-z0-9]+/db#DB#g" \
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
recompress old "${old_args[@]}"
recompress new "${new_args[@]}"

tables=0 queries=0
for c in "${cases[@]}"; do
    old=$work/old/$c new=$work/new/$c
    (cd "$old/db" && ls) > "$old/files.txt"
    (cd "$new/db" && ls) > "$new/files.txt"
    differ "the files in the databases of $c" "$old/files.txt" "$new/files.txt"
    while read -r file; do
        cmp -s "$old/db/$file" "$new/db/$file" \
            || fail "table $file of $c differs: $(cmp "$old/db/$file" "$new/db/$file" 2>&1 || true)"
        tables=$((tables + 1))
    done < <(grep '\.mtb$' "$old/files.txt")
    differ "stats --tsv of $c" "$old/stats.tsv" "$new/stats.tsv"
    for f in "$old"/query-*.json; do
        name=$(basename "$f")
        differ "$name of $c" "$f" "$new/$name"
        queries=$((queries + 1))
    done
    mask "$old/solve.txt" > "$old/solve.masked"
    mask "$new/solve.txt" > "$new/solve.masked"
    differ "solve's output of $c (times, rates and memory masked)" "$old/solve.masked" "$new/solve.masked"
done
[ "$tables" -gt 0 ] || fail "no tables were written"

how="byte for byte"
[ "${CELLS:-0}" = 1 ] && how="cell for cell (both rewritten by compact)"
echo "ok: cases ${cases[*]}: $tables tables $how, stats --tsv, $queries queries (--json) and solve's output (times, rates, memory masked) are the same"
