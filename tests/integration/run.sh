#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the integration suites against a build directory and sums them up.
#
# usage: tests/integration/run.sh BUILD_DIR [SUITE...]
#   SUITE: cli, concurrency, restart, badinput (default: all test-*.sh)
#
# Each suite starts its own private dbus-daemon and hcbsd on its own scratch
# cgroup tree (/sys/fs/cgroup/cpu/hcbs-it-PID-SUITE), and ends with a line
# "N passed, M failed[, K skipped]"; this script prints the same line for
# all of them and exits 1 if anything failed (a skip is not a failure, and
# not a pass: skips are listed with their reasons).
#
# The suites share the machine's root RT budget and the BPF program list
# with anything else that runs them: each suite holds an exclusive lock
# (HCBS_IT_LOCK, default /run/lock/hcbsd-integration.lock) while it runs,
# so two runs on one machine take turns instead of failing each other.
#
# HCBS_VALGRIND=1 runs hcbsd under valgrind (memcheck, definite leaks are
# errors); any valgrind error fails the suite. Under valgrind only test-stats
# loads the BPF collector (HCBS_STATS_BPF=0 for the others: libbpf reading
# the kernel's BTF costs seconds per start there). HCBS_IT_VERBOSE=1 lists every
# passing check too. HCBS_IT_HCBSD / HCBS_IT_HCBSCTL take the binaries from
# elsewhere (e.g. an ASan hcbsctl against a normal hcbsd). Needs root, dbus-daemon, busctl, python3 (and gdbus for
# the checks of D-Bus error names).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-}
if [ -z "$BUILD" ] || [ ! -d "$BUILD" ]; then
        echo "usage: $0 BUILD_DIR [SUITE...]" >&2
        exit 2
fi
shift

if [ $# -gt 0 ]; then
        SUITES=()
        for s in "$@"; do
                SUITES+=("$HERE/test-${s#test-}")
                SUITES[-1]=${SUITES[-1]%.sh}.sh
        done
else
        SUITES=("$HERE"/test-*.sh)
fi

PASSED=0 FAILED=0 SKIPPED=0
SKIPS=()
for suite in "${SUITES[@]}"; do
        name=$(basename "$suite" .sh)
        if [ ! -f "$suite" ]; then
                echo "run.sh: no suite $suite" >&2
                FAILED=$((FAILED + 1))
                continue
        fi
        echo "=== $name"
        start=$SECONDS
        log=$(mktemp)
        flock "${HCBS_IT_LOCK:-/run/lock/hcbsd-integration.lock}" bash "$suite" "$BUILD" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
        while IFS= read -r line; do
                SKIPS+=("$name: ${line#SKIP: }")
        done < <(grep '^SKIP: ' "$log")
        rm -f "$log"
        echo "--- $name: $((SECONDS - start)) s"
        if [ -z "$summary" ]; then
                echo "run.sh: $name ended (exit $rc) without a summary: counted as a failure"
                FAILED=$((FAILED + 1))
                continue
        fi
        p=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')
        f=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
        k=$(echo "$summary" | sed -nE 's/.*, ([0-9]+) skipped$/\1/p')
        PASSED=$((PASSED + p))
        FAILED=$((FAILED + f))
        SKIPPED=$((SKIPPED + ${k:-0}))
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then
                echo "run.sh: $name exited $rc with no failed check: counted as a failure"
                FAILED=$((FAILED + 1))
        fi
done

echo "==="
for s in "${SKIPS[@]}"; do
        echo "SKIP: $s"
done
line="$PASSED passed, $FAILED failed"
[ "$SKIPPED" -gt 0 ] && line="$line, $SKIPPED skipped"
echo "$line"
[ "$FAILED" -eq 0 ]
