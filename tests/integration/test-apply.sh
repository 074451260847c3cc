#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Apply / hcbsctl apply: many groups in one admitted, planned, journalled
# step; a file with an error applies nothing and names the line; a refusal
# names the group and applies nothing; deletes free room for the rest; a
# crash in the middle is undone at the next start, deletes included.
#
# usage: test-apply.sh BUILD_DIR

# shellcheck source=tests/integration/lib.sh disable=SC2119
. "$(dirname "$0")/lib.sh"
it_init "${1:-}"
it_start_bus
it_start_hcbsd_or_die

names() { ctl_json list | jpy '" ".join(g["name"] for g in d)'; }
kernel() { echo "$(cg_read "$1" cpu.rt_runtime_us)/$(cg_read "$1" cpu.rt_period_us)"; }

cat >"$T/robot.groups" <<'GROUPS'
# a robot's groups, parents first or not
[Group robot/control]
Runtime=2ms
Period=10ms

[Group robot]
Runtime=40ms
Period=100ms
Persistent=yes

[Group robot/vision]
Runtime=10ms
Period=100ms
GROUPS

expect_stdout '^mkdir +robot$' ctl apply "$T/robot.groups" --dry-run
expect_stdout 'write +robot/control cpu.rt_runtime_us=2000' ctl apply "$T/robot.groups" --dry-run
check_eq "a dry run writes nothing" "" "$(names)"
expect_stdout '^applied 3 group' ctl apply "$T/robot.groups"
check_eq "the three groups exist" "robot robot/control robot/vision" "$(names)"
check_eq "robot/control in the kernel" "2000/10000" "$(kernel robot/control)"
expect_stdout '^robot 40000 100000$' cat "$T/state/groups"
check_eq "the plan in JSON, from standard input" "True 1 write robot/control" \
        "$(ctl --json apply - --dry-run <<<$'[Group robot/control]\nRuntime=3ms\nPeriod=10ms' |
                jpy '" ".join([str(d["dry_run"]), str(d["groups"]), d["plan"][0]["op"], d["plan"][0]["group"]])')"

printf '[Group a]\nRuntime=1ms\nPeriod=10ms\n\n[Group b]\nRuntime=1mss\nPeriod=10ms\n' >"$T/bad.groups"
expect_refusal 2 "bad.groups:6: Runtime" ctl apply "$T/bad.groups"
printf '[Group a]\nRuntime=1ms\n' >"$T/short.groups"
expect_refusal 2 "short.groups:1: \\[Group a\\] has no Period=" ctl apply "$T/short.groups"
printf '[Manager]\nCapacity=99%%\n[Group a]\nRuntime=1ms\nPeriod=10ms\n' >"$T/manager.groups"
expect_refusal 2 "belong in hcbsd.conf" ctl apply "$T/manager.groups"
printf '[Group a]\nRuntime=1ms\nPeriod=10ms\n[Group a/b]\nDelete=yes\nRuntime=1ms\n' >"$T/mixed.groups"
expect_refusal 2 "Delete=yes takes no other key" ctl apply "$T/mixed.groups"
check_eq "a file with an error applies nothing" "robot robot/control robot/vision" "$(names)"

printf '[Group ok1]\nRuntime=10ms\nPeriod=100ms\n[Group ok2]\nRuntime=10ms\nPeriod=100ms\n[Group hog]\nRuntime=800ms\nPeriod=1s\n' \
        >"$T/over.groups"
expect_refusal 1 '^hcbsctl: hog needs' ctl apply "$T/over.groups"
check_eq "a refused batch applies nothing" "robot robot/control robot/vision" "$(names)"

# deletes go first: the room robot frees is there for big
printf '[Group robot/control]\nDelete=yes\n[Group robot/vision]\nDelete=yes\n[Group robot]\nDelete=yes\n[Group big]\nRuntime=850ms\nPeriod=1s\n' \
        >"$T/swap.groups"
expect_stdout '^applied 4 group' ctl apply "$T/swap.groups"
check_eq "robot is gone, big is there" "big" "$(names)"
check_not "robot's directory is gone" test -d "$CG/robot"
check_not "and robot is no longer persistent" grep -q '^robot ' "$T/state/groups"
check "delete big" ctl delete big

# a crash in the middle of a batch that deletes: the next start brings the deleted group back
check "create old 100ms 1s" ctl create old 100ms 1s
printf '[Group old]\nDelete=yes\n[Group new1]\nRuntime=100ms\nPeriod=1s\n[Group new2]\nRuntime=100ms\nPeriod=1s\n' \
        >"$T/crash.groups"
it_kill_hcbsd
HCBS_CRASH_AFTER_WRITES=3 it_start_hcbsd_or_die
it_run ctl apply "$T/crash.groups"
check_eq "the batch was interrupted (hcbsd unreachable)" 3 "$RC"
it_reap_hcbsd
check "the interrupted batch is in the journal" grep -q '^M ' "$T/run/plan"
it_start_hcbsd_or_die
check_eq "after the restart, the batch is undone: old is back, new1 and new2 are not" "old" "$(names)"
check_eq "old has its reservation again" "100000/1000000" "$(kernel old)"
it_check_consistent "after an interrupted batch"
expect_stdout '^applied 3 group' ctl apply "$T/crash.groups"
check_eq "and the batch can be applied after" "new1 new2" "$(names)"
it_check_consistent "after the batch"
it_finish
