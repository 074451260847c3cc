#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The randomized fault soak (tests/soak/, hcbs-soak) on the guest's HCBS
# kernel: hcbsd on $CG/soak/hcbsd with a private bus and the polkit stand-in,
# 8 clients (2 as uid 65534), kills, reboots of the tree and crash hooks, the
# invariants checked from the kernel's files after every restart. Runs only
# when asked: hcbs.soak=SECONDS:SEED on the kernel command line
# (HCBS_SOAK_SECONDS, HCBS_SOAK_SEED; make soak-guest).
. /guest/lib.sh

if [ -z "${HCBS_SOAK:-}" ]; then
	skip "soak: not asked for (HCBS_SOAK_SECONDS; make soak-guest)"
	exit 0
fi
for _b in hcbs-soak hcbsd fake-polkit; do
	if ! command -v $_b >/dev/null; then
		skip "soak: $_b is not in the initramfs (HCBS_GUEST_BINS)"
		exit 0
	fi
done
if is_rtmax; then
	skip "soak: it reads cpu.rt_runtime_us and cpu.rt_period_us, which HCBS v6 (cpu.rt.max) has not"
	exit 0
fi

SECS=${HCBS_SOAK%%:*}
SEED=${HCBS_SOAK#*:}
TOP=$CG/soak	# holds 25% of a CPU for the run; hcbsd's root below it gets 20%
ROOT=$TOP/hcbsd
STATE=/tmp/soak-state
RUN=/tmp/soak-run
BUS=unix:path=/tmp/soak-bus
mkdir -p "$STATE" "$RUN" /tmp/soak-none
printf '[Manager]\nCapacity=20%%\nMinPeriod=1ms\nMaxPeriod=1s\n' >/tmp/soak.conf
# HCBS starts a new group at period 0: the period first, then the runtime, then +cpu for hcbsd's root
mkdir -p "$TOP" && echo 1000000 >"$TOP/cpu.rt_period_us" && echo 250000 >"$TOP/cpu.rt_runtime_us" &&
	echo +cpu >"$TOP/cgroup.subtree_control" || fail "soak: cannot give $TOP 25% of a CPU ($(rt_of "$TOP"))"

BUS_PID=$(dbus-daemon --config-file=/usr/share/dbus-1/system.conf --address="$BUS" --fork --print-pid 2>/tmp/soak-bus.err)
if [ -z "$BUS_PID" ]; then
	fail "soak: no private bus: $(cat /tmp/soak-bus.err)"
	exit 0
fi
export DBUS_SYSTEM_BUS_ADDRESS=$BUS

info "soak: $SECS s${SEED:+, seed $SEED} on $ROOT"
HCBS_STATS_BPF=0 hcbs-soak --root "$ROOT" --mount "$CG" --state-dir "$STATE" --runtime-dir "$RUN" \
	--capacity 200000/1000000 --polkit "$(command -v fake-polkit)" --log /tmp/soak-hcbsd.log \
	--seconds "$SECS" ${SEED:+--seed "$SEED"} -- \
	"$(command -v hcbsd)" --bus-address "$BUS" --cgroup-root "$ROOT" --config /tmp/soak.conf \
	--config-dir /tmp/soak-none --state-dir "$STATE" --runtime-dir "$RUN" --no-notify
RC=$?
case $RC in
0) pass "soak: no violation in $SECS s" ;;
77) skip "soak: hcbsd's root could not reserve 20% of the root's RT budget" ;;
*) fail "soak: a violation (above; exit $RC); hcbsd's log ends:"
   tail -n 15 /tmp/soak-hcbsd.log | sed 's/^/INFO:   /' ;;
esac

# what the soak leaves: its tree (processes to the root, runtimes 0, bottom up), its bus
if [ -d "$TOP" ]; then
	for _d in $(find "$TOP" -type d | sort -r); do
		for _p in $(cat "$_d/cgroup.procs" 2>/dev/null); do echo "$_p" > "$CG/cgroup.procs" 2>/dev/null; done
		{ echo 0 > "$_d/cpu.rt_runtime_us"; } 2>/dev/null
		rmdir "$_d" 2>/dev/null
	done
fi
kill "$BUS_PID" 2>/dev/null
exit 0
