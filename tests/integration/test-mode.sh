#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The kernel's mode (lib/kernel-mode.h): hcbsctl status's Mode line and its
# JSON on this machine's kernel (mainline-v1), hcbsd --check-kernel, and
# hcbsd refusing to start, in one line naming the mode and the fix, where it
# cannot work: for real with a root on a v1 hierarchy without the cpu
# controller and on the cgroup-v2 mount beside the v1 RT files; on the
# fixtures of tests/fixtures/kernel/ (HCBS_KERNEL_ROOT) for the kernels this
# machine is not (no RT_GROUP_SCHED, the 6.16 boot switch off, mainline on
# cgroup v2, the cpu controller disabled), and for this kernel's own
# /proc/kallsyms behind a v2 machine without RT files (it has the 6.16
# rt_group_sched= switch). Nothing of those refusals may touch a cgroup.
#
# usage: test-mode.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die
FIX=$IT_SRC/tests/fixtures/kernel

# --- the mode of this machine's kernel ----------------------------------------------

expect_stdout '^Mode: +mainline-v1 \(mainline RT group scheduling on the cgroup-v1 cpu hierarchy /sys/fs/cgroup/cpu' \
        ctl status
check_not "no Fix: line in mode mainline-v1" grep -q '^Fix:' <<<"$OUT"
expect_json ctl_json status
check_eq "status --json: mode" "mainline-v1" "$(jpy 'd["mode"]' <<<"$OUT")"
check_eq "status --json: mode_fix is empty" "" "$(jpy 'd["mode_fix"]' <<<"$OUT")"
check_match "status --json: mode_reason" "RT throttling, not HCBS's reservations" "$(jpy 'd["mode_reason"]' <<<"$OUT")"
it_run busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager KernelMode
check_eq "KernelMode property" 's "mainline-v1"' "$OUT"
check_match "hcbsd logged the mode at start" 'Mode mainline-v1: mainline RT group scheduling' "$(cat "$T/hcbsd.log")"

it_run "$HCBSD" --check-kernel --cgroup-root "$CG" --config "$T/hcbsd.conf" --config-dir "$T/conf.d"
check_eq "hcbsd --check-kernel exits 0 here" 0 "$RC"
check_match "hcbsd --check-kernel names the mode" '^Mode: +mainline-v1$' "$OUT"

# --- refusals ---------------------------------------------------------------------------

# hcbsd_refuses LABEL MODE FIX-REGEX [ENV...] -- [HCBSD-ARGS...]: hcbsd exits 1 before serving, with
# exactly one error line "hcbsd cannot work on this kernel (mode MODE): ... Fix: ..." matching FIX-REGEX.
hcbsd_refuses() {
        local label=$1 mode=$2 fix=$3
        shift 3
        local -a envs=() cmd
        while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
        shift
        cmd=("$HCBSD" --bus-address "$ADDR" --config "$T/hcbsd.conf" --config-dir "$T/conf.d"
                --state-dir "$T/state" --runtime-dir "$T/run" --no-notify --log-target=stderr "$@")
        # under valgrind the first real refusal and the first on a fixture: the same path, seconds each
        if [ "${HCBS_VALGRIND:-0}" = 1 ] && [[ " $VALGRIND_LEFT " == *" ${#envs[@]} "* ]]; then
                VALGRIND_LEFT=${VALGRIND_LEFT/${#envs[@]}/}
                cmd=(valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99
                        --suppressions="$IT_DIR/valgrind.supp" "${cmd[@]}")
        fi
        it_run env "${envs[@]}" timeout 60 "${cmd[@]}"
        local errors
        errors=$(grep -c '^<[0-3]>' <<<"$ERR")
        if [ "$RC" -eq 1 ] && [ "$errors" -eq 1 ] &&
                grep -Eq "^<3>hcbsd cannot work on this kernel \(mode $mode\): .*\. Fix: .*$fix" <<<"$ERR"; then
                it_pass "$label: hcbsd refuses in one line (mode $mode, fix /$fix/)"
        else
                it_fail "$label: hcbsd refuses in one line (mode $mode, fix /$fix/)" "exit $RC, $errors error lines:" \
                        "$(head -c 1200 <<<"$ERR")"
        fi
}

# the second hcbsd must not take over the bus name: stop the first one (it gets its own checks)
it_stop_hcbsd
VALGRIND_LEFT="0 1" # by the number of environment settings: a real refusal has none, a fixture's one

PIDS_MNT=/sys/fs/cgroup/pids
if grep -Eq " $PIDS_MNT .* - cgroup cgroup .*\bpids\b" /proc/self/mountinfo; then
        hcbsd_refuses "a root on the v1 pids hierarchy" no-cpu-controller "CgroupRoot=auto" -- \
                --cgroup-root "$PIDS_MNT/hcbs-it-$$-mode"
        check_not "nothing was created on the pids hierarchy" test -e "$PIDS_MNT/hcbs-it-$$-mode"
else
        skip "a root on the v1 pids hierarchy" "$PIDS_MNT is not a cgroup-v1 pids mount here"
fi
UNIFIED=/sys/fs/cgroup/unified
if grep -q " $UNIFIED .* - cgroup2 " /proc/self/mountinfo; then
        hcbsd_refuses "a root on cgroup v2 beside v1 RT files" no-cpu-controller "a path below /sys/fs/cgroup/cpu" -- \
                --cgroup-root "$UNIFIED/hcbs-it-$$-mode"
        check_not "nothing was created on cgroup v2" test -e "$UNIFIED/hcbs-it-$$-mode"
else
        skip "a root on cgroup v2 beside v1 RT files" "no cgroup2 mount at $UNIFIED"
fi

for c in none-config:none:"CONFIG_RT_GROUP_SCHED=y" none-kallsyms:none:"make demo KERNEL=hcbs" \
        switch-off-cmdline:switch-off:"rt_group_sched=1" switch-off-default:switch-off:"rt_group_sched=1" \
        mainline-v1-only:mainline-v1-only:"systemd.unified_cgroup_hierarchy=0" \
        cpu-disabled:no-cpu-controller:"remove cgroup_disable=cpu"; do
        IFS=: read -r fixture mode fix <<<"$c"
        hcbsd_refuses "fixture $fixture" "$mode" "$fix" HCBS_KERNEL_ROOT="$FIX/$fixture" -- --cgroup-root "$CG/refused"
        it_run env HCBS_KERNEL_ROOT="$FIX/$fixture" "$HCBSD" --check-kernel --config "$T/hcbsd.conf" \
                --config-dir "$T/conf.d"
        check_eq "fixture $fixture: hcbsd --check-kernel exits 1" 1 "$RC"
        check_match "fixture $fixture: hcbsd --check-kernel prints the mode" "^Mode: +$mode\$" "$OUT"
        check_match "fixture $fixture: hcbsd --check-kernel prints the fix" "^Fix: .*$fix" "$OUT"
done
check_not "the refused starts created no cgroup" test -e "$CG/refused"

# This kernel's own symbols (6.18: CONFIG_RT_GROUP_SCHED and the rt_group_sched= switch) behind a
# machine whose cgroup v2 shows no RT files: the switch off on the command line, or on and mainline's
# v1-only files. The fixture's files, /proc/kallsyms the real one.
if grep -qw setup_rt_group_sched /proc/kallsyms; then
        cp -a "$FIX/none-unknown" "$T/kallsyms"
        ln -s /proc/kallsyms "$T/kallsyms/proc/kallsyms"
        echo "console=ttyS0 rt_group_sched=0" >"$T/kallsyms/proc/cmdline"
        it_run env HCBS_KERNEL_ROOT="$T/kallsyms" "$HCBSD" --check-kernel --config "$T/hcbsd.conf" --config-dir "$T/conf.d"
        check_match "this kernel's kallsyms and rt_group_sched=0: switch-off" "^Mode: +switch-off\$" "$OUT"
        echo "console=ttyS0" >"$T/kallsyms/proc/cmdline"
        it_run env HCBS_KERNEL_ROOT="$T/kallsyms" "$HCBSD" --check-kernel --config "$T/hcbsd.conf" --config-dir "$T/conf.d"
        check_match "this kernel's kallsyms, the switch on, v2 without RT files: mainline-v1-only" \
                "^Reason: .* has CONFIG_RT_GROUP_SCHED \(/proc/kallsyms\), mainline RT group scheduling" "$OUT"
else
        skip "this kernel's kallsyms" "no setup_rt_group_sched in /proc/kallsyms: not a 6.16+ kernel with RT_GROUP_SCHED"
fi

it_finish
