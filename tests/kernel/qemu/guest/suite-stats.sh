#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# hcbsd's BPF collector on our own kernels (BTF, tp_btf, task-local
# storage): the host's stats checks (tests/integration/test-stats.sh) again.
# A SCHED_FIFO task doing 1 ms of work every 10 ms in a 3ms/10ms group, a
# second group's task (500 us every 10 ms) and a SCHED_OTHER task in a
# cgroup hcbsd does not manage (100 us every 2 ms), side by side for 5 s:
# each group's RT CPU time within 5% of its task's /proc/PID/schedstat, its
# wakeups within 2% of the sleeps the task counted, and neither the other
# group's nor the stray task's events in it. Then what the kernel lets the
# collector count of its deadline servers: budget exhaustion per CPU on the
# HCBS kernels (hcbs, hcbs6, hcbs7), also for a group whose tasks preempt
# each other as its budget runs out; "not available on this kernel" on the
# stage-1 kernel (mainline RT groups). Binaries from HCBS_GUEST_BINS (hcbsd,
# hcbsctl, stats-load; hcbs-rtload for that group).
. /guest/lib.sh

ROOT=$CG/hcbs-stats
STATE=/tmp/hcbsd-stats-state
LOG=/tmp/hcbsd-stats.log
DAEMON=
PIDS=

for b in hcbsd hcbsctl stats-load; do
	if ! command -v $b >/dev/null; then
		skip "stats: $b is not in the initramfs (HCBS_GUEST_BINS)"
		exit 0
	fi
done

cleanup() {
	[ -n "$PIDS" ] && kill $PIDS 2>/dev/null && wait $PIDS 2>/dev/null
	PIDS=
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	DAEMON=
	for _d in $(find "$ROOT" "$CG/hcbs-stats-stray" -type d 2>/dev/null | sort -r); do
		for _p in $(cat "$_d/cgroup.procs" 2>/dev/null); do echo "$_p" > "$CG/cgroup.procs" 2>/dev/null; done
		if [ -e "$_d/cpu.rt.max" ]; then echo 0 > "$_d/cpu.rt.max"; else echo 0 > "$_d/cpu.rt_runtime_us"; fi 2>/dev/null
		rmdir "$_d" 2>/dev/null
	done
}

# json_num KEY TEXT: the first number of "KEY": in TEXT
json_num() {
	printf '%s\n' "$2" | grep -o "\"$1\": *[0-9]*" | head -1 | sed 's/.*: *//'
}
# field KEY FILE: KEY=N of stats-load's report
field() {
	tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"
}
# servers_of JSON: the "servers" array of GetStats' JSON (hcbsctl --json stats), on one line
servers_of() {
	printf '%s\n' "$1" | grep -o '"servers": *\[[^]]*\]' | tr -d ' \n'
}
# within NAME GOT WANT PERCENT
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; then
		pass "$1 ($2 vs $3, within $4%)"
	else
		fail "$1: $2 vs $3, not within $4%"
	fi
}

# preempted_exhaustion: a budget that runs out as a higher-priority task of
# the group wakes is one exhaustion. Since 6.12 the kernel picks the next
# task before it charges the previous one's run: without patch 0005's
# charge before a group server's pick, the waking task was picked under
# the server, switched in as the charge throttled it, and could be
# switched out again: two runnable switch-outs under one throttling (and
# set_next_task_rt() now warns, which fails the run). Group c, 2ms/10ms on
# CPU 0, runs a task of 20 us every 2 ms beside one of 200 ms every 200 ms
# that always has work, so the short one's wakeups preempt the long one,
# also as budgets run out (on hcbs6 with only 0005's warning, it fired in
# this check). Each exhaustion ends a budget the group started: at most
# one more than replenishments (the one begun before), and some, since the
# set needs more than its 20%.
preempted_exhaustion() {
	if ! command -v hcbs-rtload >/dev/null; then
		skip "stats: a budget that runs out as a task of its group preempts: hcbs-rtload is not in the initramfs (HCBS_GUEST_BINS)"
		return 0
	fi
	hcbsctl create c 2ms 10ms >/dev/null 2>&1 || { fail "stats: create c"; return 0; }
	if ! hcbsctl run c -- hcbs-rtload --cpu 0 --periods 3 20us:2ms 200ms:200ms >/tmp/stats-c.out 2>&1; then
		fail "stats: c's load failed: $(cat /tmp/stats-c.out)"
		return 0
	fi
	_jc=$(hcbsctl --json stats c 2>&1)
	info "stats: c: $(tr '\n' ' ' </tmp/stats-c.out) $(servers_of "$_jc")"
	_e=$(json_num exhaustions "$_jc") _r=$(json_num replenishments "$_jc")
	if [ "${_e:-0}" -gt 0 ] && [ "$_e" -le $((${_r:-0} + 1)) ]; then
		pass "stats: a budget that runs out as a task of its group preempts is counted once (c: $_r budgets, $_e exhaustions)"
	else
		fail "stats: c: exhaustions ${_e:-?}, replenishments ${_r:-?} (expected more than 0, and at most one more than replenishments): $(servers_of "$_jc")"
	fi
}

guest_system_bus stats || exit 0
printf '[Manager]\nCapacity=80%%\n' > /tmp/hcbsd-stats.conf
hcbsd --cgroup-root="$ROOT" --config=/tmp/hcbsd-stats.conf --config-dir=/tmp/none \
	--state-dir="$STATE" --no-notify >>"$LOG" 2>&1 &
DAEMON=$!
guest_wait_hcbsd
OUT=$(hcbsctl status 2>&1)
if printf '%s\n' "$OUT" | grep -Eq '^Stats backend: +bpf$'; then
	pass "stats: hcbsd reports 'Stats backend: bpf' on KERNEL=$HCBS_KERNEL"
else
	fail "stats: hcbsd does not report the bpf backend: $(printf '%s\n' "$OUT" | grep 'Stats backend') $(tail -3 "$LOG" | tr '\n' '|')"
	cleanup
	exit 0
fi
info "stats: $(grep -o 'Statistics from the BPF collector.*' "$LOG" | head -1)"

hcbsctl create a 3ms 10ms >/dev/null 2>&1 || fail "stats: create a"
hcbsctl create b 3ms 10ms >/dev/null 2>&1 || fail "stats: create b"
mkdir -p "$CG/hcbs-stats-stray"
sh -c "echo \$\$ > $CG/hcbs-stats-stray/cgroup.procs && exec stats-load 2500 100 2000" >/tmp/stats-stray.out 2>&1 &
S=$!
hcbsctl run a --fifo 50 -- stats-load 500 1000 10000 >/tmp/stats-a.out 2>&1 &
A=$!
hcbsctl run b --fifo 40 -- stats-load 500 500 10000 >/tmp/stats-b.out 2>&1 &
B=$!
PIDS="$S $A $B"
wait $A; rc_a=$?
wait $B; rc_b=$?
wait $S; rc_s=$?
PIDS=
if [ "$rc_a$rc_b$rc_s" != 000 ]; then
	fail "stats: the loads failed: a $rc_a $(cat /tmp/stats-a.out), b $rc_b, stray $rc_s $(cat /tmp/stats-stray.out)"
	cleanup
	exit 0
fi
JA=$(hcbsctl --json stats a 2>&1)
JB=$(hcbsctl --json stats b 2>&1)
info "stats: a: $(cat /tmp/stats-a.out) collector: rt_time_ns=$(json_num rt_time_ns "$JA") wakeups=$(json_num wakeups "$JA") p99=$(json_num latency_p99_ns "$JA") max=$(json_num latency_max_ns "$JA") latency_count=$(json_num latency_count "$JA") task_drops=$(json_num task_drops "$JA")"
info "stats: b: $(cat /tmp/stats-b.out) collector: rt_time_ns=$(json_num rt_time_ns "$JB") wakeups=$(json_num wakeups "$JB")"
within "stats: a's RT CPU time matches its schedstat" "$(json_num rt_time_ns "$JA")" "$(field schedstat_ns /tmp/stats-a.out)" 5
within "stats: a's wakeups match its sleeps" "$(json_num wakeups "$JA")" "$(field sleeps /tmp/stats-a.out)" 2
within "stats: a's latency histogram holds its wakeups" "$(json_num latency_count "$JA")" "$(json_num wakeups "$JA")" 2
within "stats: b's RT CPU time matches its schedstat (b's task is not in a)" "$(json_num rt_time_ns "$JB")" "$(field schedstat_ns /tmp/stats-b.out)" 5
within "stats: b's wakeups match its sleeps" "$(json_num wakeups "$JB")" "$(field sleeps /tmp/stats-b.out)" 2
within "stats: the stray task is counted nowhere (a + b wakeups = their sleeps)" \
	$(($(json_num wakeups "$JA") + $(json_num wakeups "$JB"))) \
	$(($(field sleeps /tmp/stats-a.out) + $(field sleeps /tmp/stats-b.out))) 2
if [ "$(json_num task_drops "$JA")" = 0 ]; then pass "stats: a lost no event"; else fail "stats: a lost $(json_num task_drops "$JA") events"; fi

# budget exhaustion: what this kernel has
if is_hcbs; then
	if printf '%s\n' "$JA" | grep -q '"servers": *\['; then
		pass "stats: the collector reads a's per-CPU deadline servers on KERNEL=$HCBS_KERNEL ($(servers_of "$JA"))"
	else
		fail "stats: no per-CPU server figures on KERNEL=$HCBS_KERNEL: $JA"
	fi
	# a budget runs out at most once: exhaustions <= replenishments (the proof of when they
	# happen is suite-sizing.sh's; under TCG a's 1 ms jobs can take longer than its 3 ms)
	_e=$(json_num exhaustions "$JA") _r=$(json_num replenishments "$JA")
	if [ -n "$_e" ] && [ "${_r:-0}" -gt 0 ] && [ "$_e" -le $((_r + 1)) ]; then
		pass "stats: a started $_r budgets and ran out of $_e"
	else
		fail "stats: a: exhaustions ${_e:-?}, replenishments ${_r:-?} (expected at most one more than replenishments, which are more than 0)"
	fi
	OUT=$(hcbsctl stats a --per-cpu 2>&1)
	_rows=$(printf '%s\n' "$OUT" | awk '$1 == "a" { n += $3 } END { print n + 0 }')
	if [ "$_rows" = "$_e" ]; then
		pass "stats: hcbsctl stats --per-cpu shows a's servers, $_e exhaustions in all"
	else
		fail "stats: hcbsctl stats a --per-cpu ($_rows exhaustions) against GetStats ($_e): $OUT"
	fi
	preempted_exhaustion
else
	if printf '%s\n' "$JA" | grep -q '"servers_unavailable": *"not available on this kernel'; then
		pass "stats: budget exhaustion is 'not available on this kernel' on KERNEL=$HCBS_KERNEL (mainline RT groups)"
	else
		fail "stats: KERNEL=$HCBS_KERNEL: expected servers_unavailable: $JA"
	fi
fi

# what a user sees (docs/stats.md, README): the table and the per-CPU view
{ hcbsctl stats; hcbsctl stats a --per-cpu; } 2>&1 | while IFS= read -r _l; do info "stats: | $_l"; done
info "hcbsd log: $(tail -5 "$LOG" | tr '\n' '|')"
cleanup
exit 0
