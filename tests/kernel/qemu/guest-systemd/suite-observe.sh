#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sizing from observation on our kernel (issue 25 §4): hcbsctl size --observe
# watches a set of known shape, sizes it and --apply sets the reservation;
# that reservation then meets every deadline beside a SCHED_FIFO-99 hog in
# the root group on the same CPU, and half of it misses, with the group's
# budget exhaustions counted. Loads: hcbs-rtload (40ms:400ms and 60ms:800ms,
# pinned to CPU 0) and Debian's rt-app (a load generator nobody here wrote:
# 1.5ms of runtime every 20ms). What TCG does to the observed periods and
# execution times is printed (INFO), not held to the host's 1% and 5%
# (test-observe.sh). The same --apply on a systemd unit running a known
# load sets the unit's reservation (ReserveUnit, hcbsctl units). A thread
# that never sleeps is unbounded, and --apply refuses it, for a group and
# for a unit.
#
# A busy host stalls qemu's vCPU threads: a stall inside a job counts as the
# job's execution time (the guest's clock runs on), and the releases after
# it come late. hcbs-rtload burns CPU time, so a stall in the middle of a
# job only ends it sooner, but one at its last check overshoots it: the
# largest execution time is WCET plus the longest stall, often some
# milliseconds (116 ms seen on a busy host). Against jobs of 2 and 3 ms that
# made the sizing 2.1-3 times what the set uses, and half of it still met
# every deadline; against jobs of 40 and 60 ms the usual stalls are a few
# percent, and the sizing follows what the set does (docs/sizing.md). So
# first the precondition of suite-sizing.sh: the same set in a generous
# 9ms/10ms group without a hog. Where it misses deadlines, or a job was
# charged more than 1.5 times its thread's median (stall_of), an observation
# or a proof that a stall spoiled is a SKIP with the numbers, never a pass;
# otherwise the same failures are FAILs.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

SET="40ms:400ms 60ms:800ms" # 17.5% of CPU 0
UNITS="hcbs-obs-load.service hcbs-obs-spin.service"
PIDS=()
cleanup() {
	local p g u
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for g in obs oapp ospin; do
		for p in $(hcbsctl --json show "$g" 2>/dev/null | grep -o '"processes":\[[^]]*\]' | grep -o '[0-9][0-9]*'); do
			kill -9 "$p" 2>/dev/null
		done
	done
	wait 2>/dev/null
	for g in obs oapp ospin; do hcbsctl delete "$g" >/dev/null 2>&1; done
	for u in $UNITS; do
		systemctl stop "$u" >/dev/null 2>&1
		rm -f "/run/systemd/system/$u"
	done
	systemctl daemon-reload >/dev/null 2>&1
}
trap cleanup EXIT

json_num() { grep -o "\"$1\": *[0-9.]*" <<<"$2" | head -1 | sed 's/.*: *//'; }

# hog_run CMD...: CMD beside a FIFO-99 spinner in the root group on CPU 0
hog_run() {
	local hog rc
	spin -c 0 -p 99 120 >/dev/null 2>&1 &
	hog=$!
	sleep 0.5
	"$@"
	rc=$?
	kill "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	return $rc
}

# misses_of JSON: hcbs-rtload's misses in all
misses_of() { sed -n 's/.*"duration_us": *[0-9]*, *"misses": *\([0-9]*\).*/\1/p' <<<"$1"; }

# cpu0_servers GROUP: "EXHAUSTIONS THROTTLED_NS REPLENISHMENTS" of GROUP's deadline server on CPU 0
# (hcbsctl --json stats; 0 0 0 when it did nothing there)
cpu0_servers() {
	local v
	v=$(hcbsctl --json stats "$1" 2>/dev/null | grep -o '"servers":\[[^]]*\]' | grep -o '{[^}]*}' |
		sed -n 's/.*"cpu":0,"exhaustions":\([0-9]*\),"throttled_ns":\([0-9]*\),"replenishments":\([0-9]*\).*/\1 \2 \3/p')
	echo "${v:-0 0 0}"
}

hcbs-rtload --periods 1 1ms:10ms >/dev/null 2>&1 # into the page cache: its first exec reads the disk
hcbsctl create obs 9ms 10ms >/dev/null || { fail "create obs 9ms 10ms"; exit 0; }

# --- the precondition -------------------------------------------------------------
PRE=$(hcbsctl run obs -- hcbs-rtload --periods 5 --cpu 0 $SET 2>&1)
PRE_M=$(misses_of "$PRE")
info "precondition: the set in a 9ms/10ms group, no hog: ${PRE_M:-?} misses: $PRE"
# stalled WHAT: a SKIP when the guest is seen stalling (the precondition missed, or STALL says
# which job was charged far more than its thread's others: a vCPU stall charged to the job),
# else a FAIL
STALL=
# stall_of JSON: the threads of an observation whose largest job was charged more than 1.5 times
# their median one (hcbs-rtload's and rt-app's jobs do the same work each time), empty if none
stall_of() {
	grep -o '"tid":[0-9]*,[^}]*"exec_p50_ns":[0-9]*,"exec_p999_ns":[0-9]*,"exec_max_ns":[0-9]*' <<<"$1" |
		sed 's/"tid":\([0-9]*\),.*"exec_p50_ns":\([0-9]*\),.*"exec_max_ns":\([0-9]*\)/\1 \2 \3/' |
		awk '$3 * 2 > $2 * 3 { printf "%stid %s: largest job %.1f ms, median %.1f ms", n++ ? "; " : "", $1, $3 / 1e6, $2 / 1e6 }'
}
stalled() {
	if [ "${PRE_M:-1}" != 0 ]; then
		skip "$1: this guest misses deadlines even in a 9ms/10ms group without a hog (${PRE_M:-?} misses of a 17.5% periodic load: emulator stalls of a busy host, see the INFO lines)"
	elif [ -n "$STALL" ]; then
		skip "$1: the observation saw a stall of qemu's vCPU on a busy host, charged to a job ($STALL: see the INFO lines)"
	else
		fail "$1"
	fi
}

# --- observe hcbs-rtload, size, apply ---------------------------------------------
# A stall inside the observation spoils it: its job's execution time holds the stall, and the
# sizing follows. An observation whose sizing is twice what the set uses by its mean execution
# times (undisturbed, it is about 1.25 times: the margin, and the blackout of a 10 ms server
# against periods of 400 and 800 ms) says more about the host than about the set: observe
# again, at most three times, then judge with what was seen (stalled()).
for attempt in 1 2 3; do
	hcbsctl run obs -- hcbs-rtload --periods 14 --cpu 0 $SET >/tmp/obs-load.json 2>&1 &
	L=$!
	PIDS+=("$L")
	sleep 2
	OUT=$(hcbsctl --json size --observe obs --for 8s --cpus 1 --period 10ms --apply 2>/tmp/obs.err)
	rc=$?
	wait "$L"
	info "observed (attempt $attempt): $OUT $(cat /tmp/obs.err)"
	shapes=$(grep -o '"shape":"[a-z ]*"' <<<"$OUT" | sort | tr '\n' ' ')
	info "what TCG does: shapes $shapes, periods $(grep -o '"period_ns":[0-9]*' <<<"$OUT" | tr '\n' ' ')(configured 400 and 800 ms), jitter $(grep -o '"jitter_ns":[0-9]*' <<<"$OUT" | tr '\n' ' '), mean execution $(grep -o '"exec_mean_ns":[0-9]*' <<<"$OUT" | tr '\n' ' '), p50 $(grep -o '"exec_p50_ns":[0-9]*' <<<"$OUT" | tr '\n' ' '), largest $(grep -o '"exec_max_ns":[0-9]*' <<<"$OUT" | tr '\n' ' ')(configured 40 and 60 ms)"
	STALL=$(stall_of "$OUT")
	R=$(grep -o '"sizing":{"runtime_us":[0-9]*' <<<"$OUT" | sed 's/.*://')
	P=$(grep -o '"sizing":{"runtime_us":[0-9]*,"period_us":[0-9]*' <<<"$OUT" | sed 's/.*://')
	# what the set uses by its observed mean execution times, in microseconds every P
	USE=$(printf '%s\n' "$OUT" | grep -o '"exec_mean_ns":[0-9]*,[^}]*"period_ns":[0-9]*' |
		sed 's/"exec_mean_ns":\([0-9]*\),.*"period_ns":\([0-9]*\)/\1 \2/' |
		awk -v p="${P:-0}" '{ u += $1 / $2 } END { printf "%d", u * p }')
	[ $rc = 0 ] && [ "$shapes" = '"shape":"periodic" "shape":"periodic" ' ] || continue
	[ "${R:-0}" -lt $((2 * ${USE:-0})) ] && break
	info "attempt $attempt sized ${R}us/${P}us, at least twice the ${USE}us the set uses: ${STALL:-no stall seen}"
done
if [ "$shapes" = '"shape":"periodic" "shape":"periodic" ' ]; then
	pass "size --observe sees hcbs-rtload's two threads as periodic"
else
	stalled "size --observe: hcbs-rtload's threads are $shapes"
fi
if [ $rc != 0 ]; then
	stalled "size --observe obs --apply failed ($rc): $(cat /tmp/obs.err)"
	OBS_OK=
else
	OBS_OK=1
fi
if [ -n "$OBS_OK" ]; then
	if grep -q '"applied":true' <<<"$OUT" && [ -n "$R" ] &&
		[ "$(hcbsctl --json show obs | grep -o '"runtime_us":[0-9]*' | sed 's/.*://')" = "$R" ]; then
		pass "--apply set obs to the observed-then-sized ${R}us/${P}us (the set uses ${USE:-?}us of it by its mean execution times)"
	else
		fail "--apply: obs is $(hcbsctl show obs 2>&1 | head -2 | tr '\n' ' '), sized ${R:-?}/${P:-?}"
		OBS_OK=
	fi
fi

# --- the sized reservation beside a FIFO-99 root hog; half of it ------------------------
[ -n "$OBS_OK" ] || skip "the observed-then-sized reservation beside a FIFO-99 root hog, and half of it: nothing was sized and applied (above)"
for half in no yes; do
	[ -n "$OBS_OK" ] || break
	RT=$R
	if [ $half = yes ]; then
		RT=$((R / 2))
		hcbsctl set obs "${RT}us" "${P}us" >/dev/null || { fail "set obs to half"; break; }
	fi
	for attempt in 1 2; do # a busy host stalls qemu's vCPUs: a full-runtime run that misses runs once more
		read -r e0 t0 r0 <<<"$(cpu0_servers obs)"
		RES=$(hog_run hcbsctl run obs -- hcbs-rtload --periods 10 --cpu 0 $SET 2>&1)
		read -r e1 t1 r1 <<<"$(cpu0_servers obs)"
		m=$(misses_of "$RES")
		[ $half = yes ] || [ "${m:-1}" = 0 ] && break
		info "obs at ${RT}us/${P}us beside the hog missed ${m:-?} (attempt $attempt): $RES"
	done
	EX="$((e1 - e0)) budget exhaustions on CPU 0, throttled $(((t1 - t0) / 1000000)) ms, $((r1 - r0)) replenishments"
	info "obs at ${RT}us/${P}us beside a FIFO-99 root hog: $EX; $RES"
	if [ $half = no ] && [ "$m" = 0 ]; then
		pass "the observed-then-sized reservation ${RT}us/${P}us meets every deadline beside a FIFO-99 root hog ($EX: a job of 40-60 ms runs through several budgets)"
	elif [ $half = yes ] && [ "${m:-0}" -gt 0 ] && [ $((e1 - e0)) -gt 0 ]; then
		pass "half of it (${RT}us/${P}us, the set using ${USE:-?}us) misses deadlines ($m) with $EX"
	elif [ $half = no ]; then
		stalled "obs at ${RT}us/${P}us beside the hog missed ${m:-?}: $RES"
	else
		stalled "obs at half (${RT}us/${P}us, the set using ${USE:-?}us of ${P}us): ${m:-?} misses, $EX: $RES"
	fi
done

hcbsctl delete obs >/dev/null 2>&1 # its 9ms/10ms when nothing was applied: room for the next groups

# --- rt-app -----------------------------------------------------------------------
# Its log in a buffer of 4 MB written at the end (log_size), not a write(2) to the file from
# the real-time thread every few dozen periods, and its pages locked (lock_pages): rt-app's
# own I/O and page faults are not part of the load being sized.
cat >/tmp/rtapp.json <<'EOF'
{ "global": { "duration": 14, "calibration": 100, "default_policy": "SCHED_OTHER", "logdir": "/tmp",
              "log_size": 4, "lock_pages": true },
  "tasks": { "rtapp": { "policy": "SCHED_FIFO", "priority": 40, "cpus": [0], "loop": -1,
                        "runtime": 1500, "timer": { "ref": "tick", "period": 20000 } } } }
EOF
rt-app /tmp/rtapp.json >/dev/null 2>&1 || true # into the page cache
hcbsctl create oapp 9ms 10ms >/dev/null || fail "create oapp"
hcbsctl run oapp -- rt-app /tmp/rtapp.json >/tmp/rtapp.out 2>&1 &
A=$!
PIDS+=("$A")
sleep 2
# in text, as a user sees it (README shows this session)
OUT=$(hcbsctl size --observe oapp --for 6s --cpus 1 --period 10ms --apply 2>&1)
rc=$?
printf '%s\n' "$OUT" | while IFS= read -r _l; do info "observe: | $_l"; done
row=$(grep ' rtapp ' <<<"$OUT" | head -1)
# its largest execution time (EXEC-MAX, "36.642ms" or "850.1us") for stalled(): a job of 1.5 ms
# of wall-clock work charged more than 9 ms
_x=$(awk '{ v = $8; if (v ~ /ms$/) print int(v); else if (v ~ /s$/ && v !~ /us$/) print int(v * 1000); else print 0 }' <<<"$row")
STALL=
[ "${_x:-0}" -gt 9 ] && STALL="rt-app's largest job ${_x} ms"
if [ $rc = 0 ] && grep -q ' periodic ' <<<"$row" && grep -q '^applied: oapp now reserves ' <<<"$OUT"; then
	pass "rt-app's thread is periodic (configured 1.5 ms every 20 ms; observed: $(echo $row | cut -d' ' -f3-)), and its sized reservation is set"
else
	stalled "rt-app: size --observe oapp --apply: exit $rc, its row: $row"
fi
wait "$A"
# rt-app's own log of a run under the applied reservation: a negative slack is a miss.
# Which ones, and why: rt-app's runtime event loops in chunks of 32 us of work until 1.5 ms of
# CLOCK_MONOTONIC passed, so its run column (the wall-clock length of that loop) exceeds 1.5 ms
# only by the time the thread was not running. Alone in its group, it waits at most the server's
# blackout, 2 x (PERIOD - RUNTIME) (the model the sizing uses): a run longer than 1.5 ms plus the
# blackout plus a chunk (1 ms for it) is time no schedule of the server can take, a stall of
# qemu's vCPU thread on the host (the guest's clock runs on while its instructions do not). A
# period that missed within that bound is a miss of the reservation: a FAIL. Misses that are all
# stalls run once more, then are a SKIP with the periods shown. rt-app's first period is not
# counted: rt-app anchors it at its own start, before its thread exists, so a thread that starts
# late (138 ms once, with 37 ms usual) begins with a short period already overdue (10.5 ms with
# -5.3 ms of slack, its work normal): rt-app's start-up, not a job the reservation delayed. Its
# first rows are printed below either way.
RT_A=$(hcbsctl --json show oapp 2>/dev/null | grep -o '"runtime_us":[0-9]*' | head -n 1 | sed 's/.*://')
P_A=$(hcbsctl --json show oapp 2>/dev/null | grep -o '"period_us":[0-9]*' | head -n 1 | sed 's/.*://')
RA=$(sed -n 's/^applied: oapp now reserves //p' <<<"$OUT")
if [ -z "$RA" ] || [ -z "$RT_A" ] || [ -z "$P_A" ]; then
	stalled "rt-app beside the hog: no reservation was applied"
else
	BOUND=$((1500 + 2 * (P_A - RT_A) + 1000))
	for attempt in 1 2; do
		rm -f /tmp/rt-app-rtapp-*.log
		spin -c 0 -p 99 60 >/dev/null 2>&1 &
		H=$!
		hcbsctl run oapp -- rt-app /tmp/rtapp.json >/tmp/rtapp.out 2>&1
		kill "$H" 2>/dev/null; wait "$H" 2>/dev/null
		log=$(ls /tmp/rt-app-rtapp-*.log 2>/dev/null | head -1)
		[ -n "$log" ] || break
		# the periods after the first (above), one per line
		awk '!/^#/ && NF >= 8 && ++i > 1' "$log" >/tmp/rtapp.periods
		neg=$(awk '$8 < 0 { n++ } END { print n + 0 }' /tmp/rtapp.periods)
		tot=$(awk 'END { print NR }' /tmp/rtapp.periods)
		nstall=$(awk -v b="$BOUND" '$8 < 0 && $3 > b { n++ } END { print n + 0 }' /tmp/rtapp.periods)
		info "rt-app at ${RA} beside a FIFO-99 root hog (attempt $attempt): $neg of $tot periods with a negative slack, $nstall of them with a run longer than ${BOUND}us (1.5 ms + the blackout 2 x (${P_A} - ${RT_A})us + 1 ms: a vCPU stall)"
		info "rt-app's first periods ($(grep -m1 '^#idx' "$log" | tr -s ' ')): $(awk '!/^#/ && NF >= 8' "$log" | head -n 3 | tr -s ' ' | tr '\n' ';')"
		[ "$neg" = 0 ] || info "rt-app's periods with a negative slack: $(awk '$8 < 0' /tmp/rtapp.periods | head -n 5 | tr -s ' ' | tr '\n' ';')"
		[ "$neg" -gt 0 ] && [ "$neg" = "$nstall" ] || break
	done
	if [ -z "$log" ]; then
		fail "rt-app wrote no log: $(tail -3 /tmp/rtapp.out)"
	elif [ "$neg" = 0 ]; then
		pass "rt-app in its observed-then-sized reservation beside a FIFO-99 root hog: no negative slack in $tot periods (after its first)"
	elif [ "$neg" = "$nstall" ]; then
		skip "rt-app beside the hog, twice: $neg of $tot periods with a negative slack, each with a 1.5 ms wall-clock loop that took more than ${BOUND}us (a stall of qemu's vCPU: see the INFO lines)"
	else
		fail "rt-app beside the hog: $neg of $tot periods with a negative slack, $((neg - nstall)) within what the reservation's blackout allows"
	fi
fi
hcbsctl delete oapp >/dev/null 2>&1

# --- --apply on a systemd unit --------------------------------------------------------
# A service with an [X-HCBS] reservation (hcbs-generator's drop-in puts it in hcbs.slice and
# reserves from its ExecStartPre=) running the known set: --apply reserves for it through
# ReserveUnit, hcbsd's admission and plan, and hcbsctl units and the unit's cgroup say so.
cat >/run/systemd/system/hcbs-obs-load.service <<EOF
[Unit]
Description=hcbsd VM test: a known load, observed and sized (suite-observe.sh)

[Service]
ExecStart=$(command -v hcbs-rtload) --periods 1000 --cpu 0 $SET

[X-HCBS]
Runtime=9ms
Period=10ms
EOF
cat >/run/systemd/system/hcbs-obs-spin.service <<'EOF'
[Unit]
Description=hcbsd VM test: a thread that never sleeps (suite-observe.sh)

[Service]
ExecStart=/bin/sh -c 'while :; do :; done'
CPUSchedulingPolicy=fifo
CPUSchedulingPriority=30

[X-HCBS]
Runtime=2ms
Period=10ms
EOF
systemctl daemon-reload
# unit_rt UNIT: "runtime_us period_us" of UNIT's reservation as hcbsctl units lists it
unit_rt() {
	hcbsctl --json units 2>/dev/null | grep -o "{[^{}]*\"unit\":\"$1\"[^{}]*}" |
		sed -n 's/.*"runtime_us":\([0-9]*\),"period_us":\([0-9]*\).*/\1 \2/p'
}
U=hcbs-obs-load.service
if ! systemctl start $U; then
	fail "$U did not start: $(systemctl status $U 2>&1 | tail -n 3 | tr '\n' ' ')"
else
	sleep 2
	info "$U before: reserves $(unit_rt $U) (runtime_us period_us, hcbsctl units)"
	OUT=$(hcbsctl --json size --observe $U --for 6s --cpus 1 --period 10ms --apply 2>/tmp/obsu.err)
	rc=$?
	info "observed $U: exit $rc: $OUT $(cat /tmp/obsu.err)"
	STALL=$(stall_of "$OUT")
	R=$(grep -o '"sizing":{"runtime_us":[0-9]*' <<<"$OUT" | sed 's/.*://')
	P=$(grep -o '"sizing":{"runtime_us":[0-9]*,"period_us":[0-9]*' <<<"$OUT" | sed 's/.*://')
	d=$(find /sys/fs/cgroup -maxdepth 4 -type d -name $U 2>/dev/null | head -n 1)
	now=$(unit_rt $U)
	info "$U after --apply: hcbsctl units: $now; its cgroup ${d:-?}: $(rt_of "${d:-/nonexistent}"); systemctl: $(systemctl show -p Slice -p ActiveState $U | tr '\n' ' ')"
	if [ $rc = 0 ] && grep -q '"unit":true' <<<"$OUT" && grep -q '"applied":true' <<<"$OUT" && [ -n "$R" ] &&
		[ "$now" = "$R $P" ] && [ "$(rt_runtime "$d")" = "$R" ] && [ "$(rt_period "$d")" = "$P" ]; then
		pass "--apply on the unit $U reserved the observed-then-sized ${R}us/${P}us for it (ReserveUnit: hcbsctl units and its cgroup in hcbs.slice)"
	else
		stalled "--apply on the unit $U: exit $rc, sized ${R:-?}/${P:-?}, hcbsctl units says '$now', its cgroup $(rt_of "${d:-/nonexistent}")"
	fi
	systemctl stop $U
fi
U=hcbs-obs-spin.service
if ! systemctl start $U; then
	fail "$U did not start: $(systemctl status $U 2>&1 | tail -n 3 | tr '\n' ' ')"
else
	sleep 1
	OUT=$(hcbsctl size --observe $U --for 4s --apply 2>&1)
	rc=$?
	now=$(unit_rt $U)
	if [ $rc = 1 ] && grep -q 'is unbounded: it ran half of the 4s observed without a sleep' <<<"$OUT" && [ "$now" = "2000 10000" ]; then
		pass "a unit's thread that never sleeps is unbounded, and --apply refuses it with that reason (the unit keeps ${now% *}us/${now#* }us)"
	else
		fail "the spinning unit: exit $rc, it reserves '$now': $OUT"
	fi
	systemctl stop $U
fi

# --- a thread that never sleeps ---------------------------------------------------------
hcbsctl create ospin 2ms 10ms >/dev/null || fail "create ospin"
hcbsctl run ospin --fifo 30 -- sh -c 'while :; do :; done' >/dev/null 2>&1 &
PIDS+=("$!")
OUT=$(hcbsctl size --observe ospin --for 4s --apply 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q 'is unbounded: it ran half of the 4s observed without a sleep' <<<"$OUT"; then
	pass "a thread that never sleeps is unbounded, and --apply refuses it with that reason"
else
	fail "the spinner: exit $rc: $OUT"
fi
exit 0
