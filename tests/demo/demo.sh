#!/usr/bin/env bash
# make demo: a private bus, hcbsd on this machine's kernel, and a short
# scripted session through hcbsctl. Everything it creates it removes.
set -euo pipefail

BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
HCBSD=$BUILD/daemon/hcbsd
HCBSCTL=$BUILD/cli/hcbsctl
TMP=$(mktemp -d /tmp/hcbs-demo.XXXXXX)
MOUNT=/sys/fs/cgroup/cpu
ROOT=$MOUNT/hcbs-demo-$$
BUS_PID= DAEMON_PID= SLEEP_PID=

bold() { printf '\n\033[1m%s\033[0m\n' "$*"; }
say() { printf '\033[1;34m$ %s\033[0m\n' "$*"; }
run() { say "hcbsctl $*"; "$HCBSCTL" "$@" || echo "(exit status $?)"; }

cleanup() {
        set +e
        [ -n "$SLEEP_PID" ] && kill "$SLEEP_PID" 2>/dev/null
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
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
        echo "make demo: run as root (hcbsd creates cgroups and moves processes)" >&2
        exit 1
fi
if [ ! -e "$MOUNT/cpu.rt_runtime_us" ]; then
        cat >&2 <<MSG
make demo: this kernel has no RT group scheduling at $MOUNT (no cpu.rt_runtime_us),
so there is nothing for hcbsd to manage here. On an HCBS kernel, run hcbsd
directly; under qemu, 'make test-kernel' boots one.
MSG
        exit 1
fi

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
Capacity=90%

# declared in a file: created at start
[Group audio]
Runtime=500us
Period=5ms
CONF
"$HCBSD" --cgroup-root="$ROOT" --config="$TMP/hcbsd.conf" --config-dir="$TMP/conf.d" \
        --state-dir="$TMP/state" --runtime-dir="$TMP/run" --no-notify 2> "$TMP/hcbsd.log" &
DAEMON_PID=$!
for _ in $(seq 100); do "$HCBSCTL" status >/dev/null 2>&1 && break; sleep 0.1; done

bold "1. What hcbsd manages"
run status

bold "2. A parent with a child, and the tree with free bandwidth"
run create media 20ms 100ms
run create media/video 16ms 100ms
run tree

bold "3. A real process, made SCHED_FIFO inside media/video"
sleep 600 &
SLEEP_PID=$!
run attach media/video "$SLEEP_PID" --fifo 10
say "grep cpu /proc/$SLEEP_PID/cgroup; chrt -p $SLEEP_PID"
grep ':cpu' "/proc/$SLEEP_PID/cgroup"
chrt -p "$SLEEP_PID"

bold "4. An over-commit, refused before the kernel sees it, with its reason"
run create media/audio 10ms 100ms
run check media/audio 4ms 100ms
say "... and with --grow-parents, media grows first (top-down)"
run create media/audio 10ms 100ms --grow-parents
run tree

bold "5. Clean up: detach, delete"
run detach "$SLEEP_PID"
say "chrt -p $SLEEP_PID"
chrt -p "$SLEEP_PID"
run delete media/audio
run delete media/video
run delete media
run list

bold "hcbsd's log"
cat "$TMP/hcbsd.log"
