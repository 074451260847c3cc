#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Mutations by a caller who is not root go through polkit (a stand-in,
# tests/integration/fake-polkit.c, on the private bus): allowed, denied,
# and hcbsd keeps serving while polkit takes its time. Polkit's yes does
# not let a caller move processes it does not own.
#
# usage: test-polkit.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die

FAKE=$BUILD/tests/integration/fake-polkit
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nobody_ctl() { "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" --no-ask-password "$@"; }

# start_polkit allow|deny DELAY_MS: runs the stand-in until the next one
start_polkit() {
        [ -n "${POLKIT:-}" ] && kill "$POLKIT" 2>/dev/null && wait "$POLKIT" 2>/dev/null
        DBUS_SYSTEM_BUS_ADDRESS=$ADDR "$FAKE" "$1" "$2" > "$T/polkit.out" 2>&1 &
        POLKIT=$!
        IT_PIDS+=("$POLKIT")
        wait_for 50 grep -q ready "$T/polkit.out" || it_fail "fake polkit did not start" "$(cat "$T/polkit.out")"
}

start_polkit allow 1500
# a slow yes: the call waits, and hcbsd answers others meanwhile
nobody_ctl create pk 1ms 10ms > "$T/pk.out" 2>&1 &
SLOW=$!
sleep 0.3
check "hcbsd serves while polkit thinks" ctl status
if kill -0 "$SLOW" 2>/dev/null; then
        it_pass "the unprivileged create was still waiting for polkit"
else
        it_fail "the unprivileged create did not wait for polkit" "$(cat "$T/pk.out")"
fi
wait "$SLOW"
check_eq "polkit's yes: the unprivileged create succeeded" 0 "$?"
check_eq "the group exists in the kernel" 1000 "$(cg_read pk cpu.rt_runtime_us)"

start_polkit allow 0
it_spawn sleep 1000
ROOTS=$IT_LAST
expect_refusal 1 'belongs to uid 0' nobody_ctl attach pk "$ROOTS"
"${NOBODY[@]}" sleep 1000 </dev/null >/dev/null 2>&1 &
MINE=$!
IT_PIDS+=("$MINE")
check "a caller may move its own process" nobody_ctl attach pk "$MINE"
check "and detach it" nobody_ctl detach "$MINE"

start_polkit deny 0
expect_refusal 1 'not authorized for org.hcbsd1.manage' nobody_ctl create pk2 1ms 10ms
expect_refusal 1 'not authorized' nobody_ctl set pk 2ms 10ms
check_eq "the denied set changed nothing" 1000 "$(cg_read pk cpu.rt_runtime_us)"
check "root needs no polkit" ctl delete pk
it_check_consistent "after polkit"
it_finish
