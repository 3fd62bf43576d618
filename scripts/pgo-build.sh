#!/usr/bin/env bash
# A profile-guided build of the `morris` binary for long runs.
#
#   scripts/pgo-build.sh [OUT]      OUT: where the binary goes (default
#                                   target/pgo/morris)
#
# Three steps, each in its own target directory under target/pgo/ so that
# the ordinary release build is left alone:
#   1. build `morris` instrumented (-Cprofile-generate);
#   2. run it on a small training set that passes through every hot path
#      the long runs take: nine up to 10 stones (the moving solver, the
#      acyclic placement walks) and its forward check, Lasker up to 9
#      (the cyclic placement pairs, sides with stones in hand that move)
#      and Morabaraba up to 9 (the 24-point board, diagonal mills);
#   3. merge the profiles (the toolchain's llvm-profdata, from the
#      llvm-tools component) and build again with -Cprofile-use.
# The rest of the flags are the checkout's (-C target-cpu=native from
# .cargo/config.toml, which RUSTFLAGS would otherwise replace).
#
# Why: the solver's time goes into a few loops full of branches (ranking
# a neighbour, a capture's frames, a level's updates) whose layout and
# inlining the compiler otherwise guesses. What it gains is measured in
# docs/benchmarks.md ("A profile-guided build"); the tables it writes are
# the same bytes (scripts/compare-builds.sh). Takes some minutes: two
# release builds and about a minute of training on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/target/pgo/morris}
work=$root/target/pgo
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
[ -x "$profdata" ] || {
    echo "pgo-build: no llvm-profdata in the toolchain; run: rustup component add llvm-tools" >&2
    exit 2
}
flags="-C target-cpu=native"

rm -rf "$work/profiles" "$work/train"
mkdir -p "$work/profiles" "$work/train"

echo "pgo-build: 1/3 instrumented build"
RUSTFLAGS="$flags -Cprofile-generate=$work/profiles" CARGO_TARGET_DIR=$work/gen \
    cargo build --release --locked -q -p morris-cli --manifest-path "$root/Cargo.toml"
gen=$work/gen/release/morris

echo "pgo-build: 2/3 training"
train() { echo "  morris $*"; "$gen" "$@" > "$work/train/log" 2>&1 || { cat "$work/train/log" >&2; exit 1; }; }
train solve --variant nine --max-stones 10 --threads 2 --db "$work/train/nine"
train verify --db "$work/train/nine" --threads 2
train solve --variant lasker --max-stones 9 --threads 2 --db "$work/train/lasker"
train solve --variant morabaraba --max-stones 9 --threads 2 --db "$work/train/morabaraba"
"$profdata" merge -o "$work/merged.profdata" "$work/profiles"

echo "pgo-build: 3/3 optimised build"
RUSTFLAGS="$flags -Cprofile-use=$work/merged.profdata" CARGO_TARGET_DIR=$work/use \
    cargo build --release --locked -q -p morris-cli --manifest-path "$root/Cargo.toml"
mkdir -p "$(dirname "$out")"
cp "$work/use/release/morris" "$out"
rm -rf "$work/train"
echo "pgo-build: $out"
