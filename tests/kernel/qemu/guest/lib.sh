# SPDX-License-Identifier: LGPL-2.1-or-later
# /guest/lib.sh — helpers for the in-guest suites (busybox sh).  Source it:
#     . /guest/lib.sh
#
# Result protocol (read by /guest/run-suite.sh, which counts the lines):
#     PASS: <name>
#     FAIL: <name>: <why>
#     SKIP: <name>: <why>
#     INFO: <anything>          (not counted)
# A suite-*.sh that exits non-zero counts as one more failure; one that
# prints no PASS/FAIL/SKIP line at all counts as one pass or one failure by
# its exit status.
#
# Environment for suites: HCBS_KERNEL (v2, hcbs, hcbs6 or hcbs7, from the
# kernel command line), CG (the cgroup2 mount, /sys/fs/cgroup), PATH with
# /guest/bin.

CG=${CG:-/sys/fs/cgroup}

# The kernel's flavour: is_hcbs (any HCBS series: deadline servers), is_rtmax
# (one cpu.rt.max file: hcbs6, hcbs7), is_hcbs7 (the v6 migration and the
# devel-v7 interface: per-CPU servers over the group's cpuset).
is_hcbs() { case $HCBS_KERNEL in hcbs|hcbs6|hcbs7) return 0 ;; esac; return 1; }
is_rtmax() { case $HCBS_KERNEL in hcbs6|hcbs7) return 0 ;; esac; return 1; }
is_hcbs7() { [ "$HCBS_KERNEL" = hcbs7 ]; }

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; }
info() { echo "INFO: $*"; }

# errno_of MESSAGE: the errno name in a shell write-error message.
errno_of() {
	case $1 in
	*"Invalid argument"*)          echo EINVAL ;;
	*"Device or resource busy"*)   echo EBUSY ;;
	*"Operation not permitted"*)   echo EPERM ;;
	*"Permission denied"*)         echo EACCES ;;
	*"No such file or directory"*) echo ENOENT ;;
	*"No such device"*)            echo ENODEV ;;
	*"No such process"*)           echo ESRCH ;;
	*"No space left on device"*)   echo ENOSPC ;;
	*"Numerical result out of range"*) echo ERANGE ;;
	*"Operation not supported"*)   echo EOPNOTSUPP ;;
	*)                             echo "E?[$1]" ;;
	esac
}

# try_write FILE VALUE: write VALUE (one write(2)); print OK or the errno name.
try_write() {
	_tw_out=$( { echo "$2" > "$1"; } 2>&1 ) && { echo OK; return 0; }
	errno_of "$_tw_out"
}

# expect_write NAME FILE VALUE EXPECTED: check the outcome of a write
# (EXPECTED is OK or an errno name).
expect_write() {
	_ew_got=$(try_write "$2" "$3")
	if [ "$_ew_got" = "$4" ]; then
		pass "$1 (echo $3 > ${2#$CG/}: $_ew_got)"
	else
		fail "$1: echo $3 > ${2#$CG/}: expected $4, got $_ew_got"
	fi
}

# expect_write_released NAME FILE VALUE EXPECTED: expect_write right after a
# remove_tree. rmdir returns before the kernel releases the removed group
# (css_released() runs from a work item once its references are gone), and
# until then rfc1 and v6 still count its bandwidth in the parent's sum: the
# write is tried again for up to 2 s while the answer is not EXPECTED.
expect_write_released() {
	_ewr_n=0
	_ewr_got=$(try_write "$2" "$3")
	while [ "$_ewr_got" != "$4" ] && [ $_ewr_n -lt 20 ]; do
		sleep 0.1
		_ewr_n=$((_ewr_n + 1))
		_ewr_got=$(try_write "$2" "$3")
	done
	if [ "$_ewr_got" = "$4" ]; then
		pass "$1 (echo $3 > ${2#$CG/}: $_ewr_got$([ $_ewr_n -gt 0 ] && echo ", after $_ewr_n retries while the removed groups were released"))"
	else
		fail "$1: echo $3 > ${2#$CG/}: expected $4, got $_ewr_got (for 2 s)"
	fi
}

# expect_value NAME FILE EXPECTED: check a file's content.
expect_value() {
	if [ ! -r "$2" ]; then
		fail "$1: ${2#$CG/} is not readable"
		return
	fi
	_ev_got=$(cat "$2")
	if [ "$_ev_got" = "$3" ]; then
		pass "$1 (${2#$CG/} = $_ev_got)"
	else
		fail "$1: ${2#$CG/}: expected $3, got $_ev_got"
	fi
}

# rt_runtime DIR / rt_period DIR: a cgroup's RT values in µs on either interface
# (HCBS v6: one "RUNTIME|max PERIOD" file, cpu.rt.max; rfc1 and mainline:
# cpu.rt_runtime_us and cpu.rt_period_us). Nothing is printed, and the status is
# non-zero, when the group has neither.
rt_runtime() {
	if [ -r "$1/cpu.rt.max" ]; then cut -d' ' -f1 "$1/cpu.rt.max"; else cat "$1/cpu.rt_runtime_us"; fi 2>/dev/null
}
rt_period() {
	if [ -r "$1/cpu.rt.max" ]; then cut -d' ' -f2 "$1/cpu.rt.max"; else cat "$1/cpu.rt_period_us"; fi 2>/dev/null
}

# rt_of GROUPDIR: "runtime/period" of a group, for messages.
rt_of() {
	echo "$(rt_runtime "$1" || echo '?')/$(rt_period "$1" || echo '?')"
}

# expect_runtime NAME GROUPDIR EXPECTED: check a group's RT runtime (either interface).
expect_runtime() {
	_er_got=$(rt_runtime "$2")
	if [ "$_er_got" = "$3" ]; then
		pass "$1 (${2#$CG/}: runtime $_er_got)"
	else
		fail "$1: ${2#$CG/}: expected runtime $3, got ${_er_got:-none}"
	fi
}

# remove_tree DIR: rmdir a cgroup subtree bottom-up (best effort, for cleanup).
# A group whose last task was just reaped can stay populated (EBUSY) for a
# moment, so each rmdir is tried for up to 2 s.
remove_tree() {
	[ -d "$1" ] || return 0
	for _rt_d in $(find "$1" -mindepth 1 -type d | sort -r) "$1"; do
		for _rt_i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			rmdir "$_rt_d" 2>/dev/null && break
			[ -d "$_rt_d" ] || break
			sleep 0.1
		done
	done
	return 0
}

# suite_verdict NAME RC SUITELOG: the runner's line for a suite whose own lines
# do not tell (it printed none, or it exited non-zero, timed out or was killed).
suite_verdict() {
	if [ "$2" = 124 ]; then
		echo "FAIL: $1 did not finish in time"
	elif [ "$2" = 137 ]; then
		echo "FAIL: $1 was killed by SIGKILL (a 'kill -9' of pid 0 in the suite, or the time limit)"
	elif ! grep -qE '^(PASS|FAIL|SKIP): ' "$3"; then
		if [ "$2" = 0 ]; then
			echo "PASS: $1 (exit 0, no result lines)"
		else
			echo "FAIL: $1 exited $2 (no result lines)"
		fi
	elif [ "$2" != 0 ]; then
		echo "FAIL: $1 exited $2"
	fi
}

# grant_manage GROUP RULE_FILE SUITE: a polkit rule (rules.d) granting
# org.hcbsd1.manage to the members of GROUP; polkitd, which reads rules.d when
# it starts and when a file there changes, is restarted if it runs.
grant_manage() {
	cat >"$2" <<EOR
// $3: members of $1 manage hcbsd's reservations.
polkit.addRule(function(action, subject) {
	if (action.id == "org.hcbsd1.manage" && subject.isInGroup("$1"))
		return polkit.Result.YES;
});
EOR
	chmod 644 "$2"
	if systemctl is-active -q polkit.service; then systemctl restart polkit.service; fi
}

# guest_system_bus NAME: the guest's system bus, started unless it runs
# already, in DBUS_SYSTEM_BUS_ADDRESS; 1 after a FAIL line naming NAME when
# dbus-daemon cannot start.
guest_system_bus() {
	if [ ! -S /run/dbus/system_bus_socket ]; then
		mkdir -p /run/dbus
		if ! dbus-daemon --system --fork --nopidfile 2>"/tmp/dbus-$1.err"; then
			fail "$1: no system bus: $(cat "/tmp/dbus-$1.err")"
			return 1
		fi
	fi
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
}

# guest_wait_hcbsd: waits up to 10 s for hcbsd to answer hcbsctl status.
guest_wait_hcbsd() {
	for _i in $(seq 100); do
		hcbsctl status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
