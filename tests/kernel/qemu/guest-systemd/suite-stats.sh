#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsd.service's BPF collector under systemd, on our kernel:
#  - hcbsd reports 'Stats backend: bpf' (the unit's CAP_BPF and CAP_PERFMON,
#    the kernel's BTF);
#  - the host's stats checks: a SCHED_FIFO task doing 1 ms every 10 ms in a
#    3ms/10ms group and a second group's task (500 us every 10 ms) side by
#    side for 5 s: each group's RT CPU time within 5% of its task's
#    /proc/PID/schedstat, its wakeups within 2% of the task's sleeps, and
#    neither group's events in the other;
#  - cyclictest (Debian's rt-tests, a tool nobody here wrote): one
#    SCHED_FIFO thread every 1 ms for 5 s in a reservation, pinned to CPU 0
#    beside a SCHED_FIFO-99 hog in the root group there; the collector's
#    wakeup-to-run latency of the group against cyclictest's timer-to-user
#    latency of the same wakeups (latency-compare.sh states the relation and
#    prints both).

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for g in sa sb cyc; do hcbsctl delete "$g" >/dev/null 2>&1; done
}
trap cleanup EXIT

json_num() { grep -o "\"$1\": *[0-9]*" <<<"$2" | head -1 | sed 's/.*: *//'; }
field() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; then
		pass "$1 ($2 vs $3, within $4%)"
	else
		fail "$1: $2 vs $3, not within $4%"
	fi
}

OUT=$(hcbsctl status 2>&1)
if grep -Eq '^Stats backend: +bpf$' <<<"$OUT"; then
	pass "hcbsd.service reports 'Stats backend: bpf' on KERNEL=$HCBS_KERNEL"
else
	fail "hcbsd.service has no BPF collector: $(grep 'Stats backend' <<<"$OUT")"
	exit 0
fi
info "$(journalctl -b -u hcbsd.service -o cat 2>/dev/null | grep -o 'Statistics from the BPF collector.*' | head -1)"

# --- the host's checks ------------------------------------------------------------
# once outside the groups first: the first exec reads the binary from the disk, and the
# wakeups of that I/O would be counted in the group, but not by the load's own sleeps
stats-load 1 1 1000 >/dev/null
hcbsctl create sa 3ms 10ms >/dev/null && hcbsctl create sb 3ms 10ms >/dev/null || fail "create sa, sb"
hcbsctl run sa --fifo 50 -- stats-load 500 1000 10000 >/tmp/stats-sa.out 2>&1 &
A=$!
hcbsctl run sb --fifo 40 -- stats-load 500 500 10000 >/tmp/stats-sb.out 2>&1 &
B=$!
wait "$A"; rc_a=$?
wait "$B"; rc_b=$?
if [ "$rc_a$rc_b" != 00 ]; then
	fail "the loads failed: sa $rc_a $(cat /tmp/stats-sa.out), sb $rc_b $(cat /tmp/stats-sb.out)"
else
	JA=$(hcbsctl --json stats sa)
	JB=$(hcbsctl --json stats sb)
	info "sa: $(cat /tmp/stats-sa.out) collector: rt_time_ns=$(json_num rt_time_ns "$JA") wakeups=$(json_num wakeups "$JA") p99=$(json_num latency_p99_ns "$JA") max=$(json_num latency_max_ns "$JA")"
	info "sb: $(cat /tmp/stats-sb.out) collector: rt_time_ns=$(json_num rt_time_ns "$JB") wakeups=$(json_num wakeups "$JB")"
	within "sa's RT CPU time matches its schedstat" "$(json_num rt_time_ns "$JA")" "$(field schedstat_ns /tmp/stats-sa.out)" 5
	within "sa's wakeups match its sleeps" "$(json_num wakeups "$JA")" "$(field sleeps /tmp/stats-sa.out)" 2
	within "sb's RT CPU time matches its schedstat (sb's task is not in sa)" "$(json_num rt_time_ns "$JB")" "$(field schedstat_ns /tmp/stats-sb.out)" 5
	within "sb's wakeups match its sleeps" "$(json_num wakeups "$JB")" "$(field sleeps /tmp/stats-sb.out)" 2
fi
hcbsctl delete sa >/dev/null 2>&1
hcbsctl delete sb >/dev/null 2>&1

# --- cyclictest against the collector, beside a root hog -------------------------------
if ! command -v cyclictest >/dev/null; then
	fail "cyclictest is not installed (rt-tests is in the harness's ROOTFS_PACKAGES)"
	exit 0
fi
cyclictest --help >/dev/null 2>&1 # from the disk into the page cache, as stats-load above
hcbsctl create cyc 2ms 10ms >/dev/null || fail "create cyc"
spin -c 0 -p 99 60 >/dev/null 2>&1 &
HOG=$!
PIDS+=("$HOG")
sleep 0.5
hcbsctl run cyc -- cyclictest -t1 -p 80 -i 1000 -l 5000 -h 5000 -q -m -a 0 --mainaffinity=1 >/tmp/cyc.out 2>&1
rc=$?
kill "$HOG" 2>/dev/null
wait "$HOG" 2>/dev/null
if [ $rc != 0 ]; then
	fail "cyclictest in cyc failed ($rc): $(tail -3 /tmp/cyc.out)"
	exit 0
fi
hcbsctl --json stats cyc >/tmp/cyc.json
OUT=$(latency-compare.sh /tmp/cyc.out /tmp/cyc.json)
rc=$?
while IFS= read -r l; do info "cyclictest vs collector ($HCBS_KERNEL guest, FIFO-99 hog on CPU 0): $l"; done <<<"$OUT"
if [ $rc = 0 ]; then
	pass "the collector's wakeup latency is within cyclictest's for the same wakeups (p50 to p99.9, max), beside a FIFO-99 root hog"
else
	fail "collector against cyclictest: $(tail -1 <<<"$OUT")"
fi
exit 0
