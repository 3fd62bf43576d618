#!/usr/bin/env bash
# Prints figures to compare across versions.
#
#   scripts/bench.sh                 the index, the solver on nine up to 10 stones, the queries
#   scripts/bench.sh index [ARGS]    the index only; ARGS go to examples/bench_index.rs,
#                                    e.g. `--samples 1000000 --rounds 5` (options
#                                    alone, without `index`, do the same)
#   scripts/bench.sh solve [N [T]]   the solver only: nine up to N stones (default 10:
#                                    pairs {3,3}..{5,5}, {6,4}, {7,3}) on T threads
#                                    (default 2), into a fresh temporary database
#   scripts/bench.sh query           the queries only (see the end)
#   scripts/bench.sh verify [N [T]]  the forward check against the solve: nine up to N
#                                    stones (default 10; moving phase and placement)
#                                    solved, then verified, on T threads (default 2),
#                                    into a fresh temporary database; per-sector
#                                    states/s of verify, both totals and their ratio
#                                    (part of `all`)
#   scripts/bench.sh moving DB PAIR...
#                                    the moving-phase solver on the given pairs of an
#                                    existing database of nine (e.g. 8,7 or 9,8), re-solved
#                                    on 2 threads in a temporary directory that links to
#                                    DB's other tables; DB is not changed. The pairs'
#                                    capture targets must be in DB.
#   scripts/bench.sh placement DB SECTOR...
#                                    the placement solver on the given sectors of an
#                                    existing database of nine (e.g. 8-8-1-0, the
#                                    largest; a number N stands for every placement
#                                    sector up to N stones), re-solved on 2 threads in
#                                    a temporary directory that links to DB's other
#                                    tables; DB is not changed. The sectors'
#                                    successors must be in DB.
#   scripts/bench.sh job DB JOB...  any jobs of `morris plan` of an existing database of
#                                    $VARIANT (default nine): moving pairs (8,7), Lasker's
#                                    cyclic placement pairs (8-8-2-1, with 8-8-1-2) or
#                                    placement sectors (8-8-1-0), re-solved one by one
#                                    with `solve --job` on $THREADS threads (default 2)
#                                    in a temporary directory that links to DB's other
#                                    tables, then compared byte for byte with DB's; DB
#                                    is not changed. A job's exits must be in DB.
#   scripts/bench.sh probe DB [N]   `morris probe` on 2 threads over the moving phase of
#                                    nine in DB (all 49 tables): N positions (default
#                                    1,000,000) that share blocks (the test positions
#                                    of tests/query.rs repeated), the same with --moves,
#                                    and N drawn uniformly from the whole moving phase
#                                    (examples/probe_inputs.rs writes them); each run
#                                    twice, the first warming the page cache, output to
#                                    /dev/null; positions/s from the wall time
#   scripts/bench.sh latency DIR... [SECTORS]
#                                    what one probe of a state costs through the library
#                                    (`Database::stored`), warm and cold, in each database
#                                    directory of nine (full tier, win/draw/loss tier,
#                                    derived sectors: examples/derived_probe_cost.rs): 100
#                                    random states of each sector of SECTORS (default
#                                    9-8,8-9,8-8-1-0,8-8-1-1; comma-separated), the same in
#                                    every directory; cold drops the directory's files from
#                                    the page cache before each probe (no root needed);
#                                    medians and means in microseconds
#
# MORRIS=BIN runs that binary instead of building the checkout's (so that
# an old build and a new one can be paired on the same command, e.g.
# `MORRIS=/tmp/old scripts/bench.sh job DB 8-8-2-1`); VARIANT=V (default
# nine) is the game of solve, verify, moving, placement and job.
#
# The solver prints, per pair and in total: wall time, states per second,
# predecessor edges per second (both over the pair's wall time), the levels
# of its propagation, peak RSS (VmHWM, reset at each pair; mapped table and
# working files count while resident) and bytes on disk; then the process's
# CPU time (from /usr/bin/time when it is installed) and `morris stats`.
# The temporary database goes under $TMPDIR (or /tmp) and is removed at the
# end. Respects CARGO_TARGET_DIR and CARGO_BUILD_JOBS like any cargo command.
set -euo pipefail
cd "$(dirname "$0")/.."

what=all
case "${1:-}" in
    index | solve | query | verify | moving | placement | job | probe | latency) what=$1; shift ;;
    "") ;;
    -*) what=index ;; # The index benchmark's own options.
    *) echo "usage: scripts/bench.sh [index [ARGS] | solve [N [T]] | query | verify [N [T]] | moving DB PAIR... | placement DB SECTOR... | job DB JOB... | probe DB [N] | latency DIR... [SECTORS]]" >&2; exit 2 ;;
esac

echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo "rustc:   $(rustc --version)"
echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown), $(nproc) cores"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) (figures drop when other work shares the cores)"
echo

target="${CARGO_TARGET_DIR:-target}"
variant=${VARIANT:-nine}
echo "variant: $variant; binary: ${MORRIS:-a release build of the checkout}"

# The binary to time: $MORRIS, or the checkout's release build, built now.
morris_bin() {
    if [ -n "${MORRIS:-}" ]; then
        [ -x "$MORRIS" ] || { echo "MORRIS=$MORRIS is not an executable" >&2; exit 2; }
        realpath "$MORRIS"
    else
        cargo build --release --quiet --bin morris >&2
        echo "$target/release/morris"
    fi
}

index() {
    echo "== index: one thread, random positions of nine's largest sectors"
    cargo build --release --quiet --example bench_index
    cargo run --release --quiet --example bench_index -- "$@"
}

solve() {
    local stones=${1:-10} threads=${2:-2}
    local morris
    morris=$(morris_bin)
    bench_db=$(mktemp -d "${TMPDIR:-/tmp}/morris-bench.XXXXXX")
    trap 'rm -rf "${bench_db:-}" "${verify_db:-}"' EXIT
    local db=$bench_db
    echo "== solver: $variant up to $stones stones, $threads threads, fresh database $db"
    local phase
    for phase in moving all; do
        # The moving phase, then (`all`) the placement sectors that fit.
        if [ -x /usr/bin/time ]; then
            # Not %M: the solver resets the peak at each pair, so the kernel's
            # figure at exit is the last pair's; the total line has the peak.
            /usr/bin/time -f "process: %e s wall, %U s user, %S s system" \
                "$morris" solve --phase $phase --variant "$variant" --max-stones "$stones" --threads "$threads" --db "$db"
        else
            "$morris" solve --phase $phase --variant "$variant" --max-stones "$stones" --threads "$threads" --db "$db"
        fi
        echo
    done
    "$morris" stats --variant "$variant" --db "$db" | tail -3
    echo
    echo "== start position by placement search over the moving-phase tables only"
    local variant
    for variant in five six; do
        "$morris" solve --phase moving --variant $variant --threads "$threads" --db "$db/$variant" > /dev/null
        local t0=$(date +%s.%N)
        local value=$("$morris" query start --variant $variant --db "$db/$variant" | grep '^value')
        local t1=$(date +%s.%N)
        printf '%-5s %s   (%.2f s, process included)\n' $variant "$value" "$(echo "$t1 - $t0" | bc)"
    done
}

# Queries: probe latency (cold and warm), a full query (value, every move,
# a perfect-play line), and `morris query` from process start to answer, on
# nine's moving phase up to 9 stones solved into a temporary directory
# (about 20 s). Options for the benchmark go in PROBE_ARGS, e.g.
# PROBE_ARGS="--max-stones 10 --samples 20000" or "--db DIR" to reuse a
# solved database.
query() {
    echo "== queries"
    cargo build --release --quiet --example bench_probe --bin morris
    # shellcheck disable=SC2086 # PROBE_ARGS is a list of words
    "$target/release/examples/bench_probe" --morris "$target/release/morris" ${PROBE_ARGS:-}
}

# Verify against solve on the same database. Times come from the process
# itself (wall, and user + system CPU when /usr/bin/time is installed);
# the ratio is the figure to compare across versions and machines.
verify() {
    local stones=${1:-10} threads=${2:-2}
    local morris
    morris=$(morris_bin)
    verify_db=$(mktemp -d "${TMPDIR:-/tmp}/morris-verify.XXXXXX")
    trap 'rm -rf "${bench_db:-}" "${verify_db:-}"' EXIT
    echo "== verify against solve: $variant up to $stones stones (moving phase and placement), $threads threads, fresh database $verify_db"
    local solve_times="$verify_db/solve.time" verify_times="$verify_db/verify.time"
    timed "$solve_times" "$morris" solve --variant "$variant" --max-stones "$stones" --threads "$threads" --db "$verify_db" | tail -2
    timed "$verify_times" "$morris" verify --variant "$variant" --threads "$threads" --db "$verify_db"
    echo
    echo "solve:   $(cat "$solve_times")"
    echo "verify:  $(cat "$verify_times")"
    awk -v s="$(cat "$solve_times")" -v v="$(cat "$verify_times")" 'BEGIN {
        split(s, a, " "); split(v, b, " ");
        printf "verify / solve: %.2f wall", b[1] / a[1];
        if (a[4] != "") printf ", %.2f CPU", (b[4] + b[7]) / (a[4] + a[7]);
        print "" }'
}

# Builds the binary and makes $bench_db, a temporary directory (removed
# at exit) of links to the tables of database $2 that match the glob $3;
# $1 names it.
linked_db() {
    bench_db=$(mktemp -d "${TMPDIR:-/tmp}/morris-$1.XXXXXX")
    trap 'rm -rf "${bench_db:-}" "${verify_db:-}"' EXIT
    local table
    for table in "$2"/$3; do
        ln -s "$(realpath "$table")" "$bench_db/"
    done
}

# Re-solves moving-phase pairs of an existing database in a temporary
# directory whose other moving-phase tables are links to the database's.
moving() {
    local db=${1:?usage: scripts/bench.sh moving DB PAIR...}; shift
    [ $# -gt 0 ] || { echo "usage: scripts/bench.sh moving DB PAIR..." >&2; exit 2; }
    local morris pair max=0
    morris=$(morris_bin)
    linked_db moving "$db" "$variant-*.mtb"
    for pair in "$@"; do
        [[ $pair =~ ^([0-9]+),([0-9]+)$ ]] || { echo "'$pair' is not a pair: expected M,O such as 8,7" >&2; exit 2; }
        local m=${BASH_REMATCH[1]} o=${BASH_REMATCH[2]}
        [ -e "$bench_db/$variant-$m-$o.mtb" ] || { echo "no table of sector $m-$o in $db" >&2; exit 2; }
        rm -f "$bench_db/$variant-$m-$o.mtb" "$bench_db/$variant-$o-$m.mtb"
        [ $((m + o)) -gt "$max" ] && max=$((m + o))
    done
    echo "== moving-phase solver: $variant's pairs $*, 2 threads, over $db"
    timed "$bench_db/solve.time" "$morris" solve --phase moving --variant "$variant" --max-stones "$max" --threads 2 --db "$bench_db"
    echo "process: $(cat "$bench_db/solve.time")"
    local pair sectors=()
    for pair in "$@"; do
        sectors+=("${pair%,*}-${pair#*,}" "${pair#*,}-${pair%,*}")
    done
    same_tables "$db" "${sectors[@]}"
}

# same_tables DB SECTOR...: whether the re-solved tables of SECTOR... in
# $bench_db are DB's byte for byte: they must not depend on the build that
# wrote them.
same_tables() {
    local db=$1 sector differ=0
    shift
    for sector in "$@"; do
        if cmp -s "$bench_db/$variant-$sector.mtb" "$db/$variant-$sector.mtb"; then
            echo "$sector: the same bytes as in $db"
        else
            echo "$sector: differs from $db" >&2
            differ=1
        fi
    done
    return $differ
}

# Re-solves placement sectors of an existing database in a temporary
# directory whose other tables are links to the database's.
placement() {
    local db=${1:?usage: scripts/bench.sh placement DB SECTOR...}; shift
    [ $# -gt 0 ] || { echo "usage: scripts/bench.sh placement DB SECTOR..." >&2; exit 2; }
    local morris table
    morris=$(morris_bin)
    linked_db placement "$db" "$variant-*.mtb"
    # Board and hand, both sides: a sector's stones.
    stones_of() { echo "$1" | tr '-' '+' | bc; }
    local sector max=0 sectors=()
    for sector in "$@"; do
        if [[ $sector =~ ^[0-9]+$ ]]; then
            for table in "$bench_db"/"$variant"-*-*-*-*.mtb; do
                table=$(basename "$table" .mtb)
                [ "$(stones_of "${table#"$variant"-}")" -le "$sector" ] && sectors+=("${table#"$variant"-}")
            done
        else
            sectors+=("$sector")
        fi
    done
    for sector in "${sectors[@]}"; do
        [ -e "$bench_db/$variant-$sector.mtb" ] || { echo "no table of placement sector $sector in $db" >&2; exit 2; }
        rm "$bench_db/$variant-$sector.mtb"
        local stones=$(stones_of "$sector")
        [ "$stones" -gt "$max" ] && max=$stones
    done
    echo "== placement solver: $variant's sectors $* (${#sectors[@]} sectors), 2 threads, over $db"
    timed "$bench_db/solve.time" "$morris" solve --variant "$variant" --max-stones "$max" --threads 2 --db "$bench_db"
    echo "process: $(cat "$bench_db/solve.time")"
}

# Re-solves jobs of `morris plan` (pairs or placement sectors) of an
# existing database, one `solve --job` each, in a temporary directory
# whose other tables are links to the database's; the tables written must
# be the database's, byte for byte.
job() {
    local db=${1:?usage: scripts/bench.sh job DB JOB...}; shift
    [ $# -gt 0 ] || { echo "usage: scripts/bench.sh job DB JOB..." >&2; exit 2; }
    local morris threads=${THREADS:-2} j sector
    morris=$(morris_bin)
    linked_db job "$db" "$variant-*.mtb"
    # The sectors a job writes: a pair's two (one when it is its own
    # partner), or a placement sector of a game without moves in hand.
    sectors_of() {
        local parts
        IFS='-,' read -r -a parts <<< "$1"
        case ${#parts[@]} in
            2) echo "${parts[0]}-${parts[1]} ${parts[1]}-${parts[0]}" ;;
            4) local partner=${parts[1]}-${parts[0]}-${parts[3]}-${parts[2]}
               # Lasker's placement sectors are solved in pairs, as the
               # moving phase's; a sector may be its own partner.
               if [ "$variant" = lasker ] && [ "$partner" != "$1" ]; then
                   echo "$1 $partner"
               else
                   echo "$1"
               fi ;;
            *) echo "'$1' is not a job: expected a pair (8,7 or 8-7) or a placement pair or sector (8-8-2-1)" >&2; exit 2 ;;
        esac
    }
    local written=()
    for j in "$@"; do
        for sector in $(sectors_of "$j"); do
            [ -e "$db/$variant-$sector.mtb" ] || { echo "no table of sector $sector in $db" >&2; exit 2; }
            rm -f "$bench_db/$variant-$sector.mtb"
            written+=("$sector")
        done
    done
    echo "== solver, jobs of $variant: $*, $threads threads, over $db"
    for j in "$@"; do
        timed "$bench_db/solve.time" "$morris" solve --variant "$variant" --job "${j//,/-}" --threads "$threads" --db "$bench_db" \
            | grep -E '^(pair|sector) 1/1 '
        echo "process: $(cat "$bench_db/solve.time")"
    done
    same_tables "$db" "${written[@]}"
}

# `morris probe` in bulk over nine's moving phase in an existing database.
probe() {
    local db=${1:?usage: scripts/bench.sh probe DB [N]} count=${2:-1000000}
    cargo build --release --quiet --bin morris --example probe_inputs
    local morris="$target/release/morris"
    bench_db=$(mktemp -d "${TMPDIR:-/tmp}/morris-bench.XXXXXX")
    trap 'rm -rf "${bench_db:-}"' EXIT
    "$target/release/examples/probe_inputs" "$db" "$bench_db" "$count"
    echo "== morris probe: nine's moving phase in $db, $count positions, 2 threads, output to /dev/null"
    local input args run
    for input in "shared" "shared --moves" "uniform"; do
        args=(--variant nine --db "$db" probe --threads 2 --input "$bench_db/${input%% *}.txt")
        [ "$input" = "shared --moves" ] && args+=(--moves)
        for run in 1 2; do
            timed "$bench_db/probe.time" "$morris" "${args[@]}" > /dev/null
            local wall=$(cut -d' ' -f1 "$bench_db/probe.time")
            printf '%-16s run %d: %s, %s positions/s\n' "$input" "$run" "$(cat "$bench_db/probe.time")" \
                "$(echo "$count / $wall" | bc)"
        done
    done
}

latency() {
    local dirs=() sectors=9-8,8-9,8-8-1-0,8-8-1-1
    for arg in "$@"; do
        if [ -d "$arg" ]; then dirs+=("$arg"); else sectors=$arg; fi
    done
    if [ ${#dirs[@]} -eq 0 ]; then
        echo "usage: scripts/bench.sh latency DIR... [SECTORS]" >&2
        exit 2
    fi
    echo "== probe latency: Database::stored, 100 random states a sector, warm and cold"
    cargo build --release --quiet --example derived_probe_cost
    "$target/release/examples/derived_probe_cost" "${dirs[@]}" --sectors "$sectors" --probes 100
}

# Runs a command and writes "WALL s wall [USER s user SYS s system]" to $1.
timed() {
    local out=$1; shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$out" -f "%e s wall %U s user %S s system" "$@"
    else
        local t0=$(date +%s.%N)
        "$@"
        echo "$(echo "$(date +%s.%N) - $t0" | bc) s wall" > "$out"
    fi
}

case $what in
    index) index "$@" ;;
    solve) solve "$@" ;;
    query) query ;;
    verify) verify "$@" ;;
    moving) moving "$@" ;;
    placement) placement "$@" ;;
    job) job "$@" ;;
    probe) probe "$@" ;;
    latency) latency "$@" ;;
    all)
        index
        echo
        solve
        echo
        verify
        echo
        query
        ;;
esac
