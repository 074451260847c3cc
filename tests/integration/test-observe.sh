#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbsctl size --observe and ObserveTasks() on the host kernel, with loads of
# known shape: hcbs-rtload (4ms:20ms and 3ms:40ms) and Debian's rt-app (a
# load generator nobody here wrote: 3ms every 30ms). The observed periods
# must be within 1% of the configured ones and the jobs' execution times
# within 5% of the configured WCETs (the loads burn that each job: the mean
# is checked; the largest, printed, holds the interrupts the kernel charged
# the thread too, which a reservation has to hold and which the margin is
# for). A job costs its thread some CPU time besides its work, the same for
# every job (waking, the clock_nanosleep that ends it: about 60 us on this
# 2-core VM, measured by getrusage with no collector loaded), so the WCETs
# are milliseconds, where that is 1-3%; the task set is printed in the
# --tasks FILE format (and reads back); --apply sets the reservation through
# SetBandwidth. A thread that never sleeps is unbounded, and --apply refuses
# with that reason. Bad input and the limits (one observation per user,
# 1 s to 10 min, a process only for its owner), and a caller who leaves.
#
# usage: test-observe.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
IT_VALGRIND_BPF=1 # the collector under valgrind too (lib.sh leaves it out elsewhere)
# a hangup too ends the run through lib.sh's cleanup (the loads stopped, the scratch tree and the
# root's RT budget it holds given back); lib.sh traps INT and TERM
trap 'exit 129' HUP
RTLOAD=$BUILD/tests/tools/hcbs-rtload
[ -x "$RTLOAD" ] || it_skip_all "$RTLOAD is not built"
[ -e "$BUILD/daemon/stats/hcbs-stats.skel.h" ] || it_skip_all "$BUILD has no BPF collector (-Dbpf)"
[ -r /sys/kernel/btf/vmlinux ] || it_skip_all "no kernel BTF: the collector cannot load here"
it_start_bus

# --- usage: no daemon needed ------------------------------------------------
expect_stdout 'observe' "$HCBSCTL" size --help
expect_refusal 2 'no --task or --tasks with it' ctl size --observe g --task 1ms:10ms
expect_refusal 2 'go with --observe' ctl size --task 1ms:10ms --apply
expect_refusal 2 "invalid --margin 'x'" ctl size --observe g --margin x

it_start_hcbsd_or_die
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

expect_refusal 4 "no group or unit 'nope'" ctl size --observe nope --for 1s
# 8ms every 10ms: the loads below, 7ms at most in a period, never run out of it (a group throttled
# mid-job cost its threads more CPU time: 90 us a job in one run, instead of 60-70, on this VM)
check "create obs 8ms 10ms" ctl create obs 8ms 10ms
expect_refusal 2 'an observation lasts 1 s to 10 min' ctl size --observe obs --for 500ms
expect_refusal 2 'an observation lasts 1 s to 10 min' ctl size --observe obs --for 700s

# jpy on one thread of the JSON answer: the one whose configured period is P us (its task_period_us
# within 5%), printing EXPR (d: that thread)
thread() {
        jpy "next((str($2) for d in d['threads'] if d.get('task_period_us') and abs(d['task_period_us'] - $1) <= $1 * 0.05), 'none')"
}

# --- hcbs-rtload: 4ms every 20ms and 3ms every 40ms, 6 s; observed for 4 s in the middle ------
ctl run obs --fifo 50 -- "$RTLOAD" --periods 150 --cpu 1 4ms:20ms 3ms:40ms >"$T/rtload.json" 2>&1 &
L=$!
IT_PIDS+=("$L")
sleep 1
ctl_json size --observe obs --for 4s --cpus 1 >"$T/obs.json" 2>"$T/obs.err"
rc=$?
wait "$L"
check_eq "size --observe obs --json succeeds" 0 "$rc"
it_log "hcbs-rtload: $(cat "$T/rtload.json")"
it_log "observed: $(cat "$T/obs.json") $(cat "$T/obs.err")"
check_eq "two periodic RT threads" "periodic periodic" \
        "$(jpy "' '.join(sorted(t['shape'] for t in d['threads']))" <"$T/obs.json")"
for spec in "4000 20000" "3000 40000"; do
        set -- $spec
        p=$(thread "$2" "d['period_ns']" <"$T/obs.json")
        c=$(thread "$2" "d['exec_mean_ns']" <"$T/obs.json")
        x=$(thread "$2" "d['exec_max_ns']" <"$T/obs.json")
        check_eq "hcbs-rtload's ${2}us period observed within 1% ($p ns)" yes \
                "$(python3 -c "print('yes' if '$p' != 'none' and abs(int('$p') - $2 * 1000) <= $2 * 10 else 'no')")"
        # each job burns WCET of its thread's CPU time: the jobs' execution time is that within 5%; the
        # largest also holds what the kernel charged the thread besides (interrupts: no IRQ time
        # accounting here), which a reservation has to hold too
        check_eq "hcbs-rtload's ${1}us WCET observed within 5% (mean execution $c ns, largest $x ns)" yes \
                "$(python3 -c "print('yes' if '$c' != 'none' and abs(int('$c') - $1 * 1000) <= $1 * 50 and int('$x') >= int('$c') else 'no')")"
done
check_eq "the margin: WCET = the largest execution time + 20%, rounded up" yes \
        "$(jpy "'yes' if all(t['wcet_us'] == -(-t['exec_max_ns'] * 120 // 100000) for t in d['threads']) else 'no'" <"$T/obs.json")"
check_eq "the observation's set is sized (schedulable)" true "$(jpy "str(d['sizing']['schedulable']).lower()" <"$T/obs.json")"

# the text: the table, the task set in the --tasks FILE format, the designer's answer
ctl run obs --fifo 50 -- "$RTLOAD" --periods 75 --cpu 1 2ms:10ms 1ms:40ms >/dev/null 2>&1 &
L=$!
IT_PIDS+=("$L")
sleep 0.5
it_run "$HCBSCTL" --bus-address "$ADDR" size --observe obs --for 2s --cpus 1 --margin 10
wait "$L"
printf '%s\n' "$OUT" >"$T/obs.txt"
it_log "size --observe obs:"$'\n'"$OUT"
check_eq "size --observe exits 0" 0 "$RC"
check_match "it prints each thread's shape" 'periodic' "$OUT"
check_match "it says how WCET was made" 'largest execution time seen plus 10% \(--margin\)' "$OUT"
check_match "then the reservation" '^interface: ' "$OUT"
grep -E '^[0-9]+us:[0-9]+us' "$T/obs.txt" >"$T/obs.tasks"
check_eq "the task set reads back with size --tasks" "$(sed -n 's/^interface: *//p' "$T/obs.txt")" \
        "$(ctl size --tasks "$T/obs.tasks" --cpus 1 | sed -n 's/^interface: *//p')"

# --- rt-app: 3ms of runtime every 30ms -------------------------------------------------
if command -v rt-app >/dev/null; then
        cat >"$T/rtapp.json" <<EOF
{ "global": { "duration": 5, "calibration": 100, "default_policy": "SCHED_OTHER", "logdir": "$T" },
  "tasks": { "rtapp": { "policy": "SCHED_FIFO", "priority": 40, "cpus": [1], "loop": -1,
                        "runtime": 3000, "timer": { "ref": "tick", "period": 30000 } } } }
EOF
        ctl run obs -- rt-app "$T/rtapp.json" >"$T/rtapp.out" 2>&1 &
        L=$!
        IT_PIDS+=("$L")
        sleep 1.5
        ctl_json size --observe obs --for 3s --cpus 1 >"$T/rtapp-obs.json" 2>"$T/rtapp-obs.err"
        rc=$?
        wait "$L"
        it_log "rt-app observed: $(cat "$T/rtapp-obs.json") $(cat "$T/rtapp-obs.err")"
        check_eq "size --observe obs (rt-app) succeeds" 0 "$rc"
        p=$(thread 30000 "d['period_ns']" <"$T/rtapp-obs.json")
        c=$(thread 30000 "d['exec_mean_ns']" <"$T/rtapp-obs.json")
        x=$(thread 30000 "d['exec_max_ns']" <"$T/rtapp-obs.json")
        check_eq "rt-app's 30ms period observed within 1% ($p ns)" yes \
                "$(python3 -c "print('yes' if '$p' != 'none' and abs(int('$p') - 30000000) <= 300000 else 'no')")"
        check_eq "rt-app's 3ms runtime observed within 5% (mean execution $c ns, largest $x ns)" yes \
                "$(python3 -c "print('yes' if '$c' != 'none' and abs(int('$c') - 3000000) <= 150000 else 'no')")"
else
        skip "rt-app against the observation" "rt-app (Debian's rt-app) is not installed"
fi

# --- a thread that never sleeps: unbounded, and --apply refuses ------------------------------
check "create spin 1ms 10ms" ctl create spin 1ms 10ms
ctl run spin --fifo 30 -- sh -c 'while :; do :; done' >/dev/null 2>&1 &
S=$!
IT_PIDS+=("$S")
# the spinner itself too, for the cleanup (hcbsctl run waits for it; killing hcbsctl leaves it running)
wait_for 50 grep -q . "$CG/spin/cgroup.procs"
IT_PIDS+=($(cat "$CG/spin/cgroup.procs"))
it_run "$HCBSCTL" --bus-address "$ADDR" size --observe spin --for 2s --apply
check_eq "size --observe --apply on a spinner is refused (exit 1)" 1 "$RC"
check_match "it is reported as unbounded" 'unbounded' "$OUT"
check_match "and --apply refuses with that reason" 'no reservation: thread [0-9]+ \(sh\) is unbounded: it ran half of the 2s observed without a sleep.*nothing applied' "$ERR"
check_eq "spin's reservation is unchanged" "1000 10000" "$(ctl_json show spin | jpy 'str(d["runtime_us"]) + " " + str(d["period_us"])')"
for p in $(cat "$CG/spin/cgroup.procs"); do kill "$p"; done # the spinner (hcbsctl run waits for it)
wait "$S" 2>/dev/null

# --- --apply: the normal admission and plan ---------------------------------------------------
ctl run obs --fifo 50 -- "$RTLOAD" --periods 300 --cpu 1 2ms:10ms >/dev/null 2>&1 &
L=$!
IT_PIDS+=("$L")
sleep 0.5
ctl_json size --observe obs --for 2s --cpus 1 --period 10ms --apply >"$T/apply.json" 2>"$T/apply.err"
rc=$?
wait "$L"
check_eq "size --observe --apply succeeds" 0 "$rc"
check_eq "it says it applied" true "$(jpy 'str(d["applied"]).lower()' <"$T/apply.json")"
check_eq "obs now has the sized reservation" \
        "$(jpy 'str(d["sizing"]["runtime_us"]) + " " + str(d["sizing"]["period_us"])' <"$T/apply.json")" \
        "$(ctl_json show obs | jpy 'str(d["runtime_us"]) + " " + str(d["period_us"])')"

# --- limits and access ---------------------------------------------------------------------
"${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" size --observe obs --for 3s >/dev/null 2>&1 &
O=$!
IT_PIDS+=("$O")
sleep 0.5
expect_refusal 1 'observes already: one observation per user' \
        "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" size --observe spin --for 1s
wait "$O"
sleep 30 &
P=$!
IT_PIDS+=("$P")
expect_refusal 1 "process $P belongs to uid 0; only it and root may observe it" \
        "${NOBODY[@]}" "$HCBSCTL" --bus-address "$ADDR" size --observe "$P" --for 1s
check_match "a process's own observation works (nothing RT in it: no job)" 'no RT thread of' \
        "$(ctl size --observe "$P" --for 1s 2>&1)"
kill "$P"
# a caller who leaves: the observation ends (hcbsd logs nothing more of it, and a new one starts at once)
timeout 1 "$HCBSCTL" --bus-address "$ADDR" size --observe obs --for 60s >/dev/null 2>&1
sleep 0.5
check_match "after the caller left, the next observation starts" 'no RT thread of obs' \
        "$(ctl size --observe obs --for 1s 2>&1)"
it_finish
