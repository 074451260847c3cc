# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2119,SC2120
# (SC2034: variables set here are read by the test scripts)
#
# Shared by tests/integration/test-*.sh: a private dbus-daemon, hcbsd on a
# scratch cgroup-v1 tree, and a tiny assertion framework.
#
# Usage in a test script:
#   . "$(dirname "$0")/lib.sh"
#   it_init "$1"          # BUILD_DIR; skips (exit 77) without root or RT cgroups
#   it_start_bus
#   it_start_hcbsd
#   check "status works" ctl status
#   ...
#   it_finish             # prints "N passed, M failed[, K skipped]", exits 0/1
#
# Cleanup always runs (trap EXIT): hcbsd and the test's own processes are
# stopped, processes left in the scratch tree are moved to the cpu root, and
# the tree is removed bottom-up, each group's cpu.rt_runtime_us zeroed before
# its rmdir (a removed group's bandwidth otherwise stays counted until the
# kernel frees it). Only the scratch tree this script named is ever touched.
#
# Environment:
#   HCBS_VALGRIND=1   run hcbsd under valgrind; its errors fail the test
#   HCBS_IT_VERBOSE=1 print every passing check, not only failures
#   HCBS_IT_KEEP=1    keep the temporary directory (logs) after the run
#   HCBS_IT_HCBSD, HCBS_IT_HCBSCTL  binaries to use instead of BUILD_DIR's
#   IT_HCBSD_NOTIFY=1 (set by a suite) start hcbsd without --no-notify

set -u
set -o pipefail

IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IT_SRC=$(cd "$IT_DIR/../.." && pwd)
CPU_MNT=/sys/fs/cgroup/cpu

IT_PASSED=0
IT_FAILED=0
IT_SKIPPED=0
IT_PIDS=()
IT_HCBSD_WRAP=() # a command it_start_hcbsd runs hcbsd (or its valgrind) under, e.g. unshare
HCBSD_PID=
BUS_PID=
T=
CG=
CG_REL=
ADDR=
OUT=
ERR=
RC=0

# ---------------------------------------------------------------------------
# reporting

it_log() {
        printf '%s\n' "$*"
}

it_pass() {
        IT_PASSED=$((IT_PASSED + 1))
        [ "${HCBS_IT_VERBOSE:-0}" = 1 ] && it_log "ok - $1"
        return 0
}

# it_fail NAME DETAIL...
it_fail() {
        local name=$1
        shift
        IT_FAILED=$((IT_FAILED + 1))
        it_log "FAIL - $name"
        local line
        for line in "$@"; do
                printf '    %s\n' "$line"
        done
        return 1
}

# skip NAME REASON: a check that could not run here (not a pass).
skip() {
        IT_SKIPPED=$((IT_SKIPPED + 1))
        it_log "SKIP: $1: $2"
}

it_summary_line() {
        local line="$IT_PASSED passed, $IT_FAILED failed"
        [ "$IT_SKIPPED" -gt 0 ] && line="$line, $IT_SKIPPED skipped"
        printf '%s\n' "$line"
}

# The whole script cannot run here: say why, loudly, and exit 77.
it_skip_all() {
        it_log "SKIP: $(basename "$0"): $1"
        IT_SKIPPED=$((IT_SKIPPED + 1))
        it_summary_line
        exit 77
}

it_finish() {
        it_stop_hcbsd
        it_summary_line
        [ "$IT_FAILED" -eq 0 ]
        exit $?
}

# ---------------------------------------------------------------------------
# running commands

# it_run CMD...: runs CMD, stdout in $OUT, stderr in $ERR, exit code in $RC.
it_run() {
        "$@" >"$T/out" 2>"$T/err"
        RC=$?
        OUT=$(cat "$T/out")
        ERR=$(cat "$T/err")
        return 0
}

it_cmdline() {
        local s
        s=$(printf '%q ' "$@")
        s=${s% }
        s=${s//"$HCBSCTL_Q"/hcbsctl}
        [ "${#s}" -gt 200 ] && s="${s:0:200}...(${#s} chars)"
        printf '%s' "$s"
}

it_details() {
        printf 'command: %s\n' "$(it_cmdline "$@")"
        printf 'exit:    %s\n' "$RC"
        printf 'stdout:  %s\n' "$(printf '%s' "$OUT" | head -c 600 | tr '\n' '|')"
        printf 'stderr:  %s\n' "$(printf '%s' "$ERR" | head -c 600 | tr '\n' '|')"
}

# check NAME CMD...: passes if CMD exits 0.
check() {
        local name=$1
        shift
        it_run "$@"
        if [ "$RC" -eq 0 ]; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# check_not NAME CMD...: passes if CMD exits non-zero.
check_not() {
        local name=$1
        shift
        it_run "$@"
        if [ "$RC" -ne 0 ]; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "expected a non-zero exit" "${d[@]}"
        fi
}

# expect_exit CODE CMD...
expect_exit() {
        local code=$1
        shift
        it_run "$@"
        local name
        name="$(it_cmdline "$@") exits $code"
        if [ "$RC" -eq "$code" ]; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# expect_stderr REGEX CMD...: passes if stderr matches REGEX (grep -E).
expect_stderr() {
        local re=$1
        shift
        it_run "$@"
        local name
        name="$(it_cmdline "$@") prints /$re/ on stderr"
        if grep -Eq -- "$re" <<<"$ERR"; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# expect_stdout REGEX CMD...: passes if CMD exits 0 and stdout matches REGEX.
expect_stdout() {
        local re=$1
        shift
        it_run "$@"
        local name
        name="$(it_cmdline "$@") prints /$re/"
        if [ "$RC" -eq 0 ] && grep -Eq -- "$re" <<<"$OUT"; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# expect_refusal CODE REGEX CMD...: exit CODE, and stderr is exactly one
# line "hcbsctl: ..." matching REGEX (a refusal explains itself once).
expect_refusal() {
        local code=$1 re=$2
        shift 2
        it_run "$@"
        local name lines
        name="$(it_cmdline "$@") is refused with $code /$re/"
        lines=$(printf '%s' "$ERR" | grep -c '')
        if [ "$RC" -eq "$code" ] && [ "$lines" -eq 1 ] &&
                grep -Eq -- '^hcbsctl: ' <<<"$ERR" &&
                grep -Eq -- "$re" <<<"$ERR"; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "stderr lines: $lines" "${d[@]}"
        fi
}

# expect_json CMD...: passes if CMD exits 0 and prints valid JSON.
expect_json() {
        it_run "$@"
        local name
        name="$(it_cmdline "$@") prints valid JSON"
        if [ "$RC" -eq 0 ] && printf '%s' "$OUT" | python3 -m json.tool >/dev/null 2>&1; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
        if [ "$2" = "$3" ]; then
                it_pass "$1"
        else
                it_fail "$1" "expected: $2" "got:      $3"
        fi
}

# check_match NAME REGEX TEXT
check_match() {
        if grep -Eq -- "$2" <<<"$3"; then
                it_pass "$1"
        else
                it_fail "$1" "expected /$2/ in:" "$(printf '%s' "$3" | head -c 800)"
        fi
}

# jpy EXPR: evaluates a Python expression over the JSON on stdin (bound to d).
jpy() {
        python3 -c '
import json, sys
d = json.load(sys.stdin)
r = eval(sys.argv[1])
print(str(r).lower() if isinstance(r, bool) else r)' "$1"
}

# wait_for TENTHS CMD...: polls CMD every 0.1 s until it succeeds.
wait_for() {
        local n=$1
        shift
        while [ "$n" -gt 0 ]; do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
                n=$((n - 1))
        done
        return 1
}

# assert NAME CONDITION-COMMAND...: like check, but for test-side conditions
# (no output capture of interest).
assert() {
        check "$@"
}

# ---------------------------------------------------------------------------
# hcbsctl, busctl, gdbus on the private bus

ctl() {
        "$HCBSCTL" --bus-address "$ADDR" --no-ask-password "$@"
}

ctl_json() {
        "$HCBSCTL" --bus-address "$ADDR" --no-ask-password --json "$@"
}

# bcall METHOD SIGNATURE ARGS...: Manager method through busctl.
bcall() {
        local method=$1
        shift
        busctl --address="$ADDR" call org.hcbsd1 /org/hcbsd1 org.hcbsd1.Manager "$method" "$@"
}

# gcall METHOD ARGS...: Manager method through gdbus (prints D-Bus error names).
gcall() {
        local method=$1
        shift
        timeout 30 gdbus call --address "$ADDR" --dest org.hcbsd1 --object-path /org/hcbsd1 \
                --method "org.hcbsd1.Manager.$method" "$@"
}

# expect_bus_error ERROR METHOD ARGS...: the call fails with org.hcbsd1.Error.ERROR
# (ERROR may be an alternation: "InvalidArgument|NoSuchProcess").
expect_bus_error() {
        local error=$1 method=$2
        shift 2
        local args="$*"
        [ "${#args}" -gt 120 ] && args="${args:0:120}...(${#args} chars)"
        local name="$method($args) fails with org.hcbsd1.Error.$error"
        if ! command -v gdbus >/dev/null; then
                skip "$name" "gdbus is not installed (busctl does not print error names)"
                return 0
        fi
        it_run gcall "$method" "$@"
        if [ "$RC" -ne 0 ] && grep -Eq -- "org\.hcbsd1\.Error\.($error)\b" <<<"$ERR"; then
                it_pass "$name"
        else
                local d
                mapfile -t d < <(it_details gcall "$method" "$@")
                it_fail "$name" "${d[@]}"
        fi
}

# The daemon still answers (after something that might have hurt it).
expect_alive() {
        local what=$1
        if [ -n "$HCBSD_PID" ] && kill -0 "$HCBSD_PID" 2>/dev/null && ctl status >/dev/null 2>&1; then
                it_pass "hcbsd still serves after $what"
        else
                it_fail "hcbsd still serves after $what" "hcbsd log tail:" "$(tail -n 5 "$T/hcbsd.log" 2>/dev/null)"
        fi
}

# ---------------------------------------------------------------------------
# setup

it_init() {
        local build=${1:-}
        [ -n "$build" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
        BUILD=$(cd "$build" 2>/dev/null && pwd) || { echo "$0: no build directory '$build'" >&2; exit 2; }
        HCBSD=${HCBS_IT_HCBSD:-$BUILD/daemon/hcbsd}
        HCBSCTL=${HCBS_IT_HCBSCTL:-$BUILD/cli/hcbsctl}
        HCBSCTL_Q=$(printf '%q' "$HCBSCTL")

        [ "$(id -u)" -eq 0 ] || it_skip_all "needs root (cgroup writes, SCHED_FIFO, setpriv)"
        [ -e "$CPU_MNT/cpu.rt_runtime_us" ] ||
                it_skip_all "$CPU_MNT/cpu.rt_runtime_us is absent (no cgroup-v1 RT_GROUP_SCHED here)"
        [ -x "$HCBSD" ] || it_skip_all "$HCBSD is not built"
        [ -x "$HCBSCTL" ] || it_skip_all "$HCBSCTL is not built"
        command -v dbus-daemon >/dev/null || it_skip_all "dbus-daemon is not installed"
        command -v busctl >/dev/null || it_skip_all "busctl is not installed"

        it_reap_stale
        T=$(mktemp -d /tmp/hcbs-it.XXXXXX) || exit 2
        chmod 755 "$T" # the bus socket must be reachable for the unprivileged checks
        mkdir -p "$T/conf.d" "$T/state"
        CG_REL=hcbs-it-$$-$(basename "$0" .sh)
        CG=$CPU_MNT/$CG_REL
        if [ -e "$CG" ]; then
                echo "$0: $CG exists already; refusing to touch a cgroup this run did not create" >&2
                rm -rf "$T"
                exit 2
        fi
        trap it_cleanup EXIT
        trap 'exit 130' INT TERM
        it_write_conf
}

# it_reap_stale: removes the scratch trees of runs that died without their
# cleanup (SIGKILL, a lost machine session): hcbs-it-PID-SUITE whose PID is
# gone, that holds no process, and where nothing was created or removed for
# 5 minutes (a tree seen from another PID namespace is still in use). Such a
# tree keeps its share of the root's RT budget (90%: every later suite then
# finds 0% free). Only trees of this naming, which only this file makes.
it_reap_stale() {
        local dir pid
        for dir in "$CPU_MNT"/hcbs-it-[0-9]*-*; do
                [ -d "$dir" ] || continue
                pid=${dir#"$CPU_MNT"/hcbs-it-}
                pid=${pid%%-*}
                kill -0 "$pid" 2>/dev/null && continue
                [ -z "$(find "$dir" -name tasks -size +0 2>/dev/null)" ] || continue
                [ -z "$(find "$dir" -type d -mmin -5 2>/dev/null)" ] || continue
                echo "$0: removing $dir, the scratch tree of a run that is gone (pid $pid)" >&2
                find "$dir" -depth -type d 2>/dev/null | while IFS= read -r d; do
                        echo 0 >"$d/cpu.rt_runtime_us" 2>/dev/null
                        rmdir "$d" 2>/dev/null
                done
                [ -d "$dir" ] && echo "$0: could not remove $dir" >&2
        done
        return 0
}

# it_write_conf [EXTRA-LINES]: the [Manager] section every test starts from.
it_write_conf() {
        {
                echo "[Manager]"
                echo "Capacity=90%"
                echo "MinPeriod=100us"
                echo "MaxPeriod=4s"
                [ $# -gt 0 ] && printf '%s\n' "$@"
        } >"$T/hcbsd.conf"
}

it_start_bus() {
        local out
        out=$(dbus-daemon --config-file="$IT_DIR/bus.conf" --address="unix:path=$T/bus" \
                --fork --print-pid 2>"$T/bus.log") || {
                echo "$0: cannot start dbus-daemon: $(cat "$T/bus.log")" >&2
                exit 2
        }
        BUS_PID=$(printf '%s' "$out" | head -n 1)
        ADDR="unix:path=$T/bus"
        export DBUS_SYSTEM_BUS_ADDRESS=$ADDR
}

it_hcbsd_ready() {
        busctl --address="$ADDR" status org.hcbsd1 >/dev/null 2>&1
}

# it_start_hcbsd [ARGS...]: starts hcbsd and waits until org.hcbsd1 is owned.
# Returns non-zero (without counting a failure) if it exits or never gets ready.
it_start_hcbsd() {
        local notify=--no-notify
        [ "${IT_HCBSD_NOTIFY:-0}" = 1 ] && notify=
        local -a cmd=("$HCBSD" --bus-address "$ADDR" --cgroup-root "$CG" --interface "${HCBS_INTERFACE:-auto}"
                --config "$T/hcbsd.conf" --config-dir "$T/conf.d" --state-dir "$T/state" --runtime-dir "$T/run"
                ${notify:+"$notify"} "$@")
        local tries=100
        [ -n "${IT_READY_POLL:-}" ] && tries=5000 # a finer poll (bench-daemon.sh times start-up)
        if [ "${HCBS_VALGRIND:-0}" = 1 ]; then
                # Loading the BPF collector (libbpf reading the kernel's BTF)
                # takes seconds under valgrind at every start: only the suites
                # that set IT_VALGRIND_BPF=1 (test-stats) load it there; ASan
                # runs load it in every suite.
                cmd=(valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99
                        --suppressions="$IT_DIR/valgrind.supp"
                        --log-file="$T/valgrind.%p.log" "${cmd[@]}")
                [ "${IT_VALGRIND_BPF:-0}" = 1 ] || [ -n "${HCBS_STATS_BPF+set}" ] ||
                        cmd=(env HCBS_STATS_BPF=0 "${cmd[@]}")
                tries=600
        fi
        cmd=("${IT_HCBSD_WRAP[@]}" "${cmd[@]}")
        echo "=== $(date +%T) start: ${cmd[*]}" >>"$T/hcbsd.log"
        "${cmd[@]}" >>"$T/hcbsd.log" 2>&1 &
        HCBSD_PID=$!
        while [ "$tries" -gt 0 ]; do
                it_hcbsd_ready && return 0
                if ! kill -0 "$HCBSD_PID" 2>/dev/null; then
                        { wait "$HCBSD_PID"; } 2>/dev/null
                        echo "=== hcbsd exited with $? before it was ready" >>"$T/hcbsd.log"
                        HCBSD_PID=
                        return 1
                fi
                sleep "${IT_READY_POLL:-0.1}"
                tries=$((tries - 1))
        done
        return 1
}

# Starts hcbsd and counts it as a check; the script ends if it cannot.
it_start_hcbsd_or_die() {
        if it_start_hcbsd "$@"; then
                it_pass "hcbsd starts and owns org.hcbsd1"
        else
                it_fail "hcbsd starts and owns org.hcbsd1" "hcbsd log tail:" "$(tail -n 20 "$T/hcbsd.log")"
                it_summary_line
                exit 1
        fi
}

# Checks the valgrind logs of a finished hcbsd (when HCBS_VALGRIND=1).
it_check_valgrind() {
        local pid=$1 rc=$2 log="$T/valgrind.$1.log"
        [ "${HCBS_VALGRIND:-0}" = 1 ] || return 0
        if [ "$rc" -eq 99 ] || { [ -s "$log" ] && grep -Eq 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$log"; }; then
                it_fail "valgrind reports no errors in hcbsd ($pid)" "$(head -n 40 "$log" 2>/dev/null)"
        else
                it_pass "valgrind reports no errors in hcbsd ($pid)"
        fi
}

# it_stop_hcbsd: SIGTERM, wait (SIGKILL after 10 s, 60 s under valgrind); a
# clean exit is a check.
it_stop_hcbsd() {
        [ -n "$HCBSD_PID" ] || return 0
        local pid=$HCBSD_PID tries=100 rc
        [ "${HCBS_VALGRIND:-0}" = 1 ] && tries=600
        HCBSD_PID=
        kill -TERM "$pid" 2>/dev/null
        while kill -0 "$pid" 2>/dev/null && [ "$tries" -gt 0 ]; do
                sleep 0.1
                tries=$((tries - 1))
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
        { wait "$pid"; } 2>/dev/null
        rc=$?
        if [ "$rc" -eq 0 ]; then
                it_pass "hcbsd exits cleanly on SIGTERM"
        else
                it_fail "hcbsd exits cleanly on SIGTERM" "exit status $rc" "$(tail -n 10 "$T/hcbsd.log")"
        fi
        it_check_valgrind "$pid" "$rc"
}

# it_kill_hcbsd: SIGKILL (a crash), no checks.
it_kill_hcbsd() {
        [ -n "$HCBSD_PID" ] || return 0
        { kill -KILL "$HCBSD_PID" && wait "$HCBSD_PID"; } 2>/dev/null
        HCBSD_PID=
}

# it_reap_hcbsd: waits (max 10 s) for an hcbsd that is expected to die (abort);
# sets IT_REAPED to its exit status, or to "alive" (then SIGKILLs it).
it_reap_hcbsd() {
        IT_REAPED=none
        [ -n "$HCBSD_PID" ] || return 0
        local pid=$HCBSD_PID tries=100
        [ "${HCBS_VALGRIND:-0}" = 1 ] && tries=600
        HCBSD_PID=
        while kill -0 "$pid" 2>/dev/null && [ "$tries" -gt 0 ]; do
                sleep 0.1
                tries=$((tries - 1))
        done
        if kill -0 "$pid" 2>/dev/null; then
                { kill -KILL "$pid" && wait "$pid"; } 2>/dev/null
                IT_REAPED=alive
        else
                { wait "$pid"; } 2>/dev/null
                IT_REAPED=$?
        fi
}

# it_spawn CMD...: starts a test process in the background; prints its pid.
# Such processes are killed at cleanup. Use as: it_spawn sleep 1000; PID=$IT_LAST
it_spawn() {
        "$@" </dev/null >/dev/null 2>&1 &
        IT_LAST=$!
        IT_PIDS+=("$IT_LAST")
}

# ---------------------------------------------------------------------------
# the kernel's view

# cg_read GROUP FILE: a file of a group of the scratch tree ("" = its root).
cg_read() {
        local dir=$CG
        [ -n "$1" ] && dir=$CG/$1
        cat "$dir/$2" 2>/dev/null
}

# proc_cpu_cgroup PID: the process's cgroup in the v1 cpu hierarchy.
proc_cpu_cgroup() {
        awk -F: '{ n = split($2, c, ","); for (i = 1; i <= n; i++) if (c[i] == "cpu") { sub(/^[^:]*:[^:]*:/, ""); print; exit } }' \
                "/proc/$1/cgroup" 2>/dev/null
}

# ---------------------------------------------------------------------------
# cleanup

# Moves every process of the scratch tree to the cpu root (SCHED_OTHER first).
it_evacuate() {
        local procs pid
        [ -d "$CG" ] || return 0
        while IFS= read -r procs; do
                while IFS= read -r pid; do
                        [ -n "$pid" ] || continue
                        chrt -o -a -p 0 "$pid" >/dev/null 2>&1
                        echo "$pid" >"$CPU_MNT/cgroup.procs" 2>/dev/null
                done <"$procs"
        done < <(find "$CG" -name cgroup.procs 2>/dev/null)
}

# Removes the scratch tree bottom-up, zeroing each group's runtime first.
it_remove_tree() {
        local dir tries
        [ -d "$CG" ] || return 0
        for tries in 1 2 3 4 5; do
                while IFS= read -r dir; do
                        echo 0 >"$dir/cpu.rt_runtime_us" 2>/dev/null
                        rmdir "$dir" 2>/dev/null
                done < <(find "$CG" -depth -type d 2>/dev/null)
                [ -d "$CG" ] || return 0
                it_evacuate
                sleep 0.2
        done
        echo "$0: could not remove $CG" >&2
}

it_cleanup() {
        local rc=$? pid
        trap - EXIT
        if [ -n "$HCBSD_PID" ]; then
                { kill -KILL "$HCBSD_PID" && wait "$HCBSD_PID"; } 2>/dev/null
        fi
        for pid in "${IT_PIDS[@]}"; do
                kill -KILL "$pid" 2>/dev/null
        done
        for pid in "${IT_PIDS[@]}"; do
                { wait "$pid"; } 2>/dev/null
        done
        it_evacuate
        it_remove_tree
        [ -n "$BUS_PID" ] && kill -TERM "$BUS_PID" 2>/dev/null
        if [ "${HCBS_IT_KEEP:-0}" = 1 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; then
                [ -n "$T" ] && echo "(logs kept in $T)" >&2
        else
                [ -n "$T" ] && rm -rf "$T"
        fi
        exit "$rc"
}

# it_check_consistent LABEL: hcbsd's list equals the kernel files, nothing
# stray below the root, nothing over-committed (consistency.py).
it_check_consistent() {
        local label=$1
        if ! ctl_json status >"$T/status.json" 2>"$T/err" || ! ctl_json list >"$T/list.json" 2>>"$T/err"; then
                it_fail "$label: state is consistent" "hcbsctl status/list failed: $(cat "$T/err")"
                return 1
        fi
        local report
        if report=$(python3 "$IT_DIR/consistency.py" "$T/status.json" "$T/list.json" "$CG" 2>&1); then
                it_pass "$label: state is consistent"
        else
                local d
                mapfile -t d <<<"$report"
                it_fail "$label: state is consistent" "${d[@]}"
        fi
}

# it_snapshot: "name runtime period" of every group, sorted.
it_snapshot() {
        ctl_json list | jpy '"\n".join(sorted("%s %d %d" % (g["name"], g["runtime_us"], g["period_us"]) for g in d))'
}
