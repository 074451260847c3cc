#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hcbs-oci-hook's own file and its words, against fake-hcbsd (which admits
# every ReserveCgroup) on a private dbus-daemon: the state file release
# reads is written whole (a temporary file renamed over it, none left
# behind) or the reserve fails, naming the file; a state file the hook did
# not write whole is refused by release; and what a container's author
# wrote reaches the terminal escaped (ESC, newlines), on stderr and with
# --to-engine on the parent's. Needs dbus-daemon; no root, no cgroups.
#
# usage: test-oci-hook-files.sh HOOK FAKE_HCBSD BUS_CONF
set -u
HOOK=${1:?usage: test-oci-hook-files.sh HOOK FAKE_HCBSD BUS_CONF}
FAKE=${2:?}
CONF=${3:?}
# shellcheck source=tests/unit/private-bus.sh
. "$(dirname "$0")/private-bus.sh"
private_bus "$CONF"
DBUS_SYSTEM_BUS_ADDRESS=$ADDR "$FAKE" right >"$T/fake.out" 2>&1 &
FAKE_PID=$!
for _ in $(seq 100); do
        grep -q ready "$T/fake.out" && break
        sleep 0.05
done
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
        echo "FAIL: $1"
        shift
        printf '    %s\n' "$@"
        fail=$((fail + 1))
}

ID=0123456789abcdef
ASK='"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms"'
state() { # ANNOTATIONS-JSON
        printf '{"ociVersion": "1.0.2", "id": "%s", "status": "creating", "pid": %s, "bundle": "%s", "annotations": {%s}}' \
                "$ID" "$$" "$T" "$1" >"$T/state.json"
}
hook() { # STATE-DIR ARGS...
        local dir=$1
        shift
        "$HOOK" --bus-address "$ADDR" --state-dir "$dir" "$@" <"$T/state.json" >"$T/out" 2>"$T/err"
}

# --- the state file: whole, or the container does not run --------------------
state "$ASK"
if hook "$T/hook" reserve; then ok; else bad "reserve against an hcbsd that admits it" "$(cat "$T/err")"; fi
if [ -f "$T/hook/$ID" ] && [ "$(cat "$T/hook/$ID")" = "$(sed -n 's|^0::/||p' /proc/$$/cgroup)" ]; then ok; else
        bad "the state file holds the cgroup" "$(cat "$T/hook/$ID" 2>&1)"; fi
if [ "$(ls -A "$T/hook" | wc -l)" -eq 1 ]; then ok; else bad "no temporary file is left" "$(ls -A "$T/hook")"; fi
if hook "$T/hook" release && [ ! -e "$T/hook/$ID" ]; then ok; else bad "release uses it and removes it" "$(cat "$T/err")"; fi

: >"$T/notadir"
if hook "$T/notadir/hook" reserve; then
        bad "a state file that cannot be written fails the reserve (it succeeded)"
elif grep -q "^hcbs-oci-hook: container ${ID:0:12}: cannot record its reservation for the release in $T/notadir/hook" "$T/err"; then
        ok
else
        bad "a state file that cannot be written is named" "$(cat "$T/err")"
fi

mkdir -p "$T/torn"
printf 'hcbs.slice/libpod-x.sc' >"$T/torn/$ID"
if ! hook "$T/torn" release && grep -q "is not one line this hook wrote" "$T/err"; then ok; else
        bad "release refuses a state file cut short" "$(cat "$T/err")"; fi

# --- what the container's author wrote is escaped -----------------------------
state '"org.hcbsd1.runtime": "2ms", "org.hcbsd1.period": "10ms", "org.hcbsd1.policy": "\u001b[2J\u001b[31mfifo\nforged: line"'
hook "$T/hook" reserve
if [ "$(wc -l <"$T/err")" -eq 1 ] && ! grep -q $'\x1b' "$T/err" && grep -q '\\x1b\[2J\\x1b\[31mfifo\\x0aforged' "$T/err"; then
        ok
else
        bad "an annotation's ESC and newline reach stderr escaped, on one line" "$(od -c "$T/err" | head -5)"
fi
# --to-engine: the parent's stderr (a terminal, for podman run) gets the same escaped line
bash -c '"$1" --bus-address "$2" --state-dir "$3" --to-engine reserve <"$4" 2>/dev/null; exit 0' bash "$HOOK" "$ADDR" \
        "$T/hook" "$T/state.json" 2>"$T/engine"
if [ "$(wc -l <"$T/engine")" -eq 1 ] && ! grep -q $'\x1b' "$T/engine" && grep -q '\\x1b\[2J' "$T/engine"; then
        ok
else
        bad "--to-engine: the parent's stderr gets the escaped line" "$(od -c "$T/engine" | head -5)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
