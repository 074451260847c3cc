#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl judges replies by their signature: against fake-hcbsd on a private
# dbus-daemon, every command that calls a Manager method succeeds when the
# reply has the method's signature ("right") and fails with exit 1 and
# "unexpected reply to METHOD" when it has another ("wrong"). Needs
# dbus-daemon; no root, no cgroups.
#
# usage: test-ctl-replies.sh HCBSCTL FAKE_HCBSD BUS_CONF
set -u
HCBSCTL=${1:?usage: test-ctl-replies.sh HCBSCTL FAKE_HCBSD BUS_CONF}
FAKE=${2:?}
CONF=${3:?}
# shellcheck source=tests/unit/private-bus.sh
. "$(dirname "$0")/private-bus.sh"
private_bus "$CONF"
export DBUS_SYSTEM_BUS_ADDRESS=$ADDR
pass=0 fail=0

start_fake() {
        [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
        "$FAKE" "$1" >"$T/fake.out" 2>&1 &
        FAKE_PID=$!
        for _ in $(seq 100); do
                grep -q ready "$T/fake.out" && return 0
                sleep 0.05
        done
        echo "FAIL: fake-hcbsd $1 did not start: $(cat "$T/fake.out")"
        exit 1
}

# METHOD hcbsctl-ARGS...: one command against the fake of the current mode
run() {
        local method=$1 rc
        shift
        "$HCBSCTL" --bus-address "$DBUS_SYSTEM_BUS_ADDRESS" --no-ask-password "$@" >"$T/out" 2>"$T/err"
        rc=$?
        if [ "$mode" = right ] && [ "$rc" -eq 0 ]; then
                pass=$((pass + 1))
        elif [ "$mode" = wrong ] && [ "$rc" -eq 1 ] && grep -q "unexpected reply to $method" "$T/err"; then
                pass=$((pass + 1))
        else
                echo "FAIL: $mode reply to $method: hcbsctl $* exited $rc: $(cat "$T/err")"
                fail=$((fail + 1))
        fi
}

for mode in right wrong; do
        start_fake "$mode"
        run CreateGroup create fake 1ms 10ms
        run SetBandwidth set fake 2ms 10ms
        run CheckBandwidth check fake 1ms 10ms
        run DeleteGroup delete fake
        run Attach attach fake $$
        run Detach detach $$
        run ListGroups list
        run ListUnits units
        run ReserveUnit reserve-unit fake.service 1ms 10ms
        run ReleaseUnit release-unit fake.service
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
