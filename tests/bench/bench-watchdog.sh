#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What the watchdog costs an idle hcbsd, side by side in one run: hcbsd
# serving on a fake $NOTIFY_SOCKET without $WATCHDOG_USEC, then with
# WATCHDOG_USEC=1s (about 2 pings a second, 60 times what WatchdogSec=60s
# asks), interleaved rounds of SECONDS each; the CPU time hcbsd used
# (/proc/PID/schedstat, ns), its wakeups (voluntary context switches) and
# the WATCHDOG=1 datagrams received. Not a test: it never fails on a figure.
#
# usage: tests/bench/bench-watchdog.sh BUILD_DIR   (root; HCBS_BENCH_QUICK=1 for shorter rounds)

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/../integration/lib.sh"
it_init "${1:-}"
ROUNDS=3 SECONDS_IDLE=10
[ "${HCBS_BENCH_QUICK:-0}" = 1 ] && ROUNDS=1 SECONDS_IDLE=3
it_start_bus
python3 "$IT_DIR/datagram-listen.py" "$T/notify.sock" "$T/notify.jsonl" &
IT_PIDS+=($!)
wait_for 50 test -S "$T/notify.sock" || { echo "bench: no stand-in notify socket" >&2; exit 2; }
IT_HCBSD_NOTIFY=1

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
idle() { # OUT WATCHDOG_USEC|-: one idle round, "cpu_ns wakeups pings" appended to OUT
        local out=$1 wd=$2 cpu0 cpu1 sw0 sw1 p0 p1
        if [ "$wd" = - ]; then
                IT_HCBSD_WRAP=(env NOTIFY_SOCKET="$T/notify.sock")
        else
                IT_HCBSD_WRAP=(env NOTIFY_SOCKET="$T/notify.sock" WATCHDOG_USEC="$wd")
        fi
        it_start_hcbsd || { echo "bench: hcbsd does not start" >&2; exit 2; }
        sleep 1 # past start-up
        cpu0=$(cut -d' ' -f1 "/proc/$HCBSD_PID/schedstat")
        sw0=$(sed -n 's/^voluntary_ctxt_switches:\s*//p' "/proc/$HCBSD_PID/status")
        p0=$(grep -c '"WATCHDOG"' "$T/notify.jsonl")
        sleep "$SECONDS_IDLE"
        cpu1=$(cut -d' ' -f1 "/proc/$HCBSD_PID/schedstat")
        sw1=$(sed -n 's/^voluntary_ctxt_switches:\s*//p' "/proc/$HCBSD_PID/status")
        p1=$(grep -c '"WATCHDOG"' "$T/notify.jsonl")
        it_stop_hcbsd >/dev/null
        echo "$((cpu1 - cpu0)) $((sw1 - sw0)) $((p1 - p0))" >>"$out"
}

: >"$T/off" && : >"$T/on"
for ((r = 0; r < ROUNDS; r++)); do
        idle "$T/off" -
        idle "$T/on" 1000000
done
row() { printf '%-44s %14s %14s\n' "$@"; }
echo "idle hcbsd, $SECONDS_IDLE s per round, $ROUNDS round(s), medians"
row "figure" "no watchdog" "WATCHDOG_USEC=1s"
row "CPU time (us)" "$(($(cut -d' ' -f1 "$T/off" | median) / 1000))" "$(($(cut -d' ' -f1 "$T/on" | median) / 1000))"
row "wakeups (voluntary context switches)" "$(cut -d' ' -f2 "$T/off" | median)" "$(cut -d' ' -f2 "$T/on" | median)"
row "WATCHDOG=1 received" "$(cut -d' ' -f3 "$T/off" | median)" "$(cut -d' ' -f3 "$T/on" | median)"
it_finish
