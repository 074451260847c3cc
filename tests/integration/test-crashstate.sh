#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A crash or a bad state file never stops hcbsd from starting:
#  1. a crash after each write of a capacity plan that raises ancestors whose
#     names are not group names (units' cgroups are named "worker@a.service",
#     "foo\x2dbar.service"): the next start undoes the plan; so it does
#     after a crash in the exit's write that gives the capacity back;
#  2. SIGTERM in the middle of a start-up plan: the plan completes, then
#     hcbsd exits cleanly;
#  3. every state file corrupted in turn: hcbsd starts and keeps the file
#     aside as FILE.corrupt;
#  4. a persistent group that cannot be restored stays in the state file,
#     and comes back once it fits.
#
# usage: test-crashstate.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus

# hcbsd's root three levels below the scratch top: the capacity plan raises
# $CG, "w@x" and 'c\x2dd' top-down, then the root: four writes.
DEEP_REL='w@x/c\x2dd/root'
DEEP=$CG/$DEEP_REL
PLAN=$T/run/plan

deep_runtime() { cat "$DEEP/cpu.rt_runtime_us" 2>/dev/null; }

# --- 1: a crash after each write of the capacity plan ---------------------------------------

for n in 1 2 3; do
        it_remove_tree # each crash from the same state: nothing reserved yet
        if HCBS_CRASH_AFTER_WRITES=$n it_start_hcbsd --cgroup-root "$DEEP"; then
                it_fail "capacity crash $n: hcbsd aborts inside its start-up plan" "it became ready"
        fi
        it_reap_hcbsd
        check "capacity crash $n: the interrupted plan is on disk" test -s "$PLAN"
        check "capacity crash $n: its lines name the ancestors" grep -qF 'w@x/c\x2dd' "$PLAN"
        if it_start_hcbsd --cgroup-root "$DEEP"; then
                it_pass "capacity crash $n: hcbsd starts again"
        else
                it_fail "capacity crash $n: hcbsd starts again" "$(tail -n 15 "$T/hcbsd.log")"
                it_summary_line
                exit 1
        fi
        expect_stdout "interrupted plan .*: undoing 4 write" tail -n 8 "$T/hcbsd.log"
        check_not "capacity crash $n: the plan is forgotten (the file is empty while hcbsd runs)" test -s "$PLAN"
        check_not "capacity crash $n: nothing was set aside" test -e "$PLAN.corrupt"
        check_eq "capacity crash $n: the root holds Capacity=90%" 900000 "$(deep_runtime)"
        it_stop_hcbsd
        check_eq "capacity crash $n: a clean exit gives the capacity back" "0 0" \
                "$(deep_runtime) $(cg_read 'w@x' cpu.rt_runtime_us)"
done

# a runtime directory whose parents do not exist yet is created, so the plan is journaled
it_remove_tree
rm -rf "$T/fresh"
if HCBS_CRASH_AFTER_WRITES=1 it_start_hcbsd --cgroup-root "$DEEP" --runtime-dir "$T/fresh/a/run"; then
        it_fail "a new runtime directory: hcbsd aborts inside its start-up plan" "it became ready"
fi
it_reap_hcbsd
check "a new runtime directory and its parents are created, and the plan is journaled there" \
        test -s "$T/fresh/a/run/plan"
check_not "no plan went unprotected" grep -q 'applying it unprotected' "$T/hcbsd.log"
if it_start_hcbsd --cgroup-root "$DEEP" --runtime-dir "$T/fresh/a/run"; then
        expect_stdout "interrupted plan in .*/fresh/a/run/plan: undoing 4 write" tail -n 8 "$T/hcbsd.log"
        it_stop_hcbsd
else
        it_fail "a new runtime directory: hcbsd starts again" "$(tail -n 15 "$T/hcbsd.log")"
fi
rm -rf "$T/fresh"

# --- 1b: a crash in the exit's give-back ------------------------------------------------------

# The start-up plan's four writes, then SIGTERM: hcbsd gives back the capacity
# no group holds, and that write (its root's runtime) is the fifth, where it
# aborts. The journal it leaves is the recovery: the next start undoes the
# write (the root has its capacity again, as before the exit began), and a
# plain SIGTERM then gives the capacity back and leaves no journal.
it_remove_tree
if HCBS_CRASH_AFTER_WRITES=5 it_start_hcbsd --cgroup-root "$DEEP"; then
        kill -TERM "$HCBSD_PID"
        it_reap_hcbsd
        check_eq "a crash in the exit's give-back: hcbsd aborts in it" 134 "$IT_REAPED"
        check "the give-back's plan is journaled" test -s "$PLAN"
        if it_start_hcbsd --cgroup-root "$DEEP"; then
                expect_stdout "interrupted plan in .*/plan: undoing 1 write" tail -n 8 "$T/hcbsd.log"
                check_eq "the next start finds the capacity restored" 900000 "$(deep_runtime)"
                it_stop_hcbsd
                check_not "a plain SIGTERM then leaves no journal" test -e "$PLAN"
                expect_stdout 'Gave back the capacity no group holds' tail -n 6 "$T/hcbsd.log"
        else
                it_fail "a crash in the exit's give-back: hcbsd starts again" "$(tail -n 15 "$T/hcbsd.log")"
        fi
else
        it_fail "a crash in the exit's give-back: hcbsd starts (HCBS_CRASH_AFTER_WRITES=5)" "$(tail -n 15 "$T/hcbsd.log")"
fi

# --- 2: SIGTERM during start-up ---------------------------------------------------------------

it_remove_tree
# it exits as soon as its loop runs, maybe before it_start_hcbsd sees it ready
HCBS_CRASH_AFTER_WRITES=1:TERM it_start_hcbsd --cgroup-root "$DEEP" && it_reap_hcbsd
[ "${IT_REAPED:-none}" = 0 ] || expect_stdout '^=== hcbsd exited with 0 ' tail -n 1 "$T/hcbsd.log"
check_not "SIGTERM inside the start-up plan: no interrupted plan is left" test -e "$PLAN"
expect_stdout 'Signal 15: exiting' tail -n 5 "$T/hcbsd.log"
expect_stdout 'Ready: .* capacity 900000us/1000000us' tail -n 8 "$T/hcbsd.log"
it_remove_tree

# --- 3: every state file corrupted in turn -----------------------------------------------------

corrupt_start() { # LABEL FILE CONTENT: hcbsd starts and keeps FILE aside as FILE.corrupt
        local label=$1 file=$T/$2
        rm -f "$file.corrupt"
        printf '%b' "$3" >"$file"
        if it_start_hcbsd; then
                it_pass "$label: hcbsd starts"
        else
                it_fail "$label: hcbsd starts" "$(tail -n 10 "$T/hcbsd.log")"
                return 1
        fi
        check_eq "$label: the file is kept aside whole" "$(printf '%b' "$3" | od -c)" "$(od -c <"$file.corrupt")"
        check_not "$label: and not read again (the plan file is empty while hcbsd runs)" test -s "$file"
        check "$label: hcbsd serves" ctl status
        it_stop_hcbsd
}
corrupt_start "groups: truncated last line" state/groups '# hcbsd groups v1\naudio 500 5000\nvideo 10000 1000'
corrupt_start "groups: CRLF" state/groups '# hcbsd groups v1\r\naudio 500 5000\r\n'
corrupt_start "groups: a trailing blank line" state/groups '# hcbsd groups v1\naudio 500 5000\n\n'
corrupt_start "groups: empty" state/groups ''
corrupt_start "plan: not a plan" run/plan 'garbage\n'
corrupt_start "plan: truncated" run/plan '# hcbsd plan v1\nW 1 0 100000'
corrupt_start "plan: a cgroup outside hcbsd's reach" run/plan "# hcbsd plan v1\nW 1 0 1000000 $CG_REL-elsewhere\n"
corrupt_start "plan: a path that climbs out" run/plan "# hcbsd plan v1\nW 1 0 1000000 $CG_REL/../x\n"
corrupt_start "origins: not a line hcbsd writes" run/origins '# hcbsd origins v1\n1 2\n'


# --- 4: a persistent group that does not fit at restore is not forgotten -------------------

it_start_hcbsd_or_die
check "create big 500ms 1s --persistent" ctl create big 500ms 1s --persistent
check "create small 300ms 1s --persistent" ctl create small 300ms 1s --persistent
it_stop_hcbsd
reboot_tree() {
        it_evacuate
        it_remove_tree
}
reboot_tree
printf '[Manager]\nCapacity=40%%\n' >"$T/conf.d/50-small.conf"
it_start_hcbsd_or_die
check_eq "Capacity=40%: only small is restored" "small" "$(ctl_json list | jpy '" ".join(g["name"] for g in d)')"
expect_stdout '^big 500000 1000000$' cat "$T/state/groups"
expect_stdout '^small 300000 1000000$' cat "$T/state/groups"
check "create other 50ms 1s --persistent (a save while big waits)" ctl create other 50ms 1s --persistent
expect_stdout '^big 500000 1000000$' cat "$T/state/groups"
rm -f "$T/conf.d/50-small.conf"
check "reload with Capacity=90%" bcall Reload
check_eq "the reload restores big" "big other small" \
        "$(ctl_json list | jpy '" ".join(sorted(g["name"] for g in d))')"
it_stop_hcbsd
reboot_tree
it_start_hcbsd_or_die
check_eq "and a reboot keeps all three" "big other small" \
        "$(ctl_json list | jpy '" ".join(sorted(g["name"] for g in d))')"
it_check_consistent "after the restores"
it_finish
