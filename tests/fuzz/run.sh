#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs one libFuzzer harness: every input of its seed corpus first, then
# fuzzing for SECONDS (default $HCBS_FUZZ_SECONDS, else 15), at nice 19.
# New inputs go to a scratch corpus (removed at the end unless
# HCBS_FUZZ_KEEP=DIR names where to keep them); the seeds are never
# touched. A crash, leak or sanitizer report leaves its input in
# ARTIFACTS (default: the build's tests/fuzz/artifacts/) and exits non-zero.
# The last line sums the run up:
#   fuzz-values: 812345 runs in 15 s, cov 612, ft 1830, corpus 201, no crash
#
# usage: tests/fuzz/run.sh HARNESS SEED_DIR [SECONDS] [ARTIFACTS]

set -u
HARNESS=${1:?usage: run.sh HARNESS SEED_DIR [SECONDS] [ARTIFACTS]}
SEEDS=${2:?usage: run.sh HARNESS SEED_DIR [SECONDS] [ARTIFACTS]}
SECONDS_=${3:-${HCBS_FUZZ_SECONDS:-15}}
ARTIFACTS=${4:-$(dirname "$HARNESS")/artifacts}
name=$(basename "$HARNESS")

if [ ! -x "$HARNESS" ] || [ ! -d "$SEEDS" ]; then
        echo "run.sh: $HARNESS is not a program or $SEEDS not a directory" >&2
        exit 2
fi
mkdir -p "$ARTIFACTS"
work=${HCBS_FUZZ_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/hcbs-fuzz-$name.XXXXXX")}
log=$(mktemp "${TMPDIR:-/tmp}/hcbs-fuzz-$name.log.XXXXXX")
cleanup() {
        rm -f "$log"
        [ -n "${HCBS_FUZZ_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work"

# detect_leaks: a parser that leaks on some input is a finding too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
nice -n 19 "$HARNESS" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$name-" \
        "$work" "$SEEDS" >"$log" 2>&1
rc=$?

stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
cov=$(echo "$last" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
ft=$(echo "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
corp=$(echo "$last" | sed -nE 's/.* corp: ([0-9]+).*/\1/p')
if [ "$rc" -ne 0 ]; then
        cat "$log"
        echo "$name: FAILED (exit $rc) after $(stat number_of_executed_units) runs; input in $ARTIFACTS/$name-*"
        exit 1
fi
echo "$name: $(stat number_of_executed_units) runs in $SECONDS_ s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, no crash"
