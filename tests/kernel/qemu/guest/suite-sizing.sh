#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sized reservations meet their deadlines on the HCBS kernel: three task sets
# are sized by 'hcbsctl size', reserved by 'hcbsctl create', and run by
# hcbs-rtload (SCHED_FIFO threads, deadline-monotonic, WCET by thread CPU
# time) for 200 periods of their longest task beside a SCHED_FIFO-99 hog in
# the root group on the same CPUs: no deadline may be missed. On KERNEL=hcbs7,
# whose groups' tasks migrate between the group's servers, a fourth set is
# sized for both CPUs (the global multiprocessor test) and runs unpinned. The same sets
# with the runtime cut to half must miss (so the check can fail). Each run
# is also read through hcbsd's BPF collector, which counts the group's
# budget exhaustions per CPU (check_exhaustions below): where the sized
# budget must run out and nowhere else, and at half the runtime on every CPU
# where jobs missed. First the
# precondition: a generous group beside the same hog must meet every deadline;
# where it does not, the kernel breaks the guarantee the proof relies on and
# the three proofs are skipped with the numbers. Binaries from
# HCBS_GUEST_BINS (hcbsd, hcbsctl, hcbs-rtload).
. /guest/lib.sh

ROOT=$CG/hcbs-sizing
STATE=/tmp/hcbsd-sizing-state
LOG=/tmp/hcbsd-sizing.log
PERIODS=${HCBS_SIZING_PERIODS:-200}
DAEMON=
HOGS=

for b in hcbsd hcbsctl hcbs-rtload; do
	if ! command -v $b >/dev/null; then
		skip "sizing: $b is not in the initramfs (HCBS_GUEST_BINS)"
		exit 0
	fi
done

# json_nums KEY TEXT: every number of "KEY": in TEXT, in order
json_nums() {
	printf '%s\n' "$2" | grep -o "\"$1\": *[0-9]*" | sed 's/.*: *//'
}
# json_num KEY TEXT: the first one (the top level's, before any "tasks" array)
json_num() {
	json_nums "$1" "$2" | head -1
}

stop_hogs() {
	[ -n "$HOGS" ] && kill $HOGS 2>/dev/null && wait $HOGS 2>/dev/null
	HOGS=
}

cleanup() {
	stop_hogs
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	DAEMON=
	if [ -d "$ROOT" ]; then
		for _d in $(find "$ROOT" -type d | sort -r); do
			for _p in $(cat "$_d/cgroup.procs" 2>/dev/null); do echo "$_p" > "$CG/cgroup.procs" 2>/dev/null; done
			if [ -e "$_d/cpu.rt.max" ]; then echo 0 > "$_d/cpu.rt.max"; else echo 0 > "$_d/cpu.rt_runtime_us"; fi 2>/dev/null
			rmdir "$_d" 2>/dev/null
		done
	fi
}

guest_system_bus sizing || exit 0
printf '[Manager]\nCapacity=90%%\n' > /tmp/hcbsd-sizing.conf
hcbsd --cgroup-root="$ROOT" --config=/tmp/hcbsd-sizing.conf --config-dir=/tmp/none \
	--state-dir="$STATE" --no-notify >>"$LOG" 2>&1 &
DAEMON=$!
guest_wait_hcbsd
if ! hcbsctl status >/dev/null 2>&1; then
	fail "sizing: hcbsd did not come up: $(tail -5 "$LOG" | tr '\n' '|')"
	cleanup
	exit 0
fi

# The analysis answers on every kernel; the timing proof needs HCBS servers.
OUT=$(hcbsctl --json size --task 2ms:20ms --task 3ms:30ms --cpus 1 --period 10ms 2>&1)
if [ "$(json_num runtime_us "$OUT")" = 3500 ]; then
	pass "sizing: hcbsctl size answers the worked example (3.5ms every 10ms)"
else
	fail "sizing: hcbsctl size: $OUT"
fi
if ! is_hcbs; then
	skip "sizing: sized sets under a root hog: HCBS kernels only (this is KERNEL=$HCBS_KERNEL)"
	cleanup
	exit 0
fi

# servers_of GROUP: one line per CPU where GROUP's deadline server did anything,
# "CPU EXHAUSTIONS THROTTLED_NS REPLENISHMENTS" (hcbsctl --json stats)
servers_of() {
	hcbsctl --json stats "$1" 2>/dev/null | grep -o '"servers":\[[^]]*\]' | grep -o '{[^}]*}' |
		sed -n 's/.*"cpu":\([0-9]*\),"exhaustions":\([0-9]*\),"throttled_ns":\([0-9]*\),"replenishments":\([0-9]*\).*/\1 \2 \3 \4/p'
}

# check_exhaustions NAME RUNTIME_US HALF BEFORE AFTER: the collector's budget
# exhaustions of one run (AFTER minus BEFORE, servers_of files) against what
# the analysis expects of a budget of RUNTIME_US every period on each CPU:
#  - a job longer than the budget cannot complete within one: at least
#    ceil(C / (RUNTIME + 1 tick)) - 1 exhaustions per job (HZ=1000: the kernel
#    enforces a budget per tick, so one may run up to 1 ms over);
#  - a budget runs out at most once: no more exhaustions than replenishments
#    (budgets the group started; one more for a budget begun before the run);
#  - none on a CPU where the set has no task;
#  - with half the runtime (HALF=yes), on every CPU where jobs missed.
# Reads _res (hcbs-rtload's JSON, tasks in order), _taskcpus (each task's CPU,
# in the same order; empty for a set that migrates, whose CPUs are then
# counted as one, "all", with a budget begun before the run on each) and _tm
# (each task's misses); sets _exh (the total).
check_exhaustions() {
	_cn=$1 _crt=$2 _chalf=$3
	_cw=$(json_nums wcet_us "$_res" | tr '\n' ' ')
	_cj=$(json_nums jobs "$_res" | tr '\n' ' ')
	_cv=$(awk -v rt="$_crt" -v half="$_chalf" -v wcet="$_cw" -v jobs="$_cj" -v cpus="$_taskcpus" -v miss="$_tm" '
		BEGIN {
			n = split(wcet, w, " "); split(jobs, j, " "); nc = split(cpus, c, " "); split(miss, m, " ")
			for (i = 1; i <= n; i++) {
				if (nc == 0) c[i] = "all"
				per = int((w[i] + rt + 1000 - 1) / (rt + 1000)) - 1
				low[c[i]] += j[i] * (per > 0 ? per : 0)
				tasks[c[i]] = tasks[c[i]] " " w[i] / 1000 "ms"
				missed[c[i]] += m[i]
				used[c[i]] = 1
			}
		}
		{ k = nc == 0 ? "all" : $1; ncpu[k] += FILENAME == ARGV[1] }
		FILENAME == ARGV[1] { b[k] += $2; bt[k] += $3; br[k] += $4; next }
		{ e[k] += $2; t[k] += $3; r[k] += $4; seen[k] = 1 }
		END {
			for (k in used) seen[k] = 1
			ok = 1
			for (k in seen) {
				e[k] -= b[k]; t[k] -= bt[k]; r[k] -= br[k]
				total += e[k]
				line = line sprintf("CPU %s: %d exhaustions (at least %d expected: tasks%s), %d replenishments, throttled %.1f ms, %d misses; ", k, e[k], low[k], used[k] ? tasks[k] : " none", r[k], t[k] / 1e6, missed[k])
				if (!used[k] && e[k] > 0) { ok = 0; why = why " CPU " k " has no task of the set but " e[k] " exhaustions;" }
				if (used[k] && e[k] < low[k]) { ok = 0; why = why " CPU " k ": " e[k] " < " low[k] ";" }
				if (used[k] && e[k] > r[k] + (ncpu[k] > 1 ? ncpu[k] : 1)) { ok = 0; why = why " CPU " k ": more exhaustions than budgets;" }
				if (half == "yes" && missed[k] > 0 && (e[k] == 0 || t[k] == 0)) { ok = 0; why = why " CPU " k " missed without exhaustion;" }
			}
			printf "%s|%d|%s|%s\n", ok ? "ok" : "bad", total, line, why
		}' "$4" "$5")
	_exh=$(echo "$_cv" | cut -d'|' -f2)
	info "$_cn: budget exhaustion, runtime ${_crt}us$( [ "$_chalf" = yes ] && echo ' (half)'): $(echo "$_cv" | cut -d'|' -f3)"
	if [ "$(echo "$_cv" | cut -d'|' -f1)" = ok ]; then
		if [ "$_chalf" = yes ]; then
			pass "$_cn: at half the runtime the collector counts $_exh exhaustions, on every CPU where jobs missed"
		else
			pass "$_cn: the collector counts $_exh exhaustions, only where the analysis expects the ${_crt}us budget to run out"
		fi
	else
		fail "$_cn: budget exhaustion against the analysis:$(echo "$_cv" | cut -d'|' -f4)"
	fi
}

# size_set SIZE_ARGS TASK...: hcbsctl size for SIZE_CPUS CPUs (1 unless set:
# the proofs of one CPU pin their tasks); sets _rt, _pe (µs, empty when
# refused), _bound (the analysed response bounds) and _sz (the JSON answer).
SIZE_CPUS=1
size_set() {
	_sizeargs=$1
	shift
	_targs=
	for _t in "$@"; do _targs="$_targs --task $_t"; done
	# shellcheck disable=SC2086
	_sz=$(hcbsctl --json size $_targs --cpus $SIZE_CPUS $_sizeargs 2>&1)
	_rt=$(json_num runtime_us "$_sz")
	_pe=$(json_num period_us "$_sz")
	_bound=$(json_nums response_us "$_sz" | tr '\n' ' ')
	# shellcheck disable=SC2086
	info "$* on $SIZE_CPUS CPU(s): sized ${_rt:-?}/${_pe:-?} us ($(hcbsctl size $_targs --cpus $SIZE_CPUS $_sizeargs 2>&1 | sed -n 's/^bandwidth: *//p'))"
}

# prove NAME RUNTIME PERIOD HOG_CPUS LOAD...: creates the group RUNTIME/PERIOD
# (µs), starts a FIFO-99 hog in the root group on each of HOG_CPUS and runs
# LOAD (a command printing hcbs-rtload's JSON, one object per line) in the
# group; then again with half the runtime, which must miss. A full-runtime run
# that misses is run once more before it counts as a failure: on a busy host
# qemu's vCPU threads stall for tens of milliseconds, which the guest sees as
# lost CPU time (the first run's figures are kept in an INFO line).
prove() {
	_name=$1 _rt=$2 _pe=$3 _hogcpus=$4
	shift 4
	if ! OUT=$(hcbsctl create "$_name" "${_rt}us" "${_pe}us" 2>&1); then
		fail "$_name: hcbsctl create ${_rt}us ${_pe}us: $OUT"
		return
	fi
	_again=
	_full_exh=
	for _half in no again yes; do
		[ $_half = again ] && [ -z "$_again" ] && continue
		if [ $_half = yes ]; then
			_cut=$((_rt / 2))
			if ! OUT=$(hcbsctl set "$_name" "${_cut}us" "${_pe}us" 2>&1); then
				fail "$_name: hcbsctl set ${_cut}us ${_pe}us: $OUT"
				break
			fi
		fi
		servers_of "$_name" >/tmp/servers-before
		HOGS=
		for _c in $_hogcpus; do
			spin -c "$_c" -p 99 600 >/dev/null 2>&1 & # stopped when the load ends
			HOGS="$HOGS $!"
		done
		sleep 0.5
		_res=$("$@" 2>/tmp/rtload.err)
		_rc=$?
		stop_hogs
		if [ $_rc != 0 ]; then
			fail "$_name (half=$_half): the load failed (exit $_rc): $(cat /tmp/rtload.err) $_res"
			continue
		fi
		# the whole run's misses: the first "misses" of each object
		_misses=$(printf '%s\n' "$_res" | sed -n 's/.*"duration_us": *[0-9]*, *"misses": *\([0-9]*\).*/\1/p' |
			awk '{ n += $1 } END { print n + 0 }')
		_resp=$(json_nums worst_response_us "$_res" | tr '\n' ' ')
		_dl=$(json_nums deadline_us "$_res" | tr '\n' ' ')
		_jobs=$(json_nums jobs "$_res" | tr '\n' ' ')
		_tm=$(printf '%s\n' "$_res" | sed 's/^.*"tasks"//' | grep -o '"misses": *[0-9]*' | sed 's/.*: *//' | tr '\n' ' ')
		servers_of "$_name" >/tmp/servers-after
		if [ $_half != yes ]; then
			info "$_name: runtime ${_rt}us/${_pe}us beside a FIFO-99 root hog on CPU(s) $_hogcpus${_again:+ (second run)}: jobs [$_jobs] misses [$_tm] worst response [$_resp] us vs analysed bounds [$_bound] us and deadlines [$_dl] us"
			if [ "$_misses" = 0 ]; then
				pass "$_name: the sized reservation ${_rt}us/${_pe}us meets every deadline for $PERIODS periods of its longest task beside a root FIFO-99 hog${_again:+ (second run; the first missed $_again)}"
				check_exhaustions "$_name" "$_rt" no /tmp/servers-before /tmp/servers-after
				_full_exh=$_exh
			elif [ $_half = no ]; then
				_again=$_misses
				info "$_name: $_misses misses in the first run: once more"
			else
				fail "$_name: the sized reservation ${_rt}us/${_pe}us missed $_misses deadlines beside a root FIFO-99 hog (per task [$_tm], worst [$_resp] us vs [$_dl] us)"
			fi
		else
			info "$_name: runtime cut to ${_cut}us/${_pe}us: jobs [$_jobs] misses [$_tm] worst response [$_resp] us vs deadlines [$_dl] us"
			if [ "$_misses" -gt 0 ]; then
				pass "$_name: with half the runtime (${_cut}us/${_pe}us) the set misses deadlines ($_misses), so the check can fail"
				check_exhaustions "$_name" "$_cut" yes /tmp/servers-before /tmp/servers-after
				if [ -n "${_full_exh:-}" ] && [ "$_exh" -gt "$_full_exh" ]; then
					pass "$_name: half the runtime runs out more often ($_exh exhaustions against $_full_exh)"
				else
					fail "$_name: half the runtime: $_exh exhaustions, the full runtime ${_full_exh:-?}"
				fi
				# what a user sees (docs/stats.md, README): the group's table and its per-CPU view
				{ hcbsctl stats "$_name"; hcbsctl stats "$_name" --per-cpu; } 2>&1 | while IFS= read -r _l; do
					info "$_name: | $_l"
				done
			else
				fail "$_name: half the runtime (${_cut}us/${_pe}us) missed nothing: the proof proves nothing"
			fi
		fi
	done
	hcbsctl delete "$_name" >/dev/null 2>&1 || info "$_name: delete failed"
}

# run_set NAME CPU SIZE_ARGS TASK...: sizes the tasks for one CPU, and proves
# the reservation with them pinned to CPU and a hog there.
run_set() {
	_n=$1 _c=$2 _a=$3
	shift 3
	size_set "$_a" "$@"
	if [ -z "$_rt" ] || [ -z "$_pe" ]; then
		fail "$_n: hcbsctl size refused: $_sz"
		return
	fi
	_taskcpus=$(for _t in "$@"; do printf '%s ' "$_c"; done)
	prove "$_n" "$_rt" "$_pe" "$_c" hcbsctl run "$_n" -- hcbs-rtload --periods "$PERIODS" --cpu "$_c" "$@"
}

# run_global NAME SIZE_ARGS TASK...: sizes the tasks for both CPUs under
# global fixed priority (hcbsctl size --cpus 2) and proves the reservation
# with the tasks unpinned in one group (its servers on both CPUs) and a hog
# on each CPU.
run_global() {
	_n=$1 _a=$2
	shift 2
	SIZE_CPUS=2
	size_set "$_a" "$@"
	SIZE_CPUS=1
	if [ -z "$_rt" ] || [ -z "$_pe" ]; then
		fail "$_n: hcbsctl size --cpus 2 refused: $_sz"
		return
	fi
	_taskcpus= # its tasks migrate: exhaustions counted over both CPUs
	prove "$_n" "$_rt" "$_pe" "0 1" hcbsctl run "$_n" -- hcbs-rtload --periods "$PERIODS" "$@"
}

# run_pair NAME PERIOD "TASKS ON CPU 0" "TASKS ON CPU 1": one group, its tasks
# partitioned over both CPUs (a server on each); each CPU's share sized for one
# CPU at PERIOD, the group reserving the larger runtime; a hog on each CPU.
run_pair() {
	_n=$1 _p=$2 _t0=$3 _t1=$4
	# shellcheck disable=SC2086
	size_set "--period $_p" $_t0
	_rt0=$_rt _bound0=$_bound
	# shellcheck disable=SC2086
	size_set "--period $_p" $_t1
	if [ -z "$_rt0" ] || [ -z "$_rt" ]; then
		fail "$_n: hcbsctl size refused a CPU's share: $_sz"
		return
	fi
	[ "$_rt0" -gt "$_rt" ] && _rt=$_rt0
	_bound="$_bound0$_bound" # the bounds at each CPU's own sizing; more runtime only lowers them
	_taskcpus="$(for _t in $_t0; do printf '0 '; done)$(for _t in $_t1; do printf '1 '; done)" # pair_load's order
	prove "$_n" "$_rt" "$_pe" 0 pair_load "$_n" "$_t0" "$_t1"
}
pair_load() {
	# shellcheck disable=SC2086
	hcbsctl run "$1" -- hcbs-rtload --periods "$PERIODS" --cpu 1 $3 >/tmp/pair1.json &
	_pl=$!
	# shellcheck disable=SC2086
	hcbsctl run "$1" -- hcbs-rtload --periods "$PERIODS" --cpu 0 $2 || { wait $_pl; return 1; }
	wait $_pl || return 1
	cat /tmp/pair1.json
}

# load_set1 CMD...: the load of set 1 under CMD; sets _res, _misses
load_set1() {
	_res=$("$@" hcbs-rtload --periods "$PERIODS" --cpu 0 2ms:25ms 3ms:40ms 5ms:50ms 2>&1)
	_misses=$(printf '%s\n' "$_res" | sed -n 's/.*"duration_us": *[0-9]*, *"misses": *\([0-9]*\).*/\1/p')
	info "$_label: misses [$(json_nums misses "$_res" | sed 1d | tr '\n' ' ')] worst response [$(json_nums worst_response_us "$_res" | tr '\n' ' ')] us of deadlines [25000 40000 50000] us"
}

# The precondition of the proof: the kernel protects a group whose tasks sleep
# and wake (periodic jobs) from a root FIFO-99 hog when the reservation is
# generous (90% for a 25.5% load). The always-runnable spinner of
# suite-hcbs-guarantee.sh does not exercise the wake-up path.
_label="precondition: set 1 alone, SCHED_FIFO in the root group, no hog"
load_set1
hcbsctl create base 9ms 10ms >/dev/null 2>&1
_label="precondition: set 1 in a 9ms/10ms group, no hog"
load_set1 hcbsctl run base --
_alone=$_misses
spin -c 0 -p 99 600 >/dev/null 2>&1 &
HOGS=$!
_label="precondition: set 1 in a 9ms/10ms group beside a FIFO-99 root hog on CPU 0"
load_set1 hcbsctl run base --
stop_hogs
hcbsctl delete base >/dev/null 2>&1
# skip_sets REASON: the three proofs cannot run here; end the suite.
skip_sets() {
	for _s in size1 size2 size3 $(is_hcbs7 && echo size4); do
		skip "sizing: $_s beside a root hog: $1"
	done
	info "hcbsd log: $(tail -5 "$LOG" | tr '\n' '|')"
	cleanup
	exit 0
}
if [ "$_alone" != 0 ]; then
	skip_sets "this guest misses deadlines even in a 9ms/10ms group without a hog (${_alone:-?} misses of a 25.5% periodic load: emulator stalls of a busy host, see the INFO lines), so no sizing can be proven here"
fi
if [ "$_misses" != 0 ]; then
	fail "sizing: a 9ms/10ms group, clean alone, missed ${_misses:-?} deadlines of a 25.5% periodic load beside a FIFO-99 root hog (see the INFO lines)"
	skip_sets "the kernel failed the precondition above"
fi
pass "sizing: a 9ms/10ms group meets every deadline of a 25.5% periodic load alone and beside a FIFO-99 root hog"

# Server periods of 5-10ms: ten ticks of this HZ=1000 kernel, whose budget
# enforcement is tick-granular, so an overrun stays small beside the runtime.
# 1: three tasks on CPU 0, implicit deadlines, U = 25.5%
run_set size1 0 "--period 10ms" 2ms:25ms 3ms:40ms 5ms:50ms
# 2: constrained deadlines on CPU 0, U = 30%, a period range
run_set size2 0 "--period-range 5ms..20ms" 3ms:30ms:25ms 4ms:40ms 5ms:50ms
# 3: one group on both CPUs, two tasks pinned to each (U = 40% on each), the
# hog on CPU 0, whose share needs the whole runtime (CPU 1's needs 5334us); it
# missed jobs when the guest's timekeeping had fallen back to the HPET (see
# guest_kernel_args in harness.sh, docs/sizing.md). Partitioned, not the
# global multiprocessor test: that one needs a kernel that migrates a group's
# tasks between its servers.
run_pair size3 10ms "6ms:30ms 8ms:40ms" "10ms:50ms 12ms:60ms"
# 4: global fixed priority (hcbsctl size --cpus 2): four tasks, U = 94%,
# unpinned in one group on both CPUs, a hog on each CPU. Sized 8167us/10ms on
# each CPU: one CPU's server alone (81.7%) could not serve them, so they must
# migrate; with half the runtime both servers together (81.7%) cannot either.
# KERNEL=hcbs7 only: patches/hcbs-v7-6.12 migrates a group's tasks between its
# servers (HCBS v6 20-24/25); the rfc1 and v6 ports keep a task on the server
# of the CPU it wakes on, which the global test does not assume.
if is_hcbs7; then
	run_global size4 "--period 10ms" 6ms:20ms 6ms:25ms 8ms:40ms 10ms:50ms
else
	skip "sizing: a set under the global multiprocessor test (--cpus 2) beside hogs: KERNEL=hcbs7 only (the rfc1 and v6 ports do not migrate a group's tasks between its servers; this is KERNEL=$HCBS_KERNEL)"
fi

info "hcbsd log: $(tail -5 "$LOG" | tr '\n' '|')"
cleanup
exit 0
