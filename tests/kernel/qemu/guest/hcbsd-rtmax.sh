# SPDX-License-Identifier: LGPL-2.1-or-later
# /guest/hcbsd-rtmax.sh — hcbsd's scenarios on KERNEL=hcbs6 and hcbs7 (interface rtmax: one cpu.rt.max
# file, "max" groups, no leaf-only rule; hcbs7's devel-v7 files: reservations follow cpusets, admission
# per CPU). Sourced by suite-hcbsd.sh with the daemon running; uses its ctl_is, match, policy_of,
# $ROOT, $OUT, $ERR, $LOG.

match "hcbsd's root holds the capacity as a reservation" "^[0-9]+ [0-9]+$" "$(cat "$ROOT/cpu.rt.max")"
ctl_is "create media" 0 create media 20ms 100ms
expect_value "media: cpu.rt.max" "$ROOT/media/cpu.rt.max" "20000 100000"
ctl_is "create a group without a reservation" 0 create tenants max
expect_value "tenants: cpu.rt.max is max" "$ROOT/tenants/cpu.rt.max" "max 0"
ctl_is "list" 0 list
match "list shows tenants as max" "^tenants +max " "$OUT"
ctl_is "create tenants/a" 0 create tenants/a 10ms 100ms
expect_value "tenants/a: cpu.rt.max" "$ROOT/tenants/a/cpu.rt.max" "10000 100000"
ctl_is "tree" 0 tree
match "tree shows tenants as max" "tenants +max" "$OUT"
# 80% capacity - 20% media - 10% tenants/a: a 60% grandchild through max does not fit
ctl_is "a reservation below max counts against hcbsd's root" 1 create tenants/b 60ms 100ms
match "... saying so (v7: on the CPU that is short)" "needs 60\\.0% (per CPU|on CPU 0)" "$ERR"
ctl_is "create tenants/b 40ms" 0 create tenants/b 40ms 100ms
ctl_is "runtime above the period refused" 2 create tenants/c 110ms 100ms

sleep 600 &
P=$!
ORIG=$(cat /proc/$P/cgroup)
ctl_is "attach a real process to tenants/a, FIFO 10" 0 attach tenants/a "$P" --fifo 10
match "it is SCHED_FIFO 10" "^fifo 10$" "$(policy_of "$P")"
ctl_is "max refused while an RT task runs there" 1 set tenants/a max
ctl_is "runtime 0 refused while an RT task runs" 1 set tenants/a 0 100ms
expect_value "tenants/a unchanged" "$ROOT/tenants/a/cpu.rt.max" "10000 100000"
ctl_is "detach" 0 detach "$P"
match "detach: back where it came from" "^$ORIG$" "$(cat /proc/$P/cgroup)"
ctl_is "then tenants/a may become max" 0 set tenants/a max
expect_value "tenants/a: max, period kept" "$ROOT/tenants/a/cpu.rt.max" "max 100000"
ctl_is "an RT process in a max group runs on its context (hcbsd's root)" 0 attach tenants/a "$P" --fifo 10
match "it is SCHED_FIFO 10 there" "^fifo 10$" "$(policy_of "$P")"
ctl_is "detach again" 0 detach "$P"
kill "$P"
ctl_is "delete tenants/a" 0 delete tenants/a
ctl_is "delete tenants/b" 0 delete tenants/b
ctl_is "delete tenants" 0 delete tenants
ctl_is "delete media" 0 delete media
[ -d "$ROOT/tenants" ] && fail "tenants still exists" || pass "groups removed from the kernel"

# A group's CPUs: only where reservations follow cpusets (devel-v7's cpu.rt.max.effective.local)
if [ -e "$ROOT/cpu.rt.max.effective.local" ]; then
	match "hcbsd takes the revision 7 rules" "revision 7: reservations follow cpusets" "$(cat "$LOG")"
	if ! grep -qw cpuset "$CG/cgroup.controllers"; then
		fail "rtmax v7 without the cpuset controller (CONFIG_CPUSETS): no CPU lists to check"
	else
	ctl_is "create arm on CPU 1" 0 create arm 20ms 100ms --cpus 1
	expect_value "arm: cpuset.cpus" "$ROOT/arm/cpuset.cpus" "1"
	expect_value "arm: cpu.rt.max" "$ROOT/arm/cpu.rt.max" "20000 100000"
	EFF=$(cat "$ROOT/arm/cpu.rt.max.effective.local")
	match "arm's server on CPU 1 runs its 20ms" "^1 runtime=20000 period=100000$" "$EFF"
	match "... and the one on CPU 0 nothing" "^0 runtime=0 period=100000$" "$EFF"
	ctl_is "list" 0 list
	match "list shows arm's CPUs" "^arm .* 1$" "$OUT"
	ctl_is "show arm" 0 show arm
	match "show gives them" "^CPUs: +1 \(effective 1\)$" "$OUT"
	ctl_is "tree" 0 tree
	match "tree gives them" "arm .*cpus 1" "$OUT"
	# 80% a CPU: arm's 20% leaves 60% on CPU 1
	ctl_is "leg 70% on CPU 1 is refused" 1 create leg 70ms 100ms --cpus 1
	match "... naming the CPU that is short" "leg needs 70\.0% on CPU 1; hcbsd's root has 60\.0% free there" "$ERR"
	[ -d "$ROOT/leg" ] && fail "the refused leg was left behind" || pass "the refused leg was not made"
	ctl_is "leg 70% on CPU 0 fits" 0 create leg 70ms 100ms --cpus 0
	expect_write "the kernel refuses arm's cpuset while arm holds a reservation" "$ROOT/arm/cpuset.cpus" 0 EINVAL
	ctl_is "arm on CPUs 0-1 is short on CPU 0" 1 set arm 20ms 100ms --cpus 0-1
	match "... saying so" "needs 20\.0% on CPU 0" "$ERR"
	expect_value "arm keeps its CPUs" "$ROOT/arm/cpuset.cpus" "1"
	expect_value "... and its reservation" "$ROOT/arm/cpu.rt.max" "20000 100000"
	ctl_is "leg shrinks to 50%" 0 set leg 50ms 100ms
	ctl_is "arm moves to CPUs 0-1 (max, cpuset, reservation)" 0 set arm 20ms 100ms --cpus 0-1
	expect_value "arm: cpuset.cpus" "$ROOT/arm/cpuset.cpus" "0-1"
	match "arm's server on CPU 0 runs its 20ms now" "^0 runtime=20000 period=100000$" \
		"$(cat "$ROOT/arm/cpu.rt.max.effective.local")"
	sleep 600 &
	P=$!
	ctl_is "an RT process in arm" 0 attach arm "$P" --fifo 10
	ctl_is "arm's CPUs cannot change while it runs" 1 set arm 20ms 100ms --cpus 1
	match "... saying why" "RT tasks run in arm" "$ERR"
	expect_value "arm keeps its CPUs" "$ROOT/arm/cpuset.cpus" "0-1"
	ctl_is "detach" 0 detach "$P"
	kill "$P"
	ctl_is "delete leg" 0 delete leg
	ctl_is "delete arm" 0 delete arm
	fi
else
	ctl_is "a CPU list is refused on v6" 1 create arm 20ms 100ms --cpus 0
	match "... saying why" "a CPU list needs a kernel whose reservations follow cpusets" "$ERR"
fi

# kernel.sched_rt_runtime_us = -1 (tuned's realtime profile): hcbsd says admission means nothing then
stop_daemon
_old_rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
if echo -1 > /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null; then
	_saved_log=$LOG
	LOG=/tmp/hcbsd-rt-1.log
	: > "$LOG"
	if start_daemon; then
		match "hcbsd warns at start when sched_rt_runtime_us is -1" "sched_rt_runtime_us is -1" "$(cat "$LOG")"
		stop_daemon
	fi
	LOG=$_saved_log
	echo "$_old_rt" > /proc/sys/kernel/sched_rt_runtime_us || fail "cannot restore sched_rt_runtime_us $_old_rt"
else
	skip "sched_rt_runtime_us -1: the kernel refused the write"
fi
start_daemon
