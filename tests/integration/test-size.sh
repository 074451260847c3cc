#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl size, hcbsctl create GROUP --tasks FILE and SizeReservation()
# against hcbsd on a private bus: the worked example of
# tests/unit/test-sizing.c scaled to milliseconds, JSON, exit codes 0/1/2,
# refusals that name the task, bad input (empty, zero, huge, WCET > deadline,
# deadline > period, 2,000 tasks), options on the bus, a caller that is
# not root, the designer off the event loop and its limit of steps.
#
# usage: test-size.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus

NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# --- usage: no daemon needed ------------------------------------------------

expect_stdout 'EXIT STATUS' "$HCBSCTL" size --help
expect_stdout 'Shin & Lee' "$HCBSCTL" size --help
expect_stdout 'create GROUP --tasks FILE' "$HCBSCTL" create --help
expect_refusal 2 'size: no tasks' ctl size
expect_refusal 2 "size: task '2ms': expected WCET:PERIOD" ctl size --task 2ms
expect_refusal 2 "size: task '2ms:x': invalid period" ctl size --task 2ms:x
expect_refusal 2 "expected WCET:PERIOD\[:DEADLINE\]" ctl size --task 1ms:2ms:3ms:4ms
expect_refusal 2 'exclude each other' ctl size --task 1ms:10ms --period 2ms --period-range 1ms..3ms
expect_refusal 2 "invalid --period-range '3ms'" ctl size --task 1ms:10ms --period-range 3ms
expect_refusal 2 "--period-range '5ms..3ms' is empty" ctl size --task 1ms:10ms --period-range 5ms..3ms
expect_refusal 2 "invalid --cpus '0'" ctl size --task 1ms:10ms --cpus 0
expect_refusal 2 "invalid --scheduler 'rm'" ctl size --task 1ms:10ms --scheduler rm
expect_refusal 2 'cannot open /nonexistent' ctl size --tasks /nonexistent
printf '# comment\n1ms 10ms\n\n2ms:oops\n' >"$T/bad.tasks"
expect_refusal 2 "bad.tasks:4: task '2ms:oops': invalid period" ctl size --tasks "$T/bad.tasks"
expect_refusal 2 'create: missing argument' ctl create g --cpus 1 # a CPU list (rtmax v7) without a reservation or --tasks
expect_refusal 2 'create: missing argument' ctl create --task 1ms:10ms

it_start_hcbsd_or_die

# --- the worked example, in milliseconds -------------------------------------
# τ1 = (2ms, 20ms), τ2 = (3ms, 30ms), Π = 10ms: τ2 needs sbf(30ms) = 2r + max(0, 2r - 10ms) >= 7ms,
# so r = 3.5ms; the response bounds are 2(Π - r) + 2ms = 15ms and, for τ2, the fixed point
# sbf⁻¹(3ms + 2 x 2ms) = 2(Π - r) + Π + r = 26.5ms.

expect_stdout '^interface: +3\.5ms every 10ms on each of 1 CPU' ctl size --task 2ms:20ms --task 3ms:30ms --cpus 1 --period 10ms
expect_stdout 'reserve it: hcbsctl create GROUP 3500us 10ms|reserve it: hcbsctl create GROUP 3\.5ms 10ms' \
        ctl size --task 2ms:20ms --task 3ms:30ms --cpus 1 --period 10ms
expect_json ctl_json size --task 2ms:20ms --task 3ms:30ms --cpus 1 --period 10ms
J=$(ctl_json size --task 2ms:20ms --task 3ms:30ms --cpus 1 --period 10ms)
check_eq "size --json: runtime, period, cpus, bandwidth, schedulable" "3500 10000 1 0.35 true" \
        "$(printf '%s' "$J" | jpy '" ".join(str(x).lower() for x in (d["runtime_us"], d["period_us"], d["cpus"], round(d["bandwidth"], 2), d["schedulable"]))')"
check_eq "size --json: ranks and response bounds" "1 15000 5000 2 26500 3500" \
        "$(printf '%s' "$J" | jpy '" ".join(str(t[k]) for t in d["tasks"] for k in ("rank", "response_us", "slack_us"))')"
# the same from a file with comments, and from standard input
printf '# control loop\n2ms 20ms   # fast\n3ms:30ms:30ms\n' >"$T/ex.tasks"
check_eq "size --tasks FILE equals --task" "3500" "$(ctl_json size --tasks "$T/ex.tasks" --cpus 1 --period 10ms | jpy 'd["runtime_us"]')"
check_eq "size --tasks - reads stdin" "3500" \
        "$(ctl_json size --tasks - --cpus 1 --period 10ms <"$T/ex.tasks" | jpy 'd["runtime_us"]')"
# EDF needs less: dbf(30ms) = 5ms <= sbf(30ms) = 2r + max(0, 2r - 10ms) from r = 2.5ms
check_eq "size --scheduler edf" "2500" \
        "$(ctl_json size --tasks "$T/ex.tasks" --cpus 1 --period 10ms --scheduler edf | jpy 'd["runtime_us"]')"
# a period range: the result lies inside it and needs no more bandwidth than the fixed period
R=$(ctl_json size --tasks "$T/ex.tasks" --cpus 1 --period-range 1ms..10ms)
check_eq "size --period-range: within the range, no worse than 10ms" true \
        "$(printf '%s' "$R" | jpy '1000 <= d["period_us"] <= 10000 and d["bandwidth"] <= 0.35')"
# several CPUs: the per-CPU runtime is the budget over the CPUs
M=$(ctl_json size --tasks "$T/ex.tasks" --cpus 2 --period 10ms)
check_eq "size --cpus 2: budget = cpus x runtime" true \
        "$(printf '%s' "$M" | jpy 'd["cpus"] == 2 and d["budget_us"] == 2 * d["runtime_us"]')"
# anyone may ask
check "size works for an unprivileged caller" "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" size --tasks - --cpus 1 <"$T/ex.tasks"

# --- refusals: 1 when no reservation exists, 2 for bad input ------------------

expect_refusal 1 'task 2 \(5ms every 10ms, due 4ms\) cannot meet its deadline on any reservation: its WCET 5ms is longer than its deadline 4ms' \
        ctl size --task 1ms:10ms --task 5ms:10ms:4ms --cpus 1
it_run ctl_json size --task 1ms:10ms --task 5ms:10ms:4ms --cpus 1
check_eq "size --json refused: exit 1, schedulable false, the reason" "1 false InsufficientBandwidth True" \
        "$RC $(printf '%s' "$OUT" | jpy '" ".join([str(d["schedulable"]).lower(), d["error"], str("task 2" in d["reason"])])')"
expect_refusal 1 'utilisation 180\.0% is above 1 CPU x the per-CPU limit 90\.0%' ctl size --task 9ms:10ms --task 9ms:10ms --cpus 1
expect_refusal 1 'task 1 \(9\.5ms every 10ms, due 10ms\) cannot meet its deadline within the per-CPU limit 90\.0%' \
        ctl size --task 9.5ms:10ms --cpus 2 --period 10ms
expect_refusal 2 'deadline 20ms is longer than the period 10ms' ctl size --task 1ms:10ms:20ms --cpus 1
expect_refusal 2 'period 50us is outside MinPeriod..MaxPeriod \(100us..4s\)' ctl size --task 1ms:10ms --period 50us
expect_refusal 2 'period range 1ms..10s is outside MinPeriod..MaxPeriod' ctl size --task 1ms:10ms --period-range 1ms..10s
expect_refusal 2 'task 1: the WCET is 0' ctl size --task 0:10ms
expect_refusal 2 'task 1: values above 3600s' ctl size --task 1ms:10000s
expect_refusal 1 'edf is analysed on one CPU only' ctl size --task 1ms:10ms --cpus 2 --scheduler edf
for i in $(seq 2000); do echo "10us 100ms"; done >"$T/many.tasks"
expect_refusal 2 '2000 tasks: at most 1024' ctl size --tasks "$T/many.tasks"
head -n 1024 "$T/many.tasks" >"$T/limit.tasks"
check "1024 tasks are sized" ctl size --tasks "$T/limit.tasks" --cpus 4
expect_alive "sizing 2,000 tasks"

# --- the method itself ---------------------------------------------------------

expect_stdout '^ttua\{sv\} 3500 10000 1 ' bcall SizeReservation 'a(ttt)a{sv}' 2 2000 20000 0 3000 30000 0 2 cpus u 1 period t 10000
# given priorities: τ2 first, so τ1 (2ms, due 20ms) waits for 3ms: r + max(0, 2r - 10ms) >= 5ms at r = 5ms
expect_stdout '^ttua\{sv\} 5000 10000 1 ' bcall SizeReservation 'a(ttt)a{sv}' 2 2000 20000 0 3000 30000 0 3 cpus u 1 period t 10000 priorities au 2 10 20
expect_stdout '"rank" au 2 2 1' bcall SizeReservation 'a(ttt)a{sv}' 2 2000 20000 0 3000 30000 0 3 cpus u 1 period t 10000 priorities au 2 10 20
expect_bus_error InvalidArgument SizeReservation '[]' '{}'
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'frobnicate': <true>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'cpus': <'two'>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'scheduler': <'rm'>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'priorities': <[uint32 1, 2]>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'cpus': <uint32 0>}"
expect_bus_error InsufficientBandwidth SizeReservation '[(uint64 5000, uint64 10000, uint64 4000)]' '{}'
expect_bus_error InvalidArgument SizeReservation '[(uint64 18446744073709551615, uint64 18446744073709551615, uint64 0)]' '{}'
expect_bus_error InvalidArgument SizeReservation '[(uint64 0, uint64 0, uint64 0)]' '{}'
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'period': <uint64 18446744073709551615>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'min_period': <uint64 5000>, 'max_period': <uint64 1000>}"
expect_bus_error InvalidArgument SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'cpus': <uint32 4294967295>}"
expect_bus_error NotSupported SizeReservation '[(uint64 1000, uint64 10000, uint64 0)]' "{'cpus': <uint32 2>, 'scheduler': <'edf'>}"
expect_alive "bad SizeReservation calls"

# --- the designer runs off the event loop ---------------------------------------
# (issue 23: any user could freeze hcbsd with one SizeReservation.) An input
# hours long under edf takes the designer 86 million steps (0.2 s); while it
# runs for uid 65534, root's calls are answered (in the loop they would all
# wait for it: one at most could come first), and that uid's next call waits
# its turn rather than failing.
nobody_size() { # OUTFILE ARGS...: SizeReservation as uid 65534, in the background
        local out=$1
        shift
        "${NOBODY[@]}" busctl --address="$ADDR" --timeout=60 call org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager \
                SizeReservation 'a(ttt)a{sv}' "$@" >"$out" 2>&1 </dev/null &
        IT_LAST=$!
        IT_PIDS+=("$IT_LAST")
}
nobody_size "$T/heavy.out" 2 864000000 3600000000 0 240 1000 0 4 scheduler s edf min_period t 100 max_period t 4000000 \
        cpus u 1
HEAVY_PID=$IT_LAST
nobody_size "$T/second.out" 1 1000 10000 0 2 period t 1000 cpus u 1
SECOND_PID=$IT_LAST
answered=0
for _ in 1 2 3 4 5 6 7 8; do
        [ -s "$T/heavy.out" ] && break
        ctl status >/dev/null 2>&1 && [ ! -s "$T/heavy.out" ] && answered=$((answered + 1))
done
check "root is answered while uid 65534's analysis runs ($answered calls of 8, 3 or more)" test "$answered" -ge 3
wait "$HEAVY_PID"
check_eq "the long analysis is answered" 0 "$?"
check_match "with the design" '^ttua\{sv\} [0-9]+ [0-9]+ [0-9]+ ' "$(cat "$T/heavy.out")"
wait "$SECOND_PID"
check_eq "and the same uid's second call, in its turn" 0 "$?"
check_match "with its design" '^ttua\{sv\} [0-9]+ 1000 1 ' "$(cat "$T/second.out")"
# one count of steps for the whole request: past it, the refusal names the limit
expect_bus_error LimitsExceeded SizeReservation \
        '[(uint64 340, uint64 2000, uint64 0), (uint64 103, uint64 1000, uint64 0), (uint64 624000000, uint64 3600000000, uint64 0)]' \
        "{'scheduler': <'edf'>, 'min_period': <uint64 100>, 'max_period': <uint64 4000000>, 'cpus': <uint32 1>}"
check_match "the refusal names the limit" 'needs more than 100000000 steps of analysis' "$ERR"
expect_refusal 1 'needs more than 100000000 steps' ctl size --task 340us:2ms --task 103us:1ms --task 624s:3600s \
        --scheduler edf --period-range 100us..4s --cpus 1
expect_alive "analyses off the loop"

# --- create GROUP --tasks FILE --------------------------------------------------

expect_stdout '^created sized: 3\.5ms every 10ms on each CPU \(sized for 2 tasks\)$' \
        ctl create sized --tasks "$T/ex.tasks" --cpus 1 --period 10ms
check_eq "create --tasks: the kernel files hold the sized reservation" "3500 10000" \
        "$(cg_read sized cpu.rt_runtime_us) $(cg_read sized cpu.rt_period_us)"
check_eq "create --tasks --json" "sized2 3500 10000" \
        "$(ctl_json create sized2 --tasks "$T/ex.tasks" --cpus 1 --period 10ms | jpy '" ".join(str(d[k]) for k in ("name", "runtime_us", "period_us"))')"
expect_refusal 1 'task 2 \(5ms every 10ms, due 4ms\)' ctl create nope --task 1ms:10ms --task 5ms:10ms:4ms --cpus 1
check "a refused create --tasks creates nothing" test ! -e "$CG/nope"
expect_refusal 1 'GroupExists|exists' ctl create sized --tasks "$T/ex.tasks" --cpus 1 --period 10ms
check "delete the sized groups" sh -c "'$HCBSCTL' --bus-address '$ADDR' --no-ask-password delete sized && '$HCBSCTL' --bus-address '$ADDR' --no-ask-password delete sized2"

it_finish
