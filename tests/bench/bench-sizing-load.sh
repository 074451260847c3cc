#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# SizeReservation cannot stall hcbsd (issue 23): root's CheckBandwidth
# latency with hcbsd idle, and while four clients of uid 65534 loop
# SizeReservation on the input that used to freeze it (203 tasks, period
# 100us, 1 CPU, Capacity=50%: 4.1 s of hcbsd's CPU per call in the event
# loop). Interleaved, ROUNDS times, on a scratch tree of the host's
# cgroup-v1 cpu controller; medians of the rounds' p99s.
#
# Prints its figures as rows "figure | value | target | pass/miss" (bench_row),
# adds the two with a target to make bench's table (tests/bench/table.sh), and
# never fails on a figure, only when something cannot run.
#
# usage: tests/bench/bench-sizing-load.sh BUILD_DIR   (root; HCBS_BENCH_QUICK=1 for a short run)

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=tests/bench/table.sh
. "$(dirname "$0")/table.sh"
it_init "${1:-}"

CLIENT=$BUILD/tests/bench/bench-sizing-load
[ -x "$CLIENT" ] || it_skip_all "$CLIENT is not built"
command -v setpriv >/dev/null || it_skip_all "setpriv is not installed"
ROUNDS=3 CHECKS=2000 FLOOD_SECONDS=8
[ "${HCBS_BENCH_QUICK:-0}" = 1 ] && ROUNDS=1 CHECKS=500 FLOOD_SECONDS=3

it_write_conf "Capacity=50%" "MinPeriod=100us"
it_start_bus
it_start_hcbsd_or_die
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2" | head -n 1; }
# bench_row FIGURE VALUE TARGET pass|miss
bench_row() { printf '%-62s | %-22s | %-12s | %s\n' "$@"; }

# CPU time (clock ticks) of hcbsd's event loop, its main thread: what the flood costs everyone else
loop_ticks() { awk '{ print $14 + $15 }' "/proc/$HCBSD_PID/task/$HCBSD_PID/stat"; }
IDLE=() LOADED=() FLOODS=() LOOP_TICKS=0
for round in $(seq "$ROUNDS"); do
        out=$("$CLIENT" check "$CHECKS") || exit 2
        IDLE+=("$(field p99_us "$out")")
        ticks0=$(loop_ticks)
        "${NOBODY[@]}" "$CLIENT" flood 4 "$FLOOD_SECONDS" >"$T/flood.$round" 2>"$T/flood.$round.err" &
        FLOOD=$!
        IT_PIDS+=("$FLOOD")
        sleep 1 # the four clients connected and calling
        out=$("$CLIENT" check "$CHECKS") || exit 2
        LOADED+=("$(field p99_us "$out")")
        wait "$FLOOD" || { echo "bench-sizing-load: the flood failed: $(cat "$T/flood.$round.err")" >&2; exit 2; }
        LOOP_TICKS=$((LOOP_TICKS + $(loop_ticks) - ticks0)) # the flood and root's checks beside it
        FLOODS+=("$(cat "$T/flood.$round")")
        echo "round $round: idle p99 ${IDLE[-1]} us, flooded p99 ${LOADED[-1]} us; flood: ${FLOODS[-1]}"
done
kill -0 "$HCBSD_PID" 2>/dev/null || { echo "bench-sizing-load: hcbsd died" >&2; exit 2; }

idle=$(printf '%s\n' "${IDLE[@]}" | median)
loaded=$(printf '%s\n' "${LOADED[@]}" | median)
ratio=$(awk -v a="$loaded" -v b="$idle" 'BEGIN { printf "%.2f", a / b }')
calls=0 answered=0 limits=0 errors=0 longest=0
for f in "${FLOODS[@]}"; do
        calls=$((calls + $(field calls "$f")))
        answered=$((answered + $(field answered "$f")))
        limits=$((limits + $(field limits "$f")))
        errors=$((errors + $(field errors "$f")))
        longest=$(awk -v a="$longest" -v b="$(field longest_ms "$f")" 'BEGIN { print (b > a ? b : a) }')
done
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t ? "pass" : "miss") }'; }
loop_ms=$(awk -v t="$LOOP_TICKS" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", t * 1000 / hz }')

echo
bench_row "figure (SizeReservation flood, issue 23)" "value" "target" "verdict"
bench_row "root CheckBandwidth p99, 4 uid-65534 clients flooding / idle" \
        "${ratio}x (${loaded}/${idle} us)" "<= 2x" "$(verdict "$ratio" 2)"
bench_row "longest flood call ($calls: $answered answered, $limits LimitsExceeded)" \
        "${longest} ms" "<= 2000 ms" "$( [ "$errors" -eq 0 ] && verdict "$longest" 2000 || echo "miss ($errors errors)")"
table_row "root's CheckBandwidth p99 while 4 uid-65534 clients flood SizeReservation" "<= 2x its idle p99" \
        "${ratio}x (${loaded} us against ${idle} us)" "$(table_verdict "$ratio" '<=' 2)"
table_row "each flooding SizeReservation call: an answer or LimitsExceeded" "<= 2 s, no error" \
        "${longest} ms at the longest; $calls calls: $answered answered, $limits LimitsExceeded, $errors errors" \
        "$( [ "$errors" -eq 0 ] && table_verdict "$longest" '<=' 2000 || echo miss)"
bench_row "hcbsd's event loop CPU during the floods (their calls and root's)" "${loop_ms} ms" "-" \
        "(4.1 s a call in the loop before)"
it_finish
