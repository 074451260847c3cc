#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# suite-boot.sh — the systemd guest came up as it should, with hcbsd.service
# running where systemd puts it: PID 1 is systemd and reached
# multi-user.target, hcbsd.service is active in hcbs.slice, owns org.hcbsd1 on
# the system bus and answers `hcbsctl status`, hcbs.slice has the RT files, no
# unit failed and the kernel did not warn.  Run by run-suite.sh (result
# protocol: lib.sh).

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

# show_unit UNIT: its status and journal on the console, for a failure.
show_unit() {
	systemctl status --no-pager --lines=0 "$1" 2>&1 | sed "s|^|INFO: status $1: |"
	journalctl -b -u "$1" --no-pager -o short-monotonic 2>&1 | tail -n 40 | sed "s|^|INFO: journal $1: |"
}

# --- PID 1 and the boot
if [ "$(cat /proc/1/comm)" = systemd ]; then
	pass "PID 1 is systemd ($(readlink /proc/1/exe))"
else
	fail "PID 1 is $(cat /proc/1/comm) ($(readlink /proc/1/exe)), not systemd"
fi
_st=$(systemctl is-active multi-user.target)
if [ "$_st" = active ]; then
	pass "multi-user.target reached"
else
	fail "multi-user.target is $_st"
fi
info "system state: $(systemctl is-system-running 2>&1)"
info "unit paths with /usr/local: $(systemd-analyze unit-paths 2>/dev/null | grep /usr/local | tr '\n' ' ')"
info "cgroup2 root: controllers '$(cat $CG/cgroup.controllers)', subtree_control '$(cat $CG/cgroup.subtree_control)'"

# --- hcbsd.service
_st=$(systemctl is-active hcbsd.service)
if [ "$_st" = active ]; then
	pass "hcbsd.service is active"
else
	fail "hcbsd.service is $_st (result $(systemctl show -p Result --value hcbsd.service))"
	show_unit hcbsd.service
fi
_pid=$(systemctl show -p MainPID --value hcbsd.service)
_pidof=$(pidof hcbsd || true)
info "hcbsd: MainPID $_pid, pidof '$_pidof', $(hcbsd --version 2>&1 | head -n1)"
if [ -n "$_pid" ] && [ "$_pid" != 0 ] && [ -r /proc/$_pid/cgroup ]; then
	_cg=$(cat /proc/$_pid/cgroup)
	case $_cg in
	0::/hcbs.slice/hcbsd.service|0::/hcbs.slice/hcbsd.service/*)
		pass "hcbsd runs in hcbs.slice/hcbsd.service (/proc/$_pid/cgroup: $_cg)" ;;
	*)	fail "hcbsd's cgroup is '$_cg', not 0::/hcbs.slice/hcbsd.service[/...]" ;;
	esac
	if [ -n "$_pidof" ] && [ "$_pidof" != "$_pid" ]; then
		info "pidof hcbsd ($_pidof) is not the MainPID ($_pid)"
	fi
else
	fail "hcbsd has no main process (MainPID '$_pid'), cannot check its cgroup"
fi

# --- the bus: org.hcbsd1 owned by hcbsd (the policy in
# /usr/share/dbus-1/system.d was read), and hcbsctl gets an answer
_owner=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
	org.freedesktop.DBus GetConnectionUnixProcessID s org.hcbsd1 2>&1)
if [ "$_owner" = "u $_pid" ]; then
	pass "org.hcbsd1 is owned on the system bus by hcbsd (pid $_pid)"
else
	fail "org.hcbsd1 on the system bus: '$_owner' (hcbsd's MainPID $_pid)"
fi
if _out=$(timeout 30 hcbsctl status 2>&1); then
	pass "hcbsctl status answers on the system bus"
else
	fail "hcbsctl status (exit $?): $(echo "$_out" | tail -n 3 | tr '\n' ' ')"
fi
echo "$_out" | sed 's/^/INFO: hcbsctl status: /'

# --- hcbs.slice: systemd enabled the cpu controller down to it (CPUWeight=)
_s=$CG/hcbs.slice
if is_rtmax; then	# HCBS v6 and later: one cpu.rt.max file
	if [ -r $_s/cpu.rt.max ]; then
		pass "hcbs.slice has cpu.rt.max ($(cat $_s/cpu.rt.max))"
	else
		fail "$_s/cpu.rt.max does not exist (slice: $(ls -d $_s 2>&1); root subtree_control '$(cat $CG/cgroup.subtree_control)')"
	fi
elif [ -r $_s/cpu.rt_runtime_us ]; then
	pass "hcbs.slice has cpu.rt_runtime_us (runtime/period $(rt_of $_s))"
else
	fail "$_s/cpu.rt_runtime_us does not exist (slice: $(ls -d $_s 2>&1); root subtree_control '$(cat $CG/cgroup.subtree_control)')"
fi
info "hcbs.slice: subtree_control '$(cat $_s/cgroup.subtree_control 2>/dev/null)', children: $(cd $_s 2>/dev/null && find . -mindepth 1 -type d | sort | tr '\n' ' ')"

# --- no failed unit (each one's journal on the console)
_failed=$(systemctl list-units --failed --plain --no-legend --no-pager 2>&1 | awk '{ print $1 }')
if [ -z "$_failed" ]; then
	pass "systemctl --failed is empty"
else
	fail "failed units: $(echo $_failed)"
	for _u in $_failed; do
		show_unit "$_u"
	done
fi

# --- the kernel did not warn (the console shows only up to loglevel 5)
_bad=$(dmesg 2>/dev/null | grep -E 'WARNING: CPU: |BUG: |Oops:|general protection fault|Call Trace:' | head -n 5)
if [ -z "$_bad" ]; then
	pass "no kernel warning, BUG or oops in dmesg"
else
	fail "the kernel log has: $(echo "$_bad" | tr '\n' '|')"
fi
exit 0
