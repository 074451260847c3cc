#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl's JSON writer (json-c) beside another hcbsctl, e.g. one built
# with the hand-written writer json-c replaced, in one run: the wall time
# and the CPU time (user+sys) of `hcbsctl --json list` (a start-up, one
# bus call, the document)
# against hcbsd holding 0 and NGROUPS groups, interleaved rounds, medians;
# the size of each binary stripped; and whether both print the same
# documents (equal once parsed: json-c writes a double 1 as 1.0).
#
# usage: tests/bench/bench-json.sh BUILD_DIR   (root)
#   HCBS_BENCH_HCBSCTL_BASE=PATH  the hcbsctl to compare with (without it: SKIP)
#   HCBS_BENCH_QUICK=1            fewer calls

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/../integration/lib.sh"
it_init "${1:-}"
BASE=${HCBS_BENCH_HCBSCTL_BASE:-}
[ -n "$BASE" ] && [ -x "$BASE" ] ||
        it_skip_all "HCBS_BENCH_HCBSCTL_BASE names no hcbsctl to compare with (build one, e.g. of the commit before json-c)"
command -v bc >/dev/null || it_skip_all "bc is not installed"
ROUNDS=7 CALLS=200 NGROUPS=500
[ "${HCBS_BENCH_QUICK:-0}" = 1 ] && ROUNDS=3 CALLS=50 NGROUPS=100

it_start_bus
it_start_hcbsd_or_die

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calls() { # HCBSCTL: CALLS `--json list`
        local i
        for ((i = 0; i < CALLS; i++)); do "$1" --bus-address "$ADDR" --json list >/dev/null || return 1; done
}
per_call_ms() { # HCBSCTL: "WALL CPU", mean ms per call (CPU: user+sys of the hcbsctl processes)
        local TIMEFORMAT='%R %U %S' t
        t=$({ time calls "$1"; } 2>&1) || return 1
        read -r wall user sys <<<"$t"
        printf '%.3f %.3f\n' "$(echo "$wall * 1000 / $CALLS" | bc -l)" "$(echo "($user + $sys) * 1000 / $CALLS" | bc -l)"
}
same_documents() { # CMD...: both binaries print equal JSON
        "$HCBSCTL" --bus-address "$ADDR" --json "$@" >"$T/a.json" && "$BASE" --bus-address "$ADDR" --json "$@" >"$T/b.json" &&
                python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
                        "$T/a.json" "$T/b.json"
}
row() { printf '%-40s %12s %12s %8s\n' "$@"; }

strip -o "$T/new" "$HCBSCTL" && strip -o "$T/base" "$BASE"
echo "hcbsctl --json list: $HCBSCTL (json-c $(pkg-config --modversion json-c 2>/dev/null)) beside $BASE"
row "figure" "json-c" "base" "ratio"
row "stripped size (bytes)" "$(stat -c %s "$T/new")" "$(stat -c %s "$T/base")" \
        "$(printf '%.3f' "$(echo "$(stat -c %s "$T/new") / $(stat -c %s "$T/base")" | bc -l)")"
lib=$(ldd "$HCBSCTL" | awk '/libjson-c/ { print $3 }')
[ -n "$lib" ] && row "+ $(basename "$lib") (bytes, shared)" "$(stat -L -c %s "$lib")" "-" "-"
for n in 0 "$NGROUPS"; do
        if [ "$n" -gt 0 ]; then
                for ((i = 0; i < n; i++)); do printf '[Group g%d]\nRuntime=10us\nPeriod=100ms\n' "$i"; done >"$T/fill.groups"
                ctl apply "$T/fill.groups" >/dev/null || { echo "bench: cannot create $n groups" >&2; exit 2; }
        fi
        : >"$T/t.new" && : >"$T/t.base"
        per_call_ms "$HCBSCTL" >/dev/null # warm the page cache for both
        per_call_ms "$BASE" >/dev/null
        for ((r = 0; r < ROUNDS; r++)); do
                per_call_ms "$HCBSCTL" >>"$T/t.new"
                per_call_ms "$BASE" >>"$T/t.base"
        done
        a=$(cut -d' ' -f1 "$T/t.new" | median) b=$(cut -d' ' -f1 "$T/t.base" | median)
        row "--json list, $n groups, wall (ms/call)" "$a" "$b" "$(printf '%.3f' "$(echo "$a / $b" | bc -l)")"
        a=$(cut -d' ' -f2 "$T/t.new" | median) b=$(cut -d' ' -f2 "$T/t.base" | median)
        row "--json list, $n groups, CPU (ms/call)" "$a" "$b" "$(printf '%.3f' "$(echo "$a / $b" | bc -l)")"
        for cmd in list status tree "show g0"; do
                [ "$n" -eq 0 ] && [ "$cmd" = "show g0" ] && continue
                # shellcheck disable=SC2086
                check "$n groups: --json $cmd prints the same document" same_documents $cmd
        done
done
it_finish
