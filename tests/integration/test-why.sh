#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl why on this machine's kernel (mainline RT group scheduling on the
# cgroup-v1 cpu hierarchy): broken set-ups, each diagnosed with its own cause
# (the --json id) and fix, and healthy threads that get exit 0.
#
#   raw-zero        a process in a 0-runtime v1 cgroup hcbsd does not manage
#   ancestor-zero   ... below one: the first at 0 is named
#   group-zero      in one of hcbsd's groups set to runtime 0: hcbsctl set
#   rlimit-rtprio   nobody's process with RLIMIT_RTPRIO 0 (asked by root and by
#                   nobody itself; nobody may not ask about root's)
#   cap-sys-nice    root's process with CAP_SYS_NICE dropped
#   rlimit-rttime   a SCHED_FIFO process with RLIMIT_RTTIME 50ms
#   budget-used-up  a SCHED_FIFO spinner in a 5% group (the BPF collector)
#   hcbsd-absent    the raw-zero process again with hcbsd stopped
# Healthy: a SCHED_FIFO process in a group with a budget, a SCHED_OTHER
# worker thread (TID) of it beside an RT main thread, and a SCHED_OTHER one
# that may become RT. hcbsd's root is $CG/hcbsd; the cgroups it does not
# manage are siblings in $CG, removed with it.
#
# usage: test-why.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
sed -i 's/^Capacity=.*/Capacity=30%/' "$T/hcbsd.conf" # the root's budget is shared: media 20%, spin 5%
it_start_bus
ROOT=$CG/hcbsd
mkdir "$CG" || exit 2
it_start_hcbsd_or_die --cgroup-root "$ROOT"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
RT_THREADS=$BUILD/tests/integration/rt-threads

# expect_cause LABEL TARGET ID KIND FIX-REGEX [RUNNER...]: hcbsctl --json why TARGET (run by RUNNER)
# exits 1 and names cause ID of KIND whose fix matches FIX-REGEX; its message is left in MSG
expect_cause() {
        local label=$1 target=$2 id=$3 kind=$4 fix=$5 got rest
        shift 5
        it_run "$@" "$HCBSCTL" --bus-address "$ADDR" --json why "$target"
        # one python a check: "KIND<TAB>FIX<TAB>MESSAGE" of the cause, or the causes there are
        got=$(jpy "next(('\\t'.join((c['kind'], c['fix'], c['message'])) for c in d['causes'] if c['id'] == '$id'),
                   [(c['id'], c['kind'], c['fix']) for c in d['causes']])" <<<"$OUT" 2>&1)
        MSG=${got##*$'\t'}
        rest=${got#*$'\t'}
        if [ "$RC" -eq 1 ] && [ "${got%%$'\t'*}" = "$kind" ] && grep -Eq -- "$fix" <<<"${rest%%$'\t'*}"; then
                it_pass "$label: $id ($kind), fix /$fix/"
        else
                it_fail "$label: $id ($kind), fix /$fix/" "exit $RC" "got: $(head -c 900 <<<"$got")" "stderr: $ERR"
        fi
}

# expect_healthy LABEL TARGET: exit 0, "ok": true, no cause but notes
expect_healthy() {
        it_run ctl_json why "$2"
        if [ "$RC" -eq 0 ] && [ "$(jpy 'd["ok"] and all(c["kind"] == "note" for c in d["causes"])' <<<"$OUT")" = true ]; then
                it_pass "$1: nothing is wrong (exit 0)"
        else
                it_fail "$1: nothing is wrong (exit 0)" "exit $RC" "$(head -c 900 <<<"$OUT")" "$ERR"
        fi
}

# in_cgroup DIR CMD...: starts CMD (a background test process) in the v1 cgroup DIR
in_cgroup() {
        local dir=$1
        shift
        it_spawn sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@"
        wait_for 20 grep -qx "$IT_LAST" "$dir/cgroup.procs"
}

# --- raw-zero, ancestor-zero --------------------------------------------------------

mkdir -p "$CG/raw" "$CG/raw2/leaf"
in_cgroup "$CG/raw" sleep 1000
RAW=$IT_LAST
expect_cause raw-zero "$RAW" budget-zero blocks "hcbsctl create GROUP RUNTIME PERIOD, then hcbsctl attach GROUP $RAW --fifo PRIO"
check_match "raw-zero: the cgroup is named" "its cgroup /$CG_REL/raw has RT runtime 0 and is not hcbsd's" "$MSG"
expect_cause raw-zero "$RAW" not-managed note "hcbsctl create GROUP"
it_run ctl why "$RAW"
check_match "the text names the cause" "^BLOCKS +budget-zero: its cgroup /$CG_REL/raw has RT runtime 0" "$OUT"
check_match "the text shows the chain, the first at 0 marked" "/$CG_REL/raw +0us/1s +<- the first at 0" "$OUT"
in_cgroup "$CG/raw2/leaf" sleep 1000
expect_cause ancestor-zero "$IT_LAST" budget-zero blocks "hcbsctl create"
check_match "ancestor-zero: the ancestor is named" "/$CG_REL/raw2, above its cgroup /$CG_REL/raw2/leaf," "$MSG"

# --- group-zero -----------------------------------------------------------------------

check "create idle 10ms 100ms" ctl create idle 10ms 100ms
check "set idle 0 100ms" ctl set idle 0 100ms
it_spawn sleep 1000
check "attach a SCHED_OTHER process to idle" ctl attach idle "$IT_LAST"
expect_cause group-zero "$IT_LAST" budget-zero blocks "^hcbsctl set idle RUNTIME PERIOD"
check_eq "group-zero: hcbsd manages it" "group idle" "$(jpy 'd["hcbsd"]["managed"] + " " + d["hcbsd"]["name"]' <<<"$OUT")"

# --- rlimit-rtprio, cap-sys-nice, rlimit-rttime ------------------------------------------

check "create media 20ms 100ms" ctl create media 20ms 100ms
it_spawn prlimit --rtprio=0 "${NOBODY[@]}" sleep 1000
USER_P=$IT_LAST
wait_for 20 sh -c "grep -q '^Uid:.*65534' /proc/$USER_P/status"
check "attach nobody's process to media" ctl attach media "$USER_P"
expect_cause rlimit-rtprio "$USER_P" rlimit-rtprio blocks "rtprio PRIO.*hcbsctl attach media $USER_P --fifo PRIO"
expect_cause "rlimit-rtprio, asked by nobody" "$USER_P" rlimit-rtprio blocks "limits.d" "${NOBODY[@]}"
it_run "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" why "$RAW"
check_match "nobody may not ask about root's process" "^hcbsctl: why: $RAW is a process of uid 0: ask as that user or as root\$" "$ERR"
check_eq "... exit 1" 1 "$RC"

it_spawn prlimit --rtprio=0 setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice sleep 1000
NOCAP=$IT_LAST
wait_for 20 sh -c "grep -q '^CapBnd:' /proc/$NOCAP/status && [ \$(readlink /proc/$NOCAP/exe) = $(command -v sleep) ]"
check "attach the process without CAP_SYS_NICE to media" ctl attach media "$NOCAP"
expect_cause cap-sys-nice "$NOCAP" cap-sys-nice blocks "hcbsctl attach media $NOCAP --fifo PRIO"
check_eq "cap-sys-nice: CAP_SYS_NICE is seen missing" false "$(jpy 'd["cap_sys_nice"]' <<<"$OUT")"

it_spawn prlimit --rttime=50000 sleep 1000
check "attach a process with RLIMIT_RTTIME 50ms to media, FIFO 10" ctl attach media "$IT_LAST" --fifo 10
expect_cause rlimit-rttime "$IT_LAST" rlimit-rttime share "prlimit --rttime=unlimited --pid $IT_LAST"

# --- healthy ----------------------------------------------------------------------------

it_spawn sleep 1000
check "attach a process to media, FIFO 20" ctl attach media "$IT_LAST" --fifo 20
expect_healthy "a SCHED_FIFO process in a group with a budget" "$IT_LAST"
expect_stdout '^Nothing is wrong: it runs real-time as set up$' ctl why "$IT_LAST"
check_match "the text names hcbsd's group" "^hcbsd: +manages it: group media$" "$OUT"
it_spawn sleep 1000
check "attach a SCHED_OTHER process to media" ctl attach media "$IT_LAST"
expect_healthy "a SCHED_OTHER process in a group with a budget" "$IT_LAST"
coproc RT { exec "$RT_THREADS" other other 2>/dev/null; }
IT_PIDS+=("$RT_PID")
read -r _ RT_MAIN RT_WORKER <&"${RT[0]}"
check "attach rt-threads to media (main FIFO 5)" ctl attach media "$RT_MAIN" --fifo 5
check "its worker back to SCHED_OTHER" chrt -o -p 0 "$RT_WORKER"
expect_healthy "a SCHED_OTHER worker thread (TID) beside an RT main thread" "$RT_WORKER"
check_eq "the TID is diagnosed, in its process" "$RT_WORKER $RT_MAIN SCHED_OTHER 1" \
        "$(jpy '" ".join(str(x) for x in (d["tid"], d["pid"], d["policy"], d["rt_threads"]))' <<<"$OUT")"
expect_exit 4 ctl why 2147483646
expect_exit 2 ctl why
it_run ctl_json why "$RAW"
check_eq "--json is valid JSON, ok false, exit 1" "False 1" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["ok"])' <<<"$OUT" 2>&1) $RC"

# --- budget-used-up (the collector) ------------------------------------------------------

if [ "$(busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager StatsBackend)" = 's "bpf"' ]; then
        check "create spin 5ms 100ms" ctl create spin 5ms 100ms
        it_spawn sh -c 'while :; do :; done'
        check "attach a spinner to spin, FIFO 10" ctl attach spin "$IT_LAST" --fifo 10
        sleep 1.5
        expect_cause budget-used-up "$IT_LAST" budget-used-up share "hcbsctl size --observe spin"
        kill "$IT_LAST"
else
        skip "budget-used-up" "StatsBackend is not bpf here ($(busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager StatsBackendReason))"
fi

# --- hcbsd-absent ----------------------------------------------------------------------------

it_stop_hcbsd
expect_cause hcbsd-absent "$RAW" budget-zero blocks "^systemctl start hcbsd.service; hcbsctl create"
expect_cause hcbsd-absent "$RAW" hcbsd-absent note "systemctl start hcbsd"
check_eq "without hcbsd the mode is decided here" "mainline-v1 false" \
        "$(jpy 'd["mode"] + " " + str(d["hcbsd"]["running"]).lower()' <<<"$OUT")"

it_finish
