#!/usr/bin/env bash
# A whole game solved, checked and measured, over as many sittings as it
# takes (issue 52: Lasker, Morabaraba, Twelve and Eleven take 5-12 hours
# on 2 cores, longer than a session).
#
#   scripts/whole-game.sh [--fly-at N|never] VARIANT DB [THREADS]
#   scripts/whole-game.sh --stop DB
#
# The steps, in order; each is marked done in DB.run/ once it has passed,
# so running the same command again goes on with the first step not done:
#   solve      `morris solve` of every phase; it goes on itself from the
#              last finished pair or sector (a pair from its checkpoint)
#   start      `query start`: the start's value and every first placement
#   stats      `stats --tsv`, the per-sector figures (for data/VARIANT/)
#   verify-*   the forward check: the moving phase, then the placement
#              sectors one stone count at a time (checks of disjoint
#              slices add up to the check of the whole)
#   wdl        `export --wdl DB.wdl --quick`: the outcome tier's size
#   du         the bytes of DB and DB.wdl
#
# Each sitting's output goes to DB.run/STEP-N.log (N counts the sittings
# of that step) and DB.run/run.log gets one line per step run: its exit
# status, wall time and peak RSS. The binary is built once, from this
# checkout, and kept as DB.run/morris with the commit and CPU it was built
# for, so that rebuilding the checkout during a run changes nothing. On
# another CPU (the build uses target-cpu=native) it is built again from
# the same commit, and run.log says so. MORRIS=PATH pins a binary already
# built (for this CPU) instead of building one.
#
# `--stop DB` ends a sitting without losing work: during the solve it
# waits for the next "pair" or "sector" line and stops it there
# (SIGTERM); during the other steps it stops at once (the check's
# slice is done again, the export goes on from its last file).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/whole-game.sh [--fly-at N|never] VARIANT DB [THREADS] | --stop DB" >&2; exit 2; }

if [[ ${1:-} == --stop ]]; then
    run=${2:?--stop needs the database directory}.run
    [[ -e $run/current ]] || { echo "no step is running in $run" >&2; exit 1; }
    read -r step log pid < "$run/current"
    if [[ $step == solve ]]; then
        seen=$(grep -c -E '^(pair|sector) ' "$log" || true)
        echo "waiting for the solve's next pair or sector (after $seen)"
        while kill -0 "$pid" 2>/dev/null && (($(grep -c -E '^(pair|sector) ' "$log" || true) == seen)); do
            sleep 1
        done
        tail -n 1 "$log"
    fi
    # $pid is /usr/bin/time's; the signal goes to morris, its child. The
    # solve and the export stop at their next safe point on SIGTERM.
    pkill -TERM -P "$pid" || true
    echo "stopped $step (the morris under pid $pid)"
    exit 0
fi

rules=()
if [[ ${1:-} == --fly-at ]]; then
    rules=(--fly-at "${2:?--fly-at needs a number or never}")
    shift 2
fi
variant=${1:-}
db=${2:-}
[[ -n $variant && -n $db ]] || usage
threads=${3:-$(nproc)}
run=$db.run
mkdir -p "$db" "$run"

# The pinned binary: built from the commit recorded, for this CPU.
field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; }
cpu="$(field 'model name'), family $(field 'cpu family') model $(field model), $(grep -q -w avx512f /proc/cpuinfo && echo AVX-512 || echo no AVX-512)"
if [[ ! -x $run/morris && -n ${MORRIS:-} ]]; then
    # A binary given (built for this CPU): pinned as it is.
    cp "$MORRIS" "$run/morris"
    printf '%s\n%s\n' "$(git rev-parse --short HEAD) (given: $MORRIS)" "$cpu" > "$run/build"
    echo "$(date -u +%FT%TZ) morris given: $MORRIS, checkout $(git rev-parse --short HEAD), $cpu" >> "$run/run.log"
fi
if [[ ! -x $run/morris || $(sed -n 2p "$run/build" 2>/dev/null) != "$cpu" ]]; then
    commit=$(sed -n 1p "$run/build" 2>/dev/null | cut -d' ' -f1)
    commit=${commit:-$(git rev-parse --short HEAD)}
    echo "$(date -u +%FT%TZ) building morris $commit for $cpu" | tee -a "$run/run.log"
    src=$(mktemp -d "${TMPDIR:-/tmp}/whole-game.XXXXXX")
    git worktree add --detach --quiet "$src" "$commit"
    (cd "$src" && cargo build --release --locked --quiet -p morris-cli)
    cp "$src/target/release/morris" "$run/morris"
    git worktree remove --force "$src"
    printf '%s\n%s\n' "$commit" "$cpu" > "$run/build"
fi
game=(--variant "$variant" "${rules[@]}" --db "$db")
morris() { "$run/morris" "${game[@]}" "$@"; }

# Runs `morris ARGS` as step NAME unless it is done: output to
# DB.run/NAME-N.log, a line to run.log, the mark NAME.done on success.
step() {
    local name=$1
    shift
    [[ -e $run/$name.done ]] && return 0
    local n=1
    while [[ -e $run/$name-$n.log ]]; do n=$((n + 1)); done
    local log=$run/$name-$n.log
    echo "$(date -u +%FT%TZ) $name (sitting $n): morris ${*}" >> "$run/run.log"
    /usr/bin/time -f '%e %M' -o "$run/$name-$n.time" "$run/morris" "${game[@]}" "$@" > "$log" 2>&1 &
    local pid=$!
    echo "$name $log $pid" > "$run/current"
    local rc=0
    wait "$pid" || rc=$?
    rm -f "$run/current"
    # (time writes "Command exited with non-zero status N" first on a failure)
    read -r wall kib < <(tail -n 1 "$run/$name-$n.time") || true
    echo "$(date -u +%FT%TZ) $name (sitting $n): exit $rc, ${wall:-?} s wall, peak RSS $((${kib:-0} / 1024)) MiB" >> "$run/run.log"
    if ((rc != 0)); then
        echo "$name stopped (exit $rc); see $log" >&2
        exit "$rc"
    fi
    touch "$run/$name.done"
}

step solve solve --threads "$threads"
step start query start
[[ -e $run/stats.done ]] || { morris stats --tsv > "$run/stats.tsv" && touch "$run/stats.done"; }

step verify-moving verify --phase moving --threads "$threads"
# The placement phase's stone counts (board and hand, both sides), fewest
# first: the sectors M-O-MH-OH of `sectors --phase all`.
counts=$(morris sectors --phase all | awk '$1 ~ /^[0-9]+-[0-9]+-[0-9]+-[0-9]+$/ { split($1, s, "-"); print s[1] + s[2] + s[3] + s[4] }' | sort -n -u)
for k in $counts; do
    step "verify-$k" verify --phase placement --min-stones "$k" --max-stones "$k" --threads "$threads"
done

step wdl export --wdl "$db.wdl" --quick --threads "$threads"
[[ -e $run/du.done ]] || { du -sb "$db" "$db.wdl" > "$run/du.txt" && touch "$run/du.done"; }
echo "$(date -u +%FT%TZ) done: $variant${rules:+ ${rules[*]}} solved, checked and measured" | tee -a "$run/run.log"
