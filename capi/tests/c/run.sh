#!/usr/bin/env bash
# The C test of the C interface (test_morris.c), as .ci/run runs it after
# `cargo test`, which built the morris binary and the static library
# (target/debug and target/debug/deps, the test profile): the binary
# solves six's moving phase up to 7 stones (under a second), `morris
# probe` answers positions.txt, and test_morris, compiled with cc
# against libmorris_capi.a, must give the same answers through morris.h.
# A few seconds in all.
set -euo pipefail
cd "$(dirname "$0")/../../.."
target=${CARGO_TARGET_DIR:-target}/debug
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$target/morris" --variant six --db "$work/db" solve --phase moving --max-stones 7 \
    --threads 2 >/dev/null
"$target/morris" --variant six --db "$work/db" probe --moves --format tsv \
    --input capi/tests/c/positions.txt >"$work/expected.tsv"
# Both `cargo test` and `cargo build` write the static library to deps/
# (only `cargo build` copies it up to $target): the one there is the newest.
library=$target/deps/libmorris_capi.a
# The system libraries Rust's standard library needs, as
# `rustc --print native-static-libs` lists them on Linux.
cc -std=c11 -Wall -Wextra -Werror -pedantic -Icapi/include capi/tests/c/test_morris.c \
    "$library" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
    -o "$work/test_morris"
"$work/test_morris" "$work/db" "$work/expected.tsv"
