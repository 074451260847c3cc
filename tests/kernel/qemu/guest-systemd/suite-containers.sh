#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# suite-timeout: 540
#
# Containers' reservations under real podman (issue 16): rootful podman with
# crun and conmon from Debian, the systemd cgroup manager, and hcbs-oci-hook
# from hcbsd's package (hooks.d in /usr/share/containers/oci/hooks.d). A
# container started with --cgroup-parent=hcbs.slice and the org.hcbsd1.*
# annotations runs SCHED_FIFO in its reservation, given as runtime and
# period or as a task set hcbsd sizes; an over-commit or a bad annotation
# stops it from starting with a one-line reason in podman's output (the
# hook's precreate check, which podman runs with its stderr on /dev/null,
# writes the line to podman's stderr: --to-engine); podman stop, podman
# kill -s KILL, podman rm -f and kill -9 of conmon (no poststop hook at
# all) give the bandwidth back; restarting hcbsd keeps a running
# container's; a container without the annotations is untouched by the
# hook and gets no RT bandwidth (runtime 0 on every interface). The
# engines' pools (hcbsd.conf's [Pool NAME]): a container with podman's
# default cgroup parent, machine.slice (a pool of 30%), gets its
# reservation there, a second pool's over-commit (hcbsother.slice,
# 10%) is refused naming that pool, and stop, kill and kill -9 of conmon
# leave machine.slice holding nothing. Then how long the hooks add to
# `podman run` (median of 10 each).
#
# No image registry: each container's --rootfs is a directory holding static
# busybox. The pool holds Capacity=50% (CapacityPeriod=1s) as in suite-units.sh.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CG=/sys/fs/cgroup
SLICE=$CG/hcbs.slice
ROOT=/var/tmp/hcbs-ctr-root
CONF=/etc/hcbsd/conf.d/60-vm-containers.conf
STATE=/run/hcbs-oci-hook
NAMES="hcbs-ctr-a hcbs-ctr-b hcbs-ctr-plain hcbs-ctr-kill hcbs-ctr-rm hcbs-ctr-conmon hcbs-ctr-restart hcbs-ctr-sized
	hcbs-ctr-m hcbs-ctr-mkill hcbs-ctr-mconmon hcbs-ctr-other"
# OTHER has no dash: systemd nests hcbs-test-other.slice in hcbs.slice/hcbs-test.slice, inside hcbsd's
# own pool, which hcbsd refuses as an engine pool ("is or holds hcbsd's own pool: ignored")
MACHINE=$CG/machine.slice OTHER=hcbsother.slice
RT="--annotation org.hcbsd1.runtime=2ms --annotation org.hcbsd1.period=10ms --annotation org.hcbsd1.policy=fifo:50"

expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: expected '$3', got '$2'"; fi
}

wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}

# pm_run OPTIONS... /bin/COMMAND ARGS...: podman run for this suite (no network, the
# pool as parent, busybox as root). With --rootfs the root directory is the first
# positional argument and podman parses no option after it, so it goes between the
# options and the command (the first word starting with /).
# PM_PARENT: the cgroup parent (default hcbs.slice; empty: podman's default, machine.slice).
pm_run() {
	local opts=() parent=${PM_PARENT-hcbs.slice}
	while [ $# -gt 0 ] && [ "${1#/}" = "$1" ]; do
		opts+=("$1")
		shift
	done
	podman run --network none ${parent:+--cgroup-parent=$parent} "${opts[@]}" --rootfs "$ROOT" "$@"
}

ctr_pid() { podman inspect -f '{{.State.Pid}}' "$1" 2>/dev/null; }
ctr_cgroup() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null; }
# The pool's children with runtime, as "name=runtime/period" (hcbsd.service's own aside).
pool_reservations() {
	local d r
	for d in "$SLICE"/*/; do
		d=${d%/}
		case ${d##*/} in hcbsd.service) continue ;; esac
		r=$(rt_runtime "$d") || continue
		[ "$r" != 0 ] && [ "$r" != max ] && printf '%s=%s/%s ' "${d##*/}" "$r" "$(rt_period "$d")"
	done
	echo
}
listed() { hcbsctl containers 2>/dev/null | grep -q "$1"; }
plain_scope_closed() { [ "$(rt_runtime "$SLICE/libpod-$1.scope")" = 0 ]; }
not_listed() { ! listed "$1"; }
no_scope() { [ ! -d "$SLICE/libpod-$1.scope" ]; }
# json_num KEY JSON: the first number of "KEY": in JSON
json_num() { printf '%s\n' "$2" | grep -o "\"$1\": *[0-9]*" | head -1 | sed 's/.*: *//'; }

cleanup() {
	local n
	for n in $NAMES; do podman rm -f -t 0 "$n" >/dev/null 2>&1; done
	rm -f "$CONF"
	systemctl stop "$OTHER" 2>/dev/null
	systemctl restart hcbsd.service 2>/dev/null
	rm -rf "$ROOT"
}
trap cleanup EXIT

setup() {
	local a
	if ! command -v podman >/dev/null; then
		skip "podman is not installed in the guest"
		exit 0
	fi
	mkdir -p "$ROOT/bin" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/etc" "$ROOT/tmp"
	cp /bin/busybox "$ROOT/bin/busybox"
	for a in sh sleep cat cut true; do ln -sf busybox "$ROOT/bin/$a"; done
	mkdir -p "${CONF%/*}"
	printf '[Manager]\nCapacity=50%%\nCapacityPeriod=1s\n[Pool podman]\nCgroup=machine.slice\nCapacity=30%%\n[Pool other]\nCgroup=%s\nCapacity=10%%\n' \
		"$OTHER" >"$CONF"
	systemctl restart hcbsd.service || fail "systemctl restart hcbsd failed"
	info "$(podman --version), $(crun --version | head -1), $(conmon --version | head -1)"
	info "hooks: $(ls /usr/share/containers/oci/hooks.d 2>&1 | tr '\n' ' ')"
}

# A container with the annotations: FIFO 50 inside, 2000/10000 in its cgroup.
start_rt() {
	local out id pid cg stat rc
	out=$(pm_run --rm $RT /bin/cut -d' ' -f40,41 /proc/1/stat 2>&1 | grep -v 'level=')
	info "inside: rt_priority policy of pid 1 = '$out'"
	expect_eq "inside the container, its process is SCHED_FIFO (1) at priority 50" "$out" "50 1"

	if ! id=$(pm_run -d --name hcbs-ctr-a $RT /bin/sleep 600 2>&1); then
		fail "podman run with the annotations failed: $id"
		return
	fi
	pass "a container with org.hcbsd1.runtime=2ms, period=10ms, policy=fifo:50 starts"
	pid=$(ctr_pid hcbs-ctr-a)
	cg=$(ctr_cgroup "$pid")
	info "container ${id:0:12}: pid $pid in $cg"
	case $cg in
	/hcbs.slice/libpod-$id.scope*) pass "its cgroup is its scope in the pool ($cg)" ;;
	*) fail "the container runs in '$cg', not in hcbs.slice/libpod-$id.scope" ;;
	esac
	expect_eq "its cgroup's cpu.rt_runtime_us" "$(rt_runtime "$CG$cg")" 2000
	expect_eq "its cgroup's cpu.rt_period_us" "$(rt_period "$CG$cg")" 10000
	expect_eq "its scope's reservation" "$(rt_of "$SLICE/libpod-$id.scope")" 2000/10000
	expect_eq "its process runs SCHED_FIFO" "$(chrt -p "$pid" | sed -n 's/.*policy: //p')" SCHED_FIFO
	expect_eq "... at priority 50" "$(chrt -p "$pid" | sed -n 's/.*priority: //p')" 50
	hcbsctl containers 2>&1 | sed 's/^/INFO: containers: /'
	listed "libpod-$id.scope" && pass "hcbsctl containers lists it" || fail "hcbsctl containers does not list libpod-$id.scope"
	hcbsctl units 2>/dev/null | grep -q "libpod-$id.scope" && pass "hcbsctl units lists it too" ||
		fail "hcbsctl units does not list libpod-$id.scope"
	case $(hcbsctl containers --json 2>&1) in
	*"\"unit\": \"libpod-$id.scope\""*|*"\"unit\":\"libpod-$id.scope\""*) pass "hcbsctl containers --json names it" ;;
	*) fail "hcbsctl containers --json: $(hcbsctl containers --json 2>&1 | tr '\n' ' ')" ;;
	esac
	# hcbsctl why CONTAINER: the first characters of its id name it; healthy, in hcbsd's reservation
	out=$(hcbsctl --json why "${id:0:12}" 2>&1)
	rc=$?
	case $rc:$out in
	0:*'"kind":"container"'*"\"pid\":$pid,"*'"managed":"container"'*) pass "hcbsctl why ${id:0:12}: its process, in the container's reservation, nothing wrong" ;;
	*) fail "hcbsctl why ${id:0:12}: exit $rc: $out" ;;
	esac
	A_ID=$id
}

overcommit() {
	local before out rc
	before=$(pool_reservations)
	out=$(pm_run --rm --name hcbs-ctr-b --annotation org.hcbsd1.runtime=4ms --annotation org.hcbsd1.period=10ms \
		--annotation org.hcbsd1.policy=fifo:10 /bin/true 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/INFO: podman: /'
	[ "$rc" != 0 ] && pass "a container of 40% beside 20% in a 50% pool does not start (podman exit $rc)" ||
		fail "the over-committing container started"
	case $out in
	*"hcbs-oci-hook: "*"hcbsd refused 4ms every 10ms: "*"40.0%"*) pass "podman's error carries hcbsd's reason with the numbers" ;;
	*) fail "podman's error lacks hcbsd's reason with the numbers" ;;
	esac
	expect_eq "the refused container leaked nothing" "$(pool_reservations)" "$before"
	podman container exists hcbs-ctr-b && fail "the refused container still exists" ||
		pass "the refused container is gone (--rm)"
}

# bad_annotation WHAT EXPECTED-TEXT ANNOTATIONS...
bad_annotation() {
	local what=$1 want=$2 out rc
	shift 2
	out=$(pm_run --rm "$@" /bin/true 2>&1)
	rc=$?
	[ "$rc" != 0 ] && pass "$what: the container does not start" || fail "$what: the container started"
	case $out in
	*"hcbs-oci-hook: "*"$want"*) pass "$what: podman's error says why ($want)" ;;
	*) fail "$what: no '$want' in podman's error: $(printf '%s' "$out" | tr '\n' ' ')" ;;
	esac
}

bad_input() {
	bad_annotation "a bad duration" "org.hcbsd1.runtime=2xs: " \
		--annotation org.hcbsd1.runtime=2xs --annotation org.hcbsd1.period=10ms
	bad_annotation "runtime above period" "is longer than" \
		--annotation org.hcbsd1.runtime=20ms --annotation org.hcbsd1.period=10ms
	bad_annotation "an unknown policy" "expected fifo:PRIO" \
		--annotation org.hcbsd1.runtime=1ms --annotation org.hcbsd1.period=10ms --annotation org.hcbsd1.policy=deadline
	bad_annotation "a priority out of range" "from 1 to 99" \
		--annotation org.hcbsd1.runtime=1ms --annotation org.hcbsd1.period=10ms --annotation org.hcbsd1.policy=fifo:100
	bad_annotation "a bad task" "task '3ms': expected WCET:PERIOD" --annotation "org.hcbsd1.tasks=2ms:20ms 3ms"
}

untouched() {
	local log id pid
	if ! log=$(pm_run --log-level=debug --rm /bin/true 2>&1); then
		fail "a plain podman run --log-level=debug failed: $(printf '%s' "$log" | grep -v level=debug | tr '\n' ' ')"
	else
		case $log in
		*hcbs-reserve.json*matched*) fail "the hook matched a container without the annotations" ;;
		*) pass "the hook is not run for a container without the annotations (podman --log-level=debug)" ;;
		esac
	fi
	log=$(pm_run --log-level=debug --rm $RT /bin/true 2>&1)
	printf '%s\n' "$log" | grep -i 'hook' | head -5 | sed 's/^/INFO: podman debug: /'
	case $log in
	*hcbs-reserve.json*matched*) pass "... while podman's debug log has it match one with them" ;;
	*) fail "podman's debug log does not have hcbs-reserve.json match an annotated container" ;;
	esac
	id=$(pm_run -d --name hcbs-ctr-plain /bin/sleep 600 2>&1) || { fail "a plain container failed: $id"; return; }
	pid=$(ctr_pid hcbs-ctr-plain)
	# No RT bandwidth without a reservation, on every interface: rfc1 starts the scope at runtime 0; rtmax
	# at max, on hcbs.slice's own bandwidth, so hcbsd gives it 0 as it appears (docs/systemd.md).
	wait_for 5 plain_scope_closed "$id"
	expect_eq "a plain container's scope has runtime 0 ($(rt_of "$SLICE/libpod-$id.scope"))" \
		"$(rt_runtime "$SLICE/libpod-$id.scope")" 0
	expect_eq "... and its process SCHED_OTHER" "$(chrt -p "$pid" | sed -n 's/.*policy: //p')" SCHED_OTHER
	if chrt -f -p 10 "$pid" 2>/dev/null; then
		fail "its process became SCHED_FIFO without a reservation ($(rt_of "$CG$(ctr_cgroup "$pid")") in $(ctr_cgroup "$pid"))"
		chrt -o -p 0 "$pid" 2>/dev/null
	else
		pass "its process cannot become SCHED_FIFO: the kernel refuses (no runtime in its cgroup's context)"
	fi
	[ -e "$STATE/$id" ] && fail "the hook recorded the plain container" || pass "the hook recorded nothing for it"
	podman rm -f -t 0 hcbs-ctr-plain >/dev/null 2>&1
}

# A container asking with its tasks: hcbsd sizes the reservation as hcbsctl size does (the pool is empty here).
sized() {
	local tasks="2ms:20ms 3ms:30ms" want id pid
	want=$(hcbsctl --json size --task 2ms:20ms --task 3ms:30ms 2>&1)
	want="$(json_num runtime_us "$want")/$(json_num period_us "$want")"
	info "hcbsctl size --task 2ms:20ms --task 3ms:30ms: $want"
	if ! id=$(pm_run -d --name hcbs-ctr-sized --annotation "org.hcbsd1.tasks=$tasks" \
		--annotation org.hcbsd1.policy=fifo:40 /bin/sleep 600 2>&1); then
		fail "a container with org.hcbsd1.tasks=$tasks did not start: $id"
		return
	fi
	pass "a container with org.hcbsd1.tasks=$tasks starts"
	expect_eq "its scope holds what hcbsd sized for the tasks" "$(rt_of "$SLICE/libpod-$id.scope")" "$want"
	pid=$(ctr_pid hcbs-ctr-sized)
	expect_eq "its process runs SCHED_FIFO 40" "$(chrt -p "$pid" | sed -n 's/.*priority: //p')" 40
	podman rm -f -t 0 hcbs-ctr-sized >/dev/null 2>&1
	wait_for 10 not_listed "libpod-$id.scope"
	not_listed "libpod-$id.scope" && pass "its reservation is given back on podman rm -f" ||
		fail "libpod-$id.scope still listed after podman rm -f"
	bad_annotation "tasks that cannot meet their deadlines" "its WCET 5ms is longer than its deadline 4ms" \
		--annotation org.hcbsd1.tasks=5ms:10ms:4ms
}

stop_gives_back() {
	[ -n "${A_ID:-}" ] || { fail "podman stop: no container to stop (it did not start)"; return; }
	podman stop -t 1 hcbs-ctr-a >/dev/null 2>&1 || fail "podman stop hcbs-ctr-a failed"
	wait_for 10 not_listed "libpod-$A_ID.scope"
	not_listed "libpod-$A_ID.scope" && pass "podman stop: the reservation is given back" ||
		fail "podman stop: libpod-$A_ID.scope still listed"
	[ -e "$STATE/$A_ID" ] && fail "poststop left $STATE/$A_ID" || pass "poststop released it ($STATE/${A_ID:0:12}... removed)"
	podman rm -f hcbs-ctr-a >/dev/null 2>&1
	expect_eq "nothing is reserved in the pool" "$(pool_reservations)" ""
}

# run_then WHAT NAME COMMAND...: a container reserved, then COMMAND ends it; its reservation must go.
run_then() {
	local what=$1 name=$2 id
	shift 2
	LAST_ID=
	id=$(pm_run -d --name "$name" $RT /bin/sleep 600 2>&1) || { fail "$what: podman run failed: $id"; return; }
	wait_for 5 listed "libpod-$id.scope"
	"$@"
	wait_for 15 not_listed "libpod-$id.scope"
	not_listed "libpod-$id.scope" && pass "$what: the reservation is given back" ||
		fail "$what: libpod-$id.scope still holds $(rt_of "$SLICE/libpod-$id.scope")"
	LAST_ID=$id
}

kill_conmon() {
	local name=$1 conmon pid
	conmon=$(podman inspect -f '{{.State.ConmonPid}}' "$name")
	pid=$(ctr_pid "$name")
	info "kill -9 conmon $conmon, then the container's process $pid"
	kill -9 "$conmon"
	sleep 1
	[ -d "/proc/$pid" ] && pass "the container outlives its conmon" || info "the container died with conmon"
	expect_eq "... and keeps its reservation meanwhile" "$(rt_runtime "$CG$(ctr_cgroup "$pid")")" 2000
	kill -9 "$pid"
}

ends() {
	run_then "podman kill -s KILL" hcbs-ctr-kill podman kill -s KILL hcbs-ctr-kill
	podman rm -f hcbs-ctr-kill >/dev/null 2>&1
	run_then "podman rm -f" hcbs-ctr-rm podman rm -f -t 0 hcbs-ctr-rm
	run_then "kill -9 of conmon (no poststop hook runs)" hcbs-ctr-conmon kill_conmon hcbs-ctr-conmon
	[ -n "$LAST_ID" ] || return
	[ -e "$STATE/$LAST_ID" ] && pass "... hcbsd gave it back by itself (the hook's record is still there)" ||
		info "the hook's record of the conmon container is gone"
	no_scope "$LAST_ID" && pass "systemd removed the scope" || info "the scope is still there"
	podman rm -f -t 0 hcbs-ctr-conmon >/dev/null 2>&1
	expect_eq "nothing is reserved in the pool" "$(pool_reservations)" ""
}

restart_keeps() {
	local id pid
	id=$(pm_run -d --name hcbs-ctr-restart $RT /bin/sleep 600 2>&1) || { fail "podman run failed: $id"; return; }
	pid=$(ctr_pid hcbs-ctr-restart)
	systemctl restart hcbsd.service || fail "systemctl restart hcbsd failed"
	expect_eq "after restarting hcbsd the container's cgroup keeps its runtime" \
		"$(rt_runtime "$CG$(ctr_cgroup "$pid")")" 2000
	expect_eq "... its scope too" "$(rt_of "$SLICE/libpod-$id.scope")" 2000/10000
	expect_eq "... and its process SCHED_FIFO" "$(chrt -p "$pid" | sed -n 's/.*policy: //p')" SCHED_FIFO
	listed "libpod-$id.scope" && pass "the restarted hcbsd lists it (adopted through systemd)" ||
		fail "the restarted hcbsd does not list libpod-$id.scope"
	podman stop -t 1 hcbs-ctr-restart >/dev/null 2>&1
	wait_for 10 not_listed "libpod-$id.scope"
	not_listed "libpod-$id.scope" && pass "the restarted hcbsd gives it back on podman stop" ||
		fail "libpod-$id.scope still listed after stop"
	podman rm -f hcbs-ctr-restart >/dev/null 2>&1
}

# machine.slice reserves nothing (or systemd removed it with its last scope)
machine_holds_nothing() { [ ! -d "$MACHINE" ] || [ "$(rt_runtime "$MACHINE")" = 0 ]; }

# The engines' pools: podman's default cgroup parent (machine.slice) and a second pool.
pools() {
	local id pid cg out rc
	if ! id=$(PM_PARENT= pm_run -d --name hcbs-ctr-m $RT /bin/sleep 600 2>&1); then
		fail "podman run without --cgroup-parent, with the annotations, failed: $id"
		return
	fi
	pid=$(ctr_pid hcbs-ctr-m)
	cg=$(ctr_cgroup "$pid")
	info "container ${id:0:12} with podman's default cgroup parent: pid $pid in $cg"
	case $cg in
	/machine.slice/libpod-$id.scope*) pass "without --cgroup-parent the container runs in machine.slice ($cg)" ;;
	*) fail "the container runs in '$cg', not in machine.slice/libpod-$id.scope" ;;
	esac
	expect_eq "its scope in machine.slice holds its reservation" "$(rt_of "$MACHINE/libpod-$id.scope")" 2000/10000
	expect_eq "its cgroup too" "$(rt_runtime "$CG$cg")" 2000
	expect_eq "machine.slice holds what its scope holds (20% of 1s)" "$(rt_runtime "$MACHINE")" 200000
	expect_eq "its process runs SCHED_FIFO" "$(chrt -p "$pid" | sed -n 's/.*policy: //p')" SCHED_FIFO
	listed "libpod-$id.scope" && pass "hcbsctl containers lists it" || fail "hcbsctl containers does not list it"
	hcbsctl containers 2>&1 | sed 's/^/INFO: containers: /'

	out=$(PM_PARENT=$OTHER pm_run --rm --name hcbs-ctr-other $RT /bin/true 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/INFO: podman: /'
	[ "$rc" != 0 ] && pass "a container of 20% in the 10% pool $OTHER does not start (podman exit $rc)" ||
		fail "the container over-committing $OTHER started"
	case $out in
	*"hcbs-oci-hook: "*"needs 20.0% more per CPU; $OTHER has 10.0% free of its Capacity= 10.0%"*)
		pass "podman's error names the pool and its Capacity=" ;;
	*) fail "podman's error does not name $OTHER and its Capacity=" ;;
	esac
	expect_eq "machine.slice is untouched by the other pool's refusal" "$(rt_runtime "$MACHINE")" 200000

	podman stop -t 1 hcbs-ctr-m >/dev/null 2>&1 || fail "podman stop hcbs-ctr-m failed"
	wait_for 10 not_listed "libpod-$id.scope"
	not_listed "libpod-$id.scope" && pass "podman stop: the reservation in machine.slice is given back" ||
		fail "podman stop: libpod-$id.scope still listed"
	podman rm -f hcbs-ctr-m >/dev/null 2>&1
	PM_PARENT= run_then "machine.slice, podman kill -s KILL" hcbs-ctr-mkill podman kill -s KILL hcbs-ctr-mkill
	podman rm -f hcbs-ctr-mkill >/dev/null 2>&1
	PM_PARENT= run_then "machine.slice, kill -9 of conmon (no poststop hook runs)" hcbs-ctr-mconmon kill_conmon \
		hcbs-ctr-mconmon
	podman rm -f -t 0 hcbs-ctr-mconmon >/dev/null 2>&1
	wait_for 10 machine_holds_nothing
	machine_holds_nothing && pass "machine.slice holds nothing after stop, kill and kill -9 of conmon" ||
		fail "machine.slice still holds $(rt_of "$MACHINE") after stop, kill and kill -9 of conmon"
}

hcbsd_down() {
	local out
	# masked: the hook's call would otherwise start hcbsd (D-Bus activation)
	systemctl mask --runtime hcbsd.service >/dev/null 2>&1
	systemctl stop hcbsd.service
	out=$(pm_run --rm $RT /bin/true 2>&1) && fail "a container started without hcbsd" ||
		pass "without hcbsd the container does not start"
	printf '%s\n' "$out" | sed 's/^/INFO: podman: /'
	case $out in
	*"hcbs-oci-hook: "*"hcbsd is not running"*) pass "... and podman's error says hcbsd is not running" ;;
	*) fail "no 'hcbsd is not running' in podman's error" ;;
	esac
	systemctl unmask --runtime hcbsd.service >/dev/null 2>&1
	systemctl start hcbsd.service
}

# median_ms ANNOTATIONS...: the median wall time of 10 `podman run --rm ... true`, in ms
median_ms() {
	local i t0 t1 times=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		t0=$(date +%s%N)
		pm_run --rm "$@" /bin/true >/dev/null 2>&1 || { echo fail; return; }
		t1=$(date +%s%N)
		times="$times $(((t1 - t0) / 1000000))"
	done
	echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { printf "%d (%s..%s)", (v[5] + v[6]) / 2, v[1], v[NR] }'
}

timing() {
	local plain rt
	plain=$(median_ms)
	rt=$(median_ms $RT)
	info "podman run --rm (TCG): without annotations median $plain ms; with the hook $rt ms (min..max of 10)"
	echo "HCBS-GUEST-CONTAINER-TIMING: plain_ms=${plain%% *} hook_ms=${rt%% *}"
	case "$plain $rt" in
	*fail*) fail "a timed podman run failed" ;;
	*) pass "timed 10 podman runs each with and without the hook" ;;
	esac
}

setup
start_rt
overcommit
bad_input
untouched
stop_gives_back
sized
ends
restart_keeps
pools
hcbsd_down
timing
