#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The HCBS guarantee under load: a SCHED_FIFO-99 hog in the root group
# cannot starve a 10ms/100ms group's SCHED_FIFO task on the same CPU.
# Mainline RT group scheduling (KERNEL=v2) gives no such guarantee.
. /guest/lib.sh

if ! is_hcbs; then
	skip "guarantee under a root hog: HCBS only (this is KERNEL=$HCBS_KERNEL)"
	exit 0
fi

G=$CG/hcbs-guarantee
WINDOW=5
sched_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }

grep -q cpu "$CG/cgroup.subtree_control" || echo +cpu > "$CG/cgroup.subtree_control"
mkdir "$G" || { fail "mkdir $G"; exit 0; }
if is_rtmax; then
	expect_write "guarantee group 10ms/100ms" "$G/cpu.rt.max" "10000 100000" OK
else
	expect_write "guarantee group period 100ms" "$G/cpu.rt_period_us" 100000 OK
	expect_write "guarantee group runtime 10ms" "$G/cpu.rt_runtime_us" 10000 OK
fi

spin -c 0 -p 99 30 > /tmp/hog.out 2>&1 &
HOG=$!
sh -c 'echo $$ > "$0/cgroup.procs" && exec spin -c 0 -p 10 30' "$G" > /tmp/grp.out 2>&1 &
GRP=$!
sleep 1

for try in 1 2; do
	t1=$(spin -t); h1=$(sched_ns $HOG); g1=$(sched_ns $GRP)
	sleep $WINDOW
	t2=$(spin -t); h2=$(sched_ns $HOG); g2=$(sched_ns $GRP)
	hog=$(( (h2 - h1) * 1000 / (t2 - t1) ))
	grp=$(( (g2 - g1) * 1000 / (t2 - t1) ))
	[ $((grp - 100)) -le 20 ] && [ $((100 - grp)) -le 20 ] && break
	[ $try = 1 ] && info "guarantee: window 1 gave group $grp permille: measuring again"
done
info "guarantee: CPU 0 over ${WINDOW}s: root hog $((hog / 10)).$((hog % 10))%, 10ms/100ms group $((grp / 10)).$((grp % 10))%"
if [ $((grp - 100)) -le 20 ] && [ $((100 - grp)) -le 20 ]; then
	pass "a SCHED_FIFO-99 root hog cannot starve the 10ms/100ms group: it got $((grp / 10)).$((grp % 10))% (want 10% ±2)"
else
	fail "the 10ms/100ms group got $((grp / 10)).$((grp % 10))% beside a root hog (want 10% ±2)"
fi
kill $HOG $GRP 2>/dev/null
wait $HOG $GRP 2>/dev/null
rmdir "$G" 2>/dev/null || info "cleanup: rmdir $G failed"
exit 0
