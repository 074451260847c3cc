#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The BPF statistics collector on the host kernel, against what the tasks
# know of themselves: a SCHED_FIFO task doing 1 ms of work every 10 ms in a
# 3 ms/10 ms group for 5 s must be reported with RT CPU time within 5% of
# its own /proc/PID/schedstat, wakeups within 2% of the sleeps it counted,
# and a p99 wakeup latency below the period; a task in a second group is
# counted there and not in the first, and a task in a cgroup hcbsd does not
# manage is counted nowhere. A group whose process starts 16,500 threads
# costs another group none of its figures. No program or link of hcbsd's
# outlives it. Then HCBS_STATS_BPF=0: hcbsd still starts, serves cpu.stat,
# and says why.
#
# usage: test-stats.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
IT_VALGRIND_BPF=1 # the collector under valgrind too (lib.sh leaves it out elsewhere)
LOAD=$BUILD/tests/integration/stats-load
FORK=$BUILD/tests/integration/stats-fork
[ -x "$LOAD" ] || it_skip_all "$LOAD is not built"
[ -x "$FORK" ] || it_skip_all "$FORK is not built"
[ -r /sys/kernel/btf/vmlinux ] || it_skip_all "no kernel BTF (/sys/kernel/btf/vmlinux): the collector cannot load here"
if [ ! -e "$BUILD/daemon/stats/hcbs-stats.skel.h" ]; then
        # no collector in this build: hcbsd must say so and serve cpu.stat
        it_start_bus
        it_start_hcbsd_or_die
        check_eq "without the collector StatsBackend is cgroupfs" 's "cgroupfs"' "$(busctl --address="$ADDR" get-property \
                org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager StatsBackend)"
        check_match "hcbsctl status says it was built without it" '^Stats backend: +cgroupfs \(.*built without.*\)$' \
                "$(ctl status)"
        skip "the BPF collector on the host kernel" "$BUILD was configured without it (-Dbpf=disabled or its tools missing)"
        it_finish
fi
command -v bpftool >/dev/null || it_skip_all "bpftool is not installed (needed to check for leaked programs)"

# the ids of the BPF programs named hcbs_* (this bpftool shows no owning pids): ours are those new after the start
bpf_ids() {
        bpftool "$1" show --json 2>/dev/null | python3 -c "
import json, sys
for p in json.load(sys.stdin):
    if p.get('name', '').startswith('hcbs_'):
        print(p['id'])"
}
bpf_ids prog >"$T/progs-before"

it_start_bus
it_start_hcbsd_or_die

prop() {
        busctl --address="$ADDR" get-property org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager "$1" | sed -E 's/^s "(.*)"$/\1/'
}

# key=value from the load's own report
field() {
        sed -nE "s/.*\\b$2=([0-9]+).*/\\1/p" "$1"
}

# stat GROUP KEY: one GetStats figure through hcbsctl --json
stat() {
        ctl_json stats "$1" | jpy "d.get('$2', 'absent')"
}

# within NAME GOT WANT PERCENT
within() {
        local ok
        ok=$(python3 -c "import sys; g, w, p = map(float, sys.argv[1:]); print('yes' if w > 0 and abs(g - w) <= w * p / 100 else 'no')" "$2" "$3" "$4")
        check_eq "$1 ($2 vs $3, within $4%)" yes "$ok"
}

check_eq "StatsBackend is bpf" bpf "$(prop StatsBackend)"
check_eq "StatsBackendReason is empty" "" "$(prop StatsBackendReason)"
check_match "hcbsctl status shows the bpf backend" '^Stats backend: +bpf$' "$(ctl status)"

mine=$(bpf_ids prog | grep -vxF -f "$T/progs-before" | tr '\n' ' ')
maps=$(bpftool prog show --json 2>/dev/null | python3 -c "
import json, sys
ids = set('$mine'.split())
print(' '.join(sorted({str(m) for p in json.load(sys.stdin) if str(p['id']) in ids for m in p.get('map_ids', [])})))")
links=$(bpftool link show --json 2>/dev/null | python3 -c "
import json, sys
ids = set('$mine'.split())
print(' '.join(str(l['id']) for l in json.load(sys.stdin) if str(l.get('prog_id')) in ids))")
# sched_wakeup, sched_wakeup_new, sched_switch, and the feature probe (run once, never attached);
# maps: groups, hists, hist_zero, runs, task_states, observed, jobs (the ring buffer), .rodata, .bss
check_eq "hcbsd loaded 4 BPF programs" 4 "$(echo "$mine" | wc -w)"
check_eq "hcbsd attached 3 BPF links" 3 "$(echo "$links" | wc -w)"
check_eq "hcbsd's programs use 9 maps" 9 "$(echo "$maps" | wc -w)"

check "create a 3ms 10ms" ctl create a 3ms 10ms
check "create b 3ms 10ms" ctl create b 3ms 10ms
# a cgroup hcbsd does not manage (it never learns of it: created behind its back)
mkdir "$CG/stray"

# 5 s: a does 1 ms every 10 ms, b 500 us every 10 ms, the stray task 100 us every 2 ms (SCHED_OTHER)
( echo "$BASHPID" >"$CG/stray/cgroup.procs" && exec "$LOAD" 2500 100 2000 ) >"$T/stray.out" 2>&1 &
STRAY=$!
IT_PIDS+=("$STRAY")
ctl run a --fifo 50 -- "$LOAD" 500 1000 10000 >"$T/a.out" 2>&1 &
A=$!
ctl run b --fifo 40 -- "$LOAD" 500 500 10000 >"$T/b.out" 2>&1 &
B=$!
IT_PIDS+=("$A" "$B")
wait "$A"; rc_a=$?
wait "$B"; rc_b=$?
wait "$STRAY"; rc_s=$?
check_eq "the load in a ran" "0 $(cat "$T/a.out")" "$rc_a $(grep -E '^loops=' "$T/a.out")"
check_eq "the load in b ran" 0 "$rc_b"
check_eq "the stray load ran" 0 "$rc_s"

ctl_json stats a >"$T/a.json"
ctl_json stats b >"$T/b.json"
js() { jpy "d.get('$2', 0)" <"$T/$1.json"; }
it_log "a: $(cat "$T/a.out") collector: rt_time_ns=$(js a rt_time_ns) wakeups=$(js a wakeups) p99=$(js a latency_p99_ns) max=$(js a latency_max_ns) share=$(js a reservation_share)"
it_log "b: $(cat "$T/b.out") collector: rt_time_ns=$(js b rt_time_ns) wakeups=$(js b wakeups)"
within "a's RT CPU time matches its schedstat" "$(js a rt_time_ns)" "$(field "$T/a.out" schedstat_ns)" 5
within "a's wakeups match its sleeps" "$(js a wakeups)" "$(field "$T/a.out" sleeps)" 2
check_eq "a's p99 wakeup latency is below the 10 ms period" yes \
        "$([ "$(js a latency_p99_ns)" -lt 10000000 ] && echo yes || echo no)"
check_eq "a's latency histogram holds every wakeup" yes \
        "$(jpy "'yes' if d['latency_count'] == sum(b[2] for b in d['latency_buckets']) == d['wakeups'] or abs(d['latency_count'] - d['wakeups']) <= 2 else 'no'" <"$T/a.json")"
within "b's RT CPU time matches its schedstat (b's task is not in a)" "$(js b rt_time_ns)" "$(field "$T/b.out" schedstat_ns)" 5
within "b's wakeups match its sleeps" "$(js b wakeups)" "$(field "$T/b.out" sleeps)" 2
# the stray task woke 2500 times: had it been counted anywhere, a or b would be far off
total=$(( $(js a wakeups) + $(js b wakeups) ))
within "the stray task is counted nowhere (a + b wakeups = their sleeps)" "$total" \
        $(( $(field "$T/a.out" sleeps) + $(field "$T/b.out" sleeps) )) 2
check_eq "hcbsd's root is not counted" absent "$(stat "" wakeups)"
within "a's share of its reservation is near 1/3 over the run" "$(js a reservation_share)" \
        "$(python3 -c "print($(js a rt_time_ns) / ($(js a window_ns) * 0.3))")" 1

# the table and the histogram
expect_stdout '^a +.*%' ctl stats
expect_stdout 'p99' ctl stats a --histogram

# budget exhaustion needs HCBS's per-CPU deadline servers, which this (mainline) kernel has not
check_match "GetStats says budget exhaustion is not available on this kernel" '^not available on this kernel' \
        "$(stat a servers_unavailable)"
check_eq "GetStats has no exhaustion counts here" absent "$(stat a exhaustions)"
expect_stdout '^a +.* n/a +[0-9]+$' ctl stats a
expect_stdout '^Budget exhaustion: not available on this kernel' ctl stats a --per-cpu

# --- the wait: two SCHED_OTHER tasks sharing CPU 0 in w, each runnable while the other runs ---------
# 300 ms of CPU each, started together: the kernel's own account (schedstat's second field, per task)
# against the collector's (the group's wait_ns)
check "create w 1ms 10ms" ctl create w 1ms 10ms
ctl run w -- taskset -c 0 "$LOAD" 1 300000 1000000 >"$T/w1.out" 2>&1 &
W1=$!
ctl run w -- taskset -c 0 "$LOAD" 1 300000 1000000 >"$T/w2.out" 2>&1 &
W2=$!
IT_PIDS+=("$W1" "$W2")
wait "$W1"; rc_w1=$?
wait "$W2"; rc_w2=$?
check_eq "w's two loads ran" "0 0" "$rc_w1 $rc_w2"
ctl_json stats w >"$T/w.json"
want=$(( $(field "$T/w1.out" wait_ns) + $(field "$T/w2.out" wait_ns) ))
it_log "w: $(cat "$T/w1.out") / $(cat "$T/w2.out") collector: wait_ns=$(js w wait_ns) cpu_time_ns=$(js w cpu_time_ns)"
check_eq "w's loads waited for each other (100 ms at least: $want ns)" yes \
        "$([ "$want" -ge 100000000 ] && echo yes || echo no)"
within "w's wait matches its tasks' own (schedstat)" "$(js w wait_ns)" "$want" 5
check "delete w" ctl delete w

it_run timeout 2.5 "$HCBSCTL" --bus-address "$ADDR" stats a --watch 1
check_eq "stats --watch 1 prints the table again every second" yes \
        "$([ "$(printf '%s\n' "$OUT" | grep -c '^NAME ')" -ge 2 ] && echo yes || echo no)"

# --- a forking group costs the others nothing -------------------------------------
# 16,500 threads in h, each woken twice (created, then a 1 ms sleep), stay alive while c's
# load runs: with one table of tasks for every group (16384 threads) c lost every event
check "create h 500us 10ms" ctl create h 500us 10ms
check "create c 2ms 10ms" ctl create c 2ms 10ms
ctl run h -- "$FORK" 16500 >"$T/h.out" 2>&1 &
H=$!
IT_PIDS+=("$H")
wait_for 1200 grep -q '^ready' "$T/h.out"
IT_PIDS+=($(cat "$CG/h/cgroup.procs")) # stats-fork itself, for the cleanup: killing hcbsctl run leaves it
check_eq "h's process started 16,500 threads" "ready 16500" "$(cat "$T/h.out")"
ctl run c --fifo 50 -- "$LOAD" 200 1000 10000 >"$T/c.out" 2>&1
rc_c=$?
ctl_json stats c >"$T/c.json"
ctl_json stats h >"$T/h.json"
for p in $(cat "$CG/h/cgroup.procs"); do kill "$p"; done # stats-fork (hcbsctl run waits for it)
wait "$H" 2>/dev/null
check_eq "the load in c ran beside h's threads" 0 "$rc_c"
it_log "c: $(cat "$T/c.out") collector: rt_time_ns=$(js c rt_time_ns) wakeups=$(js c wakeups) latency_count=$(js c latency_count) task_drops=$(js c task_drops); h: wakeups=$(js h wakeups) task_drops=$(js h task_drops)"
within "c's RT CPU time matches its schedstat beside h's threads" "$(js c rt_time_ns)" "$(field "$T/c.out" schedstat_ns)" 5
within "c's wakeups match its sleeps beside h's threads" "$(js c wakeups)" "$(field "$T/c.out" sleeps)" 2
within "c's latency histogram holds its wakeups beside h's threads" "$(js c latency_count)" "$(js c wakeups)" 2
check_eq "c lost no event to h's threads" 0 "$(js c task_drops)"
check_eq "h lost none either (no table to fill)" 0 "$(js h task_drops)"
# each of h's 16,500 threads is woken at least twice (created, then from its sleep); more under
# ASan (its allocator's locks). 33,003, 32,976 and 33,002 in three plain runs: about one wakeup
# in 1,000 of such a burst may go uncounted; which event drops it is not known (docs/stats.md)
check_eq "h's wakeups: at least two for each of its 16,500 threads, within 1% ($(js h wakeups))" yes \
        "$([ "$(js h wakeups)" -ge 32670 ] && echo yes || echo no)"
it_log "the collector's programs' recursion misses (events the kernel did not run them for): $(for id in $mine; do
        bpftool prog show id "$id" --json 2>/dev/null | python3 -c "import json, sys; p = json.load(sys.stdin); print('%s=%s' % (p.get('name'), p.get('recursion_misses', 0)))"
done | tr '\n' ' ')"
check "delete c" ctl delete c
check "delete h" ctl delete h

# --- cyclictest, a tool nobody here wrote, against the collector --------------------
# one SCHED_FIFO thread every 1 ms for 3 s in a reservation, beside a busy loop in the root
# (SCHED_OTHER: on this shared host a FIFO-99 hog would starve everyone's CPU 0, and
# mainline has no reservation to protect the group from it); tests/tools/latency-compare.sh
# states the relation: the collector sees a part of each latency cyclictest measures
if command -v cyclictest >/dev/null && command -v taskset >/dev/null; then
        check "create cyc 2ms 10ms" ctl create cyc 2ms 10ms
        taskset -c 0 sh -c 'while :; do :; done' &
        HOG=$!
        IT_PIDS+=("$HOG")
        ctl run cyc -- cyclictest -t1 -p 80 -i 1000 -l 3000 -h 2000 -q -m -a 0 --mainaffinity=1 >"$T/cyc.out" 2>&1
        rc_cyc=$?
        kill "$HOG" 2>/dev/null
        wait "$HOG" 2>/dev/null
        check_eq "cyclictest ran in cyc" 0 "$rc_cyc"
        ctl_json stats cyc >"$T/cyc.json"
        it_run "$IT_DIR/../tools/latency-compare.sh" "$T/cyc.out" "$T/cyc.json"
        it_log "cyclictest against the collector on the host:"$'\n'"$OUT"
        check_eq "the collector's wakeup latency is within cyclictest's for the same wakeups (p50 to p99.9, max)" 0 "$RC"
        check "delete cyc" ctl delete cyc
else
        skip "cyclictest against the collector" "cyclictest (Debian's rt-tests) or taskset is not installed"
fi

# a group deleted and created again starts from zero
check "delete a" ctl delete a
expect_bus_error NoSuchGroup GetStats "'a'"
check "create a again" ctl create a 3ms 10ms
check_eq "a new group a has no wakeups" 0 "$(stat a wakeups)"

it_stop_hcbsd
# the kernel frees them once the last reference is gone, after an RCU grace period: allow 2 s
bpf_left() {
        local id n=0
        for id in $mine; do bpftool prog show id "$id" >/dev/null 2>&1 && n=$((n + 1)); done
        for id in $links; do bpftool link show id "$id" >/dev/null 2>&1 && n=$((n + 1)); done
        for id in $maps; do bpftool map show id "$id" >/dev/null 2>&1 && n=$((n + 1)); done
        echo "$n"
}
bpf_gone() { [ "$(bpf_left)" -eq 0 ]; }
wait_for 20 bpf_gone
left=$(bpf_left)
check_eq "no program, link or map of hcbsd's is left after SIGTERM" 0 "$left"

check_match "hcbsd says what the collector counts on this kernel" \
        'Statistics from the BPF collector \(budget exhaustion' "$(cat "$T/hcbsd.log")"

# --- BPF made impossible -----------------------------------------------------------
HCBS_STATS_BPF=0 it_start_hcbsd_or_die
check_eq "with HCBS_STATS_BPF=0 StatsBackend is cgroupfs" cgroupfs "$(prop StatsBackend)"
check_match "StatsBackendReason says why" 'HCBS_STATS_BPF=0' "$(prop StatsBackendReason)"
check_match "hcbsctl status says why" '^Stats backend: +cgroupfs \(.*HCBS_STATS_BPF=0.*\)$' "$(ctl status)"
check_eq "hcbsd logged the reason once" 1 "$(grep -c 'Statistics from cgroupfs only: .*HCBS_STATS_BPF=0' "$T/hcbsd.log")"
check_eq "GetStats still serves cpu.stat" 0 "$(stat a nr_throttled)"
check_eq "GetStats has no collector figures" absent "$(stat a wakeups)"
expect_stdout '^a ' ctl stats

it_finish
