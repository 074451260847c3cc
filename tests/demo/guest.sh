#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make demo KERNEL=hcbs, inside the qemu guest (busybox sh, run by /init when
# the kernel command line has hcbs.run=demo; tests/kernel/qemu/harness.sh
# demo builds the guest): mounts what the session needs, starts the system
# bus and hcbsd on /sys/fs/cgroup/hcbs-demo, runs tests/demo/session.sh's
# demo_basics and demo_hcbs, and ends with "HCBS-DEMO-RESULT: ok" (or
# "failed: WHY"), which the harness reads.
export PATH=/guest/bin:/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin
CG=/sys/fs/cgroup
KERNEL=hcbs
for _a in $(cat /proc/cmdline); do
        case $_a in hcbs.kernel=*) KERNEL=${_a#hcbs.kernel=} ;; esac
done

result() {
        echo "HCBS-DEMO-RESULT: $*"
        exit 0
}

for _m in "sysfs /sys" "devtmpfs /dev" "tmpfs /run" "tmpfs /tmp" "cgroup2 $CG"; do
        set -- $_m
        grep -q " $2 $1 " /proc/mounts || { mkdir -p "$2" && mount -t "$1" "$1" "$2"; } ||
                result "failed: cannot mount $1 on $2"
done
echo +cpu > $CG/cgroup.subtree_control 2>/dev/null
mkdir -p /run/dbus
dbus-daemon --system --fork --nopidfile || result "failed: no system bus"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket

cat <<BANNER
================================================================================
 hcbsd demo on the project's HCBS kernel ($(uname -r), KERNEL=$KERNEL) under
 qemu: each group's runtime is a hard reservation, served on every CPU by a
 SCHED_DEADLINE server, so it holds whatever else runs real-time.
 hcbsd's subtree: $CG/hcbs-demo; the guest ends when the session does.
================================================================================
BANNER

printf '[Manager]\nCapacity=50%%\n\n# declared in a file: created at start\n[Group audio]\nRuntime=500us\nPeriod=5ms\n' \
        > /tmp/hcbsd.conf
hcbsd --cgroup-root=$CG/hcbs-demo --config=/tmp/hcbsd.conf --config-dir=/tmp/none --state-dir=/tmp/state \
        --runtime-dir=/tmp/run --no-notify 2> /tmp/hcbsd.log &
DAEMON=$!
for _i in $(seq 100); do
        hcbsctl status >/dev/null 2>&1 && break
        sleep 0.1
done
hcbsctl status >/dev/null 2>&1 || { cat /tmp/hcbsd.log; result "failed: hcbsd did not start"; }

. /demo/session.sh
demo_basics
demo_hcbs

printf '\n\033[1mhcbsd'"'"'s log\033[0m\n'
cat /tmp/hcbsd.log
kill "$DAEMON" && wait "$DAEMON"
result ok
