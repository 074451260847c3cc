#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbs-oci-hook against hcbsd on the private bus (no container engine, no
# systemd: ReserveCgroup and CheckCgroup are NotSupported here; test-units.sh
# checks in a pool, and the systemd guest's suite-containers.sh runs the real
# thing): every way it fails closed, at precreate (check, the OCI config on
# stdin) and createRuntime (reserve, the state), is exit 1 with one line on
# stderr naming the container, and with --to-engine on its parent's stderr
# too; a container that did not ask is left alone without a call (check
# prints its config back unchanged); a stopped hcbsd is a bounded wait;
# ReserveCgroup's and ReleaseCgroup's bad input gets named errors.
#
# usage: test-oci-hook.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
HOOK=$BUILD/oci/hcbs-oci-hook
[ -x "$HOOK" ] || it_skip_all "$HOOK is not built"
it_start_bus

ID=0123456789abcdef
# state ANNOTATIONS-JSON [PID]: an OCI state as runtimes write it at createRuntime
state() {
        printf '{"ociVersion": "1.0.2", "id": "%s", "status": "creating", "pid": %s, "bundle": "%s", "annotations": {%s}}' \
                "$ID" "${2:-$$}" "$T" "$1" >"$T/state.json"
}
hook() { "$HOOK" --bus-address "$ADDR" --state-dir "$T/hook" "$@" <"$T/state.json"; }
# config ANNOTATIONS-JSON: an OCI config as podman gives it to a precreate hook
config() {
        printf '{"ociVersion": "1.0.2", "process": {"args": ["/bin/true"]}, "linux": {"cgroupsPath": "hcbs.slice:libpod:%s"}, "annotations": {%s}}' \
                "$ID" "$1" >"$T/config.json"
}
check_hook() { "$HOOK" --bus-address "$ADDR" check <"$T/config.json"; }
# expect_fails NAME REGEX CMD...: exit 1, one line "hcbs-oci-hook: ..." matching REGEX
expect_fails() {
        local name=$1 re=$2 lines
        shift 2
        it_run "$@"
        lines=$(printf '%s' "$ERR" | grep -c '')
        if [ "$RC" -eq 1 ] && [ "$lines" -eq 1 ] && grep -Eq -- "^hcbs-oci-hook: .*$re" <<<"$ERR"; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}
ASK='"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms", "org.hcbsd1.policy": "fifo:50"'

# expect_hook_fails NAME REGEX ARGS...: expect_fails of the hook with the state
expect_hook_fails() {
        local name=$1 re=$2
        shift 2
        expect_fails "$name" "$re" hook "$@"
}

# --- before hcbsd runs -----------------------------------------------------------

state "$ASK"
expect_hook_fails "hcbsd not on the bus: the container does not start" \
        "container ${ID:0:12}: hcbsd is not running \(org.hcbsd1 has no owner on the bus\)" reserve
it_run "$HOOK" --bus-address "unix:path=$T/nobus" reserve <"$T/state.json"
check_match "no bus at all: one line" "^hcbs-oci-hook: container ${ID:0:12}: hcbsd is not reachable: cannot connect" "$ERR"
check_eq "... exit 1" 1 "$RC"

config "$ASK"
expect_fails "precreate, hcbsd not on the bus: the container is not created" \
        "container ${ID:0:12}: hcbsd is not running \(org.hcbsd1 has no owner on the bus\)" check_hook
# --to-engine: the line also on the stderr of the hook's parent (podman at precreate), which is not the hook's
# (bash forks before it redirects: its own stderr stays the file, as podman's stays the terminal)
bash -c '"$1" --bus-address "$2" --to-engine check <"$3" 2>/dev/null; exit $?' bash "$HOOK" "$ADDR" "$T/config.json" \
        >/dev/null 2>"$T/engine.err"
check_match "--to-engine: the parent's stderr has the line" \
        "^hcbs-oci-hook: container ${ID:0:12}: hcbsd is not running" "$(cat "$T/engine.err")"
it_run "$HOOK" --bus-address "$ADDR" --to-engine check <"$T/config.json"
check_eq "--to-engine: said once where the parent's stderr is the hook's" 1 "$(printf '%s' "$ERR" | grep -c '')"
config ''
it_run check_hook
check_eq "precreate, a container without the annotations: exit 0" 0 "$RC"
check_eq "... and its config printed back unchanged" "$(cat "$T/config.json")" "$OUT"
config '"org.hcbsd1.tasks": "2ms:20ms 3ms"'
expect_fails "precreate, a bad task list" "container ${ID:0:12}: org.hcbsd1.tasks=2ms:20ms 3ms: task '3ms': expected WCET:PERIOD" \
        check_hook
config '"org.hcbsd1.tasks": "2ms:20ms", "org.hcbsd1.period": "10ms"'
expect_fails "precreate, tasks beside a period" "org.hcbsd1.tasks excludes org.hcbsd1.runtime and org.hcbsd1.period" \
        check_hook
printf '{"annotations": {%s}}' "$ASK" >"$T/config.json"
expect_fails "precreate, no linux.cgroupsPath" "the OCI config has no linux.cgroupsPath" check_hook

state ''
check "a container without the annotations: exit 0, nothing asked" hook reserve
check_eq "... and nothing recorded" "" "$(ls "$T/hook" 2>/dev/null)"
state '"org.hcbsd1.policy": "fifo:50"'
check "a policy alone asks for nothing" hook reserve

for bad in '"org.hcbsd1.runtime": "2xs", "org.hcbsd1.period": "10ms"|org.hcbsd1.runtime=2xs: .*unknown unit' \
        '"org.hcbsd1.runtime": "20ms", "org.hcbsd1.period": "10ms"|org.hcbsd1.runtime=20ms is longer than org.hcbsd1.period=10ms' \
        '"org.hcbsd1.runtime": "2ms"|org.hcbsd1.runtime is given without org.hcbsd1.period' \
        '"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms", "org.hcbsd1.policy": "deadline:1"|org.hcbsd1.policy=deadline:1: expected fifo:PRIO, rr:PRIO' \
        '"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms", "org.hcbsd1.policy": "fifo:100"|org.hcbsd1.policy=fifo:100: the priority must be a number from 1 to 99' \
        '"org.hcbsd1.runtime": 2000, "org.hcbsd1.period": "10ms"|annotation org.hcbsd1.runtime is not a string'; do
        state "${bad%%|*}"
        expect_hook_fails "bad annotations: ${bad#*|}" "container ${ID:0:12}: ${bad#*|}" reserve
        config "${bad%%|*}"
        expect_fails "precreate, bad annotations: ${bad#*|}" "container ${ID:0:12}: ${bad#*|}" check_hook
done
printf 'not json' >"$T/state.json"
expect_hook_fails "no JSON on stdin" "the OCI state on stdin is not a JSON object" reserve
state "$ASK" 0
expect_hook_fails "no pid (not a createRuntime stage)" "the OCI state has no pid" reserve
it_run "$HOOK" reserve extra
check_eq "a bad command line exits 2" 2 "$RC"
it_run "$HOOK" --help
check_match "--help names the annotations" "org.hcbsd1.runtime=DURATION" "$OUT"

# --- hcbsd on the private bus, not under systemd ----------------------------------

it_start_hcbsd_or_die
state "$ASK"
expect_hook_fails "hcbsd's refusal is the container's error, with what was asked" \
        "container ${ID:0:12}: hcbsd refused 2ms every 10ms: containers' reservations need hcbsd to run as hcbsd.service" reserve
check_eq "a refused container is not recorded" "" "$(ls "$T/hook" 2>/dev/null)"
config "$ASK"
expect_fails "precreate: hcbsd's refusal, with what was asked" \
        "container ${ID:0:12}: hcbsd refused 2ms every 10ms: containers' reservations need hcbsd to run as hcbsd.service" \
        check_hook
config '"org.hcbsd1.tasks": "2ms:20ms, 3ms:30ms"'
expect_fails "precreate, tasks: hcbsd sizes them, then refuses what it sized" \
        "container ${ID:0:12}: hcbsd refused [0-9]+us every [0-9.]+ms: containers' reservations need hcbsd" check_hook
config '"org.hcbsd1.tasks": "5ms:10ms:4ms"'
expect_fails "precreate, tasks that cannot fit: the sizing's reason" \
        "container ${ID:0:12}: hcbsd refused a reservation for 1 task: task 1 .* its WCET 5ms is longer than its deadline 4ms" \
        check_hook
state '"org.hcbsd1.tasks": "5ms:10ms:4ms"'
expect_hook_fails "createRuntime, tasks that cannot fit: the same reason" \
        "hcbsd refused a reservation for 1 task: task 1 .* its WCET 5ms is longer than its deadline 4ms" reserve
state "$ASK"
check "release of a container never reserved: exit 0" hook release
mkdir -p "$T/hook" && echo "hcbs.slice/libpod-$ID.scope/container" >"$T/hook/$ID"
expect_hook_fails "release refused: one line" "container ${ID:0:12}: hcbsd refused the release: " release

expect_bus_error NotSupported ReserveCgroup "'hcbs.slice/libpod-1.scope'" 2000 10000 '@a{sv} {}'
expect_bus_error InvalidArgument ReserveCgroup "'x.scope'" 2000 10000 "{'policy': <'deadline'>}"
expect_bus_error InvalidArgument ReserveCgroup "'x.scope'" 2000 10000 "{'policy': <'fifo'>, 'priority': <100>}"
expect_bus_error InvalidArgument ReserveCgroup "'x.scope'" 2000 10000 "{'pid': <'1'>}"
expect_bus_error InvalidArgument ReserveCgroup "'x.scope'" 2000 10000 "{'bogus': <1>}"
expect_bus_error InvalidArgument ReleaseCgroup "'x.scope'" "{'bogus': <1>}"
expect_stdout '^bss false "(org\.hcbsd1\.Error\.)?NotSupported"' bcall CheckCgroup stt hcbs.slice/libpod-1.scope 2000 10000
expect_stdout '^@a\(ssttsi\) \[\]$|^\(@a\(ssttsi\) \[\],\)$' gcall ListContainers
expect_stdout '^UNIT +CGROUP' ctl containers
expect_stdout '^\[\]$' ctl --json containers
expect_alive "ReserveCgroup's bad input"

# --- a stopped hcbsd: the hook gives up in time ------------------------------------

kill -STOP "$HCBSD_PID"
t0=$(date +%s%N)
it_run hook --timeout 500ms reserve
t1=$(date +%s%N)
kill -CONT "$HCBSD_PID"
check_match "a hcbsd that does not answer: one line" \
        "^hcbs-oci-hook: container ${ID:0:12}: hcbsd did not answer within 500ms \(asked for 2ms every 10ms\)$" "$ERR"
check_eq "... exit 1" 1 "$RC"
ms=$(((t1 - t0) / 1000000))
check_eq "... after the --timeout (500 ms), not later than 3 s (took $ms ms)" true \
        "$([ "$ms" -ge 450 ] && [ "$ms" -lt 3000 ] && echo true || echo false)"
expect_alive "a stopped and continued hcbsd"

it_finish
