#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel's mode on a real cgroup-v2 kernel (lib/kernel-mode.h): hcbsd
# --check-kernel names it (hcbs-rfc1, hcbs-rtmax, or mainline-v2 on the
# stage-1 kernel, whose v2 files have mainline rules: the probe tells them
# apart); hcbsd refuses to start, in one line with the fix, when its root
# lives below a cgroup whose parent did not enable the cpu controller; and
# with kernel.sched_rt_runtime_us = -1 hcbsctl status says "unlimited" and
# the sysctl that fixes it, without a restart. (These 6.12 kernels have no
# rt_group_sched= switch: that case and the kernels without RT group
# scheduling are tests/unit/test-kernel-mode.c's fixtures.)
. /guest/lib.sh

LOG=/tmp/hcbsd-mode.log
NOCPU=$CG/hcbs-mode-nocpu
DAEMON=

for b in hcbsd hcbsctl; do
	if ! command -v $b >/dev/null; then
		skip "mode: $b is not in the initramfs (HCBS_GUEST_BINS)"
		exit 0
	fi
done

case $HCBS_KERNEL in
hcbs)  EXPECT=hcbs-rfc1 ;;
hcbs6 | hcbs7) EXPECT=hcbs-rtmax ;;
*)     EXPECT=mainline-v2 ;;
esac

# match NAME REGEX TEXT
match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else fail "$1: /$2/ not in: $3"; fi
}

cleanup() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	DAEMON=
	[ -n "${OLD_RT:-}" ] && echo "$OLD_RT" > /proc/sys/kernel/sched_rt_runtime_us
	OLD_RT=
	rmdir "$NOCPU/child" "$NOCPU" 2>/dev/null
	for _d in $(find "$CG/hcbs-mode" -type d 2>/dev/null | sort -r); do
		if [ -e "$_d/cpu.rt.max" ]; then echo 0 > "$_d/cpu.rt.max"; else echo 0 > "$_d/cpu.rt_runtime_us"; fi 2>/dev/null
		rmdir "$_d" 2>/dev/null
	done
}

printf '[Manager]\nCapacity=50%%\n' > /tmp/hcbsd-mode.conf
OUT=$(hcbsd --check-kernel --cgroup-root="$CG/hcbs-mode" --config=/tmp/hcbsd-mode.conf --config-dir=/tmp/none 2>&1)
RC=$?
[ $RC = 0 ] && pass "hcbsd --check-kernel exits 0 on KERNEL=$HCBS_KERNEL" ||
	fail "hcbsd --check-kernel exits $RC on KERNEL=$HCBS_KERNEL: $OUT"
match "hcbsd --check-kernel says $EXPECT" "^Mode: +$EXPECT\$" "$OUT"
[ -e "$CG/hcbs-probe" ] && fail "--check-kernel left its probe group" || pass "--check-kernel leaves no probe group"

# a root below a cgroup without the cpu controller: refused in one line, nothing created
mkdir -p "$NOCPU/child"
_sub=$(cat "$NOCPU/cgroup.subtree_control")
case " $_sub " in *" cpu "*) echo -cpu > "$NOCPU/cgroup.subtree_control" ;; esac
hcbsd --cgroup-root="$NOCPU/child/hcbs" --config=/tmp/hcbsd-mode.conf --config-dir=/tmp/none \
	--state-dir=/tmp/hcbsd-mode-state --runtime-dir=/tmp/hcbsd-mode-run --no-notify --log-target=stderr \
	>"$LOG" 2>&1
RC=$?
[ $RC = 1 ] && pass "hcbsd refuses a root below a cgroup without cpu (exit 1)" ||
	fail "hcbsd with a root below a cgroup without cpu exits $RC: $(cat "$LOG")"
[ "$(grep -c '^<[0-3]>' "$LOG")" = 1 ] && pass "... in one error line" || fail "... error lines: $(cat "$LOG")"
match "... naming the mode, the cgroup and the fix" \
	"mode no-cpu-controller\\): the cpu controller is not enabled for $NOCPU/child .*Fix: echo \\+cpu" "$(cat "$LOG")"
[ -e "$NOCPU/child/hcbs" ] && fail "the refused start created its root" || pass "the refused start created nothing"

# unlimited: the sysctl read again by each status
guest_system_bus mode
hcbsd --cgroup-root="$CG/hcbs-mode" --config=/tmp/hcbsd-mode.conf --config-dir=/tmp/none \
	--state-dir=/tmp/hcbsd-mode-state --runtime-dir=/tmp/hcbsd-mode-run --no-notify >"$LOG" 2>&1 &
DAEMON=$!
guest_wait_hcbsd
OUT=$(hcbsctl status 2>&1)
match "hcbsctl status: Mode $EXPECT" "^Mode: +$EXPECT \\(" "$OUT"
OLD_RT=$(cat /proc/sys/kernel/sched_rt_runtime_us)
if echo -1 > /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null; then
	OUT=$(hcbsctl status 2>&1)
	match "with sched_rt_runtime_us -1, status says unlimited" "^Mode: +unlimited \\(kernel.sched_rt_runtime_us is -1" "$OUT"
	match "... and the fix" "^Fix: +sysctl kernel.sched_rt_runtime_us=950000" "$OUT"
	echo "$OLD_RT" > /proc/sys/kernel/sched_rt_runtime_us
	OLD_RT=
	match "set back, status says $EXPECT again" "^Mode: +$EXPECT \\(" "$(hcbsctl status 2>&1)"
else
	skip "mode: sched_rt_runtime_us -1: the kernel refused the write beside hcbsd's reservation"
	OLD_RT=
fi
cleanup
exit 0
