#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What hcbsd tells systemd, against stand-ins (datagram-listen.py):
#  - sd_notify on a fake $NOTIFY_SOCKET: READY=1 with STATUS= ("N groups, M
#    units, X% of Y% reserved"), STATUS= following a create and a delete,
#    RELOADING=1 + MONOTONIC_USEC= then READY=1 around SIGHUP and Reload(),
#    WATCHDOG=1 with $WATCHDOG_USEC, STOPPING=1; nothing with --no-notify;
#  - the journal's native protocol on a fake /run/systemd/journal/socket
#    (a tmpfs over /run/systemd in hcbsd's own mount namespace, so the
#    host's /run is not touched): with $JOURNAL_STREAM naming hcbsd's stderr
#    every line goes there with PRIORITY= and SYSLOG_IDENTIFIER=, and the
#    events of daemon/message-ids.h carry their MESSAGE_ID and HCBS_*
#    fields: adoption, a reservation granted and released, a refusal, a
#    kernel rejection (a cgroup made behind hcbsd's back), a plan journal
#    replayed after a crash; without $JOURNAL_STREAM (or with another
#    stream's) the lines stay on stderr in their plain format.
#
# usage: test-notify.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus

GRANTED=b9324b583b564279b8cc0c28a7933920
RELEASED=0816bd0829d245dca2de6d9f45fb5cd7
REFUSED=ab339feee86d4684b415084f9ddca47c
REJECTED=4fb87f1f1f074d2ebbfb092011e643ab
ADOPTED=5e9a19d2bb3d4666b088dcd938ad7940
REPLAYED=6a617382076c4b0d912052b421d8011c
for id in $GRANTED $RELEASED $REFUSED $REJECTED $ADOPTED $REPLAYED; do
        grep -q "\"$id\"" "$IT_SRC/daemon/message-ids.h" || it_fail "message-ids.h still defines $id"
done

# dg_find FILE FROM KEY=VALUE...: the number (1-based) of the first datagram
# at or after FROM holding every pair (VALUE ~REGEX: matching it); fails if none.
dg_find() {
        python3 - "$@" <<'PY'
import json, re, sys
path, start, pairs = sys.argv[1], int(sys.argv[2]), [p.split("=", 1) for p in sys.argv[3:]]
def ok(d, k, v):
    if k not in d:
        return False
    return re.fullmatch(v[1:], d[k]) is not None if v.startswith("~") else d[k] == v
try:
    lines = open(path).read().splitlines()
except FileNotFoundError:
    sys.exit(1)
for i, line in enumerate(lines, 1):
    if i >= start and all(ok(json.loads(line), k, v) for k, v in pairs):
        print(i)
        sys.exit(0)
sys.exit(1)
PY
}

# dg_wait FILE FROM KEY=VALUE...: dg_find, retried for up to 5 s (60 s under valgrind).
dg_wait() {
        local n=50
        [ "${HCBS_VALGRIND:-0}" = 1 ] && n=600
        while [ "$n" -gt 0 ]; do
                dg_find "$@" && return 0
                sleep 0.1
                n=$((n - 1))
        done
        return 1
}

dg_count() { # FILE: datagrams so far
        if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi
}

listen() { # SOCKET OUT
        python3 "$IT_DIR/datagram-listen.py" "$1" "$2" &
        IT_PIDS+=($!)
        wait_for 50 test -S "$1" || it_fail "the stand-in listens on $1"
}

NOTIFY=$T/notify.jsonl
JOURNAL=$T/journal.jsonl
mkdir -p "$T/journal"
listen "$T/notify.sock" "$NOTIFY"
listen "$T/journal/socket" "$JOURNAL"

# hcbsd in its own mount namespace, where /run/systemd/journal is $T/journal
# shellcheck disable=SC2016
JOURNAL_WRAP=(unshare --mount --propagation private sh -c
        'mount -t tmpfs -o size=1m,mode=0755 hcbs-it /run/systemd && mkdir /run/systemd/journal &&
         mount --bind "$0" /run/systemd/journal && exec "$@"' "$T/journal")
if ! "${JOURNAL_WRAP[@]}" true 2>"$T/err"; then
        skip "journal checks" "cannot mount a stand-in /run/systemd in a private mount namespace: $(cat "$T/err")"
        JOURNAL_WRAP=()
fi

# --- 1: under a service manager and journald ---------------------------------------------
: >>"$T/hcbsd.log"
# hcbsd's environment only: systemd's tools (busctl) send ERRNO= to a $NOTIFY_SOCKET when they fail
STREAM=$(stat -c '%d:%i' "$T/hcbsd.log")
IT_HCBSD_NOTIFY=1
IT_HCBSD_WRAP=(env NOTIFY_SOCKET="$T/notify.sock" WATCHDOG_USEC=400000 JOURNAL_STREAM="$STREAM" "${JOURNAL_WRAP[@]}")
it_start_hcbsd_or_die

check "READY=1 with what hcbsd holds" \
        dg_wait "$NOTIFY" 1 READY=1 'STATUS=0 groups, 0 units, 0.0% of 90.0% reserved'
check "the status follows a create" ctl create media 10ms 100ms
check "STATUS= after the create" dg_wait "$NOTIFY" 1 'STATUS=1 group, 0 units, 10.0% of 90.0% reserved'
check "the status follows a second create" ctl create media/audio 5ms 100ms
check "STATUS= after the second create" dg_wait "$NOTIFY" 1 'STATUS=2 groups, 0 units, 10.0% of 90.0% reserved'
check "the status follows a delete" ctl delete media/audio
check "STATUS= after the delete" dg_wait "$NOTIFY" 1 'STATUS=1 group, 0 units, 10.0% of 90.0% reserved'
n=$(dg_count "$NOTIFY")
ctl status >/dev/null
sleep 0.5
check_eq "a read changes no STATUS=" 0 \
        "$(tail -n +"$((n + 1))" "$NOTIFY" | grep -c '"STATUS"')"
check "WATCHDOG=1 with \$WATCHDOG_USEC" dg_wait "$NOTIFY" 1 WATCHDOG=1
w1=$(grep -c '"WATCHDOG"' "$NOTIFY")
sleep 1
w2=$(grep -c '"WATCHDOG"' "$NOTIFY")
check "WATCHDOG=1 keeps coming (WATCHDOG_USEC=400ms: $((w2 - w1)) in 1 s)" test "$((w2 - w1))" -ge 2

for how in SIGHUP Reload; do
        from=$(($(dg_count "$NOTIFY") + 1))
        if [ $how = SIGHUP ]; then kill -HUP "$HCBSD_PID"; else bcall Reload >/dev/null; fi
        r=$(dg_wait "$NOTIFY" "$from" RELOADING=1 'MONOTONIC_USEC=~[0-9]+')
        check "$how: RELOADING=1 with MONOTONIC_USEC=" test -n "$r"
        check "$how: READY=1 after it, with the status" \
                dg_wait "$NOTIFY" "$((${r:-$from} + 1))" READY=1 'STATUS=1 group, 0 units, 10.0% of 90.0% reserved'
done
expect_alive "two reloads"

if [ ${#JOURNAL_WRAP[@]} -gt 0 ]; then
        check "the journal gets hcbsd's lines" \
                dg_wait "$JOURNAL" 1 SYSLOG_IDENTIFIER=hcbsd PRIORITY=6 'MESSAGE=~Ready: .*'
        check "adoption: MESSAGE_ID, HCBS_GROUPS=, HCBS_UNITS=, HCBS_ROOT=" \
                dg_find "$JOURNAL" 1 MESSAGE_ID=$ADOPTED HCBS_GROUPS=0 HCBS_UNITS=0 "HCBS_ROOT=$CG" PRIORITY=6
        check "a grant: MESSAGE_ID, HCBS_GROUP=, HCBS_RUNTIME_US=, HCBS_PERIOD_US=" \
                dg_find "$JOURNAL" 1 MESSAGE_ID=$GRANTED HCBS_GROUP=media/audio HCBS_RUNTIME_US=5000 \
                HCBS_PERIOD_US=100000 'MESSAGE=Reserved media/audio: 5000us every 100000us'
        check "the caller's CODE_FILE=, CODE_LINE=, CODE_FUNC=" \
                dg_find "$JOURNAL" 1 MESSAGE_ID=$GRANTED CODE_FILE=daemon/manager-ops.c 'CODE_LINE=~[1-9][0-9]*' \
                'CODE_FUNC=~[a-z_]+'
        check "a release: MESSAGE_ID, HCBS_GROUP=" \
                dg_find "$JOURNAL" 1 MESSAGE_ID=$RELEASED HCBS_GROUP=media/audio
        check "the reloads granted nothing again" test "$(grep -c "$GRANTED" "$JOURNAL")" -eq 2
        ctl create big 95ms 100ms >/dev/null 2>&1
        check "a refusal: MESSAGE_ID, HCBS_GROUP=, HCBS_ERROR=, the bandwidth asked" \
                dg_wait "$JOURNAL" 1 MESSAGE_ID=$REFUSED HCBS_GROUP=big HCBS_RUNTIME_US=95000 HCBS_PERIOD_US=100000 \
                HCBS_ERROR=org.hcbsd1.Error.InsufficientBandwidth PRIORITY=5
        # a cgroup made behind hcbsd's back (in this test's own tree) takes what the model thinks is free
        if mkdir "$CG/intruder" && echo 100000 >"$CG/intruder/cpu.rt_period_us" &&
                echo 50000 >"$CG/intruder/cpu.rt_runtime_us"; then
                ctl create late 50ms 100ms >/dev/null 2>&1
                check "a kernel rejection: MESSAGE_ID, ERRNO=, HCBS_FILE=, HCBS_VALUE=" \
                        dg_wait "$JOURNAL" 1 MESSAGE_ID=$REJECTED 'ERRNO=~(16|22)' "HCBS_FILE=~$CG/late/cpu\.rt_.*" \
                        'HCBS_VALUE=~[0-9]+' HCBS_ERROR=org.hcbsd1.Error.KernelRejected PRIORITY=3
        else
                skip "a kernel rejection in the journal" "cannot set up the intruder cgroup"
        fi
        echo 0 >"$CG/intruder/cpu.rt_runtime_us" 2>/dev/null
        rmdir "$CG/intruder" 2>/dev/null
        check_eq "nothing of it on stderr" "" "$(grep -E 'Reserved media|Model defect|Refused big' "$T/hcbsd.log")"
fi

from=$(($(dg_count "$NOTIFY") + 1))
it_stop_hcbsd
check "STOPPING=1 on SIGTERM" dg_find "$NOTIFY" "$from" STOPPING=1

# --- 2: a crash in a plan, replayed at the next start ------------------------------------
# hcbsd gave the capacity back on SIGTERM, so the next start's capacity plan is the one that crashes
if [ ${#JOURNAL_WRAP[@]} -gt 0 ]; then
        if HCBS_CRASH_AFTER_WRITES=1 it_start_hcbsd; then
                ctl set media 20ms 100ms >/dev/null 2>&1 # started after all: a plan of its own
                it_reap_hcbsd
        fi
        check "hcbsd crashed in a plan (HCBS_CRASH_AFTER_WRITES=1)" grep -q '^=== hcbsd exited with 134' "$T/hcbsd.log"
        it_start_hcbsd_or_die
        check "the replay: MESSAGE_ID, HCBS_WRITES=, HCBS_FILE=" \
                dg_wait "$JOURNAL" 1 MESSAGE_ID=$REPLAYED 'HCBS_WRITES=~[1-9][0-9]*' "HCBS_FILE=$T/run/plan" \
                PRIORITY=4
        check "adoption after it: one group" dg_find "$JOURNAL" 1 MESSAGE_ID=$ADOPTED HCBS_GROUPS=1
        it_stop_hcbsd
fi

# --- 3: no journal stream, no notify -----------------------------------------------------
IT_HCBSD_NOTIFY=0
jn=$(dg_count "$JOURNAL")
nn=$(dg_count "$NOTIFY")
IT_HCBSD_WRAP=(env NOTIFY_SOCKET="$T/notify.sock" JOURNAL_STREAM=1:1 "${JOURNAL_WRAP[@]}") # another stream's
it_start_hcbsd_or_die
check "--no-notify: no READY=1" test "$(dg_count "$NOTIFY")" -eq "$nn"
check "another \$JOURNAL_STREAM: the plain lines on stderr" grep -q '^<6>Adopted 1 group(s) below ' "$T/hcbsd.log"
ctl create quiet 1ms 100ms >/dev/null
check "a grant on stderr, as before" grep -q '^<6>Reserved quiet: 1000us every 100000us$' "$T/hcbsd.log"
check_eq "and nothing in the journal" "$jn" "$(dg_count "$JOURNAL")"
it_finish
