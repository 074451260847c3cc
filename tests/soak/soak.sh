#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make soak: hcbs-soak (tests/soak/README.md) on a scratch subtree of the
# host's cgroup-v1 cpu controller, with a private dbus-daemon and the polkit
# stand-in, for SOAK_SECONDS (default 600) from SOAK_SEED (default: random,
# printed). The integration suites' lib.sh sets up and always cleans up.
#
# usage: tests/soak/soak.sh BUILD_DIR   (root)

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/../integration/lib.sh"
it_init "${1:-}"

SOAK=$BUILD/tests/soak/hcbs-soak
POLKIT=$BUILD/tests/integration/fake-polkit
[ -x "$SOAK" ] || it_skip_all "$SOAK is not built"
[ -x "$POLKIT" ] || it_skip_all "$POLKIT is not built"

# a small budget of our own, held by $CG for the whole run (the machine's root budget is shared,
# and hcbsd gives its capacity back at each SIGTERM); hcbsd's root below it gets 20% of a CPU
mkdir "$CG" || exit 2
{ echo 1000000 >"$CG/cpu.rt_period_us" && echo 250000 >"$CG/cpu.rt_runtime_us"; } 2>/dev/null ||
        it_skip_all "the root has no 25% of a CPU free for $CG"
HROOT=$CG/hcbsd
printf '[Manager]\nCapacity=20%%\nMinPeriod=1ms\nMaxPeriod=1s\n' >"$T/hcbsd.conf"
it_start_bus
mkdir -p "$T/run"

cmd=("$HCBSD" --bus-address "$ADDR" --cgroup-root "$HROOT" --interface "${HCBS_INTERFACE:-auto}"
        --config "$T/hcbsd.conf" --config-dir "$T/conf.d" --state-dir "$T/state" --runtime-dir "$T/run" --no-notify)
[ "${HCBS_VALGRIND:-0}" = 1 ] && cmd=(valgrind --quiet --error-exitcode=99 --suppressions="$IT_DIR/valgrind.supp"
        --log-file="$T/valgrind.%p.log" "${cmd[@]}")

# the BPF collector is loaded at every one of hundreds of starts: off, it costs nothing to what is soaked
HCBS_STATS_BPF=0 "$SOAK" --root "$HROOT" --mount "$CPU_MNT" --state-dir "$T/state" --runtime-dir "$T/run" \
        --capacity 200000/1000000 --polkit "$POLKIT" --log "$T/hcbsd.log" \
        ${SOAK_SECONDS:+--seconds "$SOAK_SECONDS"} ${SOAK_SEED:+--seed "$SOAK_SEED"} -- "${cmd[@]}" &
SOAK_PID=$!
IT_PIDS+=("$SOAK_PID") # killed (and with it hcbsd and the clients) if this script is
wait "$SOAK_PID"
rc=$?
if [ "$rc" -eq 0 ]; then
        it_pass "the soak found no violation"
elif [ "$rc" -eq 77 ]; then
        skip "the soak" "hcbsd's root could not reserve 20% of a CPU"
else
        it_fail "the soak found a violation (above); hcbsd's log: $T/hcbsd.log" "$(tail -n 15 "$T/hcbsd.log")"
fi
it_finish
