#!/usr/bin/env bash
# make demo: a private bus, hcbsd on this machine's kernel, and a short
# scripted session through hcbsctl (tests/demo/session.sh). Everything it
# creates it removes.
#
# make demo KERNEL=hcbs (or hcbs6): the project's HCBS kernel under qemu
# instead (tests/kernel/qemu/harness.sh demo, built and cached on first
# use), where the session adds what only HCBS shows. A machine whose kernel
# has no RT group interface hcbsd can use here (hcbsd --check-kernel) goes
# there by itself, and says so first. HCBS_KERNEL_ROOT=DIR makes that check
# read another machine's files (tests/fixtures/kernel/), to try the path;
# HCBS_DEMO_HARNESS replaces the harness (tests/unit/test-demo.sh).
set -euo pipefail

BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HCBSD=$BUILD/daemon/hcbsd
HCBSCTL=$BUILD/cli/hcbsctl
MOUNT=/sys/fs/cgroup/cpu
TMP= BUS_PID= DAEMON_PID=

if [ "$(id -u)" != 0 ]; then
        echo "make demo: run as root (hcbsd creates cgroups and moves processes; qemu's guest is built as root)" >&2
        exit 1
fi

# under_qemu KERNEL: the session on the project's kernel, in a guest
under_qemu() {
        case $1 in
        hcbs | hcbs6) ;;
        *)
                echo "make demo: KERNEL=$1: the HCBS session needs KERNEL=hcbs (RFC v1) or KERNEL=hcbs6" >&2
                exit 2
                ;;
        esac
        echo "make demo: booting the HCBS kernel (KERNEL=$1) under qemu; the first run builds it"
        unset HCBS_KERNEL_ROOT
        exec env KERNEL="$1" HCBS_GUEST_BINS="$HCBSD $HCBSCTL $BUILD/tests/tools/hcbs-rtload" \
                "${HCBS_DEMO_HARNESS:-$HERE/../kernel/qemu/harness.sh}" demo
}

[ -n "${DEMO_KERNEL:-}" ] && under_qemu "$DEMO_KERNEL"
set +e
CHECK=$("$HCBSD" --check-kernel --cgroup-root="$MOUNT/hcbs-demo-$$" --config=/dev/null --config-dir=/nonexistent 2>&1)
CHECK_RC=$?
set -e
if [ "$CHECK_RC" != 0 ] || ! grep -q '^Mode: *mainline-v1$' <<<"$CHECK"; then
        cat <<MSG
================================================================================
 make demo: this machine's kernel has no RT group interface the host session
 can use (it needs mainline RT group scheduling on the cgroup-v1 cpu
 hierarchy), so the demo runs on the project's HCBS kernel under qemu instead.
 hcbsd --check-kernel says:
$(sed 's/^/   /' <<<"$CHECK")
================================================================================
MSG
        under_qemu hcbs
fi

TMP=$(mktemp -d /tmp/hcbs-demo.XXXXXX)
ROOT=$MOUNT/hcbs-demo-$$

cleanup() {
        set +e
        demo_stop
        [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
        [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
        if [ -d "$ROOT" ]; then
                # deepest first; each group drops its runtime so the bandwidth returns at once
                find "$ROOT" -depth -type d | while read -r d; do
                        while read -r p; do echo "$p" > "$MOUNT/cgroup.procs"; done < "$d/cgroup.procs" 2>/dev/null
                        echo 0 > "$d/cpu.rt_runtime_us" 2>/dev/null
                        rmdir "$d"
                done
        fi
        rm -rf "$TMP"
}
# shellcheck source=tests/demo/session.sh
. "$HERE/session.sh"
trap cleanup EXIT

cat <<BANNER
================================================================================
 hcbsd demo on this machine's kernel: legacy-v1 (mainline RT_GROUP_SCHED on the
 cgroup-v1 cpu controller). The kernel applies the same admission rules as HCBS
 and throttles RT groups, but with RT throttling, not per-CPU deadline servers:
 the numbers are checked for real, the guarantee is not HCBS's.
 Scratch subtree: $ROOT (removed at the end)
================================================================================
BANNER

cat > "$TMP/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$TMP/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
</busconfig>
CONF
dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile 2> "$TMP/bus.log" &
BUS_PID=$!
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/bus
for _ in $(seq 50); do [ -S "$TMP/bus" ] && break; sleep 0.1; done

cat > "$TMP/hcbsd.conf" <<CONF
[Manager]
Capacity=50%

# declared in a file: created at start
[Group audio]
Runtime=500us
Period=5ms
CONF
"$HCBSD" --cgroup-root="$ROOT" --config="$TMP/hcbsd.conf" --config-dir="$TMP/conf.d" \
        --state-dir="$TMP/state" --runtime-dir="$TMP/run" --no-notify 2> "$TMP/hcbsd.log" &
DAEMON_PID=$!
for _ in $(seq 100); do "$HCBSCTL" status >/dev/null 2>&1 && break; sleep 0.1; done

demo_basics

bold "hcbsd's log"
cat "$TMP/hcbsd.log"
