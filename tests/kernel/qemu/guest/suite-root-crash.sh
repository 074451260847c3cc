#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A crash in the capacity plan that writes the kernel root (issue 17). On
# KERNEL=hcbs the root's cpu.rt_runtime_us is the reserve of every RT group,
# and hcbsd's capacity plan raises it (the path "" in the plan journal) when it
# holds less than Capacity=. With the root lowered to 10% and Capacity=50%,
# hcbsd is started with HCBS_CRASH_AFTER_WRITES=K (it aborts right after its
# K-th kernel write) for K = 1, 2, ... until a start reaches no crash; after
# each crash a normal start must succeed, leave no plan (nor plan.corrupt),
# hold its capacity with the root raised just enough, and serve a create.
# Runs after suite-hcbsd.sh, on the system bus that suite started.
. /guest/lib.sh

ROOT=$CG/hcbs-rootcrash
STATE=/tmp/hcbsd-rootcrash-state
RUN=/tmp/hcbsd-rootcrash-run
LOG=/tmp/hcbsd-rootcrash.log
CONF=/tmp/hcbsd-rootcrash.conf
DAEMON=

if [ "$HCBS_KERNEL" != hcbs ]; then
	skip "root crash: only KERNEL=hcbs has a root reserve that hcbsd's capacity plan raises"
	exit 0
fi
if ! command -v hcbsd >/dev/null || ! command -v hcbsctl >/dev/null; then
	skip "root crash: hcbsd is not in the initramfs (HCBS_GUEST_BINS)"
	exit 0
fi
guest_system_bus 'root crash' || exit 0
printf '[Manager]\nCapacity=50%%\nCapacityPeriod=1s\n' >"$CONF"
R0=$(cat "$CG/cpu.rt_runtime_us")
RP=$(cat "$CG/cpu.rt_period_us")
LOW=$((RP / 10))	# the root at 10%, whatever its period

# start K: hcbsd with the crash hook at K (0: none); 0 once it answers, 1 if it died first
start() {
	rm -f "$LOG.last"
	if [ "$1" = 0 ]; then
		hcbsd --cgroup-root="$ROOT" --config="$CONF" --config-dir=/tmp/none --state-dir="$STATE" \
			--runtime-dir="$RUN" --no-notify >"$LOG.last" 2>&1 &
	else
		HCBS_CRASH_AFTER_WRITES=$1 hcbsd --cgroup-root="$ROOT" --config="$CONF" --config-dir=/tmp/none \
			--state-dir="$STATE" --runtime-dir="$RUN" --no-notify >"$LOG.last" 2>&1 &
	fi
	DAEMON=$!
	for _i in $(seq 100); do
		hcbsctl status >/dev/null 2>&1 && { cat "$LOG.last" >>"$LOG"; return 0; }
		kill -0 "$DAEMON" 2>/dev/null || break
		sleep 0.1
	done
	wait "$DAEMON" 2>/dev/null
	DAEMON=
	cat "$LOG.last" >>"$LOG"
	return 1
}
# drop_tree: hcbsd's root and groups gone, their runtime first (bottom-up)
drop_tree() {
	[ -d "$ROOT" ] || return 0
	for _d in $(find "$ROOT" -type d | sort -r); do
		echo 0 >"$_d/cpu.rt_runtime_us" 2>/dev/null
		rmdir "$_d" 2>/dev/null
	done
}
# lower_root: the root reserve down to LOW (a removed group's bandwidth comes
# back after an RCU grace period: EBUSY for a moment)
lower_root() {
	for _i in $(seq 30); do
		[ "$(try_write "$CG/cpu.rt_runtime_us" $LOW)" = OK ] && return 0
		sleep 0.1
	done
	return 1
}
stop() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	DAEMON=
}
cleanup() {
	stop
	drop_tree
	echo "$R0" >"$CG/cpu.rt_runtime_us" 2>/dev/null
	rm -rf "$STATE" "$RUN"
}
trap cleanup EXIT

crashes=0 root_lines=0 k=0
while [ $k -lt 8 ]; do
	k=$((k + 1))
	stop
	drop_tree
	rm -rf "$STATE" "$RUN"
	if ! lower_root; then
		fail "root crash K=$k: cannot lower the root to $LOW/$(cat "$CG/cpu.rt_period_us"): $(try_write "$CG/cpu.rt_runtime_us" $LOW)"
		break
	fi
	if start "$k"; then
		info "root crash K=$k: hcbsd's start-up made fewer than $k writes"
		stop
		break
	fi
	crashes=$((crashes + 1))
	plan=$(tr '\n' '|' <"$RUN/plan" 2>/dev/null)
	info "root crash K=$k: hcbsd aborted; root $(rt_of "$CG"); plan: ${plan:-none}"
	grep -q ' $' "$RUN/plan" 2>/dev/null && root_lines=$((root_lines + 1))
	if start 0; then
		pass "root crash K=$k: a normal start succeeds"
	else
		fail "root crash K=$k: hcbsd does not start: $(tail -n 3 "$LOG.last" | tr '\n' '|')"
		break
	fi
	if [ -s "$RUN/plan" ] || [ -e "$RUN/plan.corrupt" ]; then	# an empty plan: hcbsd keeps its journal open (journal.h)
		fail "root crash K=$k: a plan is left: $(ls "$RUN" | tr '\n' ' ')"
	else
		pass "root crash K=$k: the plan was undone (no plan, no plan.corrupt)"
	fi
	_ppm=$(($(cat "$CG/cpu.rt_runtime_us") * 1000000 / RP)) _own=$(rt_of "$ROOT")
	if [ "$_ppm" -ge 500000 ] && [ "$_own" = 500000/1000000 ]; then
		pass "root crash K=$k: hcbsd holds its capacity (root $(rt_of "$CG"), hcbs-rootcrash $_own)"
	else
		fail "root crash K=$k: root $(rt_of "$CG"), hcbs-rootcrash $_own; expected the root at 50% or more and 500000/1000000"
	fi
	if hcbsctl create g 100ms 1s >/dev/null 2>&1 && [ "$(cat "$ROOT/g/cpu.rt_runtime_us")" = 100000 ] &&
		hcbsctl delete g >/dev/null 2>&1; then
		pass "root crash K=$k: hcbsd serves a create and a delete"
	else
		fail "root crash K=$k: create/delete g 100ms 1s failed"
	fi
done
stop
info "root crash: hcbsd log: $(tr '\n' '|' <"$LOG" | cut -c1-1500)"
if [ "$crashes" -ge 1 ] && [ "$root_lines" -ge 1 ]; then
	pass "root crash: $crashes crash(es) in the capacity plan, $root_lines with the root in the plan"
else
	fail "root crash: $crashes crash(es), $root_lines plan(s) naming the root: the test proved nothing"
fi
