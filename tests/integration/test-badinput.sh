#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Bad input, through hcbsctl and straight through the bus: invalid names,
# durations, pids, unknown options and options of the wrong type. Each must
# get a named org.hcbsd1.Error (or a usage error from hcbsctl), leave the
# kernel untouched, and hcbsd must keep serving.
#
# usage: test-badinput.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die

check "create good 1ms 10ms" ctl create good 1ms 10ms
it_spawn sleep 1000
P=$IT_LAST

# --- names ---------------------------------------------------------------------

LONG=$(printf 'x%.0s' $(seq 65))
HUGE=$(printf 'y%.0s' $(seq 10000))
DEEP=a/b/c/d/e/f/g/h/i
for name in "" ".." "../x" "." "./x" "/abs" "a/" "a//b" "x/../y" "$LONG" "$HUGE" "$DEEP" \
        "bad name" "tab	name" "semi;colon" "star*" "cgroup.procs" "cpu.rt_runtime_us" "nl
x"; do
        expect_refusal 2 '.' ctl create "$name" 1ms 10ms
        expect_bus_error InvalidName CreateGroup "$(printf "'%s'" "${name//\'/\\\'}")" 1000 10000 '@a{sv} {}'
done
for name in "../x" "$LONG" "a//b" ""; do
        expect_bus_error "InvalidName|NoSuchGroup" SetBandwidth "'$name'" 1000 10000 '@a{sv} {}'
        expect_bus_error "InvalidName|NoSuchGroup" DeleteGroup "'$name'" '@a{sv} {}'
        expect_bus_error "InvalidName|NoSuchGroup" Attach "'$name'" "[uint32 $P]" '@a{sv} {}'
        [ -n "$name" ] && expect_bus_error "InvalidName|NoSuchGroup" GetStats "'$name'"
done
# an invalid migrate_to is refused whether or not the group holds processes
check "create victim 1ms 10ms" ctl create victim 1ms 10ms
expect_bus_error "InvalidName|NoSuchGroup|InvalidArgument" DeleteGroup "'victim'" "{'migrate_to': <'../x'>}"
ctl delete victim >/dev/null 2>&1
# names a v1 cgroup directory already holds as files
for name in tasks notify_on_release release_agent cgroup.procs; do
        it_run ctl create "$name" 1ms 10ms
        check_match "create $name is refused with a reason" '^hcbsctl: ' "$ERR"
        check_eq "create $name is refused (exit 1 or 2)" true "$([ "$RC" = 1 ] || [ "$RC" = 2 ] && echo true || echo false)"
done
expect_alive "invalid names"

# --- durations -------------------------------------------------------------------

for d in abc -5ms 1.5us 99999999999999999999s 10parsecs "" " " 1e3 0x10 " 5ms" 5MS 5m 1.5.5ms; do
        expect_refusal 2 '.' ctl create dur 1ms "$d"
        expect_refusal 2 '.' ctl create dur "$d" 10ms
done
# straight to the daemon: values hcbsctl would never send
expect_bus_error InvalidArgument CreateGroup "'dur'" 1000 0 '@a{sv} {}'                       # period 0
expect_bus_error InvalidArgument CreateGroup "'dur'" 20000 10000 '@a{sv} {}'                  # runtime > period
expect_bus_error InvalidArgument CreateGroup "'dur'" 10 50 '@a{sv} {}'                        # < MinPeriod
expect_bus_error InvalidArgument CreateGroup "'dur'" 1000 5000000 '@a{sv} {}'                 # > MaxPeriod
expect_bus_error InvalidArgument CreateGroup "'dur'" 18446744073709551615 18446744073709551615 '@a{sv} {}'
expect_bus_error InvalidArgument CreateGroup "'dur'" 1000 18446744073709551615 '@a{sv} {}'
expect_bus_error InvalidArgument SetBandwidth "'good'" 20000 10000 '@a{sv} {}'
expect_bus_error InvalidArgument SetBandwidth "'good'" 1000 0 '@a{sv} {}'
expect_bus_error InvalidArgument SetBandwidth "'good'" 18446744073709551615 18446744073709551615 '@a{sv} {}'
it_run bcall CheckBandwidth stt dur 20000 10000
check_match "CheckBandwidth(runtime > period) answers not ok" '^bss false "(org\.hcbsd1\.Error\.)?InvalidArgument"' "$OUT"
check_eq "no bad duration reached the kernel" "1000/10000" \
        "$(cg_read good cpu.rt_runtime_us)/$(cg_read good cpu.rt_period_us)"
check_eq "no bad duration created a group" "" "$(ls -d "$CG/dur" 2>/dev/null)"
expect_alive "invalid durations"

# --- pids --------------------------------------------------------------------------

SELF_CG=$(proc_cpu_cgroup "$HCBSD_PID")
expect_refusal 2 '.' ctl attach good 0
expect_refusal 2 '.' ctl attach good -1
expect_refusal 2 '.' ctl attach good 12x
expect_refusal 4 '.' ctl attach good 999999
expect_refusal 4 '.' ctl detach 999999
expect_bus_error "InvalidArgument|NoSuchProcess" Attach "'good'" '[uint32 0]' '@a{sv} {}'
expect_bus_error "InvalidArgument|NoSuchProcess" Attach "'good'" '[uint32 4294967295]' '@a{sv} {}'
expect_bus_error "InvalidArgument|NoSuchProcess" Detach '[uint32 0]' '@a{sv} {}'
expect_bus_error "InvalidArgument|NoSuchProcess" Detach '[uint32 4294967295]' '@a{sv} {}'
expect_bus_error NoSuchProcess Attach "'good'" '[uint32 999999]' '@a{sv} {}'
expect_bus_error NoSuchProcess Attach "'good'" "[uint32 $P, 999999]" '@a{sv} {}'
check_eq "a call with one bad pid moved none" "$(proc_cpu_cgroup "$$")" "$(proc_cpu_cgroup "$P")"
check_eq "pid 0 did not move hcbsd itself" "$SELF_CG" "$(proc_cpu_cgroup "$HCBSD_PID")"
check_eq "nothing entered good" "" "$(cat "$CG/good/cgroup.procs")"
MANY=$(printf 'uint32 999999, %.0s' $(seq 5000))
expect_bus_error "NoSuchProcess|InvalidArgument" Attach "'good'" "[${MANY}uint32 999999]" '@a{sv} {}'
it_run gcall Attach "'good'" '@au []' '@a{sv} {}'
check_match "Attach with no pids: done or InvalidArgument" '^\(\)$|org\.hcbsd1\.Error\.InvalidArgument' "$OUT$ERR"
expect_alive "invalid pids"

# --- options ------------------------------------------------------------------------

expect_refusal 2 '.' ctl create opt 1ms 10ms --bogus
expect_refusal 2 '.' ctl attach good "$P" --fifo 0
expect_refusal 2 '.' ctl attach good "$P" --fifo 100
expect_refusal 2 '.' ctl attach good "$P" --fifo ten
expect_bus_error InvalidArgument CreateGroup "'opt'" 1000 10000 "{'bogus': <true>}"
expect_bus_error InvalidArgument CreateGroup "'opt'" 1000 10000 "{'persistent': <'yes'>}"
expect_bus_error InvalidArgument CreateGroup "'opt'" 1000 10000 "{'grow_parents': <int32 1>}"
expect_bus_error InvalidArgument CreateGroup "'opt'" 1000 10000 "{'move_processes_to': <true>}"
expect_bus_error InvalidArgument CreateGroup "'opt'" 1000 10000 "{'persistent': <true>, 'bogus': <1>}"
expect_bus_error InvalidArgument SetBandwidth "'good'" 1000 10000 "{'bogus': <true>}"
expect_bus_error InvalidArgument SetBandwidth "'good'" 1000 10000 "{'grow_parents': <'no'>}"
expect_bus_error InvalidArgument SetBandwidth "'good'" 1000 10000 "{'persistent': <true>}"
expect_bus_error InvalidArgument DeleteGroup "'good'" "{'bogus': <true>}"
expect_bus_error InvalidArgument DeleteGroup "'good'" "{'migrate_to': <uint32 1>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'bogus': <true>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'bogus'>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <int32 1>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'fifo'>, 'priority': <int32 0>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'fifo'>, 'priority': <int32 100>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'rr'>, 'priority': <int32 -1>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'fifo'>, 'priority': <'high'>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'fifo'>, 'priority': <uint32 5>}"
expect_bus_error InvalidArgument Attach "'good'" "[uint32 $P]" "{'policy': <'other'>, 'priority': <int32 5>}"
expect_bus_error InvalidArgument Detach "[uint32 $P]" "{'bogus': <true>}"
check_eq "no bad option moved the process" "$(proc_cpu_cgroup "$$")" "$(proc_cpu_cgroup "$P")"
expect_stdout 'SCHED_OTHER' chrt -p "$P"
check_eq "no bad option created a group" "" "$(ls -d "$CG/opt" 2>/dev/null)"
expect_alive "invalid options"

# --- wrong signatures, unknown members -----------------------------------------------

check_not "CreateGroup with a wrong signature fails" bcall CreateGroup s x
check_not "Attach with a wrong signature fails" bcall Attach 'sa{sv}' good 0
check_not "an unknown method fails" bcall Frobnicate
check_not "an unknown property fails" busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager Bogus
check_not "setting a read-only property fails" \
        busctl --address="$ADDR" set-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager GroupCount u 7
check_not "a group object that does not exist" \
        busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1/group/nosuch org.hcbsd1.Group Runtime
check_not "a group object with a bad encoded name" \
        busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1/group/_2e_2e org.hcbsd1.Group Runtime
expect_alive "wrong signatures"

# --- after all that -------------------------------------------------------------------

expect_stdout '^good +1ms +10ms +10\.0% +yes +0 +0$' ctl list
check_eq "only the good group exists" "good" "$(ctl_json list | jpy '" ".join(g["name"] for g in d)')"
it_check_consistent "after bad input"
it_finish
