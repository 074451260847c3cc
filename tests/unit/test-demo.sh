#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/demo/demo.sh's choice of where the demo runs, with a stand-in for
# the qemu harness (HCBS_DEMO_HARNESS): on a kernel without an RT group
# interface (a fixture of tests/fixtures/kernel/ through HCBS_KERNEL_ROOT,
# read by the real hcbsd --check-kernel) it says so first, with hcbsd's
# verdict, and boots the HCBS kernel; KERNEL=hcbs goes there at once; any
# other KERNEL is refused. The session itself is not run here (no cgroup is
# touched): make demo runs it, on the host and under qemu.
#
# usage: test-demo.sh BUILD_DIR SOURCE_ROOT
set -u
BUILD=${1:?usage: test-demo.sh BUILD_DIR SOURCE_ROOT}
SRC=${2:?}
if [ "$(id -u)" != 0 ]; then
        echo "SKIP: test-demo: demo.sh runs as root only"
        exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/harness" <<'STUB'
#!/bin/sh
echo "harness: $* KERNEL=$KERNEL HCBS_KERNEL_ROOT=${HCBS_KERNEL_ROOT-unset} BINS=$HCBS_GUEST_BINS"
STUB
chmod +x "$T/harness"
fail=0 pass=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; printf '    %s\n' "$2"; fail=1; }

for c in none-config:none switch-off-cmdline:switch-off mainline-v1-only:mainline-v1-only; do
        fixture=${c%%:*} mode=${c#*:}
        out=$(HCBS_KERNEL_ROOT=$SRC/tests/fixtures/kernel/$fixture HCBS_DEMO_HARNESS=$T/harness DEMO_KERNEL= \
                "$SRC/tests/demo/demo.sh" "$BUILD" 2>&1)
        rc=$?
        first=$(printf '%s\n' "$out" | grep -v '^=*$' | head -n 1)
        last=$(printf '%s\n' "$out" | tail -n 1)
        [ "$rc" = 0 ] && [[ $first == *"this machine's kernel has no RT group interface"* ]] &&
                grep -q "^   Mode: *$mode\$" <<<"$out" &&
                [[ $last == "harness: demo KERNEL=hcbs HCBS_KERNEL_ROOT=unset BINS=$BUILD/daemon/hcbsd "* ]] &&
                ok "$fixture: says so first, with hcbsd's verdict ($mode), then boots KERNEL=hcbs under qemu" ||
                bad "$fixture: says so first, then boots KERNEL=hcbs" "exit $rc: $out"
done
out=$(HCBS_DEMO_HARNESS=$T/harness DEMO_KERNEL=hcbs6 "$SRC/tests/demo/demo.sh" "$BUILD" 2>&1)
[ $? = 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'no RT group interface')" = 0 ] &&
        [[ $out == *"harness: demo KERNEL=hcbs6 "* ]] && ok "KERNEL=hcbs6: under qemu at once" ||
        bad "KERNEL=hcbs6: under qemu at once" "$out"
out=$(HCBS_DEMO_HARNESS=$T/harness DEMO_KERNEL=v2 "$SRC/tests/demo/demo.sh" "$BUILD" 2>&1)
rc=$?
[ "$rc" = 2 ] && [[ $out == *"KERNEL=v2: the HCBS session needs KERNEL=hcbs"* ]] && ok "KERNEL=v2 is refused (exit 2)" ||
        bad "KERNEL=v2 is refused (exit 2)" "exit $rc: $out"
echo "$pass passed, $fail failed"
exit "$fail"
