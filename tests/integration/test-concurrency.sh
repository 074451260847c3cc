#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Concurrent clients racing to over-commit: hcbsd must admit exactly as many
# reservations as fit (computed in the kernel's fixed point), never more,
# and its view must equal the kernel files afterwards.
#
# usage: test-concurrency.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die

N=32
to_ratio() { # PERIOD_US RUNTIME_US
        echo $(( ($2 * 1000 << 20) / ($1 * 1000) ))
}

CAP_FP=$(ctl_json status | jpy 'd["capacity_fp"]')
CHILD_FP=$(to_ratio 100000 5000)
EXPECTED=$((CAP_FP / CHILD_FP))
it_log "capacity $CAP_FP, each group $CHILD_FP (fixed point): $EXPECTED of $N fit"

# race_run PREFIX CMD...: runs CMD (with %i replaced by 0..N-1) N times at
# once; exit codes in $T/PREFIX.rc.I, stderr in $T/PREFIX.err.I
race_run() {
        local prefix=$1 i
        shift
        local -a pids=()
        for i in $(seq 0 $((N - 1))); do
                local -a cmd=("${@//%i/$i}")
                ( "${cmd[@]}" >/dev/null 2>"$T/$prefix.err.$i"; echo $? >"$T/$prefix.rc.$i" ) &
                pids+=($!)
        done
        wait "${pids[@]}"
}

# race_count PREFIX CODE: how many of the racers exited with CODE
race_count() {
        cat "$T/$1".rc.* | grep -cx "$2"
}

# race_check_refusals PREFIX [CODES]: every racer exited with one of CODES
# (default "0 1"), and every refusal is one line
race_check_refusals() {
        local prefix=$1 codes=" ${2:-0 1} " bad=0 i rc lines
        for i in $(seq 0 $((N - 1))); do
                rc=$(cat "$T/$prefix.rc.$i")
                lines=$(grep -c '' "$T/$prefix.err.$i")
                if [ "${codes#* "$rc" }" = "$codes" ]; then
                        it_fail "$prefix racer $i: exit one of$codes" "exit $rc: $(cat "$T/$prefix.err.$i")"
                        bad=1
                elif [ "$rc" != 0 ] && [ "$lines" != 1 ]; then
                        it_fail "$prefix racer $i: one-line refusal" "$(cat "$T/$prefix.err.$i")"
                        bad=1
                fi
        done
        [ "$bad" = 0 ] && it_pass "$prefix: every racer was admitted or refused with one line"
}

sum_top_fp() {
        ctl_json list | jpy 'sum(g["bandwidth_fp"] for g in d if "/" not in g["name"])'
}

# --- 1: N creates of 5% each against 90% -------------------------------------------

race_run create ctl create "c%i" 5ms 100ms
race_check_refusals create
check_eq "exactly floor(capacity / 5%) creates were admitted" "$EXPECTED" "$(race_count create 0)"
check_eq "the others were refused" "$((N - EXPECTED))" "$(race_count create 1)"
check_eq "list shows the admitted groups" "$EXPECTED" "$(ctl_json list | jpy 'len(d)')"
check "admitted bandwidth <= capacity" test "$(sum_top_fp)" -le "$CAP_FP"
check_match "a refusal names the missing bandwidth" 'free' "$(cat "$T"/create.err.* | head -n 1)"
it_check_consistent "after $N racing creates"
expect_alive "$N racing creates"

# --- 2: N sets racing to grow (and readers alongside) -------------------------------

race_run shrink ctl set "c%i" 4ms 100ms
race_check_refusals shrink "0 4"
check_eq "every admitted group shrank" "$EXPECTED" "$(race_count shrink 0)"
(for _ in $(seq 20); do ctl list >/dev/null 2>&1; ctl check x 1ms 10ms >/dev/null 2>&1; done) &
READER=$!
IT_PIDS+=("$READER")
race_run set ctl set "c%i" 6ms 100ms
wait "$READER"
race_check_refusals set "0 1 4"
FOUR_FP=$(to_ratio 100000 4000)
SIX_FP=$(to_ratio 100000 6000)
FIT=$(( (CAP_FP - EXPECTED * FOUR_FP) / (SIX_FP - FOUR_FP) ))
[ "$FIT" -gt "$EXPECTED" ] && FIT=$EXPECTED
it_log "after shrinking to 4%, $FIT of the $EXPECTED groups can grow to 6%"
check_eq "exactly as many grew as fit" "$FIT" "$(race_count set 0)"
check_eq "the other existing groups were refused" "$((EXPECTED - FIT))" "$(race_count set 1)"
check "growing never over-commits" test "$(sum_top_fp)" -le "$CAP_FP"
it_check_consistent "after $N racing sets"

# --- 3: racing deletes and creates -----------------------------------------------------

race_run churn sh -c "if [ \$((%i % 2)) = 0 ]; then '$HCBSCTL' --bus-address '$ADDR' delete c%i; \
        else '$HCBSCTL' --bus-address '$ADDR' create d%i 1ms 100ms; fi"
race_check_refusals churn "0 1 4"
it_check_consistent "after racing deletes and creates"
check "churn never over-commits" test "$(sum_top_fp)" -le "$CAP_FP"

# --- 4: --grow-parents racing below one parent -------------------------------------------

for g in $(ctl_json list | jpy '" ".join(g["name"] for g in d)'); do
        ctl delete "$g" >/dev/null 2>&1
done
check_eq "everything deleted" 0 "$(ctl_json list | jpy 'len(d)')"
check "create p 10ms 100ms" ctl create p 10ms 100ms
race_run grow ctl create "p/c%i" 5ms 100ms --grow-parents
race_check_refusals grow
check_eq "grow-parents admitted exactly what fits" "$EXPECTED" "$(race_count grow 0)"
P_FP=$(ctl_json list | jpy '[g["bandwidth_fp"] for g in d if g["name"] == "p"][0]')
check "p's children fit in p" test "$(ctl_json list | jpy 'sum(g["bandwidth_fp"] for g in d if g["name"].startswith("p/"))')" -le "$P_FP"
check "p fits in the capacity" test "$P_FP" -le "$CAP_FP"
it_check_consistent "after racing --grow-parents"

# --- 5: racing deletes of everything -------------------------------------------------------

race_run del ctl delete "p/c%i"
race_check_refusals del "0 4"
check_eq "every existing child was deleted" "$EXPECTED" "$(race_count del 0)"
check_eq "the others did not exist" "$((N - EXPECTED))" "$(race_count del 4)"
check "delete p" ctl delete p
check_eq "nothing left in the list" 0 "$(ctl_json list | jpy 'len(d)')"
check_eq "nothing left in cgroupfs" "" "$(find "$CG" -mindepth 1 -type d)"
it_check_consistent "after racing deletes"
expect_alive "the races"
it_finish
