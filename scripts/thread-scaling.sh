#!/usr/bin/env bash
# How the solver and the forward check scale with threads, on one machine.
#
#   scripts/thread-scaling.sh [THREADS...]     (default: 16 8 4 2 1)
#
# Solves nine's moving phase up to 12 stones into a fresh database with
# every core, then solves again, alone and at each thread count: the pair
# {7,5} (267.8 M states), the placement sector 6-5-1-0 (72.1 M, after the
# placement phase up to 12 stones), the self-partnered pair {6,6}
# (156.2 M), and checks the 42 sectors of 12 stones (1.15 G states);
# then solves Lasker up to 12 stones with every core and, at each thread
# count, its cyclic placement pair 6-5-1-0 with 5-6-0-1 (144.2 M states:
# a side with stones in hand may slide, so it is solved as a moving pair);
# then Morabaraba's moving phase up to 11 stones and, at each thread
# count, its pair {6,5} (a moving pair on the 24-point board).
# Prints one line per run (its wall time, and the solver's own line);
# the whole output also goes to $OUT/all.log.
#
#   MORRIS  the binary (default: target/release/morris, built first)
#   DB      a scratch directory, emptied (default: /dev/shm/morris-scaling:
#           tmpfs, so that disk speed is not measured; it needs about 2 GB)
#   OUT     where the logs go (default: /tmp/thread-scaling)
#   LIMIT   seconds for the whole script; a run that would pass it is cut
#           and the rest skipped (default: 3600)
#
# The figures in docs/long-runs.md ("Many cores") come from this script
# on a 16-core machine.
set -u
THREADS=("$@"); [ ${#THREADS[@]} -gt 0 ] || THREADS=(16 8 4 2 1)
START=$SECONDS
LIMIT=${LIMIT:-3600}
OUT=${OUT:-/tmp/thread-scaling}
DB=${DB:-/dev/shm/morris-scaling}
if [ -z "${MORRIS:-}" ]; then
  cargo build --release --quiet --bin morris || exit 1
  MORRIS=target/release/morris
fi
mkdir -p "$OUT"; : > "$OUT/all.log"
rm -rf "$DB"; mkdir -p "$DB"
# No checkpoint in the middle of a timed pair.
export MORRIS_CHECKPOINT_SECS=100000
M=("$MORRIS" --variant nine --db "$DB")
left() { echo $(( LIMIT - (SECONDS - START) )); }

# run NAME COMMAND...: times one command, keeps its output in /tmp/step.log
run() {
  local name=$1; shift
  echo "=== $name: $*" >> "$OUT/all.log"
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout "$(left)" "$@" > "$OUT/step.log" 2>&1; rc=$?
  t1=$(date +%s.%N)
  cat "$OUT/step.log" >> "$OUT/all.log"
  awk -v n="$name" -v rc=$rc -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%-24s exit %d  %8.2f s\n", n, rc, b - a }'
}

echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
run moving-12 "${M[@]}" solve --phase moving --max-stones 12
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 30 ] || break
  rm -f "$DB/nine-7-5.mtb" "$DB/nine-5-7.mtb"
  run "pair 7,5 x$t" "${M[@]}" solve --pair 7,5 --threads "$t"
  grep -h '^pair 1/1' "$OUT/step.log"
done
[ "$(left)" -gt 60 ] && run placement-12 "${M[@]}" solve --max-stones 12
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 30 ] || break
  rm -f "$DB/nine-6-5-1-0.mtb"
  run "sector 6-5-1-0 x$t" "${M[@]}" solve --job 6-5-1-0 --threads "$t"
  grep -h '^sector 1/1' "$OUT/step.log"
done
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 30 ] || break
  rm -f "$DB/nine-6-6.mtb"
  run "pair 6,6 x$t" "${M[@]}" solve --pair 6,6 --threads "$t"
  grep -h '^pair 1/1' "$OUT/step.log"
done
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 40 ] || break
  run "verify 12 x$t" "${M[@]}" verify --min-stones 12 --max-stones 12 --threads "$t"
  grep -h 'states checked' "$OUT/step.log"
done
L=("$MORRIS" --variant lasker --db "$DB")
[ "$(left)" -gt 90 ] && run lasker-12 "${L[@]}" solve --max-stones 12
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 30 ] || break
  rm -f "$DB/lasker-6-5-1-0.mtb" "$DB/lasker-5-6-0-1.mtb"
  run "lasker 6-5-1-0 x$t" "${L[@]}" solve --job 6-5-1-0 --threads "$t"
  grep -h '^pair 1/1' "$OUT/step.log"
done
G=("$MORRIS" --variant morabaraba --db "$DB")
[ "$(left)" -gt 90 ] && run morabaraba-11 "${G[@]}" solve --phase moving --max-stones 11
for t in "${THREADS[@]}"; do
  [ "$(left)" -gt 30 ] || break
  rm -f "$DB/morabaraba-6-5.mtb" "$DB/morabaraba-5-6.mtb"
  run "morabaraba 6,5 x$t" "${G[@]}" solve --pair 6,5 --threads "$t"
  grep -h '^pair 1/1' "$OUT/step.log"
done
rm -rf "$DB"
