# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sourced by the unit suites that run against fake-hcbsd on a private
# dbus-daemon (test-ctl-replies.sh, test-oci-hook-files.sh): private_bus
# CONF skips (exit 77) without dbus-daemon, else makes the scratch directory
# T, starts the bus there (BUS_PID, ADDR) and removes both, and fake-hcbsd
# (FAKE_PID, when the suite starts it), at exit.

T= BUS_PID= FAKE_PID= ADDR=

private_bus_cleanup() {
        [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
        [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

private_bus() {
        local out
        if ! command -v dbus-daemon >/dev/null; then
                echo "SKIP: dbus-daemon is not installed"
                exit 77
        fi
        T=$(mktemp -d) || exit 1
        trap private_bus_cleanup EXIT
        out=$(dbus-daemon --config-file="$1" --address="unix:path=$T/bus" --fork --print-pid 2>"$T/bus.log") || {
                echo "FAIL: cannot start dbus-daemon: $(cat "$T/bus.log")"
                exit 1
        }
        BUS_PID=$(printf '%s' "$out" | head -n 1)
        ADDR="unix:path=$T/bus"
}
