#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Least privilege: a caller polkit allows (the stand-in, fake-polkit) still
# moves and re-prioritises only its own processes, through every method and
# option; Detach never sends a process to the hierarchy's root; a move
# demotes and restores each RT thread, not only the main one; requests are
# bounded before polkit is asked.
#
# hcbsd's root is $CG/root here, so a cgroup outside its tree ($CG/orig) can
# serve as a process's origin and be removed.
#
# usage: test-privilege.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
ROOTDIR=$CG/root
ROOT_REL=$CG_REL/root
it_start_hcbsd_or_die --cgroup-root "$ROOTDIR"

FAKE=$BUILD/tests/integration/fake-polkit
RT_THREADS=$BUILD/tests/integration/rt-threads
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nobody_ctl() { "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" --no-ask-password "$@"; }
ngcall() {
        local method=$1
        shift
        "${NOBODY[@]}" timeout 30 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
                --method "org.hcbsd1.Manager.$method" "$@"
}
# nobody_error ERROR METHOD ARGS...: the unprivileged call fails with that error name
nobody_error() {
        local error=$1
        shift
        it_run ngcall "$@"
        if [ "$RC" -ne 0 ] && printf '%s\n' "$ERR" | grep -Eq -- "$error"; then
                it_pass "nobody: $1 fails with $error"
        else
                local d
                mapfile -t d < <(it_details ngcall "$@")
                it_fail "nobody: $1 fails with $error" "${d[@]}"
        fi
}
start_polkit() { # allow|deny DELAY_MS
        [ -n "${POLKIT:-}" ] && kill "$POLKIT" 2>/dev/null && wait "$POLKIT" 2>/dev/null
        DBUS_SYSTEM_BUS_ADDRESS=$ADDR "$FAKE" "$1" "$2" >"$T/polkit.out" 2>&1 &
        POLKIT=$!
        IT_PIDS+=("$POLKIT")
        wait_for 50 grep -q ready "$T/polkit.out" || it_fail "fake polkit did not start" "$(cat "$T/polkit.out")"
}
cgroup_of() { proc_cpu_cgroup "$1"; }
policy_of() { chrt -p "$1" 2>/dev/null | sed -n '1s/.*: //p'; }
prio_of() { chrt -p "$1" 2>/dev/null | sed -n '2s/.*: //p'; }

if ! command -v gdbus >/dev/null; then
        skip "privilege suite" "gdbus is not installed"
        it_finish
fi
start_polkit allow 0

# --- moving other users' processes ---------------------------------------------------------

check "create a 10ms 100ms" ctl create a 10ms 100ms
check "create b 10ms 100ms" ctl create b 10ms 100ms
it_spawn sleep 1000
ROOTS=$IT_LAST
check "root attaches its own sleep to a" ctl attach a "$ROOTS"
nobody_error PermissionDenied DeleteGroup a "{'migrate_to': <''>}"
nobody_error PermissionDenied DeleteGroup a "{'migrate_to': <'b'>}"
check_eq "root's process is still in a" "/$ROOT_REL/a" "$(cgroup_of "$ROOTS")"
nobody_error PermissionDenied CreateGroup a/sub 1000 100000 "{'move_processes_to': <'a/sub'>}"
check_not "a/sub was not created" test -d "$ROOTDIR/a/sub"
check_eq "root's process is still in a" "/$ROOT_REL/a" "$(cgroup_of "$ROOTS")"
nobody_error PermissionDenied ReserveUnit x.service 1000 10000 "{'policy': <'fifo'>, 'priority': <50>}"
"${NOBODY[@]}" sleep 1000 </dev/null >/dev/null 2>&1 &
MINE=$!
IT_PIDS+=("$MINE")
check "nobody attaches its own process to b" nobody_ctl attach b "$MINE"
it_run ngcall CreateGroup b/sub 1000 100000 "{'move_processes_to': <'b/sub'>}"
check_eq "nobody may move its own processes into a new group" 0 "$RC"
check_eq "nobody's process is in b/sub" "/$ROOT_REL/b/sub" "$(cgroup_of "$MINE")"
it_run gcall DeleteGroup a "{'migrate_to': <''>}"
check_eq "root may delete a and detach what it holds" 0 "$RC"
check_eq "root's process went back where it came from" "/" "$(cgroup_of "$ROOTS")"

# --- Detach never lands in the mount root --------------------------------------------------

it_spawn sleep 1000
STRAY=$IT_LAST
echo "$STRAY" >"$ROOTDIR/b/sub/cgroup.procs"
expect_refusal 1 'does not know where process' ctl detach "$STRAY"
check_eq "a process hcbsd did not attach stays where it is" "/$ROOT_REL/b/sub" "$(cgroup_of "$STRAY")"

bash -c 'while [ ! -e "$1/go" ]; do sleep 0.05; done; sleep 1000 & echo $! >"$1/child"; wait' _ "$T" \
        </dev/null >/dev/null 2>&1 &
PARENT=$!
IT_PIDS+=("$PARENT")
check "create c 10ms 100ms" ctl create c 10ms 100ms
check "attach a shell to c" ctl attach c "$PARENT"
touch "$T/go"
wait_for 50 test -s "$T/child"
CHILD=$(cat "$T/child")
IT_PIDS+=("$CHILD")
check_eq "its child was forked in c" "/$ROOT_REL/c" "$(cgroup_of "$CHILD")"
check "the child is detached" ctl detach "$CHILD"
check_eq "to where its parent came from" "/" "$(cgroup_of "$CHILD")"

mkdir "$CG/orig"
it_spawn sleep 1000
GONE=$IT_LAST
echo "$GONE" >"$CG/orig/cgroup.procs"
check "attach a process from $CG_REL/orig" ctl attach c "$GONE"
rmdir "$CG/orig"
expect_refusal 1 'which is gone' ctl detach "$GONE"
check_eq "it stays in c" "/$ROOT_REL/c" "$(cgroup_of "$GONE")"

it_spawn sleep 1000
KEPT=$IT_LAST
check "attach another process" ctl attach c "$KEPT"
it_kill_hcbsd
# a pid that names a process, with another process's start time: not its origin
echo "$STRAY 1 " >>"$T/run/origins"
it_start_hcbsd_or_die --cgroup-root "$ROOTDIR"
check "after a restart, the process is detached" ctl detach "$KEPT"
check_eq "to its origin, saved across the restart" "/" "$(cgroup_of "$KEPT")"
expect_refusal 1 'does not know where process' ctl detach "$STRAY"

# --- moves demote and restore each thread ----------------------------------------------------

# spawn_threads MAIN WORKER: sets PID and TID. Each call has its own file: the
# background child opens (truncates) it only after the shell has moved on, so
# a shared file could still hold the previous call's "ready" line.
SPAWNS=0
spawn_threads() {
        local out="$T/threads.$((++SPAWNS)).out"

        "$RT_THREADS" "$1" "$2" >"$out" 2>&1 &
        IT_PIDS+=("$!")
        wait_for 50 grep -q ready "$out"
        read -r _ PID TID <"$out"
}
check "create m1 20ms 100ms" ctl create m1 20ms 100ms
spawn_threads other fifo:10
check "attach a SCHED_OTHER main thread with a FIFO worker" ctl attach m1 "$PID"
it_run gcall CreateGroup m1/leaf 10000 100000 "{'move_processes_to': <'m1/leaf'>}"
check_eq "CreateGroup m1/leaf moves it (the RT worker was demoted first)" 0 "$RC"
check_eq "the process is in m1/leaf" "/$ROOT_REL/m1/leaf" "$(cgroup_of "$PID")"
check_eq "the worker is FIFO again" "SCHED_FIFO 10" "$(policy_of "$TID") $(prio_of "$TID")"
check_eq "the main thread is still SCHED_OTHER" "SCHED_OTHER" "$(policy_of "$PID")"

check "create m2 20ms 100ms" ctl create m2 20ms 100ms
spawn_threads fifo:20 other
check "attach a FIFO main thread with a SCHED_OTHER worker" ctl attach m2 "$PID"
it_run gcall CreateGroup m2/leaf 10000 100000 "{'move_processes_to': <'m2/leaf'>}"
check_eq "CreateGroup m2/leaf moves it" 0 "$RC"
check_eq "the main thread is FIFO 20 again" "SCHED_FIFO 20" "$(policy_of "$PID") $(prio_of "$PID")"
check_eq "the worker is still SCHED_OTHER" "SCHED_OTHER" "$(policy_of "$TID")"

# --- bounded requests ------------------------------------------------------------------------

PIDS=$(seq -s, 1 513)
expect_bus_error InvalidArgument Attach b "@au [$PIDS]" "{}"
start_polkit allow 60000
for i in 1 2 3 4 5 6 7 8; do
        ngcall CreateGroup "wait$i" 1000 100000 "{}" >/dev/null 2>&1 &
        IT_PIDS+=("$!")
done
sleep 1
nobody_error 'org.freedesktop.DBus.Error.LimitsExceeded' CreateGroup wait9 1000 100000 "{}"
check "root is served meanwhile" ctl status
it_run timeout 5 "${NOBODY[@]}" gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
        --method org.hcbsd1.Manager.CreateGroup 'bad name' 1000 100000 "{}"
check_match "a bad name is refused before polkit is asked" "InvalidName" "$ERR"
start_polkit allow 0
check_eq "no waiting group was created by a dead polkit" "" "$(ls -d "$ROOTDIR"/wait* 2>/dev/null)"

# callers who leave while polkit thinks take their queries with them: eight of
# them must not lock their uid out (issue 23: a query outlived its caller)
start_polkit allow 60000
GONE=()
for i in 1 2 3 4 5 6 7 8; do # not through ngcall: $! must be the client (timeout, once setpriv has exec'd)
        "${NOBODY[@]}" timeout 30 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
                --method org.hcbsd1.Manager.CreateGroup "gone$i" 1000 100000 "{}" >/dev/null 2>&1 &
        GONE+=("$!")
        IT_PIDS+=("$!")
done
sleep 1
kill -TERM "${GONE[@]}" 2>/dev/null
wait "${GONE[@]}" 2>/dev/null
sleep 0.5
it_run "${NOBODY[@]}" timeout 3 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
        --method org.hcbsd1.Manager.CreateGroup gone9 1000 100000 "{}"
check_eq "a ninth call of that uid waits for polkit (exit 124 of timeout), not refused: $ERR" 124 "$RC"
start_polkit allow 0
check_eq "no group of a caller who left was created" "" "$(ls -d "$ROOTDIR"/gone* 2>/dev/null)"
check "root is served" ctl status

# reads anyone may make do not re-scan every thread each time
if command -v strace >/dev/null; then
        python3 -c 'import threading, time
for _ in range(100): threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
time.sleep(1000)' </dev/null >/dev/null 2>&1 &
        THREADS=$!
        IT_PIDS+=("$THREADS")
        wait_for 50 test "$(ls /proc/$THREADS/task 2>/dev/null | wc -l)" -ge 101
        check "create many 1ms 100ms" ctl create many 1ms 100ms
        check "attach a process of 101 threads" ctl attach many "$THREADS"
        strace -f -qq -c -e trace=sched_getscheduler -o "$T/strace.out" -p "$HCBSD_PID" &
        STRACE=$!
        sleep 1
        for i in $(seq 10); do nobody_ctl list >/dev/null; done
        kill -INT "$STRACE"
        wait "$STRACE" 2>/dev/null
        CALLS=$(awk '$NF == "sched_getscheduler" { print $4 }' "$T/strace.out")
        it_log "10 lists by nobody: ${CALLS:-0} sched_getscheduler calls (101 threads; 1010 uncached)"
        check "ten lists in a row read each thread at most a few times" test "${CALLS:-0}" -lt 505
else
        skip "the thread-scan cache" "strace is not installed"
fi

COUNT=$(ctl_json list | jpy 'len(d)')
printf '[Manager]\nMaxGroups=%s\n' "$COUNT" >"$T/conf.d/50-max.conf"
check "reload with MaxGroups=$COUNT" bcall Reload
expect_refusal 2 "MaxGroups=$COUNT" ctl create one-more 1ms 100ms
it_finish
