#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl why under a real systemd on the HCBS kernel: broken set-ups, each
# first shown to be broken for real (the unit's own sched_setscheduler
# fails, or chrt does), then diagnosed with its own cause (the --json id) and
# fix; and a healthy service that gets exit 0. The kernel's mode too: hcbsctl
# status says hcbs-rfc1 (or what KERNEL is), and hcbsd --check-kernel agrees.
#
#   restrict-realtime   RestrictRealtime=yes in a unit with a reservation
#   rlimit-rtprio       User=nobody, LimitRTPRIO=0, with a reservation
#   unit-outside-slice  an ordinary service in system.slice trying SCHED_FIFO (rfc1:
#                       refused; rtmax: it runs, unadmitted, and why notes not-managed)
#   reservation-refused [X-HCBS] asking all of each CPU: the unit fails
#   rtkit-absent        a process of nobody's, and no rtkit on the bus
#   leaf-rule           rfc1: a thread of a process in one of hcbsd's groups
#                       whose threaded child holds a runtime
# Units: guest-systemd/units/hcbs-why-*.service. It needs no other suite.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

SLICE=$CG/hcbs.slice
UNITS="hcbs-why-restrict hcbs-why-limit hcbs-why-outside hcbs-why-greedy hcbs-why-ok"
GROUPS_DIR=$SLICE/hcbsd.service/groups
PIDS=

main_pid() { systemctl show -p MainPID --value "$1"; }

# why_json TARGET: hcbsctl --json why TARGET into OUT, its exit status in RC
why_json() {
	OUT=$(hcbsctl --json why "$1" 2>/tmp/why.err)
	RC=$?
}
# field EXPR: a Python-free read of the JSON: the "fix"/"kind" of cause ID, or a top-level string
cause_field() {	# ID KEY
	printf '%s' "$OUT" | tr '{' '\n' | grep "\"id\":\"$1\"" | sed -n "s/.*\"$2\":\"\\([^\"]*\\)\".*/\\1/p" | head -1
}

# expect_cause LABEL TARGET ID KIND FIX-REGEX
expect_cause() {
	why_json "$2"
	local kind fix
	kind=$(cause_field "$3" kind)
	fix=$(cause_field "$3" fix)
	if [ "$RC" = 1 ] && [ "$kind" = "$4" ] && printf '%s' "$fix" | grep -Eq -- "$5"; then
		pass "$1: hcbsctl why $2: $3 ($4), fix: $fix"
	else
		fail "$1: hcbsctl why $2: expected $3 ($4) with a fix /$5/; exit $RC, got: $(printf '%s' "$OUT" | head -c 1500) $(cat /tmp/why.err)"
	fi
}

# own_try NAME: the unit's own SCHED_FIFO attempt (its rc file) failed
own_try_failed() {
	local rc
	for _i in $(seq 50); do [ -s "/run/hcbs-why/$1.rc" ] && break; sleep 0.2; done
	rc=$(cat "/run/hcbs-why/$1.rc" 2>/dev/null)
	if [ -n "$rc" ] && [ "$rc" != 0 ]; then
		pass "$1: the unit's own chrt -f fails (exit $rc): the set-up is broken for real"
	else
		fail "$1: the unit's own chrt -f did not fail (rc '${rc:-none}')"
	fi
}

cleanup() {
	for u in $UNITS; do systemctl stop "$u" 2>/dev/null; done
	systemctl reset-failed 2>/dev/null
	[ -n "$PIDS" ] && kill $PIDS 2>/dev/null
	[ -d "$GROUPS_DIR/why-inner/t" ] && {
		echo 0 > "$GROUPS_DIR/why-inner/t/cpu.rt_runtime_us"
		rmdir "$GROUPS_DIR/why-inner/t"
	} 2>/dev/null
	sleep 0.2
	hcbsctl --no-ask-password delete why-inner >/dev/null 2>&1
	for u in $UNITS; do rm -f "/etc/systemd/system/$u.service"; done
	systemctl daemon-reload
	rm -rf /run/hcbs-why
}
trap cleanup EXIT

mkdir -p /run/hcbs-why
chmod 777 /run/hcbs-why
for u in $UNITS; do cp "$HERE/units/$u.service" /etc/systemd/system/; done
systemctl daemon-reload

# --- the kernel's mode -----------------------------------------------------------------
case $HCBS_KERNEL in
hcbs) MODE=hcbs-rfc1 ;;
hcbs6 | hcbs7) MODE=hcbs-rtmax ;;
*) MODE=mainline-v2 ;;
esac
if hcbsctl status | grep -Eq "^Mode: +$MODE \\("; then
	pass "hcbsctl status under systemd: Mode $MODE"
else
	fail "hcbsctl status under systemd: no 'Mode: $MODE': $(hcbsctl status 2>&1 | tr '\n' '|')"
fi
if hcbsd --check-kernel | grep -Eq "^Mode: +$MODE\$"; then
	pass "hcbsd --check-kernel under systemd: $MODE"
else
	fail "hcbsd --check-kernel: $(hcbsd --check-kernel 2>&1 | tr '\n' '|')"
fi

# --- restrict-realtime, rlimit-rtprio, unit-outside-slice ---------------------------------
for u in restrict limit outside; do
	systemctl start "hcbs-why-$u" || fail "systemctl start hcbs-why-$u: $(systemctl status hcbs-why-$u | tail -3)"
done
own_try_failed restrict
expect_cause restrict-realtime hcbs-why-restrict restrict-realtime blocks "RestrictRealtime=no in hcbs-why-restrict.service"
own_try_failed limit
expect_cause rlimit-rtprio "$(main_pid hcbs-why-limit)" rlimit-rtprio blocks "LimitRTPRIO=PRIO in hcbs-why-limit.service"
case $HCBS_KERNEL in
hcbs6 | hcbs7)
	# rtmax: system.slice and the service are max, so its RT threads would run on the root's
	# reservation: the unit's chrt -f works, and its SCHED_OTHER main process is no one's
	rc=$(for _i in $(seq 50); do [ -s /run/hcbs-why/outside.rc ] && break; sleep 0.2; done
		cat /run/hcbs-why/outside.rc 2>/dev/null)
	[ "$rc" = 0 ] && pass "outside: on rtmax the unit's own chrt -f works (a max service runs on the root's reservation)" ||
		fail "outside: on rtmax the unit's own chrt -f exited '${rc:-none}'"
	why_json hcbs-why-outside.service
	if [ "$RC" = 0 ] && printf '%s' "$OUT" | grep -q '"id":"not-managed"'; then
		pass "outside: hcbsctl why hcbs-why-outside.service: not-managed (note), exit 0"
	else
		fail "outside: hcbsctl why hcbs-why-outside.service: expected the not-managed note and exit 0; exit $RC: $(printf '%s' "$OUT" | head -c 1500)"
	fi
	;;
*)
	own_try_failed outside
	expect_cause unit-outside-slice hcbs-why-outside.service unit-outside-slice blocks \
		"Slice=hcbs.slice and \\[X-HCBS\\] Runtime=RUNTIME Period=PERIOD in hcbs-why-outside.service"
	;;
esac

# --- reservation-refused --------------------------------------------------------------------
if systemctl start hcbs-why-greedy 2>/dev/null; then
	fail "hcbs-why-greedy (all of each CPU) started: hcbsd did not refuse it"
else
	pass "reservation-refused: hcbs-why-greedy fails to start (it asks all of each CPU)"
fi
expect_cause reservation-refused hcbs-why-greedy reservation-refused blocks "a smaller \\[X-HCBS\\] Runtime= in hcbs-why-greedy.service"

# --- rtkit-absent ----------------------------------------------------------------------------
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
PIDS="$PIDS $!"
sleep 0.2
if busctl --system status org.freedesktop.RealtimeKit1 >/dev/null 2>&1; then
	skip "rtkit-absent: rtkit is on this guest's bus"
else
	expect_cause rtkit-absent "$!" rtkit-absent note "apt install rtkit"
	OUT2=$(setpriv --reuid=65534 --regid=65534 --clear-groups hcbsctl why "$!" 2>&1)
	if printf '%s' "$OUT2" | grep -q '^BLOCKS  rlimit-rtprio'; then
		pass "nobody asks about its own process: rlimit-rtprio"
	else
		fail "nobody asks about its own process: $OUT2"
	fi
fi

# --- leaf-rule (HCBS RFC v1 only) --------------------------------------------------------------
if [ "$HCBS_KERNEL" = hcbs ] && command -v rt-threads >/dev/null; then
	coproc RT { exec rt-threads other other 2>/dev/null; }
	read -r _ MAIN WORKER <&"${RT[0]}"
	PIDS="$PIDS $MAIN"
	G=$GROUPS_DIR/why-inner
	if hcbsctl --no-ask-password create why-inner 20ms 100ms && hcbsctl --no-ask-password attach why-inner "$MAIN" &&
		mkdir "$G/t" && echo threaded > "$G/t/cgroup.type" && echo +cpu > "$G/cgroup.subtree_control" &&
		echo 100000 > "$G/t/cpu.rt_period_us" && echo 5000 > "$G/t/cpu.rt_runtime_us" &&
		echo "$WORKER" > "$G/t/cgroup.threads"; then
		if chrt -f -p 5 "$MAIN" 2>/dev/null; then
			fail "leaf-rule: chrt -f on the thread in why-inner succeeded (its threaded child t holds 5ms/100ms)"
		else
			pass "leaf-rule: chrt -f on the thread in why-inner fails: its threaded child holds a runtime"
		fi
		expect_cause leaf-rule "$MAIN" leaf-rule blocks "cgroup.threads"
	else
		fail "leaf-rule: cannot set up why-inner with a threaded child t"
	fi
	kill "$MAIN" 2>/dev/null
else
	skip "leaf-rule: HCBS RFC v1 only (KERNEL=$HCBS_KERNEL), with rt-threads in the guest"
fi

# --- healthy ---------------------------------------------------------------------------------
if systemctl start hcbs-why-ok; then
	for _i in $(seq 50); do chrt -p "$(main_pid hcbs-why-ok)" | grep -q SCHED_FIFO && break; sleep 0.2; done
	why_json hcbs-why-ok
	if [ "$RC" = 0 ] && printf '%s' "$OUT" | grep -q '"ok":true' && printf '%s' "$OUT" | grep -q '"managed":"unit"'; then
		pass "a healthy service (SCHED_FIFO 10 in its reservation): hcbsctl why exits 0, managed by hcbsd"
	else
		fail "a healthy service: exit $RC: $(printf '%s' "$OUT" | head -c 1500)"
	fi
else
	fail "systemctl start hcbs-why-ok: $(systemctl status hcbs-why-ok | tail -3)"
fi
why_json no-such-unit-here
[ "$RC" = 4 ] && pass "a unit systemd does not know: exit 4" || fail "no-such-unit-here: exit $RC $(cat /tmp/why.err)"
exit 0
