#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Access control with Debian's real polkitd (issue 17): a rules.d rule grants
# org.hcbsd1.manage to the members of group hcbsops. hcbsmember (in hcbsops)
# may create a group and attach its own processes; hcbsother (not in it) is
# denied, and with --no-ask-password told so in one line, exit 1; neither
# moves a process of another user: not by attach, not by DeleteGroup's
# migrate_to (--migrate-to), not by CreateGroup's move_processes_to
# (--move-processes) over a group that holds root's process.

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

CG=${CG:-/sys/fs/cgroup}
GROUPS_DIR=$CG/hcbs.slice/hcbsd.service/groups
RULE=/etc/polkit-1/rules.d/50-hcbs-test.rules
OPS=hcbsops MEMBER=hcbsmember OTHER=hcbsother
PIDS=()

# as USER CMD...: CMD with USER's uid, gid and groups (no capabilities left)
as() {
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
}
# ctl_as USER ARGS...: hcbsctl --no-ask-password as USER; stderr in $ERR, status in $RC
ctl_as() {
	local u=$1
	shift
	as "$u" hcbsctl --no-ask-password "$@" >/dev/null 2>/tmp/hcbs-polkit.err
	RC=$?
	ERR=$(cat /tmp/hcbs-polkit.err)
}
# spawn_as USER: a sleeping process of USER (pid in $LAST), once it has USER's uid
spawn_as() {
	local uid
	uid=$(id -u "$1")
	if [ "$1" = root ]; then
		sleep 1000 >/dev/null 2>&1 &
	else
		# not through as(): a function in the background is a subshell of root's
		setpriv --reuid="$1" --regid="$(id -g "$1")" --init-groups -- sleep 1000 >/dev/null 2>&1 &
	fi
	LAST=$!
	PIDS+=("$LAST")
	# setpriv changes its uid after the fork, then execs sleep
	for _ in $(seq 50); do
		[ "$(stat -c %u "/proc/$LAST")" = "$uid" ] && [ "$(cat "/proc/$LAST/comm")" = sleep ] && return 0
		sleep 0.1
	done
	fail "process $LAST did not become $1's sleep"
}
cgroup_of() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }
policy_of() { chrt -p "$1" 2>/dev/null | sed -n 's/.*scheduling policy: //p' | head -1; }

# refused NAME PATTERN: the last ctl_as was refused with exit 1, one line matching PATTERN
refused() {
	local lines
	lines=$(printf '%s\n' "$ERR" | grep -c .)
	if [ "$RC" = 1 ] && [ "$lines" = 1 ] && printf '%s\n' "$ERR" | grep -q -- "$2"; then
		pass "$1 (exit 1: $ERR)"
	else
		fail "$1: expected exit 1 and one line with '$2', got exit $RC: $(printf '%s' "$ERR" | tr '\n' '|')"
	fi
}
allowed() {
	if [ "$RC" = 0 ]; then pass "$1"; else fail "$1: exit $RC: $ERR"; fi
}
# stays NAME PID CGROUP POLICY: PID is still in CGROUP with POLICY
stays() {
	local cg pol
	cg=$(cgroup_of "$2") pol=$(policy_of "$2")
	if [ "$cg" = "$3" ] && [ "$pol" = "$4" ]; then
		pass "$1 ($cg, $pol)"
	else
		fail "$1: now in $cg, $pol (was $3, $4)"
	fi
}

cleanup() {
	local p g
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for g in pk-root/sub pk-root pk-member pk-other; do hcbsctl delete "$g" >/dev/null 2>&1; done
	rm -f "$RULE" /tmp/hcbs-polkit.err
	userdel "$MEMBER" 2>/dev/null
	userdel "$OTHER" 2>/dev/null
	groupdel "$OPS" 2>/dev/null
}
trap cleanup EXIT

if [ ! -x /usr/lib/polkit-1/polkitd ]; then
	skip "polkit: Debian's polkitd is not in this rootfs (harness.sh ROOTFS_PACKAGES)"
	exit 0
fi
if ! groupadd "$OPS" || ! useradd -M -N -g users -G "$OPS" -s /usr/sbin/nologin "$MEMBER" ||
	! useradd -M -N -g users -s /usr/sbin/nologin "$OTHER"; then
	fail "cannot create the test users"
	exit 1
fi
grant_manage "$OPS" "$RULE" suite-polkit.sh

# --- the member
ctl_as "$MEMBER" create pk-member 1ms 100ms
allowed "$MEMBER (in $OPS) creates pk-member 1ms/100ms through polkit"
info "polkit: $(systemctl is-active polkit.service), polkitd $(dpkg-query -W -f='${Version}' polkitd 2>&1), owner of org.freedesktop.PolicyKit1: pid $(busctl --system status org.freedesktop.PolicyKit1 2>/dev/null | sed -n 's/^PID=//p')"
expect_runtime "pk-member has its runtime in the kernel" "$GROUPS_DIR/pk-member" 1000
spawn_as "$MEMBER"
MINE=$LAST
ORIGIN=$(cgroup_of "$MINE")
ctl_as "$MEMBER" attach pk-member "$MINE" --fifo 10
allowed "$MEMBER attaches its own process $MINE with --fifo 10"
stays "... which runs in pk-member, SCHED_FIFO" "$MINE" "${GROUPS_DIR#"$CG"}/pk-member" SCHED_FIFO

# --- the non-member
ctl_as "$OTHER" create pk-other 1ms 100ms
refused "$OTHER (not in $OPS) may not create a group" 'not authorized for org.hcbsd1.manage'
if [ -d "$GROUPS_DIR/pk-other" ]; then fail "pk-other exists after the refusal"; else pass "pk-other was not created"; fi
spawn_as "$OTHER"
THEIRS=$LAST
ctl_as "$OTHER" attach pk-member "$THEIRS"
refused "$OTHER may not attach even its own process" 'not authorized'
ctl_as "$OTHER" delete pk-member
refused "$OTHER may not delete $MEMBER's group" 'not authorized'

# --- nobody moves another user's process
spawn_as root
ROOTS=$LAST
ROOTS_CG=$(cgroup_of "$ROOTS")
ctl_as "$MEMBER" attach pk-member "$ROOTS"
refused "$MEMBER may not attach root's process" 'belongs to uid 0'
ctl_as "$MEMBER" attach pk-member "$THEIRS"
refused "$MEMBER may not attach $OTHER's process" "belongs to uid $(id -u "$OTHER")"
stays "root's process stays where it was" "$ROOTS" "$ROOTS_CG" SCHED_OTHER

# root_group: (again) pk-root, a leaf holding root's process at SCHED_FIFO 5,
# so that each attempt below starts from there even if one before got through
root_group() {
	hcbsctl delete pk-root/sub --migrate-to pk-root >/dev/null 2>&1
	[ -d "$GROUPS_DIR/pk-root" ] || hcbsctl create pk-root 1ms 100ms >/dev/null
	hcbsctl attach pk-root "$ROOTS" --fifo 5 >/dev/null && [ "$(cgroup_of "$ROOTS")" = "${GROUPS_DIR#"$CG"}/pk-root" ]
}
ROOTS_IN=${GROUPS_DIR#"$CG"}/pk-root
for how in "delete pk-root --migrate-to pk-member" "delete pk-root --migrate-to /" \
	"create pk-root/sub 1ms 100ms --move-processes"; do
	if ! root_group; then
		fail "root cannot put its process $ROOTS into pk-root"
		continue
	fi
	# shellcheck disable=SC2086 # $how is the words of the command
	ctl_as "$MEMBER" $how
	refused "$MEMBER may not $how: root's process would move" 'uid 0'
	stays "root's process stays in pk-root, SCHED_FIFO" "$ROOTS" "$ROOTS_IN" SCHED_FIFO
done

# --- the member's own process comes back
ctl_as "$MEMBER" detach "$MINE"
allowed "$MEMBER detaches its own process"
stays "... back where it was, SCHED_OTHER" "$MINE" "$ORIGIN" SCHED_OTHER
ctl_as "$MEMBER" delete pk-member
allowed "$MEMBER deletes pk-member"
