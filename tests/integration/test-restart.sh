#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Restarts: hcbsd killed (SIGKILL) adopts what it finds in cgroupfs and loses
# nothing; persistent groups survive the loss of the cgroup tree (a reboot);
# a crash in the middle of a multi-write plan (HCBS_CRASH_AFTER_WRITES=N:
# hcbsd aborts after N successful kernel writes) leaves a state hcbsd
# adopts consistently; the loss of the bus is an exit with status 1.
#
# usage: test-restart.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die

restart() { # LABEL: SIGKILL, then a normal start
        it_kill_hcbsd
        if it_start_hcbsd; then
                it_pass "$1: hcbsd restarts"
        else
                it_fail "$1: hcbsd restarts" "$(tail -n 20 "$T/hcbsd.log")"
                it_summary_line
                exit 1
        fi
}

# --- 1: SIGKILL and adoption --------------------------------------------------------

check "create a 10ms 100ms --persistent" ctl create a 10ms 100ms --persistent
check "create a/b 5ms 100ms" ctl create a/b 5ms 100ms
check "create c 1ms 10ms" ctl create c 1ms 10ms
check "create d 2ms 20ms --persistent" ctl create d 2ms 20ms --persistent
check "create d/e 1ms 20ms" ctl create d/e 1ms 20ms
# a persistent group below a non-persistent one: refused, or restored after a reboot
ctl create np 500us 10ms >/dev/null 2>&1
if ctl create np/p 500us 10ms --persistent >/dev/null 2>&1; then NP_PERSISTENT=1; else NP_PERSISTENT=0; fi
it_spawn sleep 1000
P=$IT_LAST
check "attach c $P --fifo 5" ctl attach c "$P" --fifo 5
BEFORE=$(it_snapshot)

restart "SIGKILL"
check_eq "every group, runtime and period is still listed" "$BEFORE" "$(it_snapshot)"
it_check_consistent "after SIGKILL and restart"
expect_stdout '^c +1ms +10ms +10\.0% +yes +1 +1$' ctl list
expect_stdout '^Persistent: +yes$' ctl show a
expect_stdout '^Persistent: +no$' ctl show c
expect_stdout 'SCHED_FIFO' chrt -p "$P"
expect_stdout '^Allocated: +35\.0% per CPU' ctl status
expect_refusal 1 'free' ctl create hog 700ms 1s          # adopted groups are counted
check "delete a/b after the restart" ctl delete a/b
check_eq "a/b is gone from cgroupfs" "" "$(ls -d "$CG/a/b" 2>/dev/null)"
check "set d/e 2ms 20ms --grow-parents after the restart" ctl set d/e 2ms 20ms --grow-parents
check "detach $P after the restart" ctl detach "$P"
expect_stdout 'SCHED_OTHER' chrt -p "$P"
check "create a/b again" ctl create a/b 5ms 100ms
BEFORE=$(it_snapshot)

restart "second SIGKILL"
check_eq "a second restart loses nothing either" "$BEFORE" "$(it_snapshot)"
it_check_consistent "after the second restart"

# a clean stop and start
it_stop_hcbsd
it_start_hcbsd_or_die
check_eq "SIGTERM and start: persistent groups listed" "$(printf '%s\n' "$BEFORE" | grep -E '^(a|d) ')" \
        "$(it_snapshot | grep -E '^(a|d) ')"
it_check_consistent "after a clean stop and start"

# --- 2: a reboot: the cgroup tree is gone, the state directory is not -------------------------

EXPECTED_PERSISTENT=$(it_snapshot | grep -E '^(a|d|np/p) ')
it_kill_hcbsd
it_evacuate
it_remove_tree
check_eq "the scratch tree is gone" "" "$(ls -d "$CG" 2>/dev/null)"
it_start_hcbsd_or_die
check_eq "persistent groups come back with their values" "$(printf '%s\n' "$EXPECTED_PERSISTENT" | grep -v '^np/p ')" \
        "$(it_snapshot | grep -E '^(a|d) ')"
if [ "$NP_PERSISTENT" = 1 ]; then
        check_eq "a persistent group below a non-persistent parent survives a reboot" \
                "$(printf '%s\n' "$EXPECTED_PERSISTENT" | grep '^np/p ')" "$(it_snapshot | grep '^np/p ')"
else
        it_pass "a persistent group below a non-persistent parent is refused"
fi
check_eq "non-persistent groups do not" "" "$(it_snapshot | grep -E '^(c|a/b|d/e|np) ')"
it_check_consistent "after a reboot"

# --- 3: a crash in the middle of a multi-write plan -----------------------------------------------
#
# x/y/z from 10ms/100ms each to z = 20ms/50ms (40%) with --grow-parents is four
# writes: x runtime, y runtime (top-down), z period, z runtime.

reset_chain() {
        local g
        for g in x/y/z x/y x; do
                ctl delete "$g" >/dev/null 2>&1
        done
        ctl create x 10ms 100ms --persistent >/dev/null &&
                ctl create x/y 10ms 100ms --persistent >/dev/null &&
                ctl create x/y/z 10ms 100ms --persistent >/dev/null
}

CRASHED=0
for n in 1 2 3 4 5; do
        if ! reset_chain; then
                it_fail "crash $n: set up x/y/z" "$(tail -n 5 "$T/hcbsd.log")"
                continue
        fi
        it_kill_hcbsd
        if HCBS_CRASH_AFTER_WRITES=$n it_start_hcbsd; then
                it_run ctl set x/y/z 20ms 50ms --grow-parents
                CTL_RC=$RC
                it_reap_hcbsd
                DAEMON=$IT_REAPED
        else
                CTL_RC=-
                DAEMON="died at start"
        fi
        it_log "crash after $n writes: hcbsctl exit $CTL_RC, hcbsd: $DAEMON"
        case "$DAEMON" in
        alive)
                check_eq "crash $n: the completed set reported success" 0 "$CTL_RC" ;;
        *)
                CRASHED=$((CRASHED + 1))
                [ "$CTL_RC" != - ] && check_eq "crash $n: hcbsctl reports the lost daemon (exit 3)" 3 "$CTL_RC" ;;
        esac
        if it_start_hcbsd; then
                it_pass "crash $n: hcbsd restarts"
        else
                it_fail "crash $n: hcbsd restarts" "$(tail -n 20 "$T/hcbsd.log")"
                it_summary_line
                exit 1
        fi
        it_check_consistent "crash after $n writes"
        check_eq "crash $n: x, x/y and x/y/z are all listed" "x x/y x/y/z" \
                "$(ctl_json list | jpy '" ".join(sorted(g["name"] for g in d if g["name"].split("/")[0] == "x"))')"
        Z="$(cg_read x/y/z cpu.rt_runtime_us)/$(cg_read x/y/z cpu.rt_period_us)"
        case "$Z" in
        10000/100000 | 20000/50000) ;;
        *) it_log "NOTE: crash after $n writes left x/y/z at $Z us, neither the old 10000/100000 nor the new 20000/50000" ;;
        esac
        check "crash $n: the interrupted set can be completed" ctl set x/y/z 20ms 50ms --grow-parents
        check_eq "crash $n: x/y/z at the new reservation" "20000/50000" \
                "$(cg_read x/y/z cpu.rt_runtime_us)/$(cg_read x/y/z cpu.rt_period_us)"
        it_check_consistent "crash $n, completed"
done
check "the crash hook fired (HCBS_CRASH_AFTER_WRITES)" test "$CRASHED" -ge 4

# after the crashes, a reboot: the persistent groups come back consistently
it_kill_hcbsd
it_evacuate
it_remove_tree
it_start_hcbsd_or_die
it_check_consistent "reboot after the crashes"
expect_stdout '^x/y/z +20ms +50ms ' ctl list

# --- a wide level: 300 groups, whose files start-up reads on several threads at once ----
{ for i in $(seq 1 300); do printf '[Group wide/g%03d]\nRuntime=100us\nPeriod=1s\n' "$i"; done; } >"$T/wide.groups"
check "create wide 40ms 1s" ctl create wide 40ms 1s
check "apply 300 groups below wide" ctl apply "$T/wide.groups"
check "create wide/g150/sub 50us 1s" ctl create wide/g150/sub 50us 1s
it_spawn sleep 1000
check "attach wide/g300 $IT_LAST" ctl attach wide/g300 "$IT_LAST"
BEFORE=$(it_snapshot)
restart "SIGKILL with 300 groups on a level"
check_eq "the 300 groups, the one below, runtimes and periods are adopted" "$BEFORE" "$(it_snapshot)"
it_check_consistent "after adopting a wide level"
expect_stdout '^wide/g300 +100us +1s .* 1 +0$' ctl list
expect_stdout '^wide/g150/sub +50us +1s ' ctl list
check "delete wide/g150/sub" ctl delete wide/g150/sub

# the bus goes away (dbus-daemon killed): a daemon nobody can reach exits with
# a failure, so that Restart=on-failure brings it back, and it adopts its groups
kill -KILL "$BUS_PID"
BUS_PID=
it_reap_hcbsd
check_eq "hcbsd exits with status 1 once its bus is gone" 1 "$IT_REAPED"
check_match "and says why" 'Lost the bus connection' "$(tail -n 3 "$T/hcbsd.log")"
it_start_bus
it_start_hcbsd_or_die
it_check_consistent "restart after the bus came back"
expect_stdout '^x/y/z +20ms +50ms ' ctl list
it_finish
