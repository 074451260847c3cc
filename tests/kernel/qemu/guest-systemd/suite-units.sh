#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Units' reservations under a real systemd (issue 6): services declaring
# [X-HCBS] Runtime=/Period= (or RTRuntime=/RTPeriod=) start SCHED_FIFO/RR in
# their own cgroup in hcbs.slice; an over-commit is refused at start with a
# clear journal line; stop, kill -9, Restart=, daemon-reload and restarting
# hcbsd leave no bandwidth behind.
#
# The pool (hcbs.slice) holds what its units and hcbsd's groups hold, up to
# Capacity=50%: a (20%) + b (20%) leave 10%, so c (30%) is refused until b stops.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CG=/sys/fs/cgroup
SLICE=$CG/hcbs.slice
UNITS="hcbs-demo-a hcbs-demo-b hcbs-demo-c hcbs-demo-r hcbs-demo-t@one hcbs-demo-bad hcbs-demo-p"

rt() { rt_runtime "$SLICE/$1.service" || echo none; }
main_pid() { systemctl show -p MainPID --value "$1"; }
policy_of() { chrt -p "$1" 2>/dev/null | sed -n 's/.*scheduling policy: //p' | head -1; }
prio_of() { chrt -p "$1" 2>/dev/null | sed -n 's/.*scheduling priority: //p' | head -1; }

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: expected '$3', got '$2'"; fi
}

# Sum of runtime/period over the units' cgroups in the slice, in ppm.
units_ppm() {
	local sum=0 d r p
	for d in "$SLICE"/*.service; do
		[ "$(basename "$d")" = hcbsd.service ] && continue
		[ -r "$d/cpu.rt_runtime_us" ] || [ -r "$d/cpu.rt.max" ] || continue
		r=$(rt_runtime "$d") p=$(rt_period "$d")
		[ "$r" = max ] && continue
		[ "$p" -gt 0 ] && [ "$r" -gt 0 ] && sum=$((sum + r * 1000000 / p))
	done
	echo "$sum"
}

listed() { hcbsctl units 2>/dev/null | grep -q "^$1"; }
not_listed() { ! listed "$1"; }
is_rt() { [ "$(policy_of "$(main_pid "$1")")" = "$2" ]; }

setup() {
	mkdir -p /etc/hcbsd/conf.d
	printf '[Manager]\nCapacity=50%%\nCapacityPeriod=1s\n' > /etc/hcbsd/conf.d/50-vm-test.conf
	cp "$HERE"/units/*.service /etc/systemd/system/
	systemctl daemon-reload
	if systemctl restart hcbsd.service; then
		pass "hcbsd restarts with Capacity=50% (systemctl restart)"
	else
		fail "systemctl restart hcbsd failed"
		journalctl -b -u hcbsd.service --no-pager | tail -20 | sed 's/^/INFO: /'
	fi
}

check_generator() {
	local d=/run/systemd/generator/hcbs-demo-a.service.d
	if [ -r "$d/zz-hcbs.conf" ]; then
		pass "hcbs-generator wrote $d/zz-hcbs.conf"
	else
		fail "no drop-in from hcbs-generator in $d"
		ls -R /run/systemd/generator 2>&1 | sed 's/^/INFO: /'
	fi
	expect_eq "the drop-in puts hcbs-demo-a in hcbs.slice" "$(systemctl show -p Slice --value hcbs-demo-a)" hcbs.slice
}

check_template_and_bad_value() {
	local line
	systemctl start hcbs-demo-t@one || fail "systemctl start hcbs-demo-t@one failed"
	expect_eq "a template's instance gets the reservation" "$(rt hcbs-demo-t@one)" 500
	listed hcbs-demo-t@one.service && pass "hcbsctl units names the instance" ||
		fail "hcbsctl units lacks hcbs-demo-t@one.service"
	systemctl stop hcbs-demo-t@one
	not_listed hcbs-demo-t@one.service && pass "the instance gives it back on stop" ||
		fail "hcbs-demo-t@one still listed after stop"

	line=$(dmesg | grep -m1 'hcbs-generator: .*hcbs-demo-bad.service')
	info "kernel log: $line"
	case $line in
	*/etc/systemd/system/hcbs-demo-bad.service:9:*Runtime=abc*) pass "a bad value is in the kernel log with file and line" ;;
	*) fail "no kernel log line with file:line for hcbs-demo-bad.service: '$line'" ;;
	esac
	[ -e /run/systemd/generator/hcbs-demo-bad.service.d/zz-hcbs.conf ] &&
		fail "hcbs-demo-bad.service got a drop-in" || pass "hcbs-demo-bad.service is left untouched"
	expect_eq "... and stays in system.slice" "$(systemctl show -p Slice --value hcbs-demo-bad)" system.slice
}

start_two() {
	local pid
	systemctl start hcbs-demo-a hcbs-demo-b || fail "systemctl start hcbs-demo-a hcbs-demo-b failed"
	expect_eq "hcbs-demo-a is active" "$(systemctl is-active hcbs-demo-a)" active
	expect_eq "hcbs-demo-b is active" "$(systemctl is-active hcbs-demo-b)" active
	expect_eq "hcbs-demo-a: cpu.rt_runtime_us" "$(rt hcbs-demo-a)" 2000
	expect_eq "hcbs-demo-a: cpu.rt_period_us" "$(rt_period $SLICE/hcbs-demo-a.service)" 10000
	expect_eq "hcbs-demo-b: cpu.rt_runtime_us" "$(rt hcbs-demo-b)" 20000
	pid=$(main_pid hcbs-demo-a)
	expect_eq "hcbs-demo-a's main process is in its own cgroup" "$(cat /proc/"$pid"/cgroup)" \
		"0::/hcbs.slice/hcbs-demo-a.service"
	wait_for 5 is_rt hcbs-demo-a SCHED_FIFO
	expect_eq "hcbs-demo-a's main process runs SCHED_FIFO" "$(policy_of "$pid")" SCHED_FIFO
	expect_eq "... at priority 80" "$(prio_of "$pid")" 80
	wait_for 5 is_rt hcbs-demo-b SCHED_RR
	expect_eq "hcbs-demo-b's main process runs SCHED_RR" "$(policy_of "$(main_pid hcbs-demo-b)")" SCHED_RR
	expect_eq "hcbs.slice grew to hold both (40% of 1s)" "$(rt_runtime $SLICE)/$(rt_period $SLICE)" \
		400000/1000000
	if listed hcbs-demo-a.service && listed hcbs-demo-b.service; then
		pass "hcbsctl units lists both"
	else
		fail "hcbsctl units: $(hcbsctl units 2>&1 | tr '\n' '|')"
	fi
	hcbsctl status 2>&1 | sed 's/^/INFO: status: /'
	case $(hcbsctl status 2>&1) in
	*"Units:"*"2 (40.0% per CPU)"*) pass "hcbsctl status counts the units' reservations" ;;
	*) fail "hcbsctl status has no 'Units: 2 (40.0% per CPU)'" ;;
	esac
	hcbsctl tree 2>&1 | sed 's/^/INFO: tree: /'
	case $(hcbsctl tree 2>&1) in
	*"units in hcbs.slice:"*"hcbs-demo-a.service"*"unit, fifo 80"*) pass "hcbsctl tree shows which reservations belong to units" ;;
	*) fail "hcbsctl tree does not show hcbs-demo-a.service as a unit's reservation" ;;
	esac
}

overcommit() {
	local before line
	before=$(units_ppm)
	if systemctl start hcbs-demo-c 2>/dev/null; then
		fail "hcbs-demo-c (30%) started beside 40% in a 50% pool"
	else
		pass "hcbs-demo-c (30%) is refused at start beside 40% in a 50% pool"
	fi
	line=$(journalctl -b -u hcbs-demo-c --no-pager -o cat | grep -m1 'hcbsctl:')
	info "journal: $line"
	case $line in
	*hcbs-demo-c.service*"needs 30.0%"*) pass "the unit's journal says why, with the numbers" ;;
	*) fail "no clear reason in hcbs-demo-c's journal: '$line'" ;;
	esac
	expect_eq "the refused start leaked nothing" "$(units_ppm)" "$before"
	not_listed hcbs-demo-c.service && pass "hcbs-demo-c holds no reservation" ||
		fail "hcbs-demo-c is listed after a refused start"
}

stop_and_fit() {
	systemctl stop hcbs-demo-b
	wait_for 5 not_listed hcbs-demo-b.service
	not_listed hcbs-demo-b.service && pass "stopping hcbs-demo-b gives its reservation back" ||
		fail "hcbs-demo-b still listed after stop"
	if systemctl start hcbs-demo-c; then
		pass "hcbs-demo-c fits once hcbs-demo-b stopped (20% + 30% = 50%)"
	else
		fail "hcbs-demo-c refused with 30% free"
	fi
	systemctl stop hcbs-demo-c
}

kill_nine() {
	systemctl kill -s KILL hcbs-demo-a
	wait_for 10 not_listed hcbs-demo-a.service
	not_listed hcbs-demo-a.service && pass "systemctl kill -s KILL: the reservation comes back" ||
		fail "hcbs-demo-a still holds a reservation after kill -9"
	expect_eq "hcbs-demo-a is no longer active" "$(systemctl is-active hcbs-demo-a)" failed
	systemctl reset-failed hcbs-demo-a 2>/dev/null
}

restart_policy() {
	local old new
	systemctl start hcbs-demo-r
	wait_for 5 is_rt hcbs-demo-r SCHED_FIFO
	old=$(main_pid hcbs-demo-r)
	if [ "${old:-0}" = 0 ]; then
		fail "hcbs-demo-r did not start: $(systemctl is-active hcbs-demo-r)"
		return
	fi
	kill -9 "$old"
	wait_for 15 sh -c "[ \"\$(systemctl show -p MainPID --value hcbs-demo-r)\" != $old ] && \
		[ \"\$(systemctl is-active hcbs-demo-r)\" = active ]"
	new=$(main_pid hcbs-demo-r)
	[ "$new" != "$old" ] && [ "$new" != 0 ] && pass "Restart=always started a new main process ($new)" ||
		fail "hcbs-demo-r did not restart (main pid $new)"
	wait_for 5 is_rt hcbs-demo-r SCHED_FIFO
	expect_eq "the restarted main process runs SCHED_FIFO" "$(policy_of "$new")" SCHED_FIFO
	expect_eq "hcbs-demo-r's reservation after the restart" "$(rt hcbs-demo-r)" 1000
	systemctl stop hcbs-demo-r
}

reload_drops_declaration() {
	systemctl start hcbs-demo-a
	listed hcbs-demo-a.service || fail "hcbs-demo-a did not get its reservation back"
	# the declaration goes away while the unit runs: its release step goes too
	sed -i '/^\[X-HCBS\]/,$d' /etc/systemd/system/hcbs-demo-a.service
	systemctl daemon-reload
	[ -e /run/systemd/generator/hcbs-demo-a.service.d/zz-hcbs.conf ] &&
		fail "the drop-in survived daemon-reload" || pass "daemon-reload removed hcbs-demo-a's drop-in"
	systemctl stop hcbs-demo-a
	wait_for 10 not_listed hcbs-demo-a.service
	not_listed hcbs-demo-a.service && pass "hcbsd gave the reservation back without a release step (JobRemoved)" ||
		fail "hcbs-demo-a's reservation leaked after daemon-reload and stop"
	cp "$HERE/units/hcbs-demo-a.service" /etc/systemd/system/
	systemctl daemon-reload
}

restart_hcbsd_keeps() {
	systemctl start hcbs-demo-a
	systemctl restart hcbsd.service || fail "systemctl restart hcbsd failed"
	if listed hcbs-demo-a.service; then
		pass "after restarting hcbsd, hcbs-demo-a's reservation is known again (GetUnitByControlGroup)"
	else
		fail "hcbsd forgot hcbs-demo-a's reservation across its restart"
	fi
	expect_eq "and the kernel still holds it" "$(rt hcbs-demo-a)" 2000
	systemctl stop hcbs-demo-a
}

# hcbsd's own groups (…/hcbsd.service/groups) draw from the same pool: its cgroup
# grows with them and shrinks back when they go.
api_groups_share_pool() {
	local own=$SLICE/hcbsd.service out
	systemctl start hcbs-demo-a
	if hcbsctl create vm 100ms 1s; then
		pass "hcbsctl create vm 100ms/1s under systemd"
	else
		fail "hcbsctl create vm failed"
	fi
	expect_eq "the group is in hcbsd's delegated cgroup" "$(rt_runtime $own/groups/vm)" 100000
	expect_eq "hcbsd.service grew to hold it" "$(rt_runtime $own)" 100000
	out=$(hcbsctl create big 300ms 1s 2>&1) && fail "a 30% group fit beside 20% + 10% in a 50% pool" ||
		pass "a 30% group does not fit beside the unit's 20% and vm's 10%"
	info "refusal: $out"
	case $out in
	*hcbs-demo-a.service*) pass "the refusal names the unit that holds the room" ;;
	*) fail "the refusal does not name hcbs-demo-a.service: $out" ;;
	esac
	hcbsctl delete vm || fail "hcbsctl delete vm failed"
	expect_eq "hcbsd.service shrinks back once the group is gone" "$(rt_runtime $own)" 0
	systemctl stop hcbs-demo-a
}

# Documented: hcbsd's own groups live in hcbsd.service's cgroup, so a restart
# kills what is attached to them; persistent groups come back.
api_groups_restart() {
	local pid
	hcbsctl create --persistent keep 50ms 1s || fail "hcbsctl create --persistent keep failed"
	sleep 1000 &
	pid=$!
	hcbsctl attach keep "$pid" --fifo 5 || fail "hcbsctl attach keep $pid failed"
	systemctl restart hcbsd.service
	sleep 0.5
	if kill -0 "$pid" 2>/dev/null; then
		fail "a process attached to an hcbsd group survived systemctl restart hcbsd"
		kill "$pid"
	else
		pass "systemctl restart hcbsd stops what was attached to its groups (KillMode=control-group)"
	fi
	wait "$pid" 2>/dev/null
	expect_eq "the persistent group is back after the restart" \
		"$(rt_runtime $SLICE/hcbsd.service/groups/keep)" 50000
	hcbsctl delete keep || fail "hcbsctl delete keep failed"
}

no_leak() {
	local u
	for u in $UNITS; do systemctl stop "$u" 2>/dev/null; systemctl reset-failed "$u" 2>/dev/null; done
	expect_eq "no unit holds bandwidth at the end" "$(units_ppm)" 0
	expect_eq "hcbsctl units is empty" "$(hcbsctl units --json 2>/dev/null | tr -d ' \n')" '[]'
	expect_eq "hcbs.slice shrank back to nothing" "$(rt_runtime $SLICE)" 0
}

# [X-HCBS] CPUs=1-1: AllowedCPUs=1 and reserve-unit --cpus 1 on a kernel whose reservations follow
# cpusets (rtmax v7); elsewhere reserve-unit refuses the list and the unit does not start.
pinned_unit() {
	local d=$SLICE/hcbs-demo-p.service line
	if [ ! -e "$SLICE/hcbsd.service/cpu.rt.max.effective.local" ]; then
		if systemctl start hcbs-demo-p 2>/dev/null; then
			fail "hcbs-demo-p (CPUs=1-1) started on a kernel whose reservations hold on every CPU"
			systemctl stop hcbs-demo-p
		else
			pass "hcbs-demo-p (CPUs=1-1) does not start on a kernel whose reservations hold on every CPU"
		fi
		line=$(journalctl -b -u hcbs-demo-p.service --no-pager 2>/dev/null | grep -m1 'no reservation')
		case $line in
		*"a CPU list needs a kernel whose reservations follow cpusets"*) pass "... its journal says why" ;;
		*) fail "hcbs-demo-p's journal has no reason: '$line'" ;;
		esac
		systemctl reset-failed hcbs-demo-p 2>/dev/null
		return
	fi
	systemctl start hcbs-demo-p || fail "systemctl start hcbs-demo-p failed"
	expect_eq "hcbs-demo-p (CPUs=1-1) is active" "$(systemctl is-active hcbs-demo-p)" active
	expect_eq "its cgroup's cpuset is CPU 1 (AllowedCPUs=)" "$(cat "$d/cpuset.cpus" 2>&1)" 1
	expect_eq "its reservation" "$(rt hcbs-demo-p)" 1000
	line=$(cat "$d/cpu.rt.max.effective.local" 2>&1 | tr '\n' ' ')
	case " $line" in
	*" 1 runtime=1000 period=10000 "*) pass "its server on CPU 1 runs 1ms every 10ms ($line)" ;;
	*) fail "cpu.rt.max.effective.local of hcbs-demo-p: $line" ;;
	esac
	case " $line" in
	*" 0 runtime=0 period=10000 "*) pass "... and the one on CPU 0 nothing" ;;
	*) fail "hcbs-demo-p has a server on CPU 0: $line" ;;
	esac
	wait_for 5 is_rt hcbs-demo-p SCHED_FIFO
	expect_eq "its main process runs SCHED_FIFO" "$(policy_of "$(main_pid hcbs-demo-p)")" SCHED_FIFO
	systemctl stop hcbs-demo-p
	wait_for 10 not_listed hcbs-demo-p.service
	not_listed hcbs-demo-p.service && pass "hcbs-demo-p gives its reservation back on stop" ||
		fail "hcbs-demo-p still listed after stop"
}

setup
check_generator
check_template_and_bad_value
start_two
overcommit
stop_and_fit
kill_nine
restart_policy
reload_drops_declaration
restart_hcbsd_keeps
api_groups_share_pool
api_groups_restart
pinned_unit
no_leak
