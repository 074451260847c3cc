#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# /usr/local/lib/hcbs-test/run-suite.sh — the suite of `harness.sh
# systemd-test`, run by hcbs-vm-test.service once multi-user.target is reached
# on Debian bookworm (systemd 252) with hcbsd installed by `meson install`.
# Output goes to the serial console (ttyS0), which the harness captures.
#
# 1. waits for the boot to finish (`systemctl is-system-running --wait`);
# 2. prints the boot timing: "HCBS-GUEST-TIMING: key=seconds ..." (seconds of
#    CLOCK_MONOTONIC, which starts with the kernel: hcbsd_ready is when
#    hcbsd.service sent READY=1), and systemd-analyze's view;
# 3. runs every suite-*.sh of this directory in name order: suite-boot.sh
#    (systemd, hcbsd.service, the bus, hcbs.slice), then the reservation
#    scenarios of suite-units.sh, and whatever is added later.  Each suite is
#    executed (its #! line picks sh or bash) with HCBS_KERNEL (v2 or hcbs) and
#    CG (/sys/fs/cgroup) set and prints PASS:/FAIL:/SKIP:/INFO: lines (lib.sh,
#    the busybox guest's helpers, is next to it); a non-zero exit adds one
#    failure, a suite with no result line counts as one pass or failure by its
#    exit status; each runs in its own session, for at most SUITE_TIMEOUT s;
# 4. if anything failed: hcbsd's journal (last 50 lines);
# 5. last line: "HCBS-GUEST-RESULT: N passed, M failed, K skipped".
# hcbs-vm-test.service then reboots the machine (SuccessAction/FailureAction),
# which ends qemu (-no-reboot).

set -u
HERE=/usr/local/lib/hcbs-test
export PATH=$HERE/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export CG=/sys/fs/cgroup
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 TERM=dumb
. $HERE/lib.sh

HCBS_KERNEL=v2
SUITES=	# hcbs.suites=boot,containers (HCBS_GUEST_SUITES of the harness): only those
for _a in $(cat /proc/cmdline); do
	case $_a in
	hcbs.kernel=*) HCBS_KERNEL=${_a#hcbs.kernel=} ;;
	hcbs.suites=*) SUITES=,${_a#hcbs.suites=}, ;;
	esac
done
export HCBS_KERNEL

OUT=/run/hcbs-test
SUITE_TIMEOUT=240	# seconds per suite-*.sh unless it says (the unit's RuntimeMaxSec= is 1200)
mkdir -p $OUT
LOG=$OUT/suite.log
: > $LOG

# secs USEC: microseconds as seconds with two decimals ("-" for 0: never)
secs() {
	case $1 in
	''|0) echo - ;;
	*) awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000000 }' ;;
	esac
}

prop() {	# prop UNIT PROPERTY: a unit's property ("" UNIT: the manager's)
	if [ -n "$1" ]; then
		systemctl show -p "$2" --value "$1" 2>/dev/null
	else
		systemctl show -p "$2" --value 2>/dev/null
	fi
}

report_timing() {
	_us=$(prop "" UserspaceTimestampMonotonic)
	_fin=$(prop "" FinishTimestampMonotonic)
	_ready=$(prop hcbsd.service ActiveEnterTimestampMonotonic)
	_start=$(prop hcbsd.service ExecMainStartTimestampMonotonic)
	_dbus=$(prop dbus.service ActiveEnterTimestampMonotonic)
	_mu=$(prop multi-user.target ActiveEnterTimestampMonotonic)
	# One line for the harness (timings.log): seconds since the kernel started.
	echo "HCBS-GUEST-TIMING: hcbsd_ready=$(secs "$_ready") hcbsd_exec=$(secs "$_start") dbus_ready=$(secs "$_dbus") userspace=$(secs "$_us") multi_user=$(secs "$_mu") boot_finished=$(secs "$_fin")"
	systemd-analyze time 2>&1 | sed 's/^/INFO: systemd-analyze time: /'
	systemd-analyze blame 2>&1 | head -n 8 | sed 's/^ */INFO: blame: /'
	systemd-analyze critical-chain hcbsd.service 2>&1 | tail -n +3 | head -n 12 | sed 's/^/INFO: critical-chain: /'
}

echo "HCBS-GUEST: systemd suite starting (KERNEL=$HCBS_KERNEL, kernel $(uname -r), $(systemctl --version | head -n1), $(nproc) CPUs)"
_state=$(timeout 120 systemctl is-system-running --wait 2>&1)
echo "HCBS-GUEST: boot finished: system state '$_state' at $(cut -d' ' -f1 /proc/uptime)s"
report_timing

for _s in $HERE/suite-*.sh; do
	[ -f "$_s" ] || continue
	_name=$(basename "$_s")
	_short=${_name#suite-}
	case ${SUITES:-all} in all|*,${_short%.sh},*) ;; *) continue ;; esac
	# a suite may ask for more time: a "# suite-timeout: SECONDS" line
	_limit=$(sed -n 's/^# suite-timeout: *\([0-9][0-9]*\)$/\1/p' "$_s" | head -n1)
	echo "HCBS-GUEST: running $_name"
	_slog=$OUT/$_name.log
	# Its own session and process group (a "kill 0" in a suite must not take
	# this runner with it) and a time limit, so the marker line always comes.
	{ setsid -w timeout -k 5 ${_limit:-$SUITE_TIMEOUT} "$_s"; echo $? > $OUT/$_name.rc; } 2>&1 | tee $_slog
	_rc=$(cat $OUT/$_name.rc)
	cat $_slog >> $LOG
	suite_verdict "$_name" "$_rc" $_slog | tee -a $LOG
done

P=$(grep -c '^PASS: ' $LOG)
F=$(grep -c '^FAIL: ' $LOG)
S=$(grep -c '^SKIP: ' $LOG)
if [ "$F" -gt 0 ]; then
	echo "HCBS-GUEST: $F check(s) failed: the last 50 lines of hcbsd's journal:"
	journalctl -b -u hcbsd.service --no-pager 2>&1 | tail -n 50 | sed 's/^/JOURNAL: /'
fi
echo "HCBS-GUEST: uptime $(cut -d' ' -f1 /proc/uptime)s"
echo "HCBS-GUEST-RESULT: $P passed, $F failed, $S skipped"
