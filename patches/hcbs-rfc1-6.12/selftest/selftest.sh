#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh — in-guest checks of the HCBS RFC v1 port (busybox sh, run as
# PID 1's child by the initramfs that selftest/run.sh builds).  Needs
# /bin/hcbst (hcbst.c) and 2 CPUs; CPU 1 is used for the bandwidth checks.
# Prints PASS:/FAIL:/INFO: lines and, last, "HCBS-SELFTEST-RESULT: N passed,
# M failed".  "hcbs.nostress" on the kernel command line skips the stress part.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
CG=/sys/fs/cgroup
P=0; F=0
ok()   { P=$((P+1)); echo "PASS: $*"; }
bad()  { F=$((F+1)); echo "FAIL: $*"; }
info() { echo "INFO: $*"; }
w()    { hcbst w "$1" "$2"; }
# ew NAME FILE VALUE EXPECTED
ew() { _g=$(w "$2" "$3"); if [ "$_g" = "$4" ]; then ok "$1 (echo $3 > ${2#$CG/} -> $_g)"; else bad "$1 (echo $3 > ${2#$CG/}: want $4 got $_g)"; fi; }
ev() { _g=$(cat "$2"); if [ "$_g" = "$3" ]; then ok "$1 (${2#$CG/} = $_g)"; else bad "$1 (${2#$CG/}: want $3 got $_g)"; fi; }
rt() { echo "$(cat $1/cpu.rt_runtime_us)/$(cat $1/cpu.rt_period_us)"; }
# in_group DIR CMD...: run CMD moved into cgroup DIR (procs) first
in_group() { _d=$1; shift; sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$_d" "$@"; }
# range NAME VALUE LO HI
range() { if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2 permille, want $3..$4)"; else bad "$1 ($2 permille, want $3..$4)"; fi; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t cgroup2 cgroup2 $CG || bad "mount cgroup2"
echo "HCBS-SELFTEST: start, kernel $(uname -r), $(nproc) cpus"
info "cmdline: $(cat /proc/cmdline)"
ew "enable +cpu at the root" $CG/cgroup.subtree_control +cpu OK

# ---------------------------------------------------------------- files
[ -f $CG/cpu.rt_runtime_us ] && [ -f $CG/cpu.rt_period_us ] && ok "root has cpu.rt_runtime_us and cpu.rt_period_us" || bad "root rt files missing"
ev "root runtime defaults to 0 (rfc1)" $CG/cpu.rt_runtime_us 0
ev "root period defaults to the global period" $CG/cpu.rt_period_us 1000000
ls /sys/fs/cgroup | grep -q rt_ && info "root files: $(ls $CG | grep rt_ | tr '\n' ' ')"

mkdir $CG/g
ev "new group period 0" $CG/g/cpu.rt_period_us 0
ev "new group runtime 0" $CG/g/cpu.rt_runtime_us 0
ew "runtime write while the period is 0" $CG/g/cpu.rt_runtime_us 10000 EINVAL
ew "period 0" $CG/g/cpu.rt_period_us 0 EINVAL

# ---------------------------------------------------------------- root reserve
# With root runtime 0 every write walks the root, which has RT tasks (migration/N) -> EBUSY
ew "child period while root runtime is 0 (root has RT kthreads)" $CG/g/cpu.rt_period_us 100000 EBUSY
ew "root runtime 950000 (does not fit beside the 2 fair servers' 5%)" $CG/cpu.rt_runtime_us 950000 EBUSY
ew "root runtime 900000" $CG/cpu.rt_runtime_us 900000 OK
ev "root runtime reads back" $CG/cpu.rt_runtime_us 900000
ew "root runtime back to 0 (root holds RT tasks)" $CG/cpu.rt_runtime_us 0 EBUSY
ew "root runtime > root period" $CG/cpu.rt_runtime_us 1000001 EINVAL

# SCHED_DEADLINE tasks and the root reservation share the DL admission limit
# (95% per CPU, minus the fair servers' 5%): root 90% leaves no room.
g=$(hcbst dl 10000 100000 0)
[ "$g" = "dl=EBUSY" ] && ok "SCHED_DEADLINE 10ms/100ms task with the root reserving 90%: EBUSY" || bad "SCHED_DEADLINE beside root 90%: want dl=EBUSY got $g"
ew "root runtime 800000" $CG/cpu.rt_runtime_us 800000 OK
hcbst dl 10000 100000 3 > /tmp/dl.out &
DL=$!
sleep 1
g=$(cat /tmp/dl.out)
[ "$g" = "dl=OK" ] && ok "SCHED_DEADLINE 10ms/100ms task with the root reserving 80%: admitted" || bad "SCHED_DEADLINE beside root 80%: want dl=OK got $g"
ew "root runtime back to 90% while a SCHED_DEADLINE task holds 10%" $CG/cpu.rt_runtime_us 900000 EBUSY
ew "root runtime 85% beside the SCHED_DEADLINE task" $CG/cpu.rt_runtime_us 850000 OK
wait $DL
# a dead SCHED_DEADLINE task gives its bandwidth back at its 0-lag time
# (inactive timer), up to one period after it exits
r=$(w $CG/cpu.rt_runtime_us 900000); n=0
while [ "$r" = EBUSY ] && [ $n -lt 20 ]; do sleep 0.1; r=$(w $CG/cpu.rt_runtime_us 900000); n=$((n+1)); done
[ "$r" = OK ] && ok "root runtime back to 90% once the SCHED_DEADLINE task has exited ($n retries of 100 ms)" || bad "root back to 90% after the DL task: $r"

# ---------------------------------------------------------------- single group rules
ew "period 100ms" $CG/g/cpu.rt_period_us 100000 OK
ew "runtime 1us (< 1024 ns)" $CG/g/cpu.rt_runtime_us 1 EINVAL
ew "runtime > period" $CG/g/cpu.rt_runtime_us 100001 EINVAL
ew "runtime above the global 95%" $CG/g/cpu.rt_runtime_us 96000 EINVAL
ew "runtime -1 (unlimited)" $CG/g/cpu.rt_runtime_us -1 EINVAL
ew "period with MSB set (2^63 us overflows ns)" $CG/g/cpu.rt_period_us 9223372036854775808 EINVAL
ew "period 9223372036854776 us (in ns the MSB is set)" $CG/g/cpu.rt_period_us 9223372036854776 EINVAL
ew "period 18446744073709552 us (> U64_MAX ns)" $CG/g/cpu.rt_period_us 18446744073709552 EINVAL
ew "runtime 2us (>= 1024 ns)" $CG/g/cpu.rt_runtime_us 2 OK
ew "runtime 10ms" $CG/g/cpu.rt_runtime_us 10000 OK
ev "runtime reads back" $CG/g/cpu.rt_runtime_us 10000
ev "period reads back" $CG/g/cpu.rt_period_us 100000

# ---------------------------------------------------------------- sibling sum vs root reserve
mkdir $CG/g2
ew "sibling period" $CG/g2/cpu.rt_period_us 100000 OK
ew "siblings 10%+81% > root 90%" $CG/g2/cpu.rt_runtime_us 81000 EINVAL
ew "siblings 10%+80% = root 90%" $CG/g2/cpu.rt_runtime_us 80000 OK
ew "root shrink below its children (80%)" $CG/cpu.rt_runtime_us 800000 EINVAL
ew "sibling runtime back to 0" $CG/g2/cpu.rt_runtime_us 0 OK
ew "root shrink to 80% now fits" $CG/cpu.rt_runtime_us 800000 OK
ew "root back to 90%" $CG/cpu.rt_runtime_us 900000 OK
rmdir $CG/g2 && ok "rmdir sibling" || bad "rmdir sibling"

# ---------------------------------------------------------------- RT tasks and runtime 0
mkdir $CG/z
ew "zero group period" $CG/z/cpu.rt_period_us 100000 OK
out=$(in_group $CG/z hcbst spin 1 10 0 0 0.1)
case "$out" in *setscheduler=EPERM*) ok "sched_setscheduler(FIFO) in a runtime-0 group: EPERM";; *) bad "sched_setscheduler(FIFO) in a runtime-0 group: $out";; esac
hcbst sleepfifo 10 30 > /tmp/sf.out &
SF=$!
sleep 1
info "$(cat /tmp/sf.out)"
ew "attach a SCHED_FIFO task to a runtime-0 group" $CG/z/cgroup.procs $SF EINVAL
ew "attach the same SCHED_FIFO task to a 10ms/100ms group" $CG/g/cgroup.procs $SF OK
ew "runtime -> 0 while the group holds a (sleeping) RT task" $CG/g/cpu.rt_runtime_us 0 EBUSY
ew "runtime 10ms -> 5ms with an RT task" $CG/g/cpu.rt_runtime_us 5000 OK
ew "runtime 5ms -> 10ms with an RT task" $CG/g/cpu.rt_runtime_us 10000 OK
ew "SCHED_FIFO task back to the root" $CG/cgroup.procs $SF OK
ew "runtime -> 0 after the RT task left" $CG/g/cpu.rt_runtime_us 0 OK
ew "runtime back to 10ms" $CG/g/cpu.rt_runtime_us 10000 OK
kill $SF 2>/dev/null; wait $SF 2>/dev/null

# ---------------------------------------------------------------- bandwidth: spinner vs root hog
mkdir $CG/g30
ew "30ms/100ms group period" $CG/g30/cpu.rt_period_us 100000 OK
ew "30ms/100ms group runtime" $CG/g30/cpu.rt_runtime_us 30000 OK
hcbst spin 1 99 1 5 7 > /tmp/hog.out &
HOG=$!
in_group $CG/g hcbst spin 1 50 1 5 7 > /tmp/s10.out &
S10=$!
in_group $CG/g30 hcbst spin 1 50 1 5 7 > /tmp/s30.out &
S30=$!
sleep 3
ew "runtime -> 0 while a FIFO spinner runs in the group" $CG/g/cpu.rt_runtime_us 0 EBUSY
wait $HOG $S10 $S30
info "hog (root, FIFO 99, cpu1): $(cat /tmp/hog.out)"
info "g 10ms/100ms (FIFO 50, cpu1): $(cat /tmp/s10.out)"
info "g30 30ms/100ms (FIFO 50, cpu1): $(cat /tmp/s30.out)"
pm() { _v=$(sed -n 's/.*permille=\([0-9-]*\).*/\1/p' $1 2>/dev/null); echo ${_v:-0}; }
range "FIFO spinner in 10ms/100ms group beside a FIFO-99 root hog gets ~10%" "$(pm /tmp/s10.out)" 85 115
range "FIFO spinner in 30ms/100ms group beside a FIFO-99 root hog gets ~30%" "$(pm /tmp/s30.out)" 270 330
range "root FIFO-99 hog gets the rest (~60%, minus the fair server)" "$(pm /tmp/hog.out)" 500 640

# spinner alone in the group (no hog): still capped at its reservation
in_group $CG/g hcbst spin 1 50 1 3 4 > /tmp/s10b.out
info "g alone: $(cat /tmp/s10b.out)"
range "FIFO spinner alone in 10ms/100ms group is capped at ~10%" "$(pm /tmp/s10b.out)" 85 115
# root FIFO task alone: not throttled by the root's files (fair server only)
hcbst spin 1 50 1 3 4 > /tmp/root.out
info "root alone: $(cat /tmp/root.out)"
range "FIFO spinner in the root group alone is not limited by cpu.rt_runtime_us" "$(pm /tmp/root.out)" 900 1000

rmdir $CG/g30 && ok "rmdir g30" || bad "rmdir g30"

# ---------------------------------------------------------------- deeper hierarchy (seed 010)
mkdir $CG/p
ew "parent p period" $CG/p/cpu.rt_period_us 100000 OK
ew "parent p runtime 40%" $CG/p/cpu.rt_runtime_us 40000 OK
ew "+cpu below p" $CG/p/cgroup.subtree_control +cpu OK
mkdir $CG/p/c1 $CG/p/c2 && ok "mkdir nested groups (depth 2 allowed after seed 010)" || bad "mkdir nested groups"
ew "c1 period" $CG/p/c1/cpu.rt_period_us 100000 OK
ew "c1 runtime 30%" $CG/p/c1/cpu.rt_runtime_us 30000 OK
ew "c2 period" $CG/p/c2/cpu.rt_period_us 100000 OK
ew "c2 runtime 20% (children 50% > parent 40%)" $CG/p/c2/cpu.rt_runtime_us 20000 EINVAL
ew "c2 runtime 10% (children 40% = parent)" $CG/p/c2/cpu.rt_runtime_us 10000 OK
ew "parent p below its children's sum" $CG/p/cpu.rt_runtime_us 30000 EINVAL
mkdir $CG/p/c1/d
ew "+cpu below c1" $CG/p/c1/cgroup.subtree_control +cpu OK
ew "depth 3: d period" $CG/p/c1/d/cpu.rt_period_us 100000 OK
ew "depth 3: d runtime 30% (= c1)" $CG/p/c1/d/cpu.rt_runtime_us 30000 OK
ew "depth 3: d runtime 31% (> c1)" $CG/p/c1/d/cpu.rt_runtime_us 31000 EINVAL
in_group $CG/p/c1/d hcbst spin 1 50 1 3 4 > /tmp/d.out
info "depth-3 d 30ms/100ms alone: $(cat /tmp/d.out)"
range "FIFO spinner in a depth-3 30ms/100ms group gets ~30%" "$(pm /tmp/d.out)" 270 330
ew "d runtime 0" $CG/p/c1/d/cpu.rt_runtime_us 0 OK
rmdir $CG/p/c1/d
ew "-cpu below c1" $CG/p/c1/cgroup.subtree_control -cpu OK
in_group $CG/p/c1 hcbst spin 1 50 1 3 4 > /tmp/c1.out
info "nested c1 30ms/100ms alone: $(cat /tmp/c1.out)"
range "FIFO spinner in nested 30ms/100ms group gets ~30%" "$(pm /tmp/c1.out)" 270 330

# leaf-only rules (seed 010). cgroup v2 lets processes into p: its only enabled
# controller (cpu) is threaded-capable and no child is populated.
sleep 30 &
SL=$!
g=$(w $CG/p/cgroup.procs $SL); info "SCHED_OTHER process into inner node p (cpu only in subtree_control): $g"
if [ "$g" = OK ]; then
  g=$(hcbst fifo $SL 10)
  [ "$g" = EPERM ] && ok "sched_setscheduler(FIFO) in a group whose child has runtime > 0: EPERM" || bad "sched_setscheduler(FIFO) in p: want EPERM got $g"
fi
kill $SL; wait $SL 2>/dev/null
hcbst sleepfifo 10 60 > /tmp/sf2.out &
SF2=$!
sleep 1
ew "SCHED_FIFO task into a group whose child has runtime > 0" $CG/p/cgroup.procs $SF2 EINVAL

mkdir $CG/q
ew "q period" $CG/q/cpu.rt_period_us 100000 OK
ew "q runtime 20%" $CG/q/cpu.rt_runtime_us 20000 OK
ew "+cpu below q" $CG/q/cgroup.subtree_control +cpu OK
mkdir $CG/q/qc
ew "qc period" $CG/q/qc/cpu.rt_period_us 100000 OK
ew "SCHED_FIFO task into q (no child has runtime)" $CG/q/cgroup.procs $SF2 OK
ew "child runtime > 0 while the (non-root) parent holds RT tasks" $CG/q/qc/cpu.rt_runtime_us 10000 EINVAL
ew "SCHED_FIFO task out of q" $CG/cgroup.procs $SF2 OK
ew "child runtime > 0 once the parent holds no RT task" $CG/q/qc/cpu.rt_runtime_us 10000 OK
ew "SCHED_FIFO task into q now that its child has runtime" $CG/q/cgroup.procs $SF2 EINVAL
ew "SCHED_FIFO task into the leaf qc" $CG/q/qc/cgroup.procs $SF2 OK
ew "qc runtime -> 0 with the RT task" $CG/q/qc/cpu.rt_runtime_us 0 EBUSY
ew "SCHED_FIFO task back to the root" $CG/cgroup.procs $SF2 OK
kill $SF2 2>/dev/null; wait $SF2 2>/dev/null

# ---------------------------------------------------------------- removal and reuse
for d in $CG/q/qc $CG/q $CG/p/c1 $CG/p/c2 $CG/p $CG/z; do rmdir $d || bad "rmdir $d"; done
sleep 1
mkdir $CG/g3
ew "g3 period" $CG/g3/cpu.rt_period_us 100000 OK
r=$(w $CG/g3/cpu.rt_runtime_us 80000)
n=0; while [ "$r" != OK ] && [ $n -lt 20 ]; do sleep 0.2; r=$(w $CG/g3/cpu.rt_runtime_us 80000); n=$((n+1)); done
[ "$r" = OK ] && ok "freed bandwidth is reusable after removal (80% beside 10%, $n retries)" || bad "reuse after removal: $r"
ew "g3 runtime 0" $CG/g3/cpu.rt_runtime_us 0 OK
rmdir $CG/g3 $CG/g && ok "rmdir remaining groups" || bad "rmdir remaining groups"
sleep 1

# ---------------------------------------------------------------- stress paths
if ! grep -q hcbs.nostress /proc/cmdline; then
mkdir $CG/s1 $CG/s2
for d in s1 s2; do w $CG/$d/cpu.rt_period_us 100000 >/dev/null; w $CG/$d/cpu.rt_runtime_us 10000 >/dev/null; done
info "stress groups: s1 $(rt $CG/s1), s2 $(rt $CG/s2)"
# S1: two SCHED_RR spinners in one group share its 10%
in_group $CG/s1 hcbst spin 1 -10 1 3 4 > /tmp/rr1.out &
R1=$!
in_group $CG/s1 hcbst spin 1 -10 1 3 4 > /tmp/rr2.out &
R2=$!
wait $R1 $R2
info "RR a: $(cat /tmp/rr1.out)"; info "RR b: $(cat /tmp/rr2.out)"
cn() { _v=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' $1 2>/dev/null); echo ${_v:-0}; }
t=$(( ($(cn /tmp/rr1.out) + $(cn /tmp/rr2.out)) / 3000000 ))
range "two SCHED_RR spinners in a 10ms/100ms group share ~10% (sum of CPU time over 3 s)" $t 85 115
# RR slices are 100 ms of CPU time = 1 s of wall time at 10%: each gets 1/3..2/3
range "SCHED_RR spinner a gets a share (RR rotation inside the group)" "$(( $(cn /tmp/rr1.out) / 3000000 ))" 20 80
range "SCHED_RR spinner b gets a share (RR rotation inside the group)" "$(( $(cn /tmp/rr2.out) / 3000000 ))" 20 80
# S2: a periodic FIFO task (0.5 ms run, 1 ms sleep): server start/stop, inactive timer
in_group $CG/s1 hcbst periodic 1 20 500 1000 3 > /tmp/per.out
info "periodic in s1: $(cat /tmp/per.out)"
grep -q "periodic: " /tmp/per.out && ok "periodic FIFO task in a group ran to completion" || bad "periodic: $(cat /tmp/per.out)"
# S7: remove a group right after its RT task left (inactive timer may be pending)
mkdir $CG/s3; w $CG/s3/cpu.rt_period_us 100000 >/dev/null; w $CG/s3/cpu.rt_runtime_us 10000 >/dev/null
in_group $CG/s3 hcbst periodic 1 20 200 300 1 > /dev/null
rmdir $CG/s3 && ok "rmdir a group just after its RT task exited" || bad "rmdir s3"
# S3+S4+S5: running spinner: runtime changes, move to another group, policy change
in_group $CG/s1 hcbst spin 1 30 0 5 5 > /tmp/mv.out &
MV=$!
sleep 1
ew "s1 runtime 10ms -> 5ms while its FIFO spinner runs" $CG/s1/cpu.rt_runtime_us 5000 OK
ew "s1 runtime 5ms -> 20ms while its FIFO spinner runs" $CG/s1/cpu.rt_runtime_us 20000 OK
ew "move the running FIFO spinner from s1 to s2" $CG/s2/cgroup.procs $MV OK
sleep 1
ew "move it back to s1" $CG/s1/cgroup.procs $MV OK
ew "move it to the root group" $CG/cgroup.procs $MV OK
ew "and into s2 again" $CG/s2/cgroup.procs $MV OK
g=$(hcbst fifo $MV 0); [ "$g" = OK ] && ok "running spinner in s2: FIFO -> OTHER" || bad "FIFO->OTHER: $g"
g=$(hcbst fifo $MV 40); [ "$g" = OK ] && ok "running spinner in s2: OTHER -> FIFO" || bad "OTHER->FIFO: $g"
wait $MV
info "moved spinner: $(cat /tmp/mv.out)"
# S8: fork inside a group: children inherit SCHED_FIFO
in_group $CG/s2 hcbst forkspin 1 10 2 3 > /tmp/fk.out
info "forked FIFO children in s2: $(cat /tmp/fk.out | tr '\n' ' ')"
c=0; for v in $(sed -n 's/.*child.*cpu_ns=\([0-9]*\).*/\1/p' /tmp/fk.out); do c=$((c + v)); done
wl=$(sed -n 's/.*done wall_ns=\([0-9]*\).*/\1/p' /tmp/fk.out); t=$((c * 1000 / ${wl:-1}))
grep -q "2 children done" /tmp/fk.out && ok "fork inside a group: children inherit SCHED_FIFO and finish" || bad "forkspin: $(cat /tmp/fk.out)"
range "two forked FIFO children (same prio: one after the other) use ~10% of the wall time" $t 85 115
# S6: unpinned: FIFO-99 hogs on both CPUs, unpinned group spinner
hcbst spin 0 99 0 3 3 > /tmp/h0.out &
H0=$!
hcbst spin 1 99 0 3 3 > /tmp/h1.out &
H1=$!
in_group $CG/s2 hcbst spin -1 50 0.5 2 3 > /tmp/un.out &
UN=$!
wait $H0 $H1 $UN
info "unpinned group spinner beside 2 pinned FIFO-99 hogs: $(cat /tmp/un.out)"
range "unpinned FIFO spinner in a 10ms/100ms group beside hogs on every CPU gets ~10%" "$(pm /tmp/un.out)" 85 115
rmdir $CG/s1 $CG/s2 && ok "rmdir stress groups" || bad "rmdir stress groups"
sleep 1
fi

# ---------------------------------------------------------------- kernel log
dmesg > /tmp/dmesg.txt
nw=$(grep -cE "WARNING:|BUG:|Oops|Kernel panic|RCU stall|self-detected stall|possible circular|possible recursive|inconsistent lock|suspicious RCU|underflow|overflow|Call Trace" /tmp/dmesg.txt)
if [ "$nw" = 0 ]; then ok "no WARNING/BUG/Oops in the kernel log"; else bad "kernel log has $nw warning lines"; grep -E -A20 "WARNING:|BUG:|Oops" /tmp/dmesg.txt | head -80; fi
grep -iE "sched|dl_server|deadline" /tmp/dmesg.txt | head -5 | sed 's/^/INFO: dmesg: /'
echo "HCBS-SELFTEST-RESULT: $P passed, $F failed"
