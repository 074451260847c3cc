#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsd.service's sandbox (units/hcbsd.service.in, docs/systemd.md) is in
# force, and does not reach the processes hcbsd serves:
#  - hcbsd runs with exactly CAP_SYS_NICE, CAP_DAC_OVERRIDE, CAP_BPF and
#    CAP_PERFMON, a seccomp filter, no_new_privs, and sees /proc/sys and /sys read-only but
#    /sys/fs/cgroup writable;
#  - a process attached to one of hcbsd's groups (which live in hcbsd.service's
#    cgroup) still opens a block device and an AF_INET socket: no device or IP
#    BPF program of the unit (PrivateDevices=, DevicePolicy=, IPAddressDeny=)
#    applies to it;
#  - Detach puts a process back into a delegated cgroup owned by another user
#    (as systemd leaves user@UID.service or a Delegate=yes unit with User=),
#    which is what CAP_DAC_OVERRIDE is kept for.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CG=${CG:-/sys/fs/cgroup}
DELEG=$CG/hcbs-test-delegated
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	hcbsctl delete hardening >/dev/null 2>&1
	rmdir "$DELEG" 2>/dev/null
}
trap cleanup EXIT

PID=$(systemctl show -p MainPID --value hcbsd.service)
if [ -z "$PID" ] || [ "$PID" = 0 ]; then
	fail "hcbsd.service has no main process"
	exit 1
fi
status_of() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$PID/status"; }

# CAP_DAC_OVERRIDE (1), CAP_SYS_NICE (23), CAP_PERFMON (38) and CAP_BPF (39):
# the unit's CapabilityBoundingSet=, nothing more
want=000000c000800002
for f in CapBnd CapPrm CapEff; do
	got=$(status_of $f)
	if [ "$got" = "$want" ]; then
		pass "hcbsd's $f is CAP_DAC_OVERRIDE CAP_SYS_NICE CAP_PERFMON CAP_BPF ($got)"
	else
		fail "hcbsd's $f is $got, expected $want (CAP_DAC_OVERRIDE CAP_SYS_NICE CAP_PERFMON CAP_BPF)"
	fi
done
[ "$(status_of Seccomp)" = 2 ] && pass "hcbsd runs under a seccomp filter" ||
	fail "hcbsd's Seccomp: is '$(status_of Seccomp)', not 2 (filter)"
[ "$(status_of NoNewPrivs)" = 1 ] && pass "hcbsd runs with no_new_privs" ||
	fail "hcbsd's NoNewPrivs: is '$(status_of NoNewPrivs)'"
# mount options in hcbsd's own mount namespace
mnt_opts() { nsenter --target "$PID" --mount -- findmnt -n -o OPTIONS --target "$1" 2>&1 | cut -d, -f1; }
for path in /proc/sys /sys/kernel /usr /etc; do
	o=$(mnt_opts "$path")
	[ "$o" = ro ] && pass "hcbsd sees $path read-only" || fail "hcbsd sees $path as '$o', not ro"
done
o=$(mnt_opts /sys/fs/cgroup)
[ "$o" = rw ] && pass "hcbsd sees /sys/fs/cgroup read-write" || fail "hcbsd sees /sys/fs/cgroup as '$o', not rw"

if ! hcbsctl create hardening 1ms 100ms; then
	fail "hcbsctl create hardening 1ms 100ms failed"
	exit 1
fi

# a process in an hcbsd group: a block device and a socket to 127.0.0.1
dev=$(for d in /dev/vda /dev/sda /dev/loop0; do [ -b "$d" ] && echo "$d" && break; done)
if [ -z "$dev" ]; then
	skip "no block device to read in this guest"
else
	if out=$(hcbsctl run hardening -- head -c 512 "$dev" 2>&1 >/dev/null); then
		pass "a process in an hcbsd group reads $dev"
	else
		fail "a process in an hcbsd group cannot read $dev: $out"
	fi
fi
out=$(hcbsctl run hardening -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' 2>&1)
case $out in
*"Connection refused"*) pass "a process in an hcbsd group may use AF_INET (127.0.0.1:9: connection refused)" ;;
*) fail "a process in an hcbsd group: connect to 127.0.0.1:9: '$out', not 'Connection refused'" ;;
esac

# Detach into a delegated cgroup that belongs to nobody
if ! mkdir "$DELEG" || ! chown 65534:65534 "$DELEG" "$DELEG/cgroup.procs" "$DELEG/cgroup.threads"; then
	fail "cannot set up the delegated cgroup $DELEG"
	exit 1
fi
setpriv --reuid=65534 --regid=65534 --clear-groups -- sleep 1000 >/dev/null 2>&1 &
NOBODYS=$!
PIDS+=("$NOBODYS")
echo "$NOBODYS" >"$DELEG/cgroup.procs"
origin=$(sed -n 's/^0:://p' "/proc/$NOBODYS/cgroup")
info "nobody's process $NOBODYS in $origin; $(stat -c '%U %a' "$DELEG/cgroup.procs") $DELEG/cgroup.procs"
if hcbsctl attach hardening "$NOBODYS" && hcbsctl detach "$NOBODYS"; then
	now=$(sed -n 's/^0:://p' "/proc/$NOBODYS/cgroup")
	if [ "$now" = "$origin" ]; then
		pass "detach puts nobody's process back into its delegated cgroup $origin"
	else
		fail "detach put nobody's process into $now, not $origin"
	fi
else
	fail "attach and detach of a process whose cgroup belongs to nobody failed"
fi
