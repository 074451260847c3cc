#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Units' reservations against a stand-in for systemd
# (tests/integration/fake-systemd.c) on the private bus: hcbsd runs as if
# systemd had delegated it $CG/hcbs.slice/hcbsd.service (HCBS_TEST_OWN_CGROUP),
# so hcbs.slice is the pool shared with units' cgroups, which the test
# creates as systemd would. ReserveUnit and ReleaseUnit are answered once
# systemd has named the unit's cgroup, and hcbsd serves everyone else
# meanwhile: a slow systemd (2 s), a silent one (hcbsd's 5 s timeout), its
# error, a caller gone before the answer, hcbsd stopped with a question
# pending.
#
# usage: test-units.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus

FAKE=$BUILD/tests/integration/fake-systemd
POOL=$CG/hcbs.slice
DBUS_SYSTEM_BUS_ADDRESS=$ADDR "$FAKE" "$CG_REL/hcbs.slice" 2000 >"$T/systemd.out" 2>&1 &
IT_PIDS+=("$!")
wait_for 50 grep -q ready "$T/systemd.out" || it_fail "fake systemd did not start" "$(cat "$T/systemd.out")"

# the cgroups systemd would have made: the slice, hcbsd's unit, the units' own
mkdir -p "$POOL/hcbsd.service"
for u in fast-a slow-b mute-c slow-d slow-e mute-f; do
        mkdir "$POOL/$u.service"
done

start_hcbsd() {
        HCBS_TEST_OWN_CGROUP=$CG_REL/hcbs.slice/hcbsd.service it_start_hcbsd_or_die \
                --cgroup-root "$POOL/hcbsd.service/groups"
}
start_hcbsd

# ms CMD...: runs CMD (output in $OUT/$ERR as it_run), prints how long it took in ms
ms() {
        local t0 t1
        t0=$(date +%s%N)
        it_run "$@"
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000000))
}

# an immediate answer
check "ReserveUnit with systemd answering at once" bcall ReserveUnit stta{sv} fast-a.service 1000 10000 0
check_eq "the unit's cgroup holds the reservation" 1000 "$(cat "$POOL/fast-a.service/cpu.rt_runtime_us")"
expect_stdout 'fast-a\.service' ctl units

# a slow systemd: the call waits, everyone else is served at once
bcall ReserveUnit stta{sv} slow-b.service 2000 10000 0 >"$T/slow.out" 2>&1 &
SLOW=$!
sleep 0.3
took=$(ms ctl list)
check_eq "ListGroups answered while systemd thinks about slow-b" 0 "$RC"
if [ "$took" -lt 1000 ]; then
        it_pass "ListGroups took ${took}ms while ReserveUnit waits for systemd (< 1000)"
else
        it_fail "ListGroups took ${took}ms while ReserveUnit waits for systemd: hcbsd was blocked"
fi
if kill -0 "$SLOW" 2>/dev/null; then
        it_pass "ReserveUnit slow-b was still waiting for systemd"
else
        it_fail "ReserveUnit slow-b did not wait for systemd" "$(cat "$T/slow.out")"
fi
wait "$SLOW"
check_eq "ReserveUnit slow-b succeeded once systemd answered" 0 "$?"
check_eq "slow-b's cgroup holds the reservation" 2000 "$(cat "$POOL/slow-b.service/cpu.rt_runtime_us")"

# a silent systemd: hcbsd gives up after its timeout, with a clear error, and serves meanwhile
timeout 30 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
        --method org.hcbsd1.Manager.ReserveUnit mute-c.service 1000 10000 '@a{sv} {}' >"$T/mute.out" 2>&1 &
MUTE=$!
sleep 0.3
took=$(ms ctl status)
if [ "$RC" -eq 0 ] && [ "$took" -lt 1000 ]; then
        it_pass "Status took ${took}ms while systemd stays silent (< 1000)"
else
        it_fail "Status took ${took}ms (exit $RC) while systemd stays silent" "$ERR"
fi
t0=$(date +%s)
wait "$MUTE"
rc=$?
waited=$(($(date +%s) - t0))
check_not "ReserveUnit mute-c fails when systemd never answers" test "$rc" -eq 0
check_match "... with a timeout naming the unit" \
        'org\.freedesktop\.DBus\.Error\.Timeout.*systemd did not say within 5s which cgroup mute-c\.service has' \
        "$(cat "$T/mute.out")"
if [ "$waited" -le 7 ]; then
        it_pass "... after hcbsd's timeout (${waited}s after the status, <= 7)"
else
        it_fail "ReserveUnit mute-c took ${waited}s more: not hcbsd's 5 s timeout"
fi
check_eq "mute-c got no reservation" 0 "$(cat "$POOL/mute-c.service/cpu.rt_runtime_us")"
expect_alive "a question systemd never answered"

# systemd's own error, with its message
expect_bus_error InvalidArgument ReserveUnit nosuch-x.service 1000 10000 '@a{sv} {}'
check_match "... carrying systemd's message" 'Unit nosuch-x\.service not loaded' "$ERR"

# a caller gone before systemd answers: the reservation is still made, nothing breaks
timeout 0.3 busctl --address="$ADDR" call org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager ReserveUnit stta{sv} \
        slow-d.service 1000 10000 0 >/dev/null 2>&1
wait_for 40 test "$(cat "$POOL/slow-d.service/cpu.rt_runtime_us")" = 1000
check_eq "slow-d reserved although its caller left" 1000 "$(cat "$POOL/slow-d.service/cpu.rt_runtime_us")"
expect_alive "a caller that left before systemd answered"

# releases: a known unit at once, an unrecorded one once systemd named its cgroup
check "ReleaseUnit fast-a" bcall ReleaseUnit sa{sv} fast-a.service 0
check_eq "fast-a's runtime is back to 0" 0 "$(cat "$POOL/fast-a.service/cpu.rt_runtime_us")"
took=$(ms bcall ReleaseUnit sa{sv} slow-e.service 0)
check_eq "ReleaseUnit of an unrecorded unit waits for systemd and succeeds" 0 "$RC"
if [ "$took" -ge 1500 ]; then
        it_pass "ReleaseUnit slow-e took ${took}ms: systemd was asked (>= 1500)"
else
        it_fail "ReleaseUnit slow-e took ${took}ms: systemd was not asked"
fi
check "ReleaseUnit of a name that is not a service's holds nothing" bcall ReleaseUnit sa{sv} 'not a unit' 0
check "ReleaseUnit slow-b" bcall ReleaseUnit sa{sv} slow-b.service 0
check "ReleaseUnit slow-d" bcall ReleaseUnit sa{sv} slow-d.service 0
check_eq "no unit holds a reservation after the releases" 0 "$(ctl_json units | jpy 'len(d)')"
for u in fast-a slow-b slow-d slow-e; do
        check_eq "$u.service holds nothing after its release" 0 "$(cat "$POOL/$u.service/cpu.rt_runtime_us")"
done

# a container about to be created (hcbs-oci-hook check, precreate): admitted or refused by the pool's room,
# with nothing written; its scope's cgroup does not exist yet
HOOK=$BUILD/oci/hcbs-oci-hook
hook_check() { # hook_check ANNOTATIONS-JSON: the hook's check on an OCI config with a scope in the pool
        printf '{"linux": {"cgroupsPath": "/%s/hcbs.slice/libpod-c0ffee.scope"}, "annotations": {%s}}' \
                "$CG_REL" "$1" >"$T/config.json"
        it_run "$HOOK" --bus-address "$ADDR" check <"$T/config.json"
}
before=$(cat "$POOL/cpu.rt_runtime_us")
hook_check '"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms"'
check_eq "precreate check of 2ms/10ms in the pool: admitted" 0 "$RC"
check_eq "... the config printed back unchanged" "$(cat "$T/config.json")" "$OUT"
hook_check '"org.hcbsd1.tasks": "2ms:20ms, 3ms:30ms", "org.hcbsd1.policy": "fifo:20"'
check_eq "precreate check of two tasks, sized by hcbsd: admitted" 0 "$RC"
hook_check '"org.hcbsd1.runtime": "950ms", "org.hcbsd1.period": "1s"'
check_eq "precreate check of 95%: refused (exit 1)" 1 "$RC"
check_match "... with hcbsd's reason and numbers" \
        '^hcbs-oci-hook: container libpod-c0ffe: hcbsd refused 950ms every 1s: .*needs 95\.0%' "$ERR"
check_eq "the checks wrote nothing: the pool's runtime" "$before" "$(cat "$POOL/cpu.rt_runtime_us")"
check "... and made no cgroup" test ! -e "$POOL/libpod-c0ffee.scope"
expect_stdout '^bss false "(org\.hcbsd1\.Error\.)?InvalidArgument" ".*not a scope' \
        bcall CheckCgroup stt "$CG_REL/hcbs.slice/x.service" 2000 10000

# hcbsd stopped while a call waits for systemd: the caller gets an answer, hcbsd frees the question
timeout 30 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
        --method org.hcbsd1.Manager.ReserveUnit mute-f.service 1000 10000 '@a{sv} {}' >"$T/stop.out" 2>&1 &
STOPPED=$!
wait_for 50 grep -q '^ask mute-f.service ControlGroup' "$T/systemd.out"
it_stop_hcbsd
wait "$STOPPED"
check_match "a call pending at SIGTERM is answered" 'hcbsd stopped before systemd named the cgroup of mute-f\.service' \
        "$(cat "$T/stop.out")"
it_finish
