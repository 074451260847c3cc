#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbs-exporter's cost per scrape at 1,000 groups: hcbsd on a scratch tree
# holding NGROUPS groups (hcbsctl apply), the exporter socket-activated as
# its unit does it, then ROUNDS scrapes of /metrics one after another: the
# wall time of each (median, max), the CPU time the exporter, hcbsd and
# the bus spent per scrape (from /proc/PID/stat), and the size of the answer.
# hcbsctl stats --prometheus makes the same calls and is timed beside it.
#
# Prints one row per figure, "figure | value | target | pass/miss" (the
# target: a scrape well inside Prometheus' default 10 s scrape_timeout and
# its 15 s interval at 1,000 groups). Not a test: it fails only when
# something cannot run.
#
# usage: tests/bench/bench-exporter.sh BUILD_DIR   (root; HCBS_BENCH_QUICK=1 for 100 groups)

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/../integration/lib.sh"
it_init "${1:-}"
EXPORTER=$BUILD/exporter/hcbs-exporter
[ -x "$EXPORTER" ] || it_skip_all "$EXPORTER is not built"
command -v systemd-socket-activate >/dev/null || it_skip_all "systemd-socket-activate is not installed (package systemd)"
NGROUPS=1000 ROUNDS=7 TARGET_MS=250
[ "${HCBS_BENCH_QUICK:-0}" = 1 ] && NGROUPS=100 ROUNDS=3

it_write_conf "Capacity=1%" "MinPeriod=1us"
it_start_bus
it_start_hcbsd_or_die
for ((i = 0; i < NGROUPS; i++)); do printf '[Group e%d]\nRuntime=2us\nPeriod=1s\n' "$i"; done >"$T/groups"
ctl apply "$T/groups" >/dev/null || { echo "bench-exporter: cannot create $NGROUPS groups" >&2; exit 1; }

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
systemd-socket-activate -l "127.0.0.1:$PORT" "$EXPORTER" --bus-address="$ADDR" >"$T/exporter.log" 2>&1 &
EXPORTER_PID=$!
IT_PIDS+=("$EXPORTER_PID")
wait_for 50 python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))"

# cpu_ms PID: user+system CPU time so far, in ms
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }

e0=$(cpu_ms "$EXPORTER_PID") h0=$(cpu_ms "$HCBSD_PID") b0=$(cpu_ms "$BUS_PID")
python3 - "$PORT" "$ROUNDS" >"$T/scrapes" <<'EOF' || { echo "bench-exporter: scrapes failed" >&2; exit 1; }
import sys, time, urllib.request
port, rounds = int(sys.argv[1]), int(sys.argv[2])
for _ in range(rounds):
    t = time.monotonic()
    body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=60).read()
    print("%.1f %d %d" % ((time.monotonic() - t) * 1000, len(body), body.count(b"\n")))
EOF
e1=$(cpu_ms "$EXPORTER_PID") h1=$(cpu_ms "$HCBSD_PID") b1=$(cpu_ms "$BUS_PID")
t0=$(date +%s.%N)
ctl stats --prometheus >/dev/null
t1=$(date +%s.%N)

wall=$(cut -d' ' -f1 "$T/scrapes" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
worst=$(cut -d' ' -f1 "$T/scrapes" | sort -g | tail -n 1)
read -r _ bytes lines < <(tail -n 1 "$T/scrapes")
row() { printf '%-52s | %14s | %10s | %s\n' "$@"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t ? "pass" : "miss") }'; }
row "exporter scrape at $NGROUPS groups, median of $ROUNDS (ms)" "$wall" "<= $TARGET_MS" "$(verdict "$wall" "$TARGET_MS")"
row "  its slowest scrape (ms)" "$worst" "" ""
row "  exporter CPU per scrape (ms)" "$(echo "($e1 - $e0) / $ROUNDS" | bc -l | xargs printf '%.1f')" "" ""
row "  hcbsd CPU per scrape (ms)" "$(echo "($h1 - $h0) / $ROUNDS" | bc -l | xargs printf '%.1f')" "" ""
row "  dbus-daemon CPU per scrape (ms)" "$(echo "($b1 - $b0) / $ROUNDS" | bc -l | xargs printf '%.1f')" "" ""
row "  answer (bytes, lines)" "$bytes, $lines" "" ""
row "  hcbsctl stats --prometheus, same calls (ms)" "$(echo "($t1 - $t0) * 1000" | bc -l | xargs printf '%.1f')" "" ""
kill "$EXPORTER_PID" 2>/dev/null
wait "$EXPORTER_PID" 2>/dev/null
it_finish >/dev/null
