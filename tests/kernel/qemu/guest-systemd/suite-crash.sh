#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A crash in the middle of a plan never keeps hcbsd from starting (issue 17):
# hcbsd.service is started with HCBS_CRASH_AFTER_WRITES=K (hcbsd aborts right
# after its K-th successful kernel write; set through an EnvironmentFile= that
# is removed as soon as that one start has read it), for K = 1, 2, ... while
# the unit hcbs-crash@x\x2dy.service, whose cgroup path holds '@' and '\',
# is started and stopped. Each K crashes hcbsd at another write: in its own
# start-up (on KERNEL=hcbs the capacity plan, which raises the kernel root ""),
# in the unit's reservation plan, or in its release. After each crash a normal
# start must succeed at once (the drop-in sets Restart=no, so a start that
# fails is not retried: no restart loop can hide), leave no interrupted plan
# in /run/hcbsd (nor set it aside as plan.corrupt), and leave the kernel's RT
# files as they were before the plan; the unit must then get its reservation
# and give it back (at the next K, and once more after the last crash). The
# loop ends at the first K that crashes nothing.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CG=${CG:-/sys/fs/cgroup}
SLICE=$CG/hcbs.slice
U='hcbs-crash@x\x2dy.service'
UCG=$SLICE/$U
PLAN=/run/hcbsd/plan
ENVF=/run/hcbs-test-crash.env
DROPIN_DIR=/run/systemd/system/hcbsd.service.d
DROPIN=$DROPIN_DIR/50-hcbs-test-crash.conf
MAXK=16

main_pid() { systemctl show -p MainPID --value "$1"; }
state_of() { systemctl show -p ActiveState --value "$1"; }
settled() { case $(state_of "$1") in activating | deactivating | reloading) return 1 ;; esac; }

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}

# snap: the RT files hcbsd writes for the pool and the unit, "path=runtime/period ..."
snap() {
	local d
	for d in "$CG" "$SLICE" "$SLICE/hcbsd.service" "$UCG"; do
		printf '%s=%s/%s ' "${d#"$CG"}" "$(rt_runtime "$d" || echo -)" "$(rt_period "$d" || echo -)"
	done
}

journal_tail() {
	journalctl -b -u hcbsd.service --no-pager -o cat 2>&1 | tail -n 12 | sed 's/^/INFO: journal: /'
}

cleanup() {
	rm -f "$ENVF" "$DROPIN" /etc/systemd/system/hcbs-crash@.service
	systemctl stop "$U" 2>/dev/null
	systemctl reset-failed "$U" hcbsd.service 2>/dev/null
	systemctl daemon-reload
	# the last start may still count writes towards HCBS_CRASH_AFTER_WRITES
	systemctl restart hcbsd.service
}
trap cleanup EXIT

mkdir -p "$DROPIN_DIR"
printf '[Service]\nEnvironmentFile=-%s\nRestart=no\n' "$ENVF" >"$DROPIN"
cp "$HERE/units/hcbs-crash@.service" /etc/systemd/system/
systemctl daemon-reload
if ! systemctl restart hcbsd.service; then
	fail "hcbsd does not restart before the crash tests"
	journal_tail
	exit 1
fi
if systemctl start "$U" && [ "$(rt_runtime "$UCG")" = 1000 ]; then
	pass "$U reserves 1ms/10ms in $UCG"
else
	fail "$U does not start with its reservation: $(state_of "$U"), runtime $(rt_runtime "$UCG" || echo -)"
	journalctl -b -u "$U" --no-pager -o cat | tail -n 5 | sed 's/^/INFO: unit: /'
	exit 1
fi
systemctl stop "$U"
wait_for 10 test ! -d "$UCG"
BASE=$(snap)
info "RT files with no reservation: $BASE"

crashes=0 reservation_crashes=0 done=
for k in $(seq 1 $MAXK); do
	where=
	printf 'HCBS_CRASH_AFTER_WRITES=%d\n' "$k" >"$ENVF"
	# two starts a round: the default StartLimitBurst= would stop the third
	# round when the plans are short (rtmax writes one file a group)
	systemctl reset-failed hcbsd.service 2>/dev/null
	systemctl restart hcbsd.service 2>/dev/null
	rc=$?
	rm -f "$ENVF"
	pid=$(main_pid hcbsd.service)
	if [ "$rc" != 0 ]; then
		where="hcbsd's start-up"
	else
		systemctl start "$U" 2>/dev/null
		urc=$?
		wait_for 20 settled "$U"
		if [ "$(main_pid hcbsd.service)" != "$pid" ]; then
			where="the reservation of $U"
			reservation_crashes=$((reservation_crashes + 1))
		elif [ "$urc" != 0 ]; then
			fail "K=$k: $U failed, but hcbsd did not crash"
			journalctl -b -u "$U" --no-pager -o cat | tail -n 5 | sed 's/^/INFO: unit: /'
			break
		else
			systemctl stop "$U"
			wait_for 20 settled "$U"
			[ "$(main_pid hcbsd.service)" != "$pid" ] && where="the release of $U"
		fi
	fi
	if [ -z "$where" ]; then
		done=$k
		break
	fi
	crashes=$((crashes + 1))
	info "K=$k: hcbsd aborted after write $k, in $where; plan file now: $(tr '\n' '|' <"$PLAN" 2>/dev/null || echo none)"
	systemctl reset-failed "$U" hcbsd.service 2>/dev/null
	if systemctl start hcbsd.service; then
		pass "K=$k (crash in $where): a normal start of hcbsd succeeds"
	else
		fail "K=$k (crash in $where): hcbsd does not start after the crash ($(systemctl show -p Result --value hcbsd.service))"
		info "the interrupted plan: $(tr '\n' '|' <"$PLAN" 2>/dev/null || echo none)"
		journal_tail
		break
	fi
	if [ -s "$PLAN" ]; then	# hcbsd keeps it open, empty between plans (journal.h)
		fail "K=$k: an interrupted plan is still in $PLAN: $(tr '\n' '|' <"$PLAN")"
	elif [ -e "$PLAN.corrupt" ]; then
		# hcbsd wrote this plan itself: it must be undone, not set aside
		fail "K=$k: hcbsd set its own plan aside as $PLAN.corrupt: $(tr '\n' '|' <"$PLAN.corrupt")"
		rm -f "$PLAN.corrupt"
	else
		pass "K=$k: no interrupted plan is left (nor $PLAN.corrupt)"
	fi
	wait_for 10 test ! -d "$UCG"
	got=$(snap)
	if [ "$got" = "$BASE" ] && [ "$(hcbsctl units --json 2>/dev/null | tr -d ' \n')" = '[]' ]; then
		pass "K=$k: the RT files are as before the plan, and no unit holds a reservation"
	else
		fail "K=$k: after the crash and a start: $got; expected $BASE; units: $(hcbsctl units 2>&1 | tr '\n' '|')"
	fi
	systemctl reset-failed "$U" 2>/dev/null
done

# the next K's reservation is the check that each recovery left a usable
# state; after the last crash, this one is (from a start without the hook:
# the last one above may still be counting)
systemctl restart hcbsd.service
if systemctl start "$U" && [ "$(rt_runtime "$UCG")" = 1000 ]; then
	systemctl stop "$U"
	wait_for 10 test ! -d "$UCG"
	again=$(snap)
	if [ "$again" = "$BASE" ]; then
		pass "after the last crash, $U reserves again and gives it all back"
	else
		fail "after the last crash, $U started and stopped: $again; expected $BASE"
	fi
else
	fail "after the last crash, $U cannot reserve: $(state_of "$U"), runtime $(rt_runtime "$UCG" || echo -)"
	systemctl stop "$U" 2>/dev/null
fi

if [ -n "$done" ]; then
	info "K=$done: hcbsd did all its writes (start-up, reservation, release) without reaching the crash"
fi
# a reservation is two writes on rfc1 (runtime, period), one on rtmax (cpu.rt.max)
if [ "$reservation_crashes" -ge 1 ]; then
	pass "hcbsd crashed $crashes times, $reservation_crashes of them in the reservation of $U"
else
	fail "the crash hook crashed hcbsd only $crashes times, $reservation_crashes in the reservation: HCBS_CRASH_AFTER_WRITES did not work"
fi
