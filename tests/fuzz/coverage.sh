#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Line and branch coverage of a harness's target sources over corpus
# directories, from a clang source-coverage build of the harnesses:
#
#   CC=clang meson setup build-fuzz-cov -Dfuzz=true -Dtests=false \
#           -Dc_args='-fprofile-instr-generate -fcoverage-mapping' -Dc_link_args=-fprofile-instr-generate
#   ninja -C build-fuzz-cov
#   tests/fuzz/coverage.sh build-fuzz-cov fuzz-conf tests/fuzz/corpus/fuzz-conf [MORE_DIRS...]
#
# Prints llvm-cov's report lines (regions, functions, lines, branches) for
# the files the harness is about (below).
set -u
BUILD=${1:?usage: coverage.sh COV_BUILD HARNESS CORPUS_DIR...}
H=${2:?usage: coverage.sh COV_BUILD HARNESS CORPUS_DIR...}
shift 2
case $H in
fuzz-values) files="lib/name.c lib/duration.c lib/bandwidth.c" ;;
fuzz-conf) files="lib/conf.c" ;;
fuzz-persist) files="daemon/persist.c" ;;
fuzz-journal) files="daemon/journal.c" ;;
fuzz-unit-file) files="generator/unit-file.c generator/hcbs-unit.c generator/generator.c" ;;
fuzz-bus-options) files="daemon/bus/bus-util.c" ;;
*) echo "coverage.sh: unknown harness $H" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LLVM_PROFILE_FILE="$tmp/%p.profraw" "$BUILD/tests/fuzz/$H" -runs=0 -close_fd_mask=3 "$@" >"$tmp/log" 2>&1 || {
        cat "$tmp/log"
        exit 1
}
llvm-profdata merge -sparse -o "$tmp/all.profdata" "$tmp"/*.profraw
llvm-cov report "$BUILD/tests/fuzz/$H" -instr-profile="$tmp/all.profdata" >"$tmp/report"
head -n 2 "$tmp/report"
for f in $files; do
        grep "^$f " "$tmp/report"
done
