# SPDX-License-Identifier: LGPL-2.1-or-later
# /guest/builtin-rtmax.sh — the built-in checks for KERNEL=hcbs6 and hcbs7 (the
# HCBS v6 rules of patches/hcbs-v6-6.12: one cpu.rt.max file
# "<runtime|max> <period>" in µs, read-only cpu.rt.internal, "max" delegation,
# no leaf-only rule; hcbs7, patches/hcbs-v7-6.12, names the read-only file
# cpu.rt.max.effective.local, one line per CPU, and computes it in ns).
# Sourced by run-suite.sh, which provides spin_in, measure_shares, within,
# pct, policy_of and the WINDOW/WARMUP/SPIN_SECONDS/TOLERANCE settings.

# Spinners that outlive several measurements (each may take a second window on a busy
# host): a longer wall-time limit; they are killed when done.
LONG_SPIN=$((SPIN_SECONDS * 4))

# The kernel's fixed point: bw PERIOD_US RUNTIME_US = to_ratio() (BW_SHIFT 20);
# internal PERIOD_US BW = the runtime (µs) a server gets for BW (from_ratio(),
# below 1024 ns it is 0), as cpu.rt.internal shows it.
bw() { echo $(( ($2 * 1000 << 20) / ($1 * 1000) )); }
internal() {
	_in_ns=$(( ($2 * $1 * 1000) >> 20 ))
	[ $_in_ns -lt 1024 ] && _in_ns=0
	echo $((_in_ns / 1000))
}

# The read-only file of a group's own servers, and the CPUs it lists.
if is_hcbs7; then LOCAL=cpu.rt.max.effective.local; else LOCAL=cpu.rt.internal; fi
POSSIBLE=$(awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) printf "%d ", i }' /sys/devices/system/cpu/possible)

# local_of PERIOD_US OWN_US [CHILD_US...]: what $LOCAL shows for a group with
# a reservation of OWN/PERIOD whose reserved children (same period, all CPUs)
# take CHILD...: v6, "<runtime> <period>" with the runtime from the
# bandwidths (from_ratio()); v7, a line "CPU runtime=R period=P" per CPU, R
# the difference in ns, 0 below 1024 ns.
local_of() {
	_lo_p=$1 _lo_own=$2
	shift 2
	if is_hcbs7; then
		_lo_ns=$((_lo_own * 1000))
		for _lo_c in "$@"; do _lo_ns=$((_lo_ns - _lo_c * 1000)); done
		[ $_lo_ns -lt 1024 ] && _lo_ns=0
		for _lo_cpu in $POSSIBLE; do echo "$_lo_cpu runtime=$((_lo_ns / 1000)) period=$_lo_p"; done
	else
		_lo_bw=$(bw "$_lo_p" "$_lo_own")
		for _lo_c in "$@"; do _lo_bw=$((_lo_bw - $(bw "$_lo_p" "$_lo_c"))); done
		echo "$(internal "$_lo_p" "$_lo_bw") $_lo_p"
	fi
}

# local_max PERIOD_US: what $LOCAL shows for a group without a reservation
local_max() {
	if is_hcbs7; then
		for _lo_cpu in $POSSIBLE; do echo "$_lo_cpu runtime=max period=$1"; done
	else
		echo "0 $1"
	fi
}

rtmax_files() {
	expect_value "global sched_rt_runtime_us defaults to the full period (v6 2/25)" \
		/proc/sys/kernel/sched_rt_runtime_us "$(cat /proc/sys/kernel/sched_rt_period_us)"
	if [ -f $CG/cpu.rt.max ]; then pass "root has cpu.rt.max"; else fail "root has no cpu.rt.max"; fi
	if [ -e $CG/$LOCAL ]; then fail "root has $LOCAL"; else pass "root has no $LOCAL"; fi
	if is_hcbs7 && [ -e $CG/cpu.rt.internal ]; then fail "root has the v6 cpu.rt.internal"; fi
	if [ -e $CG/cpu.rt_runtime_us ]; then fail "root still has cpu.rt_runtime_us"; else pass "no cpu.rt_runtime_us (rfc1 files gone)"; fi
	expect_value "root starts at runtime 0 of sched_rt_period_us" $CG/cpu.rt.max \
		"0 $(cat /proc/sys/kernel/sched_rt_period_us)"
	_g=$CG/hcbs-files
	mkdir $_g || { fail "mkdir $_g"; return; }
	expect_value "a new group starts at max" $_g/cpu.rt.max "max 0"
	expect_value "a new group's servers get nothing of their own" $_g/$LOCAL "$(local_max 0)"
	case "$(ls -l $_g/$LOCAL)" in
	-r--r--r--*) pass "$LOCAL is read-only (mode 0444)" ;;
	*) fail "$LOCAL mode: $(ls -l $_g/$LOCAL)" ;;
	esac
	expect_write "writing $LOCAL fails (no write handler)" $_g/$LOCAL "1000 100000" EINVAL
	if is_hcbs7; then
		if [ -e $_g/cpu.rt.internal ]; then fail "a group still has the v6 cpu.rt.internal"; else pass "cpu.rt.internal is gone (devel-v7 rename)"; fi
	fi
	rmdir $_g
}

rtmax_root() {
	expect_write "root cannot be max" $CG/cpu.rt.max "max 1000000" EINVAL
	info "root 100%: $(try_write $CG/cpu.rt.max '1000000 1000000') (EBUSY once the fair servers count in the root domain)"
	expect_write "root reservation 90%" $CG/cpu.rt.max "900000 1000000" OK
	expect_value "root reads back" $CG/cpu.rt.max "900000 1000000"
}

rtmax_rules() {
	_p=$CG/hcbs-rules
	mkdir $_p || { fail "mkdir $_p"; return; }
	expect_write "max with a period" $_p/cpu.rt.max "max 100000" OK
	expect_value "max reads back" $_p/cpu.rt.max "max 100000"
	expect_write "runtime 0 period 0 accepted" $_p/cpu.rt.max "0 0" OK
	expect_write "runtime > 0 with period 0" $_p/cpu.rt.max "1000 0" EINVAL
	expect_write "runtime 1us (< 1024 ns)" $_p/cpu.rt.max "1 100000" EINVAL
	expect_write "runtime > period" $_p/cpu.rt.max "100001 100000" EINVAL
	expect_write "period below sched_deadline_period_min_us" $_p/cpu.rt.max "50 50" EINVAL
	expect_write "runtime 0 with a period below the minimum" $_p/cpu.rt.max "0 50" EINVAL
	expect_write "period above sched_deadline_period_max_us" $_p/cpu.rt.max "0 4194305" EINVAL
	expect_write "period at sched_deadline_period_max_us" $_p/cpu.rt.max "0 4194304" OK
	expect_write "runtime -1" $_p/cpu.rt.max "-1 100000" EINVAL
	expect_write "runtime not a number" $_p/cpu.rt.max "ten 100000" EINVAL
	expect_write "period above U64_MAX ns" $_p/cpu.rt.max "0 18446744073709552" EINVAL
	expect_write "runtime 2us period 100ms" $_p/cpu.rt.max "2 100000" OK
	expect_write "runtime alone keeps the period" $_p/cpu.rt.max "50000" OK
	expect_value "runtime alone reads back" $_p/cpu.rt.max "50000 100000"
	expect_value "internal = own bandwidth without children" $_p/$LOCAL "$(local_of 100000 50000)"

	expect_write "enable +cpu below the parent" $_p/cgroup.subtree_control +cpu OK
	mkdir $_p/a $_p/b $_p/m || { fail "mkdir children"; remove_tree $_p; return; }
	expect_write "child a 30% of 50%" $_p/a/cpu.rt.max "30000 100000" OK
	expect_write "children sum 60% > parent 50%" $_p/b/cpu.rt.max "30000 100000" EINVAL
	expect_value "rejected write leaves the old value" $_p/b/cpu.rt.max "max 0"
	expect_write "children sum == parent (30%+20%)" $_p/b/cpu.rt.max "20000 100000" OK
	expect_value "parent internal is 0 when children take all" $_p/$LOCAL "$(local_of 100000 50000 30000 20000)"
	expect_write "parent below its children's sum" $_p/cpu.rt.max "40000 100000" EINVAL
	expect_write "b back to 0" $_p/b/cpu.rt.max "0 100000" OK
	expect_value "parent internal 50% - 30%" $_p/$LOCAL "$(local_of 100000 50000 30000)"

	# m is max: its children count against m's parent (the grandparent rule).
	expect_write "enable +cpu below the max group" $_p/m/cgroup.subtree_control +cpu OK
	mkdir $_p/m/c || { fail "mkdir m/c"; remove_tree $_p; return; }
	expect_write "grandchild through max 30%: 30+30 > 50" $_p/m/c/cpu.rt.max "30000 100000" EINVAL
	expect_write "grandchild through max 10%: 30+10 <= 50" $_p/m/c/cpu.rt.max "10000 100000" OK
	expect_value "parent internal counts the grandchild" $_p/$LOCAL "$(local_of 100000 50000 30000 10000)"
	expect_write "b 20% now exceeds (30+10+20 > 50)" $_p/b/cpu.rt.max "20000 100000" EINVAL
	expect_write "m max -> 20% (m holds c's 10%)" $_p/m/cpu.rt.max "20000 100000" OK
	expect_value "m internal = 20% - 10%" $_p/m/$LOCAL "$(local_of 100000 20000 10000)"
	expect_value "parent internal without m's subtree" $_p/$LOCAL "$(local_of 100000 50000 30000 20000)"
	expect_write "m below its child" $_p/m/cpu.rt.max "5000 100000" EINVAL
	expect_write "m back to max" $_p/m/cpu.rt.max "max 100000" OK
	expect_value "parent internal counts c again" $_p/$LOCAL "$(local_of 100000 50000 30000 10000)"
	expect_write "m to 15% (30+15 <= 50, c 10 <= 15)" $_p/m/cpu.rt.max "15000 100000" OK
	expect_write "m back to max again" $_p/m/cpu.rt.max "max" OK
	remove_tree $_p
	if [ -d $_p ]; then fail "cleanup: cannot remove $_p"; fi
}

rtmax_tasks() {
	_t=$CG/hcbs-tasks
	mkdir $_t || { fail "mkdir $_t"; return; }
	echo +cpu > $_t/cgroup.subtree_control
	mkdir $_t/zero $_t/max $_t/res $_t/zero/m
	echo "0 100000" > $_t/zero/cpu.rt.max

	# A max group under the root runs RT tasks on the root runqueue.
	spin_in $_t/max -p 10 30 > /tmp/spinmax.out 2>&1 &
	_pm=$!
	sleep 1
	if [ "$(policy_of $_pm)" = 1 ]; then pass "SCHED_FIFO in a max group under the root"; else fail "SCHED_FIFO in a max group under the root: $(cat /tmp/spinmax.out)"; fi
	_out=$(spin_in $_t/zero -p 10 1 2>&1); _rc=$?
	case "$_rc:$_out" in
	4:*EPERM*) pass "SCHED_FIFO in a runtime-0 group: EPERM" ;;
	*) fail "SCHED_FIFO in a runtime-0 group: expected exit 4 (EPERM), got $_rc: $_out" ;;
	esac
	_out=$(spin_in $_t/zero/m -p 10 1 2>&1); _rc=$?
	case "$_rc:$_out" in
	4:*EPERM*) pass "SCHED_FIFO in a max child of a runtime-0 group: EPERM" ;;
	*) fail "SCHED_FIFO in a max child of a runtime-0 group: expected exit 4 (EPERM), got $_rc: $_out" ;;
	esac
	expect_write "moving an RT task into a runtime-0 group" $_t/zero/cgroup.procs $_pm EINVAL
	expect_write "switching max -> reservation with RT tasks" $_t/max/cpu.rt.max "10000 100000" EINVAL
	expect_write "switching max -> 0 with RT tasks" $_t/max/cpu.rt.max "0 100000" EINVAL
	expect_write "switching the max parent of RT tasks" $_t/cpu.rt.max "50000 100000" EINVAL
	kill $_pm 2>/dev/null; wait $_pm 2>/dev/null

	expect_write "reserve 10%" $_t/res/cpu.rt.max "10000 100000" OK
	spin_in $_t/res -p 10 30 > /tmp/spinres.out 2>&1 &
	_pr=$!
	sleep 1
	if [ "$(policy_of $_pr)" = 1 ]; then pass "SCHED_FIFO in a 10% group"; else fail "SCHED_FIFO in a 10% group: $(cat /tmp/spinres.out)"; fi
	expect_write "runtime -> 0 with RT tasks" $_t/res/cpu.rt.max "0 100000" EBUSY
	expect_write "reservation -> max with RT tasks" $_t/res/cpu.rt.max "max 100000" EINVAL
	expect_write "shrink 10% -> 5% with RT tasks" $_t/res/cpu.rt.max "5000 100000" OK
	kill $_pr 2>/dev/null; wait $_pr 2>/dev/null
	sleep 0.2
	expect_write "after the task left, -> max" $_t/res/cpu.rt.max "max 100000" OK
	remove_tree $_t
}

# Two spinners in 10% and 30% groups; then an inner group's own task (no
# leaf-only rule) gets what its child leaves, and a max child's task runs on
# its parent's servers.
rtmax_timing() {
	for _g in g10:10000 g30:30000; do
		_d=$CG/hcbs-${_g%:*}
		mkdir $_d || { fail "mkdir $_d"; return; }
		expect_write "timing group ${_g%:*}" $_d/cpu.rt.max "${_g#*:} 100000" OK
	done
	spin_in $CG/hcbs-g10 -c 0 -p 10 $SPIN_SECONDS > /tmp/spin10.out 2>&1 &
	_p10=$!
	spin_in $CG/hcbs-g30 -c 0 -p 10 $SPIN_SECONDS > /tmp/spin30.out 2>&1 &
	_p30=$!
	sleep $WARMUP
	rtmax_measure "10ms/100ms group" "30ms/100ms group" 100 300 $_p10 $_p30
	kill $_p10 $_p30 2>/dev/null; wait $_p10 $_p30
	remove_tree $CG/hcbs-g10
	remove_tree $CG/hcbs-g30

	# cgroup v2 lets a group and its children hold tasks at once only in threaded mode: the
	# children are threaded, the inner group their thread root (cpu is a threaded controller).
	_i=$CG/hcbs-inner
	mkdir $_i || { fail "mkdir $_i"; return; }
	echo +cpu > $_i/cgroup.subtree_control
	mkdir $_i/child $_i/max
	expect_write "child is threaded" $_i/child/cgroup.type threaded OK
	expect_write "max child is threaded" $_i/max/cgroup.type threaded OK
	expect_write "inner group 50%" $_i/cpu.rt.max "50000 100000" OK
	expect_write "its child 30%" $_i/child/cpu.rt.max "30000 100000" OK
	expect_value "inner internal 50% - 30%" $_i/$LOCAL "$(local_of 100000 50000 30000)"
	spin_in $_i -c 0 -p 10 $LONG_SPIN > /tmp/spini.out 2>&1 &
	_pi=$!
	spin_in_thread $_i/child -c 0 -p 10 $LONG_SPIN > /tmp/spinc.out 2>&1 &
	_pc=$!
	sleep $WARMUP
	if [ "$(policy_of $_pi)" = 1 ]; then pass "SCHED_FIFO task in a group with a reserved child (no leaf-only rule)"; else fail "SCHED_FIFO in an inner group: $(cat /tmp/spini.out)"; fi
	rtmax_measure "the inner group's own task (internal 20%)" "its 30% child" 200 300 $_pi $_pc
	kill $_pi 2>/dev/null; wait $_pi
	spin_in_thread $_i/max -c 0 -p 10 $LONG_SPIN > /tmp/spinm.out 2>&1 &
	_pm=$!
	sleep $WARMUP
	rtmax_measure "a max child's task (on its parent's internal 20%)" "the 30% child" 200 300 $_pm $_pc
	kill $_pm $_pc 2>/dev/null; wait $_pm $_pc
	remove_tree $_i
}

# spin_in_thread THREADED_GROUPDIR ARGS...: like spin_in, for a threaded child: the process
# enters the thread root (the parent), its one thread the child.
spin_in_thread() {
	_st_g=$1
	shift
	exec sh -c 'echo $$ > "$0/../cgroup.procs" && echo $$ > "$0/cgroup.threads" && exec spin "$@"' "$_st_g" "$@"
}

# An inner group's running task when its child takes all the bandwidth: the group's servers
# drop to runtime 0 (stopped), the task waits; when the child gives it back, they start again.
rtmax_zero_internal() {
	_z=$CG/hcbs-zi
	mkdir $_z || { fail "mkdir $_z"; return; }
	echo +cpu > $_z/cgroup.subtree_control
	mkdir $_z/child
	echo threaded > $_z/child/cgroup.type
	# rtmax_timing removed its groups just before
	expect_write_released "inner group 50%" $_z/cpu.rt.max "50000 100000" OK
	if [ "$(rt_runtime $_z)" != 50000 ]; then
		info "root: $(cat $CG/cpu.rt.max); its children: $(for _c in $CG/*/cpu.rt.max; do printf '%s=%s ' "${_c#$CG/}" "$(cat $_c)"; done)"
		remove_tree $_z
		return
	fi
	spin_in $_z -c 0 -p 10 $LONG_SPIN > /tmp/spinz.out 2>&1 &
	_pz=$!
	sleep $WARMUP
	rtmax_measure "inner group's task alone" "(same task)" 500 500 $_pz $_pz
	expect_write "child takes all 50% (internal 0) beside the running task" $_z/child/cpu.rt.max "50000 100000" OK
	expect_value "internal 0" $_z/$LOCAL "$(local_of 100000 50000 50000)"
	sleep $WARMUP
	rtmax_measure "inner group's task at internal 0" "(same task)" 0 0 $_pz $_pz
	expect_write "child gives it back" $_z/child/cpu.rt.max "0 100000" OK
	sleep $WARMUP
	rtmax_measure "inner group's task with 50% again" "(same task)" 500 500 $_pz $_pz
	kill $_pz 2>/dev/null; wait $_pz
	remove_tree $_z
}

# rtmax_measure NAME_A NAME_B WANT_A WANT_B PID_A PID_B (permille)
rtmax_measure() {
	for _try in 1 2; do
		measure_shares $5 $6
		within $_s10 $3 && within $_s30 $4 && break
		[ $_try = 1 ] && info "timing: window 1 gave $(pct $_s10) and $(pct $_s30): measuring a second window"
	done
	_msg="SCHED_FIFO spinner, $1: $(pct $_s10) of CPU 0 (want $(pct $3) ±2)"
	if within $_s10 $3; then pass "$_msg"; else fail "$_msg"; fi
	_msg="SCHED_FIFO spinner, $2: $(pct $_s30) of CPU 0 (want $(pct $4) ±2)"
	if within $_s30 $4; then pass "$_msg"; else fail "$_msg"; fi
}

# lines CPU0_RUNTIME CPU1_RUNTIME PERIOD: $LOCAL of a group on the two CPUs
# FIRST and LAST (the others, if any, get 0)
lines() {
	for _ln_c in $POSSIBLE; do
		if [ "$_ln_c" = "$FIRST" ]; then _ln_r=$1
		elif [ "$_ln_c" = "$LAST" ]; then _ln_r=$2
		else _ln_r=0; fi
		echo "$_ln_c runtime=$_ln_r period=$3"
	done
}

# The devel-v7 rules (KERNEL=hcbs7, patches/hcbs-v7-6.12 0015): a reservation
# covers the group's effective cpuset (its servers elsewhere get 0),
# admission is per CPU (the children's runtime there, scaled to the
# parent's period, in ns), and cpuset.cpus / .cpus.exclusive / .cpus.partition
# cannot change while a group there or below is not max.
rtmax_v7() {
	FIRST=$(echo $POSSIBLE | cut -d' ' -f1)
	LAST=$(echo $POSSIBLE | awk '{ print $NF }')
	if [ "$FIRST" = "$LAST" ]; then
		skip "v7 per-CPU rules: one CPU only"
		return
	fi
	case " $(cat $CG/cgroup.controllers) " in
	*" cpuset "*) ;;
	*) fail "v7: no cpuset controller on cgroup v2 ($(cat $CG/cgroup.controllers))"; return ;;
	esac
	expect_write "enable +cpuset at the root" $CG/cgroup.subtree_control +cpuset OK
	_v=$CG/hcbs-v7
	mkdir $_v || { fail "mkdir $_v"; return; }
	expect_write "enable +cpu +cpuset below" $_v/cgroup.subtree_control "+cpu +cpuset" OK
	expect_write "the parent's cpuset first: CPUs $FIRST,$LAST" $_v/cpuset.cpus "$FIRST,$LAST" OK
	_cpus=$(cat $_v/cpuset.cpus)
	expect_write "parent 50%" $_v/cpu.rt.max "50000 100000" OK
	expect_value "its servers get 50% on its CPUs" $_v/$LOCAL "$(lines 50000 50000 100000)"
	expect_write "cpuset.cpus of a reserved group" $_v/cpuset.cpus "$FIRST" EINVAL
	expect_write "cpuset.cpus.exclusive of a reserved group" $_v/cpuset.cpus.exclusive "$FIRST" EINVAL
	expect_write "cpuset.cpus.partition of a reserved group" $_v/cpuset.cpus.partition root EINVAL
	expect_value "the refused writes left the cpuset" $_v/cpuset.cpus "$_cpus"
	mkdir $_v/a $_v/b $_v/m
	expect_write "a max group's cpuset may change" $_v/a/cpuset.cpus "$FIRST" OK
	expect_write "a 30% on CPU $FIRST" $_v/a/cpu.rt.max "30000 100000" OK
	expect_value "a's servers: 30% on CPU $FIRST, 0 elsewhere" $_v/a/$LOCAL "$(lines 30000 0 100000)"
	expect_value "the parent keeps 20% on CPU $FIRST, 50% on CPU $LAST" $_v/$LOCAL "$(lines 20000 50000 100000)"
	expect_write "a's cpuset, now reserved" $_v/a/cpuset.cpus "$LAST" EINVAL
	expect_write "b on CPU $LAST" $_v/b/cpuset.cpus "$LAST" OK
	expect_write "b 50% on CPU $LAST: per CPU it fits (v6's one sum, 80%, would not)" $_v/b/cpu.rt.max "50000 100000" OK
	expect_value "the parent keeps 20% on CPU $FIRST, 0 on CPU $LAST" $_v/$LOCAL "$(lines 20000 0 100000)"
	expect_write "b 50% -> 51% (51% > 50% on CPU $LAST)" $_v/b/cpu.rt.max "51000 100000" EINVAL
	expect_write "the parent 40% (a's 30% fits on CPU $FIRST, b's 50% does not on CPU $LAST)" $_v/cpu.rt.max "40000 100000" EINVAL
	expect_write "b back to max" $_v/b/cpu.rt.max "max 100000" OK
	expect_write "b's cpuset may change again" $_v/b/cpuset.cpus "$FIRST" OK
	expect_write "b 30% on CPU $FIRST (30+30 > 50)" $_v/b/cpu.rt.max "30000 100000" EINVAL
	expect_write "b 20% on CPU $FIRST (30+20 = 50)" $_v/b/cpu.rt.max "20000 100000" OK
	expect_write "b to max, its cpuset to CPU $LAST" $_v/b/cpu.rt.max "max 100000" OK
	expect_write "b on CPU $LAST again" $_v/b/cpuset.cpus "$LAST" OK
	# Scaled to the parent's period in ns, rounded down: 10ms/30ms is
	# 33333333 ns of the parent's 100ms, leaving 16666667 ns (16666 us).
	expect_write "b 10ms/30ms on CPU $LAST" $_v/b/cpu.rt.max "10000 30000" OK
	expect_value "b's servers: 10ms/30ms on CPU $LAST" $_v/b/$LOCAL "$(lines 0 10000 30000)"
	expect_value "the parent keeps 50ms - 33.33ms on CPU $LAST" $_v/$LOCAL "$(lines 20000 16666 100000)"
	expect_write "b 15ms/30ms on CPU $LAST (50ms of the parent's 100ms: all of it)" $_v/b/cpu.rt.max "15000 30000" OK
	expect_value "the parent keeps nothing on CPU $LAST" $_v/$LOCAL "$(lines 20000 0 100000)"
	expect_write "b 15001us/30ms (50.003ms > 50ms)" $_v/b/cpu.rt.max "15001 30000" EINVAL
	# m stays max: its cpuset may change under the reserved parent, and a
	# reserved child below it counts against the parent on its own CPUs.
	expect_write "m (max) on CPU $FIRST" $_v/m/cpuset.cpus "$FIRST" OK
	expect_write "enable +cpu +cpuset below m" $_v/m/cgroup.subtree_control "+cpu +cpuset" OK
	mkdir $_v/m/c
	expect_write "m/c on CPU $FIRST, through max: 30+30 > 50" $_v/m/c/cpu.rt.max "30000 100000" EINVAL
	expect_write "m/c 20% on CPU $FIRST, through max" $_v/m/c/cpu.rt.max "20000 100000" OK
	expect_value "the parent keeps nothing on CPU $FIRST" $_v/$LOCAL "$(lines 0 0 100000)"
	expect_write "m's cpuset, with a reserved group below" $_v/m/cpuset.cpus "$FIRST,$LAST" EINVAL
	expect_write "m/c back to max" $_v/m/c/cpu.rt.max "max 100000" OK
	expect_write "then m's cpuset may change" $_v/m/cpuset.cpus "$FIRST,$LAST" OK
	remove_tree $_v
	if [ -d $_v ]; then fail "cleanup: cannot remove $_v"; fi
}

builtin_rtmax() {
	rtmax_files
	rtmax_root
	rtmax_rules
	is_hcbs7 && rtmax_v7
	rtmax_tasks
	rtmax_timing
	rtmax_zero_internal
}
